"""`flydsl layout`: a layout, a swizzled layout, or the thread-value
layouts of a tiled copy or a tiled MMA, drawn as text (and as SVG or Typst
files) by the pictures of fx (flydsl.expr._draw), whose cells the
compiler's algebra computes."""

from __future__ import annotations

import argparse
import os
import re
import sys

DESCRIPTION = """\
Draw a layout as a grid: rows are its first mode, columns its second, each
cell the index the coordinate maps to. LAYOUT is a layout in the type syntax,
shape:stride, e.g. "(4,8):(1,4)" (a shape alone is its compact layout), a
swizzled layout "S<3,3,3> o (8,64):(64,1)", or any static type text such as
"!fly.tiled_copy<...>" or "!fly.tiled_mma<...>".

Thread-value (TV) layouts, each cell T<thread>V<value>:
  --tiled-copy THR VAL   the tiled copy of a thread layout and a value layout
                         (fx.make_tiled_copy_tv), e.g.
                         --tiled-copy "(4,8):(8,1)" "(1,4)"; its atom is a
                         universal copy of --copy-bits over --elem-bits values
  --tiled-mma "KIND MxNxK TYPE [-> ACC]"
                         the MMA of an instruction, KIND mfma, wmma or fma,
                         tiled over --atom-layout, e.g.
                         --tiled-mma "mfma 16x16x16 f16" --atom-layout "(2,2,1)"
                         --tiled-mma "wmma 16x16x16 f16 -> f32" --arch gfx1100
                         --tiled-mma "fma f32" --atom-layout "(8,8,1)"

Pictures: --svg FILE writes an SVG, --typst FILE a Typst document (as
fx.layout_svg and fx.utils.print_typst); the text grid is printed in any case.
"""


class LayoutError(Exception):
    """A layout argument the compiler rejects: the message to print."""


def add_parser(sub, func):
    lay = sub.add_parser("layout", help="draw a layout or the TV layouts of a tiled copy / MMA",
                         description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    lay.add_argument("layout", nargs="?", metavar="LAYOUT",
                     help="a layout (shape:stride), a swizzled layout or a static type text")
    what = lay.add_argument_group("thread-value layouts")
    what.add_argument("--tiled-copy", nargs=2, metavar=("THR", "VAL"),
                      help="thread layout and value layout of a tiled copy")
    what.add_argument("--copy-bits", type=int, metavar="BITS",
                      help="bits one copy moves (default: --elem-bits)")
    what.add_argument("--elem-bits", type=int, default=32, metavar="BITS",
                      help="bits of one value (default 32)")
    what.add_argument("--tiled-mma", metavar="'KIND MxNxK TYPE [-> ACC]'",
                      help="the MMA instruction: KIND mfma, wmma or fma")
    what.add_argument("--atom-layout", default="(1,1,1)", metavar="LAYOUT",
                      help="the (M,N,K) layout of MMA atoms (default (1,1,1))")
    what.add_argument("--arch", metavar="CHIP",
                      help="the chip the MMA is for (wmma: required unless ARCH is set; "
                           "mfma: checked to have it)")
    out = lay.add_argument_group("pictures")
    out.add_argument("--svg", metavar="FILE", help="write the picture as SVG (replacing FILE)")
    out.add_argument("--typst", metavar="FILE",
                     help="write the picture as a Typst document (replacing FILE)")
    lay.set_defaults(func=func)
    return lay


def _message(err) -> str:
    """A FlyDSL error's message without the `file:line: fx.api: ` the API
    adds for code (the command line is the user's source here)."""
    text = getattr(err, "bare_message", str(err))
    return re.sub(r"^fx\.[\w.]+: ", "", text)


def _tiled_copy(thr_text, val_text, copy_bits, elem_bits):
    from flydsl import _fly
    from flydsl.expr._draw import subject_type
    thr = subject_type("layout", thr_text)
    val = subject_type("layout", val_text)
    if thr.kind != "layout" or val.kind != "layout":
        raise LayoutError("--tiled-copy takes two plain layouts (a thread and a value layout)")
    copy_bits = copy_bits or elem_bits
    try:
        atom = _fly.parse_type(f"!fly.copy_atom<!fly.universal_copy<{copy_bits}>, {elem_bits}>")
        tile, layout_tv = _fly.infer("fly.make_layout_tv", [thr, val])
        (tiled,) = _fly.infer("fly.make_tiled_copy", [atom, layout_tv, tile])
    except _fly.Error as err:
        raise LayoutError(f"--tiled-copy {thr_text!r} {val_text!r} (--copy-bits {copy_bits}, "
                          f"--elem-bits {elem_bits}): {err}") from None
    return tiled


_MMA = re.compile(r"\s*(?P<kind>mfma|wmma|fma)\s+(?:(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)\s+)?"
                  r"(?P<ab>\w+)\s*(?:->\s*(?P<acc>\w+))?\s*$")


def _mma_op(text, arch):
    from flydsl import _fly
    m = _MMA.fullmatch(text)
    if not m or (m["kind"] != "fma") != (m["m"] is not None):
        raise LayoutError(f"--tiled-mma {text!r}: expected 'mfma MxNxK TYPE [-> ACC]', "
                          "'wmma MxNxK TYPE [-> ACC]' or 'fma TYPE', e.g. 'mfma 16x16x16 f16'")
    try:
        ab = _fly.parse_type(m["ab"])
        acc = None if m["acc"] is None else _fly.parse_type(m["acc"])
    except _fly.Error as err:
        raise LayoutError(f"--tiled-mma {text!r}: {err}") from None
    if m["kind"] == "fma":
        return _fly.parse_type(f"!fly.universal_fma<{ab}>")
    shape = int(m["m"]), int(m["n"]), int(m["k"])
    if m["kind"] == "mfma":
        from flydsl.expr.rocdl import MFMA
        return MFMA(*shape, ab, acc).handle
    from flydsl.expr.rocdl import WMMA
    from flydsl.tracing.trace import Trace
    trace = Trace()
    trace.arch = arch or os.environ.get("ARCH")
    if not trace.arch:
        raise LayoutError(f"--tiled-mma {text!r}: a WMMA is the chip's; name it with --arch "
                          "(e.g. --arch gfx1100)")
    with trace.activate():
        return WMMA(*shape, ab, acc).handle


def _tiled_mma(text, atom_layout_text, arch):
    from flydsl import _fly
    from flydsl.expr._draw import subject_type
    if arch is not None and arch not in _fly.supported_chips():
        raise LayoutError(f"unknown chip {arch!r}; supported chips: "
                          f"{', '.join(_fly.supported_chips())}")
    op = _mma_op(text, arch)
    atom_layout = subject_type("layout", atom_layout_text)
    try:
        atom = _fly.parse_type(f"!fly.mma_atom<{op}>")
        (tiled,) = _fly.infer("fly.make_tiled_mma", [atom, atom_layout])
    except _fly.Error as err:
        raise LayoutError(f"--tiled-mma {text!r} --atom-layout {atom_layout_text!r}: {err}") from None
    if arch is not None:
        missing = _fly.atom_unavailable(tiled, arch)
        if missing:
            raise LayoutError(missing)
    return tiled


def _subject(args):
    """The type to draw, from the arguments."""
    from flydsl.expr._draw import subject_type
    given = [name for name, v in (("LAYOUT", args.layout), ("--tiled-copy", args.tiled_copy),
                                  ("--tiled-mma", args.tiled_mma)) if v is not None]
    if len(given) != 1:
        got = ("none" if not given else "both " + " and ".join(given) if len(given) == 2
               else ", ".join(given))
        raise LayoutError(f"give one of LAYOUT, --tiled-copy THR VAL or --tiled-mma "
                          f"'KIND MxNxK TYPE' ({got} given)")
    if args.tiled_copy:
        return _tiled_copy(*args.tiled_copy, args.copy_bits, args.elem_bits)
    if args.tiled_mma:
        return _tiled_mma(args.tiled_mma, args.atom_layout, args.arch)
    return subject_type("layout", args.layout)


def run(args) -> int:
    """The layout verb: 0, or 2 with the error on stderr."""
    from flydsl.expr import _draw
    from flydsl.expr.utils import print_typst
    from flydsl.tracing.errors import FlyDSLError
    try:
        subject = _subject(args)
        sys.stdout.write(_draw.layout_text(
            subject, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
        if args.svg:
            _draw.layout_svg(subject, args.svg)
        if args.typst:
            if os.path.exists(args.typst):
                os.remove(args.typst)  # a new document, not another page
            print_typst(subject, file=args.typst)
    except (LayoutError, FlyDSLError) as err:
        print(f"flydsl layout: error: {_message(err)}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"flydsl layout: error: {err.filename}: {err.strerror}", file=sys.stderr)
        return 2
    return 0
