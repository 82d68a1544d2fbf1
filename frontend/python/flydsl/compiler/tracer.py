"""The tracing runtime of rewritten control flow: dynamic `if`, range loops,
`while`, conditional expressions and `and`/`or`/`not` become scf and arith
ops (SPEC §7.1).

Each branch or loop body is traced once into a block of its own. The
variables the rewriter found assigned there are matched up afterwards:
- a dynamic value (an SSA value of any type) becomes a result of the scf
  op, yielded by each branch / carried by the loop; a Python number meeting
  a dynamic numeric of the other branch is converted to its type;
- a Python value must come out unchanged (a loop cannot change it; two
  branches must agree), else the error says which variable and why;
- a variable unbound before the construct and assigned inside it is local
  to the branch or body: unbound afterwards.
"""

from __future__ import annotations

from contextlib import contextmanager

from .control_flow import UNDEF, ControlFlowRuntime
from .errors import TraceError
from .ir import Block, Value, parse_type
from .trace import builder


def _is_value(x) -> bool:
    return hasattr(x, "ir") and isinstance(getattr(x, "ir"), Value)


def _describe(x) -> str:
    if _is_value(x):
        return f"a {type(x).__name__} of type {x.ir.type}"
    return f"the Python value {x!r}"


@contextmanager
def _in_block(block: Block):
    b = builder()
    b._blocks.append(block)
    try:
        yield b
    finally:
        b._blocks.pop()


def _rewrap(like, value: Value):
    """`value` as an object of the same Python class as `like`."""
    from ..expr import numeric as nm
    from ..expr._core import wrap

    if isinstance(like, nm.Vector):
        return nm.Vector(value, like.element)
    if isinstance(like, nm.Numeric):
        return type(like)(value)
    if _is_value(like):
        try:
            return type(like)(value)
        except TypeError:
            return wrap(value)
    return wrap(value)


def _as_bool(x, loc):
    """A dynamic condition as an i1 value."""
    from ..expr import numeric as nm
    from ..expr.typing import IntTuple

    if isinstance(x, IntTuple):
        x = x.to_scalar()
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector):
        if x.mlir_type == "i1":
            return x
        return x != (0.0 if x.is_float else 0)
    raise TraceError(f"{_describe(x)} cannot be a condition", loc[0], loc[1])


class Tracer(ControlFlowRuntime):
    # -- if ---------------------------------------------------------------
    def _branch(self, fn, values):
        b = builder()
        block = b.push_block()
        try:
            outs = tuple(values) if fn is None else tuple(fn(*values))
        finally:
            b.pop_block()
        return block, outs

    def _merge(self, kind, names, pairs, blocks, loc):
        """Per name: the value after a two-way construct, or a slot for a
        result (index into the yielded lists)."""
        from ..expr import numeric as nm

        results, yields = [], ([], [])
        for name, outs in zip(names, pairs):
            a, c = outs
            if a is UNDEF or c is UNDEF:
                results.append(UNDEF)
                continue
            if a is c:
                results.append(a)
                continue
            if _is_value(a) or _is_value(c):
                # A Python number meets a dynamic numeric: give it its type.
                if isinstance(a, nm.Numeric) and isinstance(c, (int, float, bool)):
                    with _in_block(blocks[1]):
                        c = nm.convert(c, type(a))
                elif isinstance(c, nm.Numeric) and isinstance(a, (int, float, bool)):
                    with _in_block(blocks[0]):
                        a = nm.convert(a, type(c))
                if not (_is_value(a) and _is_value(c)) or a.ir.type != c.ir.type:
                    raise TraceError(f"variable '{name}' is {_describe(a)} in one branch and "
                                     f"{_describe(c)} in the other of {kind}", loc[0], loc[1])
                results.append(("slot", len(yields[0]), a))
                yields[0].append(a.ir)
                yields[1].append(c.ir)
                continue
            if a == c:
                results.append(a)
                continue
            raise TraceError(f"variable '{name}' is {_describe(a)} in one branch and "
                             f"{_describe(c)} in the other of {kind}: a Python value "
                             "cannot depend on a dynamic condition", loc[0], loc[1])
        return results, yields

    def dynamic_if(self, cond, then_fn, else_fn, names, values, loc):
        c = _as_bool(cond, loc)
        then_block, then_outs = self._branch(then_fn, values)
        else_block, else_outs = self._branch(else_fn, values)
        results, (ty, ey) = self._merge("an if on a dynamic condition", names,
                                        zip(then_outs, else_outs), (then_block, else_block), loc)
        for block, yielded in ((then_block, ty), (else_block, ey)):
            with _in_block(block) as b:
                b.op("scf.yield", yielded, loc=loc)
        out = builder().op("scf.if", [c.ir], [v.type for v in ty],
                           regions=[[then_block], [else_block]], loc=loc)
        return tuple(_rewrap(r[2], out[r[1]]) if isinstance(r, tuple) and r and r[0] == "slot"
                     else r for r in results)

    def dynamic_select(self, cond, a_thunk, b_thunk, loc):
        (r,) = self.dynamic_if(cond, lambda _: (a_thunk(),), lambda _: (b_thunk(),),
                               ["<conditional expression>"], [UNDEF_PLACEHOLDER], loc)
        return r

    # -- loops ------------------------------------------------------------
    def _carried(self, kind, names, values, outs, loc):
        """Checks a loop body's outputs against its inputs."""
        from ..expr import numeric as nm

        fixed = []
        for name, before, after in zip(names, values, outs):
            if before is UNDEF:
                fixed.append(after)
                continue
            if _is_value(before):
                if isinstance(before, nm.Numeric) and isinstance(after, (int, float, bool)):
                    after = nm.convert(after, type(before))
                if not _is_value(after) or after.ir.type != before.ir.type:
                    raise TraceError(f"variable '{name}' changes type across iterations of {kind}: "
                                     f"{_describe(before)} before, {_describe(after)} after",
                                     loc[0], loc[1])
                fixed.append(after)
                continue
            if after is before or (not _is_value(after) and after == before):
                fixed.append(after)
                continue
            raise TraceError(f"variable '{name}' is {_describe(before)} and {kind} changes it: "
                             "a Python value cannot be carried by a loop on the GPU (make it "
                             "dynamic, e.g. fx.Int32(...), or unroll with range_constexpr)",
                             loc[0], loc[1])
        return fixed

    def dynamic_for(self, start, stop, step, body_fn, names, values, loc, options=None):
        from ..expr import numeric as nm
        from ..expr.typing import IntTuple

        def bound(x):
            if isinstance(x, IntTuple):
                x = x.to_scalar()
            return nm.convert(x, nm.Int32)

        if options:
            raise TraceError(f"loop options {sorted(options)} are not supported yet", loc[0], loc[1])
        lb, ub, st = bound(start), bound(stop), bound(step)
        carried = [i for i, v in enumerate(values) if v is not UNDEF and _is_value(v)]
        b = builder()
        block = b.push_block([parse_type("i32")] + [values[i].ir.type for i in carried])
        try:
            inputs = list(values)
            for i, arg in zip(carried, block.args[1:]):
                inputs[i] = _rewrap(values[i], arg)
            outs = tuple(body_fn(nm.Int32(block.args[0]), *inputs))
            outs = self._carried("a range loop", names, values, outs, loc)
            b.op("scf.yield", [outs[i].ir for i in carried], loc=loc)
        finally:
            b.pop_block()
        results = b.op("scf.for", [lb.ir, ub.ir, st.ir] + [values[i].ir for i in carried],
                       [values[i].ir.type for i in carried], regions=[[block]], loc=loc)
        after = [UNDEF if v is UNDEF else v for v in values]
        for i, r in zip(carried, results):
            after[i] = _rewrap(values[i], r)
        return tuple(after)

    def dynamic_while(self, cond_fn, body_fn, names, values, loc):
        carried = [i for i, v in enumerate(values) if v is not UNDEF and _is_value(v)]
        types = [values[i].ir.type for i in carried]
        b = builder()

        def inputs_of(block):
            inputs = list(values)
            for i, arg in zip(carried, block.args):
                inputs[i] = _rewrap(values[i], arg)
            return inputs

        before = b.push_block(types)
        try:
            c = _as_bool(cond_fn(*inputs_of(before)), loc)
            b.op("scf.condition", [c.ir] + list(before.args), loc=loc)
        finally:
            b.pop_block()
        body = b.push_block(types)
        try:
            outs = tuple(body_fn(*inputs_of(body)))
            outs = self._carried("a while loop", names, values, outs, loc)
            b.op("scf.yield", [outs[i].ir for i in carried], loc=loc)
        finally:
            b.pop_block()
        results = b.op("scf.while", [values[i].ir for i in carried], types,
                       regions=[[before], [body]], loc=loc)
        after = list(values)
        for i, r in zip(carried, results):
            after[i] = _rewrap(values[i], r)
        return tuple(after)

    # -- boolean operators -------------------------------------------------
    def _fold(self, values, op, loc):
        from ..expr import numeric as nm

        acc = _as_bool(values[0], loc) if _is_value(values[0]) else nm.constant(bool(values[0]), nm.Boolean)
        for v in values[1:]:
            v = _as_bool(v, loc) if _is_value(v) else nm.constant(bool(v), nm.Boolean)
            (r,) = builder().op(op, [acc.ir, v.ir], [acc.ir.type], loc=loc)
            acc = nm.Boolean(r)
        return acc

    def dynamic_and(self, values, loc):
        return self._fold(list(values), "arith.andi", loc)

    def dynamic_or(self, values, loc):
        return self._fold(list(values), "arith.ori", loc)

    def dynamic_not(self, value, loc):
        from ..expr import numeric as nm

        c = _as_bool(value, loc)
        one = nm.constant(True, nm.Boolean)
        (r,) = builder().op("arith.xori", [c.ir, one.ir], [c.ir.type], loc=loc)
        return nm.Boolean(r)


# A conditional expression has no value before it: each branch's result is
# yielded, whatever it is.
UNDEF_PLACEHOLDER = object()
