"""Operations, blocks, regions, insertion points and modules of
flydsl._mlir, written as MLIR text through the tracing core's Builder.

An Operation is a small record (name, operands, result values, attributes,
regions) that renders itself in MLIR's generic form, one op per line, as the
tracer writes its own ops. Where it goes:

- into a block of the tracer (a kernel's body, the body of an `if` the
  rewriter is tracing): its line is written there at once, and written
  again should the op change later (its regions filled, an attribute set);
- into a block of this module (a `func.FuncOp`'s body, `Module.body`): the
  op itself is kept there and rendered when the IR is printed, verified or
  run through passes. The fx layer writes into such a block too (it is the
  Builder's current block inside `with InsertionPoint(block)`), as text.

Every op is checked when it is made: its name must be registered, its
result types come from C++ inference when not given, and an op without
regions, successors or terminator role is verified by the C++ verifier on
the spot (memoised on its signature), so a wrong operand type or count is
an MLIRError at the user's line naming the op (one with regions or a
terminator is parsed there, its attributes checked).
"""

from __future__ import annotations

import functools
import linecache
import os
import re
import sys

from .. import _fly
from ..tracing.ir import Block as CoreBlock
from ..tracing.errors import FlyDSLError
from ..tracing.ir import Value as CoreValue
from ..tracing.ir import user_location
from ._attributes import Attribute, DenseI32ArrayAttr, as_attribute
from ._context import (ClassProperty, Location, MLIRError, as_list, compiler_error,
                       current_context, describe, fail, op_location_text, parse_diagnostics,
                       require_context)
from ._types import as_type
from ._values import BlockArgument, OpResult, cast_value

_BARE_NAME = re.compile(r"^[A-Za-z_][\w$.]*$")


@functools.lru_cache(maxsize=None)
def op_info(name: str) -> dict:
    return _fly.op_info(name)


def _attr_entry(name: str, attr: Attribute) -> str:
    key = name if _BARE_NAME.match(name) else '"' + name.replace('"', '\\"') + '"'
    return f"{key} = {attr}"


def as_value(x, op_name: str, index: int):
    """The SSA value of an operand: a value (the core's, a caster's
    class), an op with one result, or an fx value (`ir_value()`, `.ir`)."""
    if isinstance(x, CoreValue):
        return x
    if isinstance(x, (Operation, OpView)):
        results = x.operation._results
        if len(results) == 1:
            return results[0]
        raise fail(f"'{op_name}': operand #{index} is an op with {len(results)} results, "
                   "not a value")
    ir_value = getattr(x, "ir_value", None)
    value = ir_value() if callable(ir_value) else getattr(x, "ir", None)
    if isinstance(value, CoreValue):
        return value
    raise fail(f"'{op_name}': operand #{index} must be an SSA value (an ir.Value, an fx "
               f"value, an op with one result), not {describe(x)}")


# -- blocks and regions ---------------------------------------------------------

class _Lines(list):
    """A block's lines (texts and Operations). New ones go where the block's
    insertion point says (before an item, or at the end), and the ops
    around the block learn that it changed."""

    __slots__ = ("block",)

    def append(self, item) -> None:
        self.block._insert(item, self.block._cursors[-1] if self.block._cursors else None)


class Block(CoreBlock):
    """A block of a region of this module's ops. A tracing core Block too:
    the Builder writes into it as into its own."""

    def __init__(self, region: "Region | None", arg_types=(), context=None):
        if context is None and region is not None and region.owner_operation is not None:
            context = region.owner_operation._context
        self._context = context if context is not None else require_context()
        lines = _Lines()
        lines.block = self
        super().__init__(args=[], lines=lines)
        self.region = region
        self._builder = self._context.builder
        self._cursors: list = []  # the insert-before items of entered insertion points
        for t in arg_types:
            self._add_argument(as_type(t, "a block argument's type"))

    # Identity, not the dataclass's equality of contents.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<Block with {len(self.args)} arguments, {len(self.lines)} lines>"

    def _add_argument(self, type_):
        arg = BlockArgument._make(self._builder.fresh(type_).name, type_, self, len(self.args))
        self.args.append(arg)
        return arg

    # -- MLIR's members -----------------------------------------------------
    @property
    def arguments(self) -> list:
        return [cast_value(a) for a in self.args]

    @property
    def operations(self) -> list:
        """The ops of this module in the block (text the fx layer wrote is
        not listed)."""
        return [item.opview for item in self.lines if isinstance(item, Operation)]

    @property
    def owner(self):
        op = self.region.owner_operation if self.region is not None else None
        return op.opview if op is not None else None

    def add_argument(self, type_, loc=None):
        arg = self._add_argument(as_type(type_, "a block argument's type"))
        self._changed()
        return cast_value(arg)

    def append(self, operation) -> None:
        """Moves an op to the end of this block."""
        op = operation.operation
        op._detach()
        self._insert(op, None)

    def append_to(self, region: "Region") -> None:
        if self.region is not None:
            self.region._blocks.remove(self)
        self.region = region
        region._blocks.append(self)
        region._changed()

    @staticmethod
    def create_at_start(parent: "Region", arg_types=(), arg_locs=None) -> "Block":
        block = Block(parent, arg_types)
        parent._blocks.insert(0, block)
        parent._changed()
        return block

    def create_after(self, *arg_types, arg_locs=None) -> "Block":
        block = Block(self.region, arg_types)
        self.region._blocks.insert(self.region._blocks.index(self) + 1, block)
        self.region._changed()
        return block

    def create_before(self, *arg_types, arg_locs=None) -> "Block":
        block = Block(self.region, arg_types)
        self.region._blocks.insert(self.region._blocks.index(self), block)
        self.region._changed()
        return block

    def __iter__(self):
        return iter(self.operations)

    def __len__(self) -> int:
        return len(self.operations)

    # -- the lines ----------------------------------------------------------
    def _insert(self, item, before) -> None:
        if before is None:
            list.append(self.lines, item)
        else:
            list.insert(self.lines, _index(self.lines, before), item)
        if isinstance(item, Operation):
            item._parent = self
        self._changed()

    def _changed(self) -> None:
        if self.region is not None:
            self.region._changed()

    def _label(self) -> str:
        return f"^bb{self.region._blocks.index(self)}"

    def _text(self, index: int, type_name) -> str:
        header = ""
        if index > 0 or self.args or not self.lines:
            args = ", ".join(f"{a.name}: {type_name(a.type)}" for a in self.args)
            header = f"^bb{index}({args}):\n" if args else f"^bb{index}:\n"
        return header + "\n".join(item if isinstance(item, str) else item._text(type_name)
                                  for item in self.lines)


def _index(lines: list, item) -> int:
    for i, x in enumerate(lines):
        if x is item:
            return i
    raise fail("the insertion point's operation is no longer in its block")


class BlockList:
    """The blocks of a region."""

    def __init__(self, region: "Region"):
        self._region = region

    def append(self, *arg_types, arg_locs=None) -> Block:
        block = Block(self._region, arg_types)
        self._region._blocks.append(block)
        self._region._changed()
        return block

    def __getitem__(self, index):
        return self._region._blocks[index]

    def __len__(self) -> int:
        return len(self._region._blocks)

    def __iter__(self):
        return iter(self._region._blocks)


class Region:
    """A region of an op: its blocks."""

    def __init__(self, owner: "Operation | None"):
        self.owner_operation = owner
        self._blocks: list[Block] = []

    @property
    def blocks(self) -> BlockList:
        return BlockList(self)

    @property
    def owner(self):
        return self.owner_operation.opview if self.owner_operation is not None else None

    def __iter__(self):
        return iter(self._blocks)

    def _changed(self) -> None:
        if self.owner_operation is not None:
            self.owner_operation._changed()

    def _text(self, type_name) -> str:
        if not self._blocks:
            return "{\n}"
        return "{\n" + "\n".join(b._text(i, type_name) for i, b in enumerate(self._blocks)) + "\n}"


# -- operations -----------------------------------------------------------------

class OpResultList(list):
    """An op's results (or operands): a list with `.types`. Indexing past
    its end (`.result` of a generated class whose op was given no result)
    is an IndexError that is also a located MLIRError naming the op."""

    def __init__(self, items=(), op_name: str = ""):
        super().__init__(items)
        self.op_name = op_name

    def __getitem__(self, index):
        try:
            return super().__getitem__(index)
        except IndexError:
            raise _NoSuchValue(f"'{self.op_name}' has no result or operand #{index} (it has "
                               f"{len(self)})", *user_location()[:2]) from None

    @property
    def types(self) -> list:
        return [v.type for v in self]


class _NoSuchValue(MLIRError, IndexError):
    """An index past the end of an op's results or operands."""


class OpAttributeMap:
    """An op's attributes by name; setting or deleting one rewrites the op."""

    def __init__(self, operation: "Operation"):
        self._op = operation

    def __getitem__(self, key):
        if isinstance(key, int):
            name, attr = list(self._op._attributes.items())[key]
            return attr.get_named(name)
        return self._op._attributes[key].maybe_downcast()

    def __setitem__(self, name: str, attr) -> None:
        self._op._attributes[name] = as_attribute(attr, f"'{self._op.name}' attribute '{name}'")
        self._op._changed()

    def __delitem__(self, name: str) -> None:
        del self._op._attributes[name]
        self._op._changed()

    def __contains__(self, name: str) -> bool:
        return name in self._op._attributes

    def __len__(self) -> int:
        return len(self._op._attributes)

    def __iter__(self):
        return (attr.get_named(name) for name, attr in self._op._attributes.items())


class _OperationBase:
    """MLIR's members of an op, shared by Operation and OpView."""

    @property
    def name(self) -> str:
        return self.operation._name

    @property
    def operands(self) -> OpResultList:
        return OpResultList(self.operation._operands, self.operation._name)

    @property
    def results(self) -> OpResultList:
        op = self.operation
        if op._cast_results is None:
            op._cast_results = OpResultList((cast_value(r) for r in op._results), op._name)
        return op._cast_results

    @property
    def result(self):
        results = self.results
        if len(results) != 1:
            raise ValueError(f"Cannot call .result on operation {self.name} which has "
                             f"{len(results)} results")
        return results[0]

    @property
    def attributes(self) -> OpAttributeMap:
        return OpAttributeMap(self.operation)

    @property
    def regions(self) -> list:
        return list(self.operation._regions)

    @property
    def successors(self) -> list:
        return list(self.operation._successors)

    @property
    def location(self) -> Location:
        return Location(self.operation._loc[len("loc("):-1])

    @property
    def context(self):
        return current_context()

    @property
    def parent(self):
        block = self.operation._parent
        if isinstance(block, Block) and block.region is not None:
            owner = block.region.owner_operation
            return owner.opview if owner is not None else None
        return None

    @property
    def block(self):
        parent = self.operation._parent
        return parent if isinstance(parent, Block) else None

    def verify(self) -> bool:
        """Verifies the IR this op belongs to (its outermost op, a module
        usually) with MLIR's verifier: True, or an MLIRError."""
        root = self.operation._root()
        if root._anchor is not None:
            raise fail("verify(): this op is part of a traced function, whose module is "
                       "verified when it is compiled")
        text = root._standalone_text()
        try:
            _fly.print_ir(text, verify=True)
        except _fly.Error as err:
            raise text_error(err, root, text, f"'{root.name}' does not verify") from None
        return True

    def get_asm(self, binary: bool = False, large_elements_limit=None,
                enable_debug_info: bool = False, pretty_debug_info: bool = False,
                print_generic_op_form: bool = False, use_local_scope: bool = False,
                assume_verified: bool = False, skip_regions: bool = False):
        text = self.operation._print(generic=print_generic_op_form, debug_info=enable_debug_info)
        return text.encode() if binary else text

    def print(self, *args, file=None, **kwargs) -> None:
        print(self.get_asm(*args, **kwargs), file=file or sys.stdout)

    def dump(self) -> None:
        self.print()

    def __str__(self) -> str:
        return self.operation._print(generic=False, debug_info=False)

    def erase(self) -> None:
        self.operation._detach()

    def detach_from_parent(self):
        self.operation._detach()
        return self.opview

    def move_before(self, other) -> None:
        op, target = self.operation, other.operation
        op._detach()
        target._parent._insert(op, target)

    def move_after(self, other) -> None:
        op, target = self.operation, other.operation
        op._detach()
        block = target._parent
        position = _index(block.lines, target) + 1
        following = block.lines[position] if position < len(block.lines) else None
        block._insert(op, following)

    def __eq__(self, other) -> bool:
        return isinstance(other, _OperationBase) and other.operation is self.operation

    def __hash__(self) -> int:
        return id(self.operation)


class Operation(_OperationBase):
    """An op: its name, operand values, result values, attributes and
    regions, its location text and where it sits."""

    def __init__(self, name: str, operands, result_types, attributes: dict, num_regions: int,
                 successors, loc_text: str, context):
        builder = context.builder
        self._name = name
        self._operands = list(operands)
        self._results = [OpResult._make(builder.fresh(t).name, t, self, i)
                         for i, t in enumerate(result_types)]
        self._cast_results = None
        self._attributes = dict(attributes)
        self._regions = [Region(self) for _ in range(num_regions)]
        self._successors = list(successors)
        self._loc = loc_text
        self._context = context
        self._builder = builder
        self._parent = None   # a Block of this module, a tracer's Block, or None
        self._anchor = None   # (lines, index) of its line in a tracer's Block
        self._text_cache = None
        self._view = None

    @property
    def operation(self) -> "Operation":
        return self

    @property
    def opview(self) -> "OpView":
        if self._view is None:
            cls = _OPERATION_CLASSES.get(self._name, OpView)
            view = cls.__new__(cls)
            view._operation = self
            self._view = view
        return self._view

    @staticmethod
    def create(name: str, results=None, operands=None, attributes=None, successors=None,
               regions: int = 0, loc=None, ip=None, infer_type: bool = False) -> "Operation":
        """An op of any name (MLIR's generic constructor)."""
        return build_operation(name, _given(operands, []), None if infer_type else
                               _given(results, []), _given(attributes, {}), regions, successors,
                               loc, ip)

    def __repr__(self) -> str:
        return f"<Operation {self._name}>"

    # -- text ---------------------------------------------------------------
    def _text(self, type_name=None) -> str:
        own = type_name is None
        if own:
            if self._text_cache is not None:
                return self._text_cache
            type_name = self._builder.type_name
        text = _op_text(self, type_name)
        if own:
            self._text_cache = text
        return text

    def _changed(self) -> None:
        self._text_cache = None
        if self._anchor is not None:
            lines, index = self._anchor
            lines[index] = self._text()
        elif isinstance(self._parent, Block):
            self._parent._changed()

    def _root(self) -> "Operation":
        op = self
        while isinstance(op._parent, Block) and op._parent.region is not None \
                and op._parent.region.owner_operation is not None:
            op = op._parent.region.owner_operation
        return op

    def _standalone_text(self) -> str:
        """This op as a whole MLIR text: the type aliases its ops use, then
        the op."""
        text = self._text()  # first: rendering it defines the aliases it uses
        return "".join(line + "\n" for line in self._builder.type_aliases) + text

    def _print(self, generic: bool, debug_info: bool) -> str:
        root = self._root()
        try:
            text = _fly.print_ir(self._standalone_text(), generic=generic, debug_info=debug_info)
        except _fly.Error as err:
            if root is self:
                raise compiler_error(err, f"'{self._name}' does not print") from None
            # A nested op uses values of the ops around it: it does not
            # parse alone, so it prints as it is written.
            return self._text(str)
        return text.rstrip("\n")

    def _detach(self) -> None:
        parent = self._parent
        if isinstance(parent, Block):
            del parent.lines[_index(parent.lines, self)]
            self._parent = None
            parent._changed()
        elif self._anchor is not None:
            lines, index = self._anchor
            lines[index] = ""
            self._anchor = None
            self._parent = None


_FILE_LOCATION = re.compile(r'^loc\("((?:[^"\\]|\\.)*)":(\d+):\d+')


def text_error(err: Exception, root: Operation, text: str, what: str) -> MLIRError:
    """The MLIRError of the compiler's rejection of `text`, the standalone
    text of `root`. A verifier's errors are at the failing op's location
    (compiler_error); the parser's are at a line of `text` (a value used
    where it is not defined: an op put in a block out of its operands'
    scope), which is the first line of an op's text: located where that
    op is, naming it."""
    diagnostics = parse_diagnostics(str(err))
    first = next((d for d in diagnostics if d.severity == "error"), None)
    op = None
    if first is not None and first.filename == "<flydsl module>":
        lines = text.splitlines()
        line = lines[first.line - 1] if 0 < first.line <= len(lines) else None
        op = next((o for o in _walk(root) if o._text().split("\n", 1)[0] == line), None)
    if op is None:
        return compiler_error(err, what)
    found = _FILE_LOCATION.match(op._loc)
    filename, lineno = (found.group(1), int(found.group(2))) if found \
        else user_location()[:2]
    return MLIRError(f"{what}: '{op._name}': {first.message}", filename, lineno, diagnostics)


def _walk(op: Operation):
    """`op` and the ops in its regions, in order."""
    yield op
    for region in op._regions:
        for block in region._blocks:
            for item in block.lines:
                if isinstance(item, Operation):
                    yield from _walk(item)


def _op_text(op: Operation, type_name) -> str:
    text = ""
    if op._results:
        text = ", ".join(r.name for r in op._results) + " = "
    text += f'"{op._name}"(' + ", ".join(v.name for v in op._operands) + ")"
    if op._successors:
        text += "[" + ", ".join(b._label() for b in op._successors) + "]"
    if op._regions:
        text += " (" + ", ".join(r._text(type_name) for r in op._regions) + ")"
    if op._attributes:
        text += " {" + ", ".join(_attr_entry(n, a) for n, a in op._attributes.items()) + "}"
    text += " : (" + ", ".join(type_name(v.type) for v in op._operands) + ") -> ("
    return text + ", ".join(type_name(r.type) for r in op._results) + ") " + op._loc


class OpView(_OperationBase):
    """The base of the generated op classes (arith.AddFOp, ...): an op seen
    as its class. Made by a generated constructor, by `build_generic`, or
    from an op (`AddFOp(op)`)."""

    OPERATION_NAME: str | None = None
    _ODS_REGIONS = (0, True)
    _ODS_OPERAND_SEGMENTS = None
    _ODS_RESULT_SEGMENTS = None

    def __init__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], _OperationBase):
            self._operation = args[0].operation
            return
        name, regions_spec, operand_segments, result_segments = args
        self._operation = build_operation(
            name, _given(kwargs.get("operands"), []), kwargs.get("results"),
            _given(kwargs.get("attributes"), {}), kwargs.get("regions"), kwargs.get("successors"),
            kwargs.get("loc"), kwargs.get("ip"), regions_spec=regions_spec,
            operand_segments=operand_segments, result_segments=result_segments)
        self._operation._view = self

    @property
    def operation(self) -> Operation:
        return self._operation

    @property
    def opview(self) -> "OpView":
        return self

    @classmethod
    def build_generic(cls, results=None, operands=None, attributes=None, successors=None,
                      regions=None, loc=None, ip=None):
        view = cls.__new__(cls)
        OpView.__init__(view, cls.OPERATION_NAME, cls._ODS_REGIONS, cls._ODS_OPERAND_SEGMENTS,
                        cls._ODS_RESULT_SEGMENTS, attributes=attributes, results=results,
                        operands=operands, successors=successors, regions=regions, loc=loc, ip=ip)
        return view

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.operation._name}>"


def _segments(items, segments, what: str, op_name: str):
    """The flat list of operands (or results) of per-segment entries, and
    the segment sizes (None without segments)."""
    items = as_list(items, f"'{op_name}': the {what}s")
    if segments is None:
        return items, None
    if len(items) != len(segments):
        raise fail(f"'{op_name}': {len(items)} {what} groups given, {len(segments)} expected")
    flat, sizes = [], []
    for i, (spec, item) in enumerate(zip(segments, items)):
        if spec == 1:
            flat.append(item)
            sizes.append(1)
        elif spec == 0:
            if item is not None:
                flat.append(item)
            sizes.append(0 if item is None else 1)
        else:
            group = [] if item is None else as_list(item, f"'{op_name}': {what} group #{i}")
            flat.extend(group)
            sizes.append(len(group))
    return flat, sizes


def _given(argument, default):
    """An optional argument: `default` for None. (Not `argument or
    default`: a value's truth is unknown while tracing.)"""
    return default if argument is None else argument


def _successors(successors, op_name: str) -> list:
    """The successor blocks of an op: blocks of a region of this module."""
    blocks = as_list(_given(successors, []), f"'{op_name}': the successors")
    for i, block in enumerate(blocks):
        if not isinstance(block, Block) or block.region is None:
            raise fail(f"'{op_name}': successor #{i} must be a block of a region (of an op "
                       f"built here), not {describe(block)}")
    return blocks


_VERIFIED: set = set()


def build_operation(name, operands, results, attributes, regions, successors, loc, ip, *,
                    regions_spec=(0, True), operand_segments=None, result_segments=None,
                    detached: bool = False) -> Operation:
    """Makes, checks and inserts an op (the generated constructors' path).
    `results` None: inferred by C++. `ip` None: the current insertion point
    (the trace's current block), or none (a detached op) when there is
    none or `detached`. Its errors are MLIRErrors naming the op."""
    try:
        return _build_operation(name, operands, results, attributes, regions, successors, loc,
                                ip, regions_spec, operand_segments, result_segments, detached)
    except FlyDSLError as err:
        renamed = builder_error(err, name) if isinstance(name, str) else None
        if renamed is None:
            raise
        raise renamed from (None if isinstance(err, MLIRError) else err)


def _build_operation(name, operands, results, attributes, regions, successors, loc, ip,
                     regions_spec, operand_segments, result_segments, detached) -> Operation:
    if not isinstance(name, str):
        raise fail(f"an operation's name must be a str ('arith.addf'), not {describe(name)}")
    info = op_info(name)
    if not info["registered"]:
        raise fail(f"unknown operation '{name}' (no registered dialect has it)")
    context = require_context()
    flat, sizes = _segments(operands, operand_segments, "operand", name)
    values = [as_value(x, name, i) for i, x in enumerate(flat)]
    if not isinstance(attributes, dict):
        raise fail(f"'{name}': the attributes must be a dict of names to attributes, not "
                   f"{describe(attributes)}")
    attrs = {}
    for key, attr in attributes.items():
        if not isinstance(key, str) or not key:
            raise fail(f"'{name}': an attribute's name must be a non-empty str, not "
                       f"{describe(key)}")
        if attr is not None:
            attrs[key] = as_attribute(attr, f"'{name}' attribute '{key}'")
    if sizes is not None and "operandSegmentSizes" not in attrs:
        attrs["operandSegmentSizes"] = DenseI32ArrayAttr.get(sizes)
    attrs_text = ", ".join(_attr_entry(n, a) for n, a in attrs.items())
    if results is None:
        result_types = _infer(name, info, values, attrs_text)
    else:
        flat_results, result_sizes = _segments(results, result_segments, "result", name)
        result_types = [as_type(t, f"'{name}' result #{i}") for i, t in enumerate(flat_results)]
        if result_sizes is not None and "resultSegmentSizes" not in attrs:
            attrs["resultSegmentSizes"] = DenseI32ArrayAttr.get(result_sizes)
    num_regions = regions if isinstance(regions, int) else regions_spec[0]
    blocks = _successors(successors, name)
    if ip is not None and not isinstance(ip, InsertionPoint):
        raise fail(f"'{name}': ip= must be an ir.InsertionPoint, not {describe(ip)}")
    op = Operation(name, values, result_types, attrs, num_regions, blocks,
                   op_location_text(loc), context)
    if not blocks:
        _verify(op)
    if not detached:
        _place(op, ip, context.builder)
    return op


def _infer(name: str, info: dict, values, attrs_text: str) -> list:
    if not info["infers"]:
        raise fail(f"'{name}' does not infer its result types: give them (results=[...])")
    try:
        return _fly.infer(name, [v.type for v in values], "{" + attrs_text + "}" if attrs_text else "")
    except _fly.Error as err:
        raise compiler_error(err, f"cannot infer the result types of '{name}'",
                             located=False) from None


def _verify(op: Operation) -> None:
    """The C++ verifier's check of a new op, memoised on what it depends on:
    the name, operand and result types, attributes. An op with regions or a
    terminator is only parsed (its attributes checked: one of the wrong kind
    is an error of the parser, which would have no location of the user's
    in a traced kernel's module); its regions, still empty, and its place
    are verified with the IR around it."""
    key = (op._name, tuple(v.type for v in op._operands), tuple(r.type for r in op._results),
           tuple((n, str(a)) for n, a in op._attributes.items()))
    if key in _VERIFIED:
        return
    operands = {v.name: v.type for v in op._operands}
    try:
        _fly.verify_op(_op_text(op, str), list(operands.items()))
    except _fly.Error as err:
        # The verifier's messages name the op ("'arith.addf' op ..."); a
        # parser's may not.
        named = f"'{op._name}'" in str(err)
        raise compiler_error(err, "" if named else f"'{op._name}'") from None
    _VERIFIED.add(key)


def _place(op: Operation, ip, builder) -> None:
    if ip is not None:
        ip.insert(op)
        return
    block = builder.current_or_none()
    if block is None:
        return  # a detached op (standalone IR outside every insertion point)
    _insert_into(block, op, block._cursors[-1] if isinstance(block, Block) and block._cursors else None)


def _insert_into(block, op: Operation, before) -> None:
    if isinstance(block, Block):
        block._insert(op, before)
        return
    # A block of the tracer: the op's line, rewritten should the op change.
    if before is not None:
        raise fail("ops go at the end of a traced function's blocks")
    block.lines.append(op._text())
    op._parent = block
    op._anchor = (block.lines, len(block.lines) - 1)


# -- insertion points -----------------------------------------------------------

class InsertionPoint:
    """Where new ops go: the end of a block, or before an op. Entered
    (`with InsertionPoint(block):`), it is also where the fx layer writes:
    the Builder's current block."""

    _stack: list["InsertionPoint"] = []

    def __init__(self, block_or_op):
        if isinstance(block_or_op, _OperationBase):
            op = block_or_op.operation
            if not isinstance(op._parent, Block):
                raise fail("InsertionPoint(op): the op is not in a block of this module")
            self.block, self._before, self.ref_operation = op._parent, op, block_or_op.opview
        elif isinstance(block_or_op, CoreBlock):
            self.block, self._before, self.ref_operation = block_or_op, None, None
        else:
            raise TypeError(f"InsertionPoint: a Block or an op, not {type(block_or_op).__name__}")
        self._entered: list = []  # (builder, activation) per entry

    @staticmethod
    def at_block_begin(block: Block) -> "InsertionPoint":
        ip = InsertionPoint(block)
        if block.lines:
            if not isinstance(block, Block):
                raise fail("InsertionPoint.at_block_begin: ops go at the end of a traced "
                           "function's blocks")
            ip._before = block.lines[0]
            first = ip._before
            ip.ref_operation = first.opview if isinstance(first, Operation) else None
        return ip

    @staticmethod
    def at_block_terminator(block: Block) -> "InsertionPoint":
        last = block.lines[-1] if isinstance(block, Block) and block.lines else None
        if not isinstance(last, Operation) or not op_info(last._name)["terminator"]:
            raise ValueError("Block has no terminator")
        return InsertionPoint(last)

    current = ClassProperty(lambda cls: _current_insertion_point())

    def insert(self, operation) -> None:
        op = operation.operation
        if op._parent is not None:
            raise fail(f"InsertionPoint.insert: '{op._name}' is already in a block")
        _insert_into(self.block, op, self._before)

    def __enter__(self) -> "InsertionPoint":
        # The block's Context becomes the active trace, whose Builder's
        # current block is this one: the fx layer writes here too.
        context = self.block._context if isinstance(self.block, Block) else require_context()
        activation = context.activated()
        activation.__enter__()
        context.builder.enter_block(self.block)
        self._entered.append((context.builder, activation))
        if isinstance(self.block, Block):
            self.block._cursors.append(self._before)
        InsertionPoint._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        InsertionPoint._stack.pop()
        if isinstance(self.block, Block):
            self.block._cursors.pop()
        builder, activation = self._entered.pop()
        builder.pop_block()
        activation.__exit__(*exc)


def _current_insertion_point() -> InsertionPoint:
    if InsertionPoint._stack:
        return InsertionPoint._stack[-1]
    context = current_context()
    block = context.builder.current_or_none() if context is not None else None
    if block is None:
        raise ValueError("No current InsertionPoint")
    return InsertionPoint(block)


# -- modules --------------------------------------------------------------------

class Module:
    """A builtin.module of standalone IR."""

    def __init__(self, operation: Operation):
        self._operation = operation

    @staticmethod
    def create(loc=None) -> "Module":
        op = build_operation("builtin.module", [], [], {}, 1, None, loc, None, detached=True)
        op._regions[0].blocks.append()
        return Module(op)

    @staticmethod
    def parse(asm: str, context=None) -> "Module":
        """The module written `asm`, parsed and verified by the compiler."""
        module = Module.create()
        module._replace(asm, verify=True)
        return module

    def _replace(self, text: str, verify: bool) -> None:
        """Makes this module the one written `text`: its attributes and, as
        ops of this module, its body."""
        try:
            attributes, ops = _fly.describe_module(text, verify)
        except _fly.Error as err:
            raise compiler_error(err, "the module does not " + ("verify" if verify else "parse"),
                                 located=verify) from None
        op = self._operation
        op._attributes = {name: Attribute.parse(value) for name, value in attributes}
        body = op._regions[0]._blocks[0]
        for item in body.lines:
            if isinstance(item, Operation):
                item._parent = None
        del body.lines[:]
        _rebuild(ops, body, op._context)
        op._changed()

    @property
    def body(self) -> Block:
        return self._operation._regions[0]._blocks[0]

    @property
    def operation(self) -> Operation:
        return self._operation

    @property
    def context(self):
        return current_context()

    def dump(self) -> None:
        print(self)

    def __str__(self) -> str:
        return str(self._operation)


def _rebuild(descriptions, block: Block, context) -> None:
    """Ops of this module in `block` from the compiler's description of
    parsed ops (`_fly.describe_module`): values and blocks by id, operands
    and successors resolved once every op exists."""
    values: dict = {}
    blocks: dict = {}
    pending: list = []

    def build(ops, target: Block) -> None:
        for name, operand_ids, results, attrs, regions, loc, successor_ids in ops:
            op = Operation(name, [], [t for _, t in results],
                           {n: Attribute.parse(text) for n, text in attrs}, len(regions), [],
                           loc, context)
            values.update(zip((i for i, _ in results), op._results))
            for region, region_blocks in zip(op._regions, regions):
                for block_id, args, nested in region_blocks:
                    new_block = Block(region, [t for _, t in args], context)
                    region._blocks.append(new_block)
                    blocks[block_id] = new_block
                    values.update(zip((i for i, _ in args), new_block.args))
                    build(nested, new_block)
            list.append(target.lines, op)
            op._parent = target
            pending.append((op, operand_ids, successor_ids))

    build(descriptions, block)
    for op, operand_ids, successor_ids in pending:
        op._operands = [values[i] for i in operand_ids]
        op._successors = [blocks[i] for i in successor_ids]


# -- dialects and op classes ----------------------------------------------------

_DIALECTS: dict = {}
_OPERATION_CLASSES: dict = {}


class Dialect:
    """The base of the generated dialect classes (`DIALECT_NAMESPACE`)."""

    DIALECT_NAMESPACE: str | None = None

    def __init__(self, descriptor=None):
        self.descriptor = descriptor


def register_dialect(dialect_class):
    """Class decorator of the generated dialect classes."""
    _DIALECTS[dialect_class.DIALECT_NAMESPACE] = dialect_class
    return dialect_class


def register_operation(dialect_class, *, replace: bool = False):
    """Class decorator of the op classes: `op.opview` of an op of this name
    is an instance of the class, and its constructor reports the errors of
    its arguments as located MLIRErrors naming the op (`located_builder`).
    A hand-written class extending a generated one replaces it
    (`replace=True`)."""
    def add(op_class):
        name = op_class.OPERATION_NAME
        if name in _OPERATION_CLASSES and not replace:
            raise RuntimeError(f"an op class for '{name}' is already registered")
        _OPERATION_CLASSES[name] = op_class
        if "__init__" in vars(op_class):
            op_class.__init__ = located_builder(name)(op_class.__init__)
        return op_class
    return add


# -- the errors of the builders ---------------------------------------------------

_DIALECT_CODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dialects") + os.sep
# What Python raises where a builder's code meets a value it cannot use.
_PYTHON_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError)


def _about_the_arguments(err: BaseException) -> bool:
    """Whether `err` is about the arguments a builder was given: raised by
    the code of a dialect module (a generated constructor taking
    `operands[0].type` of an int, an enum's attribute builder taking
    `int()` of a word, a hand-written builder's check), or raised on
    purpose (a `raise`) by the ir runtime that code called (the `.type` of
    an attribute without one, given as an operand). Anything else the
    runtime raises is a bug of it, and goes on as it is."""
    tb, through_dialect_code = err.__traceback__, False
    while tb is not None:
        innermost = tb
        through_dialect_code |= tb.tb_frame.f_code.co_filename.startswith(_DIALECT_CODE)
        tb = tb.tb_next
    if not through_dialect_code:
        return False  # the builder's call itself: Python's TypeError of its arguments
    filename = innermost.tb_frame.f_code.co_filename
    if filename.startswith(_DIALECT_CODE):
        return True
    line = linecache.getline(filename, innermost.tb_lineno).lstrip()
    return isinstance(err, (TypeError, ValueError)) and line.startswith("raise ")


def builder_error(err: BaseException, op_name: str) -> MLIRError | None:
    """The error a builder of `op_name` reports for `err` raised while it
    ran: an MLIRError naming the op, at the user's line; None where `err`
    is to go on as it is (it names the op already, it is Python's own
    TypeError of a call whose arguments do not bind, or a bug)."""
    named = f"'{op_name}'"
    if isinstance(err, FlyDSLError):  # MLIRError, or an fx value's TraceError
        if named in err.bare_message:
            return None
        return MLIRError(f"{named}: {err.bare_message}", err.filename, err.lineno,
                         getattr(err, "error_diagnostics", ()))
    if isinstance(err, _PYTHON_ERRORS) and _about_the_arguments(err):
        if named in str(err):
            return fail(str(err))
        return fail(f"{named}: an argument does not fit the builder "
                    f"({type(err).__name__}: {err})")
    return None


def located_builder(op_name: str):
    """Decorator of a builder of `op_name` (an op class's constructor, a
    function of a dialect module): its errors, and the Python errors its
    code raises on the arguments it was given, become MLIRErrors naming the
    op, located at the user's line (see builder_error)."""
    def wrap(fn):
        @functools.wraps(fn)
        def builder(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (FlyDSLError, *_PYTHON_ERRORS) as err:
                located = builder_error(err, op_name)
                if located is None:
                    raise
                raise located from (None if isinstance(err, MLIRError) else err)
        return builder
    return wrap
