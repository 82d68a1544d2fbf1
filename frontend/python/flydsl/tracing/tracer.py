"""The tracing runtime of rewritten control flow: dynamic `if`, range loops,
`while`, conditional expressions and `and`/`or`/`not` become scf and arith
ops (SPEC §7.1).

Each branch or loop body is traced into a block of its own. The variables
the rewriter found assigned (or changed in place) there are matched up
afterwards, leaf by leaf: a variable holding a list, tuple, dict or
SimpleNamespace (nested too, see containers.py) is its structure and its
leaves, and the structure must be the same in both branches, or before and
after a loop body (dicts and namespaces matched by key). Each leaf:
- a dynamic value (an SSA value of any type) becomes a result of the scf
  op, yielded by each branch / carried by the loop, of one type;
- a Python number meeting a dynamic numeric becomes a constant of its
  type; two different Python numbers of the two branches become constants
  of their common numeric type (`x = 1 if c else 2.5` is a Float32);
- a Python number that a loop body changes (`acc = 0`, then `acc = acc +
  x`) is carried as a numeric: of the body's type when the body makes it
  dynamic, else the numbers' common type. The body is then traced again
  with the carried value (the first trace's ops are dropped; what it did
  outside the IR, such as a static LDS allocation, stays done);
- any other Python value must come out unchanged (the same object, or an
  equal one), else the error names the variable, its path and why;
- a variable unbound before the construct and assigned inside it is local
  to the branch or body: unbound afterwards (unbound after an `if` unless
  both branches bind it).
Containers go into each branch and each body as copies (their leaves are
the same objects), so a branch that changes a list in place changes the
copy, whose new contents become the variable after the `if`.

FlyDSL's loop with explicit state, `for iv, state in range(lo, hi, step,
init=[...])` ending in `results = yield [...]`, is one scf.for over
`index` (FlyDSL's type for it: the bounds are index_cast, `iv` is an
fx.Index) whose iter_args are the init values, in order: fx values, raw
SSA values, or Python numbers (constants of their own type: bool Boolean,
int Int32, float Float32). `state` is the list of the block arguments and
`results` the loop's results (one value, or a list of several), each as an
object of its init value's class (a raw SSA value stays raw; one of a
subclass of Value, such as ArithValue, is made of that class). The yield
gives one value per init value, of its type (a Python number becomes a
constant of it). Nothing else is carried: after the loop a variable has
its value at the end of the body, except that an SSA value made in the
body becomes a LoopLocal (control_flow.py), which fails where it is used.
"""

from __future__ import annotations

from contextlib import contextmanager

from .containers import Mismatch, describe_structure, flatten, leaf_paths, leaves_like, \
    copy_structure, unflatten
from .control_flow import UNDEF, ControlFlowRuntime, LoopLocal
from .errors import TraceError
from .ir import Block, Value, parse_type
from .trace import builder


class Values:
    """What the tracer needs of traced values. `flydsl.expr`, which sits
    above the tracer, registers these when it is imported:
    - rewrap(like, value): an SSA value as an object of `like`'s class (a
      `like` that is no traced object, such as a raw SSA value, gives the
      value's own class: an `index` value is an fx.Index);
    - condition(x): x as a scalar i1 value, or None if it cannot be one;
    - promote(x, other): the Python number x as a numeric (an SSA value) of
      other's type when other is a numeric, of the common type of the two
      numbers when other is a Python number too (bool -> Boolean, int ->
      Int32, float -> Float32, mixed by the arithmetic's rules); None when
      it cannot be one (other is a vector or not a numeric);
    - loop_bound(x): a range bound as an Int32 value;
    - boolean(x): a Boolean constant (a bool) or an i1 SSA value as one;
    - int32(x): an i32 SSA value or a Python int as an Int32."""

    rewrap = condition = promote = loop_bound = boolean = int32 = None

    def register(self, **hooks) -> None:
        for name, fn in hooks.items():
            if not hasattr(Values, name):
                raise TypeError(f"the tracer has no value hook {name!r}")
            setattr(self, name, fn)


VALUES = Values()


def _is_value(x) -> bool:
    return not isinstance(x, LoopLocal) and hasattr(x, "ir") and isinstance(getattr(x, "ir"), Value)


def _is_dynamic(x) -> bool:
    return not isinstance(x, type) and bool(getattr(x, "__fly_dynamic__", False))


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float)) and not _is_value(x)


def _same(a, b) -> bool:
    """Whether the Python values a and b are the same value (identical, or
    equal and of one type; an `==` that is no bool is not equality)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return (a == b) is True
    except Exception:  # an __eq__ that refuses: not the same
        return False


def _describe(x) -> str:
    if isinstance(x, Value):
        return f"a raw SSA value of type {x.type}"
    if _is_value(x):
        return f"a {type(x).__name__} of type {x.ir.type}"
    shape = describe_structure(x)
    if shape:
        return shape
    return f"the Python value {x!r}"[:200]


def _subject(name, path="") -> str:
    if name is None:
        return f"the value at {path}" if path else "the value"
    return f"variable '{name}{path}'"


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


class _Slot:
    """A leaf that becomes result `index` of the scf op (like `like`)."""

    __slots__ = ("index", "like")

    def __init__(self, index, like):
        self.index = index
        self.like = like


class _Merged:
    """A variable after a two-way construct that is rebuilt from the op's
    results: its structure and leaves (_Slots where results go)."""

    __slots__ = ("tree", "leaves")

    def __init__(self, tree, leaves):
        self.tree = tree
        self.leaves = leaves

    def value(self, results):
        return unflatten(self.tree, [_rewrap(x.like, results[x.index])
                                     if isinstance(x, _Slot) else x for x in self.leaves])


class _Merge:
    """The variables after a two-way construct (scf.if): per variable its
    structure and merged leaves; the leaves that differ become results,
    yielded by the two blocks."""

    def __init__(self, kind, blocks, loc):
        self.kind = kind
        self.blocks = blocks
        self.loc = loc
        self.yields = ([], [])
        self.types = []

    def _error(self, text):
        return TraceError(text, self.loc[0], self.loc[1])

    def variable(self, name, a, c, before=UNDEF):
        """The value of `name` after the construct (a then-value, c
        else-value, `before` the value before it), or a _Merged to build
        from the op's results. A container both branches leave as it was
        (copies of it, the same leaves) is the object it was."""
        if a is UNDEF or c is UNDEF:
            return UNDEF
        if a is c:
            return a
        tree, leaves_a = flatten(a)
        try:
            leaves_c = leaves_like(tree, c)
        except Mismatch as m:
            raise self._error(
                f"{_subject(name, m.path)} is {_expected(m, leaves_a)} in one "
                f"branch and {_describe(m.got)} in the other of {self.kind}: a container "
                "assigned in the branches keeps one structure (the same kind of container, "
                "length and keys)") from None
        paths = None
        merged = []
        for j, (x, y) in enumerate(zip(leaves_a, leaves_c)):
            leaf = self._leaf(x, y)
            if leaf is None:
                paths = paths or leaf_paths(tree)
                what = _subject(name, paths[j])
                text = (f"{what} is {_describe(x)} in one branch and {_describe(y)} in the "
                        f"other of {self.kind}")
                if not (_is_value(x) or _is_value(y)):
                    text += ": a Python value cannot depend on a dynamic condition"
                raise self._error(text)
            merged.append(leaf)
        if before is not UNDEF and not any(isinstance(x, _Slot) for x in merged):
            try:
                if all(x is y for x, y in zip(merged, leaves_like(tree, before))):
                    return before
            except Mismatch:
                pass
        return _Merged(tree, merged)

    def _leaf(self, x, y):
        """The merged leaf: x itself, a _Slot, or None (cannot merge)."""
        if x is y:
            return x
        x_value, y_value = _is_value(x), _is_value(y)
        if not (x_value or y_value):
            if _same(x, y):
                return x
            if not (_is_number(x) and _is_number(y)):
                return None
            # Two Python numbers: constants of their common type.
            with _in_block(self.blocks[0]):
                x = VALUES.promote(x, y)
            with _in_block(self.blocks[1]):
                y = VALUES.promote(y, x)
        elif x_value and _is_number(y):
            with _in_block(self.blocks[1]):
                y = VALUES.promote(y, x)
        elif y_value and _is_number(x):
            with _in_block(self.blocks[0]):
                x = VALUES.promote(x, y)
        if x is None or y is None or not (_is_value(x) and _is_value(y)) \
                or x.ir.type != y.ir.type:
            return None
        self.yields[0].append(x.ir)
        self.yields[1].append(y.ir)
        self.types.append(x.ir.type)
        return _Slot(len(self.types) - 1, x)



def _expected(m, leaves):
    """What a Mismatch expected, described (`leaves`: the expected value's)."""
    return _describe(leaves[m.leaf]) if m.expected is None else describe_structure(m.expected)


class _Promote(Exception):
    """A loop body turned Python numbers of its variables into other
    numbers or numerics: leaves[(variable, leaf)] is the body's value."""

    def __init__(self, leaves):
        super().__init__("promote loop-carried Python numbers")
        self.leaves = leaves


class _Carry:
    """The variables of a traced loop: each one's structure and leaves at
    entry, which leaves the loop carries (the dynamic ones: block
    arguments, yielded values, results) and how the body's values line up
    with them."""

    def __init__(self, kind, names, values, loc):
        self.kind = kind
        self.names = names
        self.loc = loc
        self.values = values
        self.entries = []  # per variable: None (unbound) or (tree, leaves)
        self.carried = []  # (variable, leaf) of each carried leaf
        for i, v in enumerate(values):
            if v is UNDEF or isinstance(v, LoopLocal):  # unbound: local to the body
                self.entries.append(None)
                continue
            tree, leaves = flatten(v)
            self.entries.append((tree, leaves))
            self.carried.extend((i, j) for j, x in enumerate(leaves) if _is_value(x))
        leaves = [self.entries[i][1][j] for i, j in self.carried]
        self.types = [x.ir.type for x in leaves]
        self.init = [x.ir for x in leaves]

    def _error(self, text):
        return TraceError(text, self.loc[0], self.loc[1])

    def _rebuild(self, replace):
        return tuple(UNDEF if e is None else
                     unflatten(e[0], [replace.get((i, j), x) for j, x in enumerate(e[1])])
                     for i, e in enumerate(self.entries))

    def inputs(self, args):
        """The variables the body starts from: carried leaves are `args`
        (block arguments), the others as they were."""
        return self._rebuild({(i, j): _rewrap(self.entries[i][1][j], a)
                              for (i, j), a in zip(self.carried, args)})

    def results(self, results):
        """The variables after the loop: carried leaves are its `results`
        (a variable without carried leaves is the object it was)."""
        after = self.inputs(results)
        has_carried = {i for i, _ in self.carried}
        return tuple(a if i in has_carried else v
                     for i, (a, v) in enumerate(zip(after, self.values)))

    def outputs(self, outs):
        """The SSA values the body yields for its values `outs`; _Promote
        when Python numbers must be carried."""
        slot = {c: k for k, c in enumerate(self.carried)}
        yields = [None] * len(self.carried)
        promote = {}
        for i, (name, entry, out) in enumerate(zip(self.names, self.entries, outs)):
            if entry is None:
                continue
            tree, before = entry
            try:
                after = leaves_like(tree, out)
            except Mismatch as m:
                raise self._error(
                    f"{_subject(name, m.path)} is {_expected(m, before)} "
                    f"before {self.kind} and {_describe(m.got)} after its body: a container "
                    "carried by a loop keeps its structure (the same kind of container, "
                    "length and keys)") from None
            for j, (b, a) in enumerate(zip(before, after)):
                k = slot.get((i, j))
                if k is not None:
                    if _is_number(a):
                        a = VALUES.promote(a, b)
                    if a is None or not _is_value(a) or a.ir.type != b.ir.type:
                        raise self._type_change(name, tree, j, b, after[j])
                    yields[k] = a.ir
                elif _same(a, b):
                    continue
                elif _is_number(b) and (_is_number(a) or _is_value(a)):
                    promote[(i, j)] = a
                else:
                    path = leaf_paths(tree)[j]
                    raise self._error(
                        f"{_subject(name, path)} is {_describe(b)} and {self.kind} changes it "
                        f"to {_describe(a)}: a loop carries dynamic values and numbers, "
                        "not other Python values (make it dynamic, e.g. fx.Int32(...), or "
                        "unroll the loop with range_constexpr)")
        if promote:
            raise _Promote(promote)
        return yields

    def _type_change(self, name, tree, j, before, after):
        path = leaf_paths(tree)[j]
        return self._error(f"{_subject(name, path)} changes type across iterations of "
                           f"{self.kind}: {_describe(before)} before, {_describe(after)} after")

    def promoted(self, leaves):
        """The entry values with the Python numbers of `leaves` as numerics
        (of the type the body gave them)."""
        replace = {}
        for (i, j), after in leaves.items():
            tree, before = self.entries[i]
            v = VALUES.promote(before[j], after)
            if v is None:
                raise self._type_change(self.names[i], tree, j, before[j], after)
            replace[(i, j)] = v
        return self._rebuild(replace)


def _check_step(step, loc):
    """A Python step of a range loop is positive: scf.for counts up, so a
    Python range counting down (or not at all) has no traced form."""
    if isinstance(step, int) and step <= 0:
        raise TraceError(f"the step of a traced range loop is positive (scf.for counts up), "
                         f"not {step}: count up and compute the index from the counter, or "
                         "use range_constexpr(...)", loc[0], loc[1])


def _own_class(value: Value):
    """An SSA value as the fx object of its type (fx.Index for an index)."""
    return VALUES.rewrap(value, value)


def _index_bound(x, what, loc):
    """A bound of a range(..., init=...) loop as an `index` SSA value: a
    Python int a constant, an integer value index_cast (as FlyDSL does)."""
    b = builder()
    index = parse_type("index")
    if isinstance(x, int):
        if not -2 ** 63 <= x < 2 ** 63:
            raise TraceError(f"the {what} {x} of this range loop does not fit an index",
                             loc[0], loc[1])
        return b.op("arith.constant", [], [index], f"value = {int(x)} : index", loc=loc)[0]
    if isinstance(x, float):
        raise TraceError(f"the {what} of a range loop is an integer, not the float {x!r}",
                         loc[0], loc[1])
    v = x if isinstance(x, Value) else x.ir if _is_value(x) else None
    if v is None or v.type.is_fly:
        v = VALUES.loop_bound(x).ir  # an int tuple's scalar, or that hook's own error
    if str(v.type) == "index":
        return v
    if not _is_integer_type(v.type):
        raise TraceError(f"the {what} of a range loop is an integer, not {_describe(x)}",
                         loc[0], loc[1])
    return b.op("arith.index_cast", [v], [index], loc=loc)[0]


def _is_integer_type(t) -> bool:
    text = str(t)
    return text[:1] == "i" and text[1:].isdigit() and text != "i1"


def _ssa_number(x):
    """The number of the SSA value `x` is or holds (%N), or None (a static
    numeric is asked for none: its `ir` would make a constant)."""
    v = x if isinstance(x, Value) else x.ir if _is_dynamic(x) and _is_value(x) else None
    name = v.name if v is not None else ""
    return int(name[1:]) if name[:1] == "%" and name[1:].isdigit() else None


def _outlived(name, value, inside, loc):
    """The value of variable `name` after a range(..., init=...) loop, from
    its value at the end of the body: SSA values made in the body
    (numbered in `inside`) become LoopLocals."""
    if value is UNDEF or isinstance(value, LoopLocal):
        return value
    tree, leaves = flatten(value)
    local = [_ssa_number(x) in inside for x in leaves]
    if not any(local):
        return value
    paths = leaf_paths(tree)
    return unflatten(tree, [LoopLocal(name + path, loc) if is_local else x
                            for x, path, is_local in zip(leaves, paths, local)])


class _Explicit:
    """The values a range(..., init=...) loop carries: their SSA values and
    types, and the objects (of each init value's class) of block arguments,
    results and yielded values."""

    def __init__(self, init, loc):
        self.loc = loc
        self.likes = []
        for k, x in enumerate(init):
            if _is_number(x):
                x = VALUES.promote(x, x)  # a constant of the number's own type
            if not (isinstance(x, Value) or _is_value(x)):
                raise TraceError(f"init[{k}] of this range loop is {_describe(x)}: a loop "
                                 "carries SSA values (fx numerics, vectors, other fx values, "
                                 "raw SSA values) and Python numbers", loc[0], loc[1])
            self.likes.append(x)
        self.init = [x if isinstance(x, Value) else x.ir for x in self.likes]
        self.types = [v.type for v in self.init]

    def objects(self, values):
        return [_rewrap(like, v) if not isinstance(like, Value) else v if type(like) is Value
                else type(like)(v)  # a raw value with operators (ArithValue): of its class
                for like, v in zip(self.likes, values)]

    def yields(self, yielded, loc):
        """The SSA values of the body's yield (`yielded`: its expression's
        value, None for a bare `yield`, UNDEF when the body has none)."""
        n = len(self.init)
        if yielded is UNDEF:
            if n:
                raise TraceError(
                    f"the body of this range(..., init=...) loop has no `yield`: it ends with "
                    f"`results = yield [...]`, giving the {n} values it carries into the next "
                    "iteration", self.loc[0], self.loc[1])
            return []
        items = [] if yielded is None else list(yielded) if isinstance(yielded, (list, tuple)) \
            else [yielded]
        if len(items) != n:
            raise TraceError(f"this `yield` gives {len(items)} value(s), but the loop carries "
                             f"{n} (the values of its init=)", loc[0], loc[1])
        out = []
        for k, (y, like, t) in enumerate(zip(items, self.likes, self.types)):
            v = y
            if _is_number(y):
                exemplar = _own_class(like) if isinstance(like, Value) else like
                v = VALUES.promote(y, exemplar)  # a constant of the carried type, if it has one
            v = v if isinstance(v, Value) else v.ir if _is_value(v) else None
            if v is None or v.type != t:
                raise TraceError(
                    f"this `yield` gives {_describe(y)} for carried value {k}, which the loop "
                    f"carries as {t} (init[{k}] is {_describe(like)}): a carried value keeps "
                    "its type", loc[0], loc[1])
            out.append(v)
        return out


class Tracer(ControlFlowRuntime):
    # -- if ---------------------------------------------------------------
    def _branch(self, fn, values):
        b = builder()
        block = b.push_block()
        try:
            if fn is None:
                outs = tuple(values)
            else:
                outs = tuple(fn(*(copy_structure(v) for v in values)))
        finally:
            b.pop_block()
        return block, outs

    def _if(self, kind, cond, then_fn, else_fn, names, values, loc):
        c = _as_bool(cond, loc)
        then_block, then_outs = self._branch(then_fn, values)
        else_block, else_outs = self._branch(else_fn, values)
        merge = _Merge(kind, (then_block, else_block), loc)
        merged = [merge.variable(name, a, e, v)
                  for name, a, e, v in zip(names, then_outs, else_outs, values)]
        for block, yielded in zip((then_block, else_block), merge.yields):
            with _in_block(block) as b:
                b.op("scf.yield", yielded, loc=loc)
        out = builder().op("scf.if", [c.ir], merge.types,
                           regions=[[then_block], [else_block]], loc=loc)
        return tuple(m.value(out) if isinstance(m, _Merged) else m for m in merged)

    def dynamic_if(self, cond, then_fn, else_fn, names, values, loc):
        return self._if("an if on a dynamic condition", cond, then_fn, else_fn, names, values,
                        loc)

    def dynamic_select(self, cond, a_thunk, b_thunk, loc):
        # A conditional expression has no value before it: each branch's
        # value is merged, whatever it is.
        (r,) = self._if("a conditional expression on a dynamic condition", cond,
                        lambda _: (a_thunk(),), lambda _: (b_thunk(),), [None], [UNDEF], loc)
        return r

    # -- loops ------------------------------------------------------------
    def _loop(self, kind, names, values, loc, trace):
        """`trace(carry)` traces the loop's regions for the variables'
        values; again while the body turns Python numbers into values the
        loop must carry."""
        values = tuple(values)
        for _ in range(1 + sum(len(flatten(v)[1]) for v in values if v is not UNDEF)):
            carry = _Carry(kind, names, values, loc)
            try:
                return carry, trace(carry)
            except _Promote as p:
                values = carry.promoted(p.leaves)
        raise TraceError(f"internal error: the carried values of {kind} do not settle",
                         loc[0], loc[1])

    def live_iv(self, name, value, loc):
        if isinstance(value, int) and not isinstance(value, bool):
            return VALUES.int32(value)
        if _is_value(value) and str(value.ir.type) == "i32":
            return value
        raise TraceError(
            f"the loop variable '{name}' is bound before this `for ... in range(...)` loop, to "
            f"{_describe(value)}: after the loop it holds its last value (as in Python), so "
            "the loop carries it as an i32, which cannot replace that value; give the loop "
            "variable a name of its own", loc[0], loc[1])

    def dynamic_for(self, start, stop, step, body_fn, names, values, loc, options=None):
        if options:
            raise TraceError(f"loop options {sorted(options)} are not supported yet", loc[0], loc[1])
        _check_step(step, loc)
        lb, ub, st = (VALUES.loop_bound(x) for x in (start, stop, step))
        b = builder()

        def trace(carry):
            block = b.push_block([parse_type("i32")] + carry.types)
            try:
                outs = tuple(body_fn(VALUES.int32(block.args[0]), *carry.inputs(block.args[1:])))
                b.op("scf.yield", carry.outputs(outs), loc=loc)
            finally:
                b.pop_block()
            return block

        carry, block = self._loop("a range loop", names, values, loc, trace)
        results = b.op("scf.for", [lb.ir, ub.ir, st.ir] + carry.init, carry.types,
                       regions=[[block]], loc=loc)
        return carry.results(results)

    def dynamic_for_init(self, start, stop, step, init, body_fn, names, values, loc, yield_loc,
                         options=None):
        if options:
            raise TraceError(f"loop options {sorted(options)} are not supported yet", loc[0],
                             loc[1])
        _check_step(step, loc)
        b = builder()
        bounds = [_index_bound(x, what, loc) for x, what in
                  ((start, "start"), (stop, "stop"), (step, "step"))]
        carried = _Explicit(init, loc)  # the init values, made before the body's block
        first = b._counter
        block = b.push_block([parse_type("index")] + carried.types)
        try:
            iv = _own_class(block.args[0])
            out = tuple(body_fn(iv, carried.objects(block.args[1:]), *values))
            b.op("scf.yield", carried.yields(out[0], yield_loc or loc), loc=yield_loc or loc)
        finally:
            b.pop_block()
        inside = range(first + 1, b._counter + 1)
        results = carried.objects(b.op("scf.for", bounds + carried.init, carried.types,
                                       regions=[[block]], loc=loc))
        after = tuple(_outlived(name, v, inside, loc) for name, v in zip(names, out[1:]))
        return (None if not results else results[0] if len(results) == 1 else results), after

    def dynamic_while(self, cond_fn, body_fn, names, values, loc):
        b = builder()

        def trace(carry):
            before = b.push_block(carry.types)
            try:
                c = _as_bool(cond_fn(*carry.inputs(before.args)), loc)
                b.op("scf.condition", [c.ir] + list(before.args), loc=loc)
            finally:
                b.pop_block()
            body = b.push_block(carry.types)
            try:
                outs = tuple(body_fn(*carry.inputs(body.args)))
                b.op("scf.yield", carry.outputs(outs), loc=loc)
            finally:
                b.pop_block()
            return before, body

        carry, (before, body) = self._loop("a while loop", names, values, loc, trace)
        results = b.op("scf.while", carry.init, carry.types, regions=[[before], [body]], loc=loc)
        return carry.results(results)

    # -- boolean operators -------------------------------------------------
    def _fold(self, values, op, loc):
        def operand(v):
            if _is_value(v) or isinstance(v, Value):
                return _as_bool(v, loc)
            return VALUES.boolean(bool(v))

        acc = operand(values[0])
        for v in values[1:]:
            v = operand(v)
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
