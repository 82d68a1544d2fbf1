"""Parse and print the textual forms of Fly types (SPEC §2.1, §2.2).

The tests use this module in both directions: to spell random inputs as
`!fly.*` types, and to read back the result types that `fly-opt` prints, as
pycute objects that can be evaluated.

Value model (close to pycute's conventions):
  * static leaf        -> Python int
  * `*` (none leaf)    -> None          (pycute uses None for `_`)
  * `?`, `?{i64 div=8}` -> Dyn(wide, div)
  * `2E1E0`, `?E1`     -> Basis(value, path)   value: int or Dyn
  * tuples             -> Python tuples
  * layouts            -> pycute.Layout
  * swizzles           -> pycute.Swizzle
  * composed layouts   -> pycute.ComposedLayout(inner, offset, outer)
  * tiles              -> Tile(modes); a mode is int | None | Layout | Tile

The parser is strict: it is also the validity oracle of the type fuzz test,
so it rejects everything the SPEC grammar does not produce.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Union

import pycute

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Dyn:
    """A dynamic leaf: `?` (i32) or `?{i64}`, optionally with a divisor."""

    wide: bool = False
    div: int = 1

    def __str__(self) -> str:
        attrs = []
        if self.wide:
            attrs.append("i64")
        if self.div != 1:
            attrs.append(f"div={self.div}")
        return "?" if not attrs else "?{" + " ".join(attrs) + "}"


@dataclass(frozen=True)
class Basis:
    """A scaled basis element: value times the unit vector along `path`."""

    value: Union[int, Dyn]
    path: tuple

    def __str__(self) -> str:
        return str(self.value) + "".join(f"E{m}" for m in self.path)

    def __neg__(self) -> "Basis":
        return Basis(-self.value, self.path)


@dataclass(frozen=True)
class Tile:
    """A by-mode tiler `[a|b|...]`."""

    modes: tuple


class TypeSyntaxError(ValueError):
    pass


# ----------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------

_PLAIN_REPR = re.compile(r"^[-0-9(), ]*$")


def fmt_tuple(t) -> str:
    if type(t) is int:
        return str(t)
    if type(t) is tuple:
        s = str(t)  # fast path for plain int tuples
        if "," + ")" not in s and _PLAIN_REPR.match(s):
            return s.replace(" ", "")
    if isinstance(t, tuple):
        return "(" + ",".join(fmt_tuple(e) for e in t) + ")"
    if t is None:
        return "*"
    if isinstance(t, bool):
        raise TypeError("bool is not an int tuple leaf")
    return str(t)


def fmt_layout(layout: pycute.Layout) -> str:
    return f"{fmt_tuple(layout.shape)}:{fmt_tuple(layout.stride)}"


def fmt_swizzle(sw: pycute.Swizzle) -> str:
    return f"S<{sw.bits},{sw.base},{sw.shift}>"


def fmt_composed(cl: pycute.ComposedLayout) -> str:
    inner = cl.layoutB
    inner_s = fmt_swizzle(inner) if isinstance(inner, pycute.Swizzle) else fmt_layout(inner)
    return f"{inner_s} o {fmt_tuple(cl.offset)} o {fmt_layout(cl.layoutA)}"


def fmt_tile_mode(m) -> str:
    if m is None:
        return "*"
    if isinstance(m, Tile):
        return fmt_tile_body(m)
    if isinstance(m, pycute.Layout):
        return fmt_layout(m)
    return str(m)


def fmt_tile_body(tile: Tile) -> str:
    return "[" + "|".join(fmt_tile_mode(m) for m in tile.modes) + "]"


def int_tuple_type(t) -> str:
    return f"!fly.int_tuple<{fmt_tuple(t)}>"


def layout_type(layout) -> str:
    return f"!fly.layout<{fmt_layout(layout)}>"


def swizzle_type(sw) -> str:
    return f"!fly.swizzle<{fmt_swizzle(sw)}>"


def composed_type(cl) -> str:
    return f"!fly.composed_layout<{fmt_composed(cl)}>"


def tile_type(tile: Tile) -> str:
    return f"!fly.tile<{fmt_tile_body(tile)}>"


def type_of(value) -> str:
    """The `!fly.*` type spelling of a static value of our value model."""
    if isinstance(value, pycute.ComposedLayout):
        return composed_type(value)
    if isinstance(value, pycute.Layout):
        return layout_type(value)
    if isinstance(value, pycute.Swizzle):
        return swizzle_type(value)
    if isinstance(value, Tile):
        return tile_type(value)
    return int_tuple_type(value)


# ----------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------

_INT = re.compile(r"-?\d+")
_DIGITS = re.compile(r"\d+")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    # -- low level ----------------------------------------------------------
    def error(self, msg: str):
        raise TypeSyntaxError(f"{msg} at offset {self.pos} in {self.text!r}")

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, s: str) -> bool:
        self.skip_ws()
        return self.text.startswith(s, self.pos)

    def expect(self, s: str):
        if not self.peek(s):
            self.error(f"expected {s!r}")
        self.pos += len(s)

    def accept(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.text)

    def integer(self, allow_negative=True) -> int:
        self.skip_ws()
        m = _INT.match(self.text, self.pos)
        if not m:
            self.error("expected an integer")
        if m.group(0).startswith("-") and not allow_negative:
            self.error("negative integer")
        value = int(m.group(0))
        if not INT64_MIN <= value <= INT64_MAX:
            self.error("integer overflows int64")
        self.pos = m.end()
        return value

    # -- int tuples ---------------------------------------------------------
    def dyn(self) -> Dyn:
        self.expect("?")
        wide, div = False, 1
        # `{` directly after `?` opens the attribute list.
        if self.text.startswith("{", self.pos):
            self.pos += 1
            seen = False
            while True:
                self.skip_ws()
                if self.accept("i64"):
                    if wide:
                        self.error("duplicate i64")
                    wide = True
                elif self.accept("i32"):
                    pass
                elif self.accept("div"):
                    self.expect("=")
                    div = self.integer(allow_negative=False)
                    if div <= 0:
                        self.error("divisor must be positive")
                else:
                    self.error("expected i64 or div=N")
                seen = True
                if self.accept("}"):
                    break
            if not seen:
                self.error("empty attribute list")
        return Dyn(wide, div)

    def basis_suffix(self, value):
        path = []
        while self.text.startswith("E", self.pos):
            self.pos += 1
            m = _DIGITS.match(self.text, self.pos)
            if not m:
                self.error("expected a mode index after E")
            path.append(int(m.group(0)))
            self.pos = m.end()
        return Basis(value, tuple(path)) if path else value

    def leaf(self):
        self.skip_ws()
        if self.accept("*"):
            return None
        if self.peek("?"):
            return self.basis_suffix(self.dyn())
        return self.basis_suffix(self.integer())

    def int_tuple(self):
        if self.accept("("):
            elems = [self.int_tuple()]
            while self.accept(","):
                elems.append(self.int_tuple())
            self.expect(")")
            return tuple(elems)
        return self.leaf()

    # -- layouts ------------------------------------------------------------
    def layout(self) -> pycute.Layout:
        shape = self.int_tuple()
        self.expect(":")
        stride = self.int_tuple()
        check_layout(shape, stride, self.error)
        return pycute.Layout(shape, stride)

    def swizzle(self) -> pycute.Swizzle:
        self.expect("S")
        self.expect("<")
        b = self.integer()
        self.expect(",")
        m = self.integer()
        self.expect(",")
        s = self.integer()
        self.expect(">")
        if b < 0 or m < 0 or abs(s) < b:
            self.error("invalid swizzle")
        return pycute.Swizzle(b, m, s)

    def composed(self) -> pycute.ComposedLayout:
        inner = self.swizzle() if self.peek("S") else self.layout()
        self.expect_word("o")
        offset = self.int_tuple()
        if contains(offset, lambda x: x is None):
            self.error("`*` in an offset")
        self.expect_word("o")
        outer = self.layout()
        return pycute.ComposedLayout(inner, offset, outer)

    def expect_word(self, w: str):
        self.skip_ws()
        if not re.compile(re.escape(w) + r"(?![A-Za-z0-9_])").match(self.text, self.pos):
            self.error(f"expected {w!r}")
        self.pos += len(w)

    def tile_mode(self):
        if self.peek("["):
            return self.tile()
        t = self.int_tuple()
        if self.accept(":"):
            stride = self.int_tuple()
            check_layout(t, stride, self.error)
            return pycute.Layout(t, stride)
        if t is None:
            return None
        if isinstance(t, int) and t > 0:
            return t
        self.error("a tile mode is N, `*`, a layout or a nested tile")

    def tile(self) -> Tile:
        self.expect("[")
        modes = [self.tile_mode()]
        while self.accept("|"):
            modes.append(self.tile_mode())
        self.expect("]")
        return Tile(tuple(modes))


def contains(t, pred) -> bool:
    if isinstance(t, tuple):
        return any(contains(e, pred) for e in t)
    return pred(t)


def congruent(a, b) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(congruent(x, y) for x, y in zip(a, b))
        )
    return True


def check_layout(shape, stride, error):
    if not congruent(shape, stride):
        error("shape and stride are not congruent")
    if contains(shape, lambda x: x is None or isinstance(x, Basis)):
        error("a shape leaf must be an integer")
    if contains(shape, lambda x: isinstance(x, int) and x <= 0):
        error("a shape leaf must be positive")
    if contains(stride, lambda x: x is None):
        error("`*` in a stride")


_KINDS = {
    "int_tuple": lambda p: p.int_tuple(),
    "layout": lambda p: p.layout(),
    "swizzle": lambda p: p.swizzle(),
    "composed_layout": lambda p: p.composed(),
    "tile": lambda p: p.tile(),
}


_PLAIN = re.compile(r"^[0-9(),]+(:[0-9(),]+)?$")


def _tuplify(x):
    return tuple(_tuplify(e) for e in x) if isinstance(x, list) else x


def _fast_plain(kind, body):
    """Static, non-negative tuples and layouts (what fly-opt prints for the
    algebra results) through json; None when the text needs the full parser."""
    if kind not in ("int_tuple", "layout") or not _PLAIN.match(body):
        return None
    parts = body.split(":")
    if (kind == "layout") != (len(parts) == 2):
        return None
    try:
        vals = [_tuplify(json.loads(p.replace("(", "[").replace(")", "]"))) for p in parts]
    except ValueError:
        return None
    if any(",," in p or "(," in p or ",)" in p or "()" in p for p in parts):
        return None
    if any(not isinstance(v, (int, tuple)) or _too_big(v) for v in vals):
        return None
    if kind == "int_tuple":
        return vals[0]
    if not congruent(vals[0], vals[1]) or contains(vals[0], lambda x: x <= 0):
        return None
    return pycute.Layout(vals[0], vals[1])


def _too_big(v):
    return contains(v, lambda x: x > INT64_MAX)


def parse_type(text: str):
    """Parse `!fly.KIND<...>`; returns (kind, value)."""
    text = text.strip()
    m = re.match(r"!fly\.([a-z_]+)<", text)
    if not m or not text.endswith(">"):
        raise TypeSyntaxError(f"not a fly type: {text!r}")
    kind = m.group(1)
    if kind not in _KINDS:
        raise TypeSyntaxError(f"unknown fly type kind {kind!r}")
    fast = _fast_plain(kind, text[m.end() : -1])
    if fast is not None:
        return kind, fast
    p = _Parser(text[m.end() : -1])
    value = _KINDS[kind](p)
    if not p.at_end():
        p.error("trailing characters")
    return kind, value


def parse_value(text: str):
    return parse_type(text)[1]


def is_valid_type(text: str) -> bool:
    try:
        parse_type(text)
        return True
    except TypeSyntaxError:
        return False


# ----------------------------------------------------------------------------
# Structural helpers shared by the tests
# ----------------------------------------------------------------------------


def unwrap1(t):
    """Unwrap every rank-1 tuple: CuTe's `(x)` and `x` name the same function."""
    if isinstance(t, tuple):
        inner = tuple(unwrap1(e) for e in t)
        return inner[0] if len(inner) == 1 else inner
    return t


def is_static(t) -> bool:
    return not contains(t, lambda x: isinstance(x, Dyn) or (isinstance(x, Basis) and isinstance(x.value, Dyn)))


def rank(t) -> int:
    return len(t) if isinstance(t, tuple) else 1


def depth(t) -> int:
    return 1 + max((depth(e) for e in t), default=0) if isinstance(t, tuple) else 0
