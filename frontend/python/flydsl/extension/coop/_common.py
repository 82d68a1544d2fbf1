"""What the warp and block collectives share: checking their arguments,
folding two values with a ReductionOp, the op's identity, Vector items,
and control flow (a store by some threads) written without the AST
rewriter, which does not reach flydsl's own functions."""

from __future__ import annotations

from ...tracing.control_flow import current as _control_flow
from ...tracing.errors import TraceError
from ...tracing.ir import user_location
from ...tracing.trace import builder
from ...expr import numeric as nm
from ...expr._elementwise import element, fail, lanes
from ...expr.arith import select
from ...expr.gpu import num_warp_threads, thread_idx
from ...expr.math import max as _max
from ...expr.math import min as _min
from ...expr.typing import ReductionOp


class CoopNotImplementedError(TraceError, NotImplementedError):
    """A collective asked for something it names but does not do (a
    planned algorithm, a policy class without a default): a TraceError at
    the user's line that is also Python's NotImplementedError."""


def not_implemented(message: str):
    raise CoopNotImplementedError(message, *user_location()[:2])


def check_op(api: str, op) -> None:
    if not isinstance(op, ReductionOp):
        fail(f"{api}: op must be an fx.ReductionOp (ADD, MUL, MAX, MIN), not {op!r}")


def check_value(api: str, value) -> None:
    if not isinstance(value, nm.Numeric) or element(value) is nm.Boolean:
        what = element(value).__name__ if isinstance(value, nm.Numeric) else type(value).__name__
        fail(f"{api}: value must be an integer or float numeric (a scalar or a Vector), "
             f"not {what}")


def is_power_of_two(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1 and not x & (x - 1)


def warp_width(api: str, width) -> int:
    """The lanes a warp collective spans: `width`, or the whole wave."""
    lanes_per_wave = num_warp_threads()
    if width is None:
        return lanes_per_wave
    if not is_power_of_two(width) or width > lanes_per_wave:
        fail(f"{api}: width={width!r} is not a power of two (a Python int) from 1 to the "
             f"{lanes_per_wave} lanes of a wave")
    return width


def combine(op, a, b):
    """a ⊕ b, in this order."""
    if op is ReductionOp.ADD:
        return a + b
    if op is ReductionOp.MUL:
        return a * b
    if op is ReductionOp.MAX:
        return _max(a, b)
    return _min(a, b)


def _extreme(cls, lowest: bool):
    """The least or greatest value of `cls` (infinities for floats: a finite
    bound is a legal input that MAX / MIN must still see)."""
    if cls.is_float:
        return float("-inf") if lowest else float("inf")
    if cls.signed:
        return -(1 << (cls.bits - 1)) if lowest else (1 << (cls.bits - 1)) - 1
    return 0 if lowest else (1 << cls.bits) - 1


def identity(op, like):
    """The value x with x ⊕ v == v for every v, shaped like `like`."""
    cls = element(like)
    x = {ReductionOp.ADD: 0, ReductionOp.MUL: 1}.get(op)
    if x is None:
        x = _extreme(cls, lowest=op is ReductionOp.MAX)
    scalar = nm.constant(float(x) if cls.is_float else x, cls)
    if not isinstance(like, nm.Vector):
        return scalar
    (v,) = builder().op("vector.broadcast", [scalar.ir], [like.ir.type])
    return nm.Vector(v, cls)


def seed(value, op, init):
    """init ⊕ value (no change without an init)."""
    return value if init is None else combine(op, init, value)


def items(vector) -> list:
    """The elements of a Vector, as scalars."""
    cls = element(vector)
    b = builder()
    out = []
    for i in range(lanes(vector)):
        (e,) = b.op("vector.extract", [vector.ir], [cls.type_handle()],
                    f"static_position = array<i64: {i}>")
        out.append(cls(e))
    return out


def from_items(values, like):
    """A Vector of the type of `like` holding `values`."""
    b = builder()
    (v,) = b.op("vector.broadcast", [values[0].ir], [like.ir.type])
    for i, x in enumerate(values[1:], 1):
        (v,) = b.op("vector.insert", [x.ir, v], [like.ir.type],
                    f"static_position = array<i64: {i}>")
    return nm.Vector(v, element(like))


def thread_partial(value, op):
    """A Vector folded to one scalar, in item order; a scalar as it is."""
    if not isinstance(value, nm.Vector):
        return value
    values = items(value)
    total = values[0]
    for x in values[1:]:
        total = combine(op, total, x)
    return total


def linear_thread_id(block_size):
    """The thread's index in the block, x fastest (as gpu.thread_id counts)."""
    tid = thread_idx.x
    dim_x, dim_y, dim_z = block_size
    if dim_y > 1:
        tid = tid + thread_idx.y * dim_x
    if dim_z > 1:
        tid = tid + thread_idx.z * (dim_x * dim_y)
    return tid


def when(cond, body) -> None:
    """body() only in the threads where the Boolean `cond` holds (scf.if)."""
    def then_fn():
        body()
        return ()
    _control_flow().if_(cond, then_fn, None, (), ())

