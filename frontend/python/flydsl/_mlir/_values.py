"""SSA values of flydsl._mlir and the value casters.

`ir.Value` is the tracing core's Value (its name in the module text and its
type handle) with MLIR's Python members; every core value is an `ir.Value`
for isinstance, so values the fx layer made and values these builders made
mix freely. Results and block arguments come back through the value casters
registered for their type (`register_value_caster`): the fx layer registers
its operator-carrying values there.
"""

from __future__ import annotations

from ..tracing.ir import Value as CoreValue
from ._context import current_context
from ._types import TypeID


class _ValueClass(type):
    """`isinstance(v, ir.Value)` holds for every value of the tracing core;
    subclasses (OpResult, a caster's class) check as classes do."""

    def __instancecheck__(cls, obj) -> bool:
        if cls is Value:
            return isinstance(obj, CoreValue)
        return type.__instancecheck__(cls, obj)


class Value(CoreValue, metaclass=_ValueClass):
    """An SSA value. `ir.Value(v)` is a new object for the same value (what
    a caster's class builds on: `class ArithValue(ir.Value)`)."""

    def __init__(self, value):
        if not isinstance(value, CoreValue):
            value = _as_core_value(value)
        self.name = value.name
        self.type = value.type
        self._owner = getattr(value, "_owner", None)
        self._number = getattr(value, "_number", 0)

    @classmethod
    def _make(cls, name: str, type_, owner, number: int) -> "Value":
        value = cls.__new__(cls)
        value.name, value.type, value._owner, value._number = name, type_, owner, number
        return value

    # A raw SSA value is known only when the kernel runs: `if v:`, `while`,
    # `and`/`or`/`not` and `a if v else b` on one are traced (scf.if, ...),
    # as FlyDSL traces them on any ir.Value.
    __fly_dynamic__ = True

    def __class_getitem__(cls, item):
        # `Value[IntegerType]` in the generated modules' annotations.
        return cls

    @property
    def owner(self):
        """The op defining this value (a result) or its block (a block
        argument); None for a value the fx layer wrote as text."""
        owner = self._owner
        return owner.opview if hasattr(owner, "opview") else owner

    def get_name(self) -> str:
        return self.name

    def maybe_downcast(self):
        return cast_value(self)

    @property
    def context(self):
        return current_context()

    def __eq__(self, other) -> bool:
        return isinstance(other, CoreValue) and other.name == self.name and other.type == self.type

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}: {self.type})"


def _as_core_value(x) -> CoreValue:
    ir_value = getattr(x, "ir_value", None)
    value = ir_value() if callable(ir_value) else getattr(x, "ir", None)
    if not isinstance(value, CoreValue):
        raise TypeError(f"ir.Value(): {type(x).__name__} is not an SSA value")
    return value


class OpResult(Value):
    """A result of an op."""

    @property
    def result_number(self) -> int:
        return self._number


class BlockArgument(Value):
    """An argument of a block."""

    @property
    def arg_number(self) -> int:
        return self._number

    def set_type(self, type_) -> None:
        self.type = type_
        self._owner._changed()


# -- value casters ----------------------------------------------------------------

# Caster by a type's class name ('builtin.integer', TypeID's name) or its
# kind (`_fly.Type.kind`: 'layout', 'i32', ...).
_VALUE_CASTERS: dict = {}


def _caster_key(typeid) -> str:
    if isinstance(typeid, TypeID):
        return typeid.name
    static = getattr(typeid, "static_typeid", None)
    if isinstance(static, TypeID):
        return static.name
    if isinstance(typeid, str):
        return typeid
    raise TypeError(f"register_value_caster: a TypeID, a type class or a type kind, not "
                    f"{type(typeid).__name__}")


def register_value_caster(typeid, caster=None, replace: bool = False):
    """Registers `caster(value) -> object` for results and block arguments
    whose type is of class `typeid` (a TypeID such as
    `ir.IntegerType.static_typeid`, a type class, a TypeID's name) or of
    kind `typeid` (`_fly.Type.kind`, e.g. 'layout'). As a decorator without
    `caster`. A second caster for the same key needs `replace=True`."""
    key = _caster_key(typeid)

    def add(fn):
        if key in _VALUE_CASTERS and not replace:
            raise RuntimeError(f"a value caster for {key!r} is already registered "
                               "(replace=True replaces it)")
        _VALUE_CASTERS[key] = fn
        return fn
    return add(caster) if caster is not None else add


def cast_value(value):
    """`value` through the caster registered for its type, if any."""
    if not _VALUE_CASTERS:
        return value
    caster = _VALUE_CASTERS.get(value.type.typeid) or _VALUE_CASTERS.get(value.type.kind)
    return caster(value) if caster is not None else value
