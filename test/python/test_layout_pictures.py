"""Layout pictures: fx.layout_text, fx.layout_svg, fx.utils.print_typst and
`flydsl layout` (--svg, --typst, --tiled-copy, --tiled-mma).

Every expected index and thread/value label is computed here by hand from
the layout's formula (a stride dot product, CuTe's swizzle bit formula,
the thread and value order of make_tiled_copy_tv, AMD's MFMA register
layout); every expected colour from the palette rule the module documents.
The SVG is rendered by rsvg-convert and its pixels read back with the PNG
decoder below; the Typst output is compared cell by cell with what FlyDSL
0.4.2's print_typst draws for the same layouts (data/typst_flydsl_0.4.2.json,
made by data/typst_flydsl_0.4.2.py)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest

import flydsl.expr as fx
from flydsl.tracing.errors import FlyDSLError
from flydsl.tracing.trace import Trace
from conftest import marker_lines

import typst_cells

HERE = Path(__file__).resolve().parent
FLYDSL_TYPST = json.loads((HERE / "data" / "typst_flydsl_0.4.2.json").read_text())
LINES = marker_lines(__file__)

# The palettes as the module's documentation states them.
GREYS = ["#ffffff", "#999999", "#cccccc", "#666666", "#e5e5e5", "#808080", "#b2b2b2", "#4c4c4c"]
PASTELS = ["#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2"]

RSVG = shutil.which("rsvg-convert")


# -- hand-computed layouts -------------------------------------------------------------

def swizzle(x, bits, base, shift):
    """CuTe's Swizzle<bits, base, shift>: the bits [base+shift, base+shift+bits)
    of x xor-ed into [base, base+bits)."""
    mask = ((1 << bits) - 1) << (base + shift)
    return x ^ ((x & mask) >> shift)


def copy_label(m, c):
    """make_tiled_copy_tv(atom, (4,8) threads in order (1,0), (1,4) values):
    thread t sits at row t // 8, column block t % 8 of four values; the
    tile is 4 x 32."""
    return 8 * m + c // 4, c % 4


def mfma16_c_label(m, n):
    """C of mfma 16x16x16 f16 (AMD CDNA3 ISA, dense 16x16 layout: lane l
    holds rows 4*(l//16) .. +3 of column l % 16) tiled over atoms
    (2,2,1):(1,2,0) (atom am + 2*an owns threads 64*atom ..)."""
    am, an, r, c = m // 16, n // 16, m % 16, n % 16
    return c + 16 * (r // 4) + 64 * (am + 2 * an), r % 4


# -- PNG and SVG reading -----------------------------------------------------------------

def read_png(path) -> np.ndarray:
    """An 8-bit RGB / RGBA non-interlaced PNG as an (h, w, channels) array."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and colour_type in (2, 6) and interlace == 0
    bpp = 4 if colour_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = np.zeros((h, stride), np.int64)
    prev = np.zeros(stride, np.int64)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if ftype == 0:
            cur = line
        elif ftype == 1:
            cur = np.cumsum(line.reshape(w, bpp), axis=0).reshape(-1) % 256
        elif ftype == 2:
            cur = (line + prev) % 256
        else:
            cur = np.zeros(stride, np.int64)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if ftype == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pred) % 256
        out[y] = cur
        prev = cur
    return out.reshape(h, w, bpp)


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


class SvgGrids:
    """The grids of a picture by title: each cell's box from the grid's
    declared origin and pitch, and the text whose anchor falls inside it."""

    def __init__(self, svg: str):
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        self.grids = {}
        for g in root.iter(f"{ns}g"):
            if g.get("class") != "grid":
                continue
            geo = {k: float(g.get(f"data-{k}")) for k in ("x", "y", "cell-width", "cell-height")}
            texts = [(float(t.get("x")), float(t.get("y")), "".join(t.itertext()))
                     for t in g.iter(f"{ns}text") if t.get("class") == "cell"]
            self.grids[g.get("data-title")] = (geo, int(g.get("data-rows")), int(g.get("data-cols")),
                                               texts)

    def box(self, title, r, c):
        geo = self.grids[title][0]
        x, y = geo["x"] + c * geo["cell-width"], geo["y"] + r * geo["cell-height"]
        return x, y, geo["cell-width"], geo["cell-height"]

    def text(self, title, r, c) -> str:
        x, y, w, h = self.box(title, r, c)
        inside = [s for tx, ty, s in self.grids[title][3] if x < tx < x + w and y < ty < y + h]
        assert len(inside) == 1, (title, r, c, inside)
        return inside[0]


def render(svg_path, tmp_path) -> np.ndarray:
    assert RSVG, "rsvg-convert is missing: install librsvg2-bin (scripts/setup.sh)"
    png = tmp_path / (Path(svg_path).stem + ".png")
    subprocess.run([RSVG, "--zoom=1", str(svg_path), "-o", str(png)], check=True)
    return read_png(png)


def pixel_in_cell(image, grids, title, r, c):
    """The colour a few pixels inside the cell's top-left corner (clear of
    the border and of the centred label)."""
    x, y, _, _ = grids.box(title, r, c)
    return tuple(int(v) for v in image[int(y) + 3, int(x) + 3, :3])


# -- layouts ---------------------------------------------------------------------------------

def test_layout_svg_pixels_and_labels(tmp_path):
    path = tmp_path / "layout.svg"
    svg = fx.layout_svg("(4,8):(1,4)", str(path))
    assert path.read_text() == svg
    grids = SvgGrids(svg)
    assert grids.grids["Layout"][1:3] == (4, 8)
    image = render(path, tmp_path)
    for k in range(32):
        i, j = k % 4, k // 4  # k = i*1 + j*4
        assert grids.text("Layout", i, j) == str(k)
        assert pixel_in_cell(image, grids, "Layout", i, j) == rgb(GREYS[k % 8]), k


def test_swizzled_layout_svg(tmp_path):
    path = tmp_path / "swizzle.svg"
    svg = fx.layout_svg("S<3,3,3> o (8,64):(64,1)", str(path))
    grids = SvgGrids(svg)
    image = render(path, tmp_path)
    for i in range(8):
        for j in range(64):
            k = swizzle(64 * i + j, 3, 3, 3)
            assert grids.text("Layout", i, j) == str(k), (i, j)
    # Cells where the swizzle moved the index, and some where it did not.
    for i, j in [(0, 0), (1, 0), (1, 8), (3, 17), (7, 63), (5, 40)]:
        k = swizzle(64 * i + j, 3, 3, 3)
        assert pixel_in_cell(image, grids, "Layout", i, j) == rgb(GREYS[k % 8]), (i, j, k)
    assert swizzle(64 * 1 + 0, 3, 3, 3) == 72  # the formula moves row 1


def test_layout_text_numbers():
    lines = fx.layout_text("(4,8):(1,4)").splitlines()
    assert lines[0] == "Layout<(4,8):(1,4)>"
    assert [int(x) for x in lines[1].split()] == list(range(8))
    for i in range(4):
        head, cells = lines[2 + i].split("|")
        assert int(head) == i
        assert [int(x) for x in cells.split()] == [i + 4 * j for j in range(8)]
    # A nested mode: its coordinate is split colexicographically.
    lines = fx.layout_text("((2,2),4):((1,8),2)").splitlines()
    for i in range(4):
        cells = [int(x) for x in lines[2 + i].split("|")[1].split()]
        assert cells == [(i % 2) * 1 + (i // 2) * 8 + 2 * j for j in range(4)]
    # Rank 1: one row, no numbering; a shape alone is its compact layout.
    assert fx.layout_text("8:3").splitlines()[1].split() == [str(3 * j) for j in range(8)]
    lines = fx.layout_text("(2,3)").splitlines()
    assert lines[0] == "Layout<(2,3):(1,2)>"
    assert [int(x) for x in lines[3].split("|")[1].split()] == [1, 3, 5]


def test_layout_text_colour_is_by_index():
    out = fx.layout_text("(2,4):(4,1)", color=True)
    row = out.splitlines()[2]
    codes = [31, 32, 33, 34, 35, 36]
    for j in range(4):
        assert f"\x1b[{codes[j % 6]}m" + str(j).rjust(1) + "\x1b[0m" in row


def _trace():
    trace = Trace()
    trace.arch = "gfx942"
    return trace


def test_static_values_of_a_trace_and_types():
    with _trace().activate():
        Trace.current().builder.push_block()
        layout = fx.make_layout((4, 8), (1, 4))
        swz = fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 3, 3)),
                                      fx.make_layout((8, 64), (64, 1)))
        in_trace = fx.layout_text(layout), fx.layout_text(swz)
    assert in_trace[0] == fx.layout_text("(4,8):(1,4)")
    assert in_trace[1] == fx.layout_text("S<3,3,3> o 0 o (8,64):(64,1)")
    assert fx.layout_text(fx.LayoutType.get((4, 8), (1, 4))) == in_trace[0]
    # FlyDSL's printed forms read back.
    assert fx.layout_text("Layout<(4,8):(1,4)>") == in_trace[0]
    assert fx.layout_text("ComposedLayout<S<3,3,3> o 0 o (8,64):(64,1)>") == in_trace[1]


# -- thread-value layouts ---------------------------------------------------------------------

def _tiled_copy():
    """make_tiled_copy_tv with a (4,8) thread layout in order (1,0) and
    (1,4) values, made in a trace: the type of the static value."""
    with _trace().activate():
        Trace.current().builder.push_block()
        atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        tiled = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((4, 8), (1, 0)),
                                      fx.make_layout((1, 4), (1, 1)))
        return tiled, fx.layout_svg(tiled), fx.layout_text(tiled)


def test_tiled_copy_svg_and_text(tmp_path):
    tiled, svg, text = _tiled_copy()
    grids = SvgGrids(svg)
    for title in ("Src (M x N)", "Dst (M x N)"):
        assert grids.grids[title][1:3] == (4, 32)
        for m in range(4):
            for c in range(32):
                t, v = copy_label(m, c)
                assert grids.text(title, m, c) == f"T{t}V{v}", (title, m, c)
    path = tmp_path / "copy.svg"
    path.write_text(svg)
    image = render(path, tmp_path)
    for m, c in [(0, 0), (0, 5), (1, 9), (2, 30), (3, 31), (3, 16)]:
        t, _ = copy_label(m, c)
        for title in ("Src (M x N)", "Dst (M x N)"):
            assert pixel_in_cell(image, grids, title, m, c) == rgb(PASTELS[t % 8]), (m, c)
    # The text grid: T<thread>V<value> under column numbers.
    lines = text.splitlines()
    start = lines.index("Src (M x N)")
    assert [int(x) for x in lines[start + 1].split()] == list(range(32))
    for m in range(4):
        cells = lines[start + 2 + m].split("|")[1].split()
        assert cells == ["T%dV%d" % copy_label(m, c) for c in range(32)]


def test_tiled_mma_text_c_is_amds_mfma_layout():
    text = fx.layout_text("!fly.tiled_mma<!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, "
                          "(f16, f16) -> f32>>, (2,2,1):(1,2,0)>")
    lines = text.splitlines()
    start = lines.index("C (M x N)")
    for m in range(32):
        cells = lines[start + 2 + m].split("|")[1].split()
        assert cells == ["T%dV%d" % mfma16_c_label(m, n) for n in range(32)], m


def test_mma_svg_places_b_over_c_and_a_left_of_c():
    svg = fx.layout_svg("!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>")
    grids = SvgGrids(svg)
    a, b, c = (grids.grids[t][0] for t in ("A (M x K)", "B (K x N)", "C (M x N)"))
    assert b["x"] == c["x"] and b["y"] < c["y"]  # B's columns are C's
    assert a["y"] == c["y"] and a["x"] < c["x"]  # A's rows are C's
    for m in range(16):
        for n in range(16):
            t, v = mfma16_c_label(m, n)
            assert grids.text("C (M x N)", m, n) == f"T{t}V{v}"


# -- Typst, against FlyDSL 0.4.2 -----------------------------------------------------------

def _ours(name, tmp_path):
    case = FLYDSL_TYPST["cases"][name]
    if name == "tiled_copy":
        arg = _tiled_copy()[0].ir.type
    elif name == "tiled_mma":
        arg = ("!fly.tiled_mma<!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>, "
               "(2,2,1):(1,2,0)>")
    else:
        arg = case["printed"]  # Layout<...> / ComposedLayout<...>, as FlyDSL prints it
    path = tmp_path / f"{name}.typ"
    fx.utils.print_typst(arg, file=str(path))
    return path.read_text()


@pytest.mark.parametrize("name", sorted(FLYDSL_TYPST["cases"]))
def test_typst_cells_match_flydsl(name, tmp_path):
    theirs = FLYDSL_TYPST["cases"][name]["grids"]
    ours = typst_cells.grids(_ours(name, tmp_path))
    assert [(g["title"], g["columns"]) for g in ours] == [(g["title"], g["columns"]) for g in theirs]
    for mine, flydsl in zip(ours, theirs):
        assert [tuple(c) for c in mine["cells"]] == [tuple(c) for c in flydsl["cells"]], mine["title"]


def test_typst_layout_cells_are_the_indices(tmp_path):
    (grid,) = typst_cells.grids(_ours("layout", tmp_path))
    # Row-major cells of the 4 x 8 grid of (4,8):(1,4).
    assert [int(c) for _, c in grid["cells"]] == [i + 4 * j for i in range(4) for j in range(8)]
    assert [f for f, _ in grid["cells"]] == [GREYS[(i + 4 * j) % 8] for i in range(4) for j in range(8)]


def test_print_typst_appends_pages(tmp_path, capsys):
    path = tmp_path / "two.typ"
    fx.utils.print_typst("(2,2):(1,2)", file=str(path))
    fx.utils.print_typst("(2,2):(2,1)", file=str(path), color=lambda i: "#123456")
    text = path.read_text()
    assert text.count("#set page") == 1 and text.count("#pagebreak()") == 1
    second = typst_cells.grids(text)[1]
    assert second["cells"] == [("#123456", "0"), ("#123456", "1"), ("#123456", "2"), ("#123456", "3")]
    fx.utils.print_typst("(2,2):(1,2)")
    assert capsys.readouterr().out.startswith("#set page")


# -- errors -----------------------------------------------------------------------------------------

def test_bad_input_is_a_located_error():
    with pytest.raises(FlyDSLError) as e:
        fx.layout_svg("(4,8):(1,4,3)")  # L:bad_text
    assert e.value.lineno == LINES["bad_text"] and "congruent" in str(e.value)
    with pytest.raises(FlyDSLError) as e:
        fx.layout_text("(2,2,2):(1,2,4)")  # L:rank3
    assert e.value.lineno == LINES["rank3"] and "rank 3" in str(e.value)
    with pytest.raises(FlyDSLError) as e:
        fx.layout_text(3.5)  # L:not_layout
    assert e.value.lineno == LINES["not_layout"] and "float" in str(e.value)
    with pytest.raises(FlyDSLError) as e:
        fx.layout_text("(?,4):(1,?)")  # L:dynamic
    assert e.value.lineno == LINES["dynamic"] and "not static" in str(e.value)


# -- the flydsl command ---------------------------------------------------------------------------

def run(*argv):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "flydsl", "layout", *argv], capture_output=True,
                          text=True, env=env)


def test_cli_svg_and_typst(tmp_path):
    svg, typ = tmp_path / "l.svg", tmp_path / "l.typ"
    r = run("(4,8):(1,4)", "--svg", str(svg), "--typst", str(typ))
    assert r.returncode == 0, r.stderr
    grids = SvgGrids(svg.read_text())
    for k in range(32):
        assert grids.text("Layout", k % 4, k // 4) == str(k)
    (grid,) = typst_cells.grids(typ.read_text())
    assert [int(c) for _, c in grid["cells"]] == [i + 4 * j for i in range(4) for j in range(8)]
    # Writing again makes a new document, not a second page.
    assert run("(4,8):(1,4)", "--typst", str(typ)).returncode == 0
    assert "#pagebreak" not in typ.read_text()


def test_cli_tiled_copy():
    r = run("--tiled-copy", "(4,8):(8,1)", "(1,4)")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    start = lines.index("Src (M x N)")
    for m in range(4):
        assert lines[start + 2 + m].split("|")[1].split() == ["T%dV%d" % copy_label(m, c)
                                                             for c in range(32)]


def test_cli_tiled_mma():
    r = run("--tiled-mma", "mfma 16x16x16 f16", "--atom-layout", "(2,2,1)", "--arch", "gfx942")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    start = lines.index("C (M x N)")
    for m in range(32):
        assert lines[start + 2 + m].split("|")[1].split() == ["T%dV%d" % mfma16_c_label(m, n)
                                                             for n in range(32)]
    # A universal FMA tiled (4,2,1): thread t computes C[t % 4, t // 4].
    r = run("--tiled-mma", "fma f32", "--atom-layout", "(4,2,1)")
    lines = r.stdout.splitlines()
    start = lines.index("C (M x N)")
    for m in range(4):
        assert lines[start + 2 + m].split("|")[1].split() == [f"T{m + 4 * n}V0" for n in range(2)]


@pytest.mark.parametrize("argv,message", [
    (["(4,8):(1,4,3)"], "congruent"),
    ([], "give one of"),
    (["(2,2)", "--tiled-mma", "fma f32"], "both LAYOUT and --tiled-mma"),
    (["--tiled-mma", "mfma 16x16x16 f16", "--arch", "gfx1100"], "not available on gfx1100"),
    (["--tiled-mma", "mfma 4x4x4 f16"], "no MFMA has this shape"),
    (["--tiled-mma", "wmma 16x16x16 f16"], "--arch"),
    (["--tiled-mma", "mfma f16"], "expected 'mfma MxNxK"),
    (["--tiled-mma", "fma f32", "--arch", "gfx9999"], "unknown chip"),
    (["--tiled-copy", "(4,8):(8,1)", "(1,4):(1,1,1)"], "congruent"),
    (["(4,8)", "--svg", "/nonexistent-dir/x.svg"], "cannot write"),
])
def test_cli_errors(argv, message):
    r = run(*argv)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("flydsl layout: error: ")


def test_cli_help_documents_the_syntax():
    r = run("--help")
    assert r.returncode == 0
    for word in ("--tiled-copy", "--tiled-mma", "--atom-layout", "--svg", "--typst", "S<3,3,3>"):
        assert word in r.stdout
