"""The module under construction while a kernel is traced.

The tracer writes MLIR in the generic op form, one op per line, each with
the user's source location, so that the text handed to the compiler is
exactly what the Python code asked for (FLYDSL_DUMP_IR's stage 00). Types
are handles of the C++ context (`flydsl._fly.Type`); result types of Fly
ops come from C++ inference (`infer`), never from Python.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass, field

from .. import _fly
from .errors import TraceError

_FLYDSL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(eq=False)
class Value:
    """An SSA value: its name in the module text and its type handle."""

    name: str
    type: "_fly.Type"

    def __repr__(self) -> str:
        return f"Value({self.name}: {self.type})"


def parse_type(text: str) -> "_fly.Type":
    """The type handle of an MLIR type written as text."""
    try:
        return _fly.parse_type(text)
    except _fly.Error as err:
        raise TraceError(str(err), *user_location()[:2]) from None


def user_location() -> tuple[str, int, int]:
    """(file, line, column) of the innermost frame of user code: the first
    frame outside the flydsl package (and outside the rewriter's generated
    code, which keeps the user's file name)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_FLYDSL_DIR):
            return filename, frame.f_lineno, 1
        frame = frame.f_back
    return "<unknown>", 0, 0


def _loc_text(loc: tuple[str, int, int] | None) -> str:
    return _loc_of(user_location() if loc is None else loc)


def location_text(loc: tuple[str, int, int] | None = None) -> str:
    """`loc("file":line:col)` of (file, line, column), by default of the
    user's source line: the location ops are written with."""
    return _loc_text(loc)


def string_literal(text: str) -> str:
    """`text` as an MLIR string literal: quoted, with backslashes, quotes
    and control characters escaped (the latter as `\\XX`)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in out):
        out = "".join(f"\\{ord(c):02X}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in out)
    return f'"{out}"'


@functools.lru_cache(maxsize=4096)
def _loc_of(loc: tuple[str, int, int]) -> str:
    filename, line, col = loc
    return f'loc({string_literal(filename)}:{line}:{max(col, 1)})'


@dataclass
class Block:
    """A block of a region: its arguments and its op lines."""

    args: list[Value] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


class Builder:
    """Writes ops into the current block; regions nest with `block()`."""

    def __init__(self) -> None:
        self._counter = 0
        self._blocks: list[Block] = []
        self._type_names: dict["_fly.Type", str] = {}
        self.type_aliases: list[str] = []  # `!name = type` lines, in order

    # -- types ------------------------------------------------------------
    def type_name(self, type_: "_fly.Type") -> str:
        """How ops write `type_`: a dialect type as a module-level alias
        (`!layout_3`, defined once in `type_aliases`), so that its text is
        printed and parsed once per trace, not once per use; other types as
        they are."""
        name = self._type_names.get(type_)
        if name is None:
            text = str(type_)
            name = text
            if text.startswith("!") and len(text) > 16:
                kind = text[1:].partition("<")[0].rpartition(".")[2]
                name = f"!{kind if kind.isidentifier() else 't'}_{len(self.type_aliases)}"
                self.type_aliases.append(f"{name} = {text}")
            self._type_names[type_] = name
        return name

    # -- values -----------------------------------------------------------
    def fresh(self, type_: "_fly.Type") -> Value:
        self._counter += 1
        return Value(f"%{self._counter}", type_)

    # -- blocks -----------------------------------------------------------
    def push_block(self, arg_types=()) -> Block:
        block = Block([self.fresh(t) for t in arg_types])
        self._blocks.append(block)
        return block

    def pop_block(self) -> Block:
        return self._blocks.pop()

    def enter_block(self, block: Block) -> None:
        """Makes an existing block the current one (until pop_block): how
        flydsl._mlir's insertion points direct the ops written here."""
        self._blocks.append(block)

    def current_or_none(self) -> Block | None:
        """The current block, None outside of every block."""
        return self._blocks[-1] if self._blocks else None

    @property
    def current(self) -> Block:
        if not self._blocks:
            raise TraceError("an operation outside of a traced function",
                             *user_location()[:2])
        return self._blocks[-1]

    # -- ops ----------------------------------------------------------------
    def op(self, name: str, operands=(), result_types=(), attrs: str = "",
           regions=(), loc=None) -> list[Value]:
        """Appends `name` in generic form; returns its results.

        `attrs` is the text of an attribute dictionary's entries
        (`operand = "A"`); `regions` are lists of Blocks.
        """
        results = [self.fresh(t) for t in result_types]
        text = ""
        if results:
            text += ", ".join(r.name for r in results) + " = "
        text += f'"{name}"(' + ", ".join(v.name for v in operands) + ")"
        if regions:
            text += " (" + ", ".join(_region_text(r) for r in regions) + ")"
        if attrs:
            text += " {" + attrs + "}"
        name = self.type_name
        text += " : (" + ", ".join(name(v.type) for v in operands) + ") -> ("
        text += ", ".join(name(t) for t in result_types) + ") " + _loc_text(loc)
        self.current.lines.append(text)
        return results

    def raw(self, line: str) -> None:
        """Appends a line of custom-form MLIR (used for functions)."""
        self.current.lines.append(line)


def _region_text(blocks: list[Block]) -> str:
    parts = []
    for i, block in enumerate(blocks):
        header = ""
        if block.args or i > 0:
            header = f"^bb{i}(" + ", ".join(f"{a.name}: {a.type}" for a in block.args) + "):\n"
        parts.append(header + "\n".join(block.lines))
    return "{\n" + "\n".join(parts) + "\n}"


def infer(op: str, operands, attrs: str = "") -> list["_fly.Type"]:
    """The result types C++ infers for `op` on these operands."""
    try:
        return _fly.infer(op, [v.type for v in operands], "{" + attrs + "}" if attrs else "")
    except _fly.Error as err:
        filename, line, _ = user_location()
        raise TraceError(f"{op}: {err}", filename, line) from None
