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


class Values:
    """What the tracer needs of traced values. `flydsl.expr`, which sits
    above the tracer, registers these when it is imported:
    - rewrap(like, value): an SSA value as an object of `like`'s class;
    - condition(x): x as a scalar i1 value, or None if it cannot be one;
    - coerce(x, like): a Python number x as a value of the numeric `like`'s
      type (x itself when `like` is not a numeric);
    - loop_bound(x): a range bound as an Int32 value;
    - boolean(x): a Boolean constant (a bool) or an i1 SSA value as one;
    - int32(value): an i32 SSA value as an Int32."""

    rewrap = condition = coerce = loop_bound = boolean = int32 = None

    def register(self, **hooks) -> None:
        for name, fn in hooks.items():
            if not hasattr(Values, name):
                raise TypeError(f"the tracer has no value hook {name!r}")
            setattr(self, name, fn)


VALUES = Values()


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
    return VALUES.rewrap(like, value)


def _as_bool(x, loc):
    """A dynamic condition as an i1 value."""
    c = VALUES.condition(x)
    if c is None:
        raise TraceError(f"{_describe(x)} cannot be a condition", loc[0], loc[1])
    return c


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
                if _is_value(a) and isinstance(c, (int, float, bool)):
                    with _in_block(blocks[1]):
                        c = VALUES.coerce(c, a)
                elif _is_value(c) and isinstance(a, (int, float, bool)):
                    with _in_block(blocks[0]):
                        a = VALUES.coerce(a, c)
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

        fixed = []
        for name, before, after in zip(names, values, outs):
            if before is UNDEF:
                fixed.append(after)
                continue
            if _is_value(before):
                if isinstance(after, (int, float, bool)):
                    after = VALUES.coerce(after, before)
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
        if options:
            raise TraceError(f"loop options {sorted(options)} are not supported yet", loc[0], loc[1])
        lb, ub, st = (VALUES.loop_bound(x) for x in (start, stop, step))
        carried = [i for i, v in enumerate(values) if v is not UNDEF and _is_value(v)]
        b = builder()
        block = b.push_block([parse_type("i32")] + [values[i].ir.type for i in carried])
        try:
            inputs = list(values)
            for i, arg in zip(carried, block.args[1:]):
                inputs[i] = _rewrap(values[i], arg)
            outs = tuple(body_fn(VALUES.int32(block.args[0]), *inputs))
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

        acc = _as_bool(values[0], loc) if _is_value(values[0]) else VALUES.boolean(bool(values[0]))
        for v in values[1:]:
            v = _as_bool(v, loc) if _is_value(v) else VALUES.boolean(bool(v))
            (r,) = builder().op(op, [acc.ir, v.ir], [acc.ir.type], loc=loc)
            acc = VALUES.boolean(r)
        return acc

    def dynamic_and(self, values, loc):
        return self._fold(list(values), "arith.andi", loc)

    def dynamic_or(self, values, loc):
        return self._fold(list(values), "arith.ori", loc)

    def dynamic_not(self, value, loc):

        c = _as_bool(value, loc)
        one = VALUES.boolean(True)
        (r,) = builder().op("arith.xori", [c.ir, one.ir], [c.ir.type], loc=loc)
        return VALUES.boolean(r)


# A conditional expression has no value before it: each branch's result is
# yielded, whatever it is.
UNDEF_PLACEHOLDER = object()
