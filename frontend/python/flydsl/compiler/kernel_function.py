"""@flyc.kernel: a device function traced into a `gpu.func` of its own
gpu.module. Calling it while a @flyc.jit function is traced binds the
arguments and returns a launcher; `.launch(grid=, block=, smem=, stream=)`
traces the body (once per argument types, Constexpr values and block size)
and emits the `gpu.launch_func`, which the compiler checks against the chip.

The body is traced at the launch, not at the call, because what it may ask
of the launch is known only then: `fx.known_block_size()` is the kernel's
`known_block_size=` or, without one, the launch's block when all of its
dimensions are static (the gpu.func then carries it as its
known_block_size, as FlyDSL's does; one specialization per block size,
each after the first under a symbol with a suffix). While the body is traced,
`KernelTrace.current()` is the kernel's record of the shared memory its
SharedAllocators take: static LDS globals of its gpu.module, and the bytes
of dynamic LDS a launch without `smem=` provides.

The limits of a launch (grid and block dimensions, work-items per
workgroup, static plus dynamic LDS against the chip's table) are checked
by the compiler's fly-check-launches pass, the first of the pipeline, on
the traced `gpu.launch_func`; its error at the launch's location becomes a
LaunchError at the `.launch(` line (jit_function.py). Checked here is what
never reaches that IR: the Python types and number of the dimensions,
values an index or the i32 LDS size cannot hold, and `smem=` against the
bytes the kernel's dynamic SharedAllocator hands out; and, as FlyDSL does
while tracing, a static block against the kernel's known_block_size
(before the body is traced for a size it was not written for). The
gpu.func's location is a name location with the kernel's Python name, the
name the pass's messages give (the symbol may have a suffix).

A launch dimension is static when it is a Python int, a numeric holding a
Python number (`fx.Int32(64)`) or a static IntTuple; any other integer (a
dynamic numeric, a raw SSA value such as `x.ir_value()`) is cast to index
as it is."""

from __future__ import annotations

from ..tracing.ast_rewriter import rewrite
from ..tracing.containers import Packed
from ..tracing.errors import TraceError
from ..tracing.ir import Value, _loc_text, parse_type, string_literal, user_location
from ..tracing.trace import KernelTrace, Trace
from ..tracing.tracer import Tracer
from ..tracing.signature import Stream, is_constexpr
from .arguments import StreamValue, bind_arguments, evaluated_signature
from .hints import CompilationContext  # noqa: F401 - FlyDSL imports it from here
from ..expr import numeric as nm
from ..expr._core import wrap
from ..expr.typing import IntTuple


_INDEX_MIN, _INDEX_MAX = -(1 << 63), (1 << 63) - 1  # a launch dimension's index
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1  # dynamic_shared_memory_size, known_block_size


class KnownBlockSizeError(TraceError, ValueError):
    """A known_block_size that is no block size (not 3 positive 32-bit
    values), or a launch whose static block contradicts it. A ValueError
    as well, as FlyDSL raises one for each."""


class KnownBlockSizeTypeError(TraceError, TypeError):
    """A known_block_size that is not a sequence of integers. A TypeError
    as well, as FlyDSL raises one."""


def _static_int(x):
    """`x` as a Python int when it holds one while tracing (an int, a
    numeric made of a Python int, a static IntTuple leaf), else `x`."""
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector) and x.is_static() \
            and type(x).is_integer:
        return x.host_value
    if isinstance(x, IntTuple) and isinstance(x.value, int):
        return x.value
    return x


def _known_block_size(value):
    """`@flyc.kernel(known_block_size=...)` as an (x, y, z) tuple of ints,
    by FlyDSL's rules: exactly 3 elements, each an int (or a numeric of a
    Python int) from 1 to the attribute's i32 limit."""
    where = user_location()[:2]
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError
        dims = list(value)
    except TypeError:
        raise KnownBlockSizeTypeError(
            f"known_block_size={value!r}: expected a sequence of 3 positive integers "
            f"(x, y, z), got {type(value).__name__}", *where) from None
    if len(dims) != 3:
        raise KnownBlockSizeError(
            f"known_block_size={value!r} has {len(dims)} element{'s' * (len(dims) != 1)}; it "
            "takes exactly 3 elements (x, y, z)", *where)
    for i, d in enumerate(dims):
        dims[i] = d = _static_int(d)
        if isinstance(d, bool) or not isinstance(d, int):
            raise KnownBlockSizeTypeError(
                f"known_block_size[{i}] must be an int (a Python int or a numeric made of "
                f"one), got {type(d).__name__} {d!r}", *where)
        if d < 1:
            raise KnownBlockSizeError(f"known_block_size[{i}] must be positive, got {d}", *where)
        if d > _I32_MAX:
            raise KnownBlockSizeError(f"known_block_size[{i}] = {d} does not fit the "
                                      "attribute's 32 bits", *where)
    return tuple(dims)


class Kernel:
    def __init__(self, fn, name: str | None = None, known_block_size=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.known_block_size = (None if known_block_size is None
                                 else _known_block_size(known_block_size))
        self.signature = evaluated_signature(fn)
        # the Constexpr parameters, from the annotations (read once)
        self._constexpr = frozenset(name for name, p in self.signature.parameters.items()
                                    if is_constexpr(p.annotation))

    def __call__(self, *args, unit_attrs=None, value_attrs=None, **kwargs) -> "Launcher":
        if not Trace.active():
            raise TraceError(f"kernel {self.name} is called outside of a @flyc.jit "
                             "function: launch kernels from the host function",
                             *user_location()[:2])
        trace = Trace.current()
        attrs = _kernel_attributes(self.name, unit_attrs, value_attrs)
        bound = bind_arguments(self.signature, f"kernel {self.name}", args, kwargs)
        dynamic, static = [], {}
        for name, value in bound.arguments.items():
            constexpr = name in self._constexpr
            packed = None if constexpr or hasattr(value, "ir") else \
                Packed.of(value, lambda x: hasattr(x, "ir"))
            if packed is not None:
                # A container holding traced values (a SimpleNamespace of
                # tensors, ...): each such leaf is a parameter of the kernel.
                static[name] = packed
                dynamic.extend(((name, i), x) for i, x in enumerate(packed.taken))
            elif constexpr or not hasattr(value, "ir"):
                static[name] = value
            else:
                dynamic.append((name, value))
        return Launcher(trace, [v for _, v in dynamic], self, dynamic, static, attrs)

    def traced(self, trace: Trace, dynamic, static, block_size, attrs=()):
        """(symbol, dynamic LDS bytes) of the body traced for these
        arguments, compile-time block size and gpu.func attributes (traced
        once per trace)."""
        key = (self, tuple((n, str(v.ir.type)) for n, v in dynamic),
               tuple((n, repr(v)) for n, v in static.items()), block_size, attrs)
        found = trace.kernels.get(key)
        if found is None:
            found = self._trace(trace, dynamic, static, block_size, attrs)
            trace.kernels[key] = found
        return found

    def _trace(self, trace: Trace, dynamic, static, block_size, attrs=()):

        b = trace.builder
        block = b.push_block([v.ir.type for _, v in dynamic])
        params = dict(static)
        taken = {}
        for (name, _), arg in zip(dynamic, block.args):
            if isinstance(name, tuple):  # a leaf of a Packed container
                taken.setdefault(name[0], []).append(wrap(arg))
            else:
                params[name] = wrap(arg)
        for name, values in taken.items():
            params[name] = static[name].rebuild(values)
        record = KernelTrace(self.name, block_size)
        KernelTrace._stack.append(record)
        try:
            with Tracer().activate():
                rewrite(self.fn)(**params)
            b.op("gpu.return", [])
        finally:
            KernelTrace._stack.pop()
            b.pop_block()
        symbol = _unique_symbol(trace, self.name)
        # The gpu.func's location: the kernel's name (the launch checks'
        # messages name it so), at its definition.
        code = getattr(self.fn, "__code__", None)
        where = (_loc_text((code.co_filename, code.co_firstlineno, 1))[len("loc("):-1]
                 if code else "unknown")
        name_loc = f'loc({string_literal(self.name)}({where}))'
        entries = list(attrs)
        if block_size:
            entries.insert(0, "known_block_size = array<i32: "
                           + ", ".join(str(x) for x in block_size) + ">")
        attrs = " attributes {" + ", ".join(entries) + "}" if entries else ""
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        body = "\n".join(block.lines)
        module_ops = "".join(line + "\n" for line in record.globals)
        trace.gpu_modules.append((
            f"{symbol}_module",
            f"{module_ops}gpu.func @{symbol}({params_text}) kernel{attrs} {{\n{body}\n}} {name_loc}"))
        dynamic_bytes = record.dynamic_smem.allocated_bytes if record.dynamic_smem else 0
        return f"{symbol}_module::@{symbol}", dynamic_bytes


def _unique_symbol(trace: Trace, name: str) -> str:
    """The kernel's symbol in the traced module: its name, or, when a
    kernel of the trace already has it (another specialization, or another
    kernel of the same name), `name_<i>` with the first free i from the
    number of kernels traced so far, as FlyDSL numbers them."""
    taken = {s.partition("_module::")[0] for s, _ in trace.kernels.values()}
    symbol, i = name, len(trace.kernels)
    while symbol in taken:
        symbol, i = f"{name}_{i}", i + 1
    return symbol


def _attribute_text(value, where: str) -> str:
    """The MLIR text of a kernel attribute's value, as FlyDSL converts them:
    a bool, an int (i32), a str, a list or tuple (array), a dict
    (dictionary)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(1 << 31) <= value < 1 << 32:
            raise TraceError(f"{where}: {value} does not fit the attribute's 32 bits",
                             *user_location()[:2])
        return f"{value} : i32"
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_attribute_text(v, where) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{string_literal(_attribute_name(k, where))} = "
                               f"{_attribute_text(v, where)}" for k, v in value.items()) + "}"
    raise TraceError(f"{where}: a value of type {type(value).__name__} ({value!r}); the "
                     "attribute values are bools, ints, strs, lists and dicts",
                     *user_location()[:2])


def _attribute_name(name, where: str) -> str:
    if not isinstance(name, str) or not name:
        raise TraceError(f"{where}: an attribute name is a non-empty str, got {name!r}",
                         *user_location()[:2])
    return name


_RESERVED_ATTRIBUTES = ("known_block_size", "gpu.kernel", "sym_name", "function_type")


def _kernel_attributes(kernel: str, unit_attrs, value_attrs) -> tuple:
    """The `name = value` entries the gpu.func of `kernel` gets from a
    call's unit_attrs= (names of unit attributes) and value_attrs= (names
    to values; None leaves one out), as FlyDSL attaches them."""
    where = f"kernel {kernel}"
    entries = {}
    if unit_attrs is not None:
        if isinstance(unit_attrs, (str, bytes)) or not hasattr(unit_attrs, "__iter__"):
            raise TraceError(f"{where}: unit_attrs= is a list of attribute names, got "
                             f"{unit_attrs!r}", *user_location()[:2])
        for name in unit_attrs:
            entries[_attribute_name(name, f"{where}, unit_attrs=")] = None
    if value_attrs is not None:
        if not isinstance(value_attrs, dict):
            raise TraceError(f"{where}: value_attrs= is a dict of attribute names to values, "
                             f"got {value_attrs!r}", *user_location()[:2])
        for name, value in value_attrs.items():
            name = _attribute_name(name, f"{where}, value_attrs=")
            if value is not None:
                entries[name] = _attribute_text(value, f"{where}, value_attrs[{name!r}]")
    for name in entries:
        if name in _RESERVED_ATTRIBUTES:
            raise TraceError(f"{where}: the attribute {name!r} is the compiler's own (for the "
                             "block size, use known_block_size= of @flyc.kernel)",
                             *user_location()[:2])
    return tuple(string_literal(name) if value is None else f"{string_literal(name)} = {value}"
                 for name, value in entries.items())


class Launcher:
    def __init__(self, trace: Trace, operands, kernel: Kernel, dynamic, static, attrs=()):
        self.trace = trace
        self.operands = operands
        self.kernel = kernel
        self._arguments = (dynamic, static)
        self._attrs = attrs

    def launch(self, grid=(1, 1, 1), block=(1, 1, 1), smem=None, stream=None,
               cluster=None) -> None:
        """Launch the kernel: `grid` and `block` are 1 to 3 dimensions (Python
        ints, numerics of them, or dynamic integers); `smem` is the bytes of
        dynamic LDS, by default what the kernel's dynamic SharedAllocator
        hands out; `cluster` (gfx1250) the workgroups of a cluster along x,
        y, z, 1 to 3 Python ints (None: no clusters), which the kernel is
        compiled for too (its `fly.cluster_dims`)."""

        b = self.trace.builder
        index = parse_type("index")
        file, lineno, col = user_location()
        name = self.kernel.name

        def fail(message):
            raise TraceError(f"launch of kernel {name}: {message}", file, lineno)

        def static(what, x):
            """x as a Python int when static, None when dynamic."""
            if isinstance(x, IntTuple) and isinstance(x.value, tuple):
                fail(f"{what} is the tuple {x.value}, not one integer")
            x = _static_int(x)
            if isinstance(x, nm.Numeric):
                if isinstance(x, nm.Vector) or not type(x).is_integer:
                    fail(f"{what} is a {type(x).__name__}, not an integer")
                return None
            if isinstance(x, IntTuple):
                return None
            if isinstance(x, bool) or not isinstance(x, int):
                fail(f"{what} is {x!r}, not an integer (a Python int or a dynamic integer)")
            return x

        def as_index(x, value):
            """The index operand of a dimension: its static `value`, or
            the dynamic integer x cast to index (unsigned types unsigned)."""
            if value is not None:
                (v,) = b.op("arith.constant", [], [index], f"value = {value} : index")
                return v
            if isinstance(x, IntTuple):
                x = x.to_scalar()
            if x.ir.type == index:
                return x.ir
            cast = "arith.index_castui" if type(x).signed is False else "arith.index_cast"
            (v,) = b.op(cast, [x.ir], [index])
            return v

        def dims(what, x):
            x = tuple(x) if isinstance(x, (tuple, list)) else (x,)
            if not 1 <= len(x) <= 3:
                fail(f"{what}={x} has {len(x)} dimensions; give 1 to 3")
            # A raw SSA value (`n.ir_value()`) as the numeric it holds.
            x = tuple(wrap(d) if isinstance(d, Value) else d for d in x) + (1,) * (3 - len(x))
            values = [static(f"{what} dimension {'xyz'[i]}", d) for i, d in enumerate(x)]
            for axis, v in zip("xyz", values):
                # (Larger values than an index holds cannot reach the IR
                # that fly-check-launches checks.)
                if v is not None and not _INDEX_MIN <= v <= _INDEX_MAX:
                    fail(f"{what} dimension {axis} is {v}, which a 64-bit index cannot hold")
            return x, values

        grid, grid_static = dims("grid", grid)
        block, block_static = dims("block", block)
        clusters = None
        if cluster is not None:
            clusters = tuple(cluster) if isinstance(cluster, (tuple, list)) else (cluster,)
            if not 1 <= len(clusters) <= 3 or not all(
                    isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= _I32_MAX
                    for d in clusters):
                fail(f"cluster={cluster!r}: give 1 to 3 positive Python ints (the workgroups "
                     "of a cluster along x, y, z)")
            clusters += (1,) * (3 - len(clusters))
        if isinstance(smem, Value):
            smem = wrap(smem)
        smem_static = None if smem is None else static("smem", smem)
        if smem_static is not None and not _I32_MIN <= smem_static <= _I32_MAX:
            fail(f"smem={smem_static} bytes of dynamic LDS do not fit the launch's 32-bit size")
        block_size = self.kernel.known_block_size
        if block_size is None:
            # A static block becomes the body's known block size only when
            # the attribute can hold it; fly-check-launches rejects the others.
            if all(v is not None and 1 <= v <= _I32_MAX for v in block_static):
                block_size = tuple(block_static)
        else:
            for axis, v, k in zip("xyz", block_static, block_size):
                if v is not None and v != k:
                    shown = ", ".join("?" if d is None else str(d) for d in block_static)
                    raise KnownBlockSizeError(
                        f"launch of kernel {name}: block=({shown}) differs from "
                        f"known_block_size={block_size} in {axis} ({v} against {k}); the "
                        "kernel is compiled for its known_block_size only", file, lineno)
        attrs = self._attrs
        if clusters is not None:
            attrs += (f"fly.cluster_dims = array<i32: {', '.join(map(str, clusters))}>",)
        symbol, dynamic_bytes = self.kernel.traced(self.trace, *self._arguments, block_size,
                                                   attrs)
        if smem is None:
            smem = smem_static = dynamic_bytes
        elif smem_static is not None and 0 <= smem_static < dynamic_bytes:
            fail(f"smem={smem_static} bytes are fewer than the {dynamic_bytes} bytes the "
                 "kernel's SharedAllocator(static=False) hands out")

        g = [as_index(d, v) for d, v in zip(grid, grid_static)]
        t = [as_index(d, v) for d, v in zip(block, block_static)]
        line = "gpu.launch_func "
        if isinstance(stream, Stream) and stream.handle == 0:
            # fx.Stream(None) itself (the default of a @flyc.jit function
            # the trace runs inline): the null stream, as no stream.
            stream = None
        if stream is not None:
            if not isinstance(stream, StreamValue):
                raise TraceError("launch(stream=...) takes the fx.Stream argument of the "
                                 "@flyc.jit function", file, lineno)
            # On the stream as the launch's async dependency: gpu-to-llvm
            # passes that one to the runtime (a `<%stream>` async object it
            # drops, and the launch would run on a stream of its own).
            (token,) = b.op("builtin.unrealized_conversion_cast", [stream.ir],
                            [parse_type("!gpu.async.token")], loc=(file, lineno, col))
            line = f"{b.fresh(token.type).name} = gpu.launch_func async [{token.name}] "
        line += f"@{symbol} "
        if clusters is not None:
            c = [as_index(d, d) for d in clusters]
            line += f"clusters in ({', '.join(v.name for v in c)}) "
        line += (f"blocks in ({', '.join(v.name for v in g)}) "
                 f"threads in ({', '.join(v.name for v in t)})")
        if smem_static != 0:
            if smem_static is not None:
                s = nm.constant(smem_static, nm.Int32)
            else:
                s = nm.convert(smem.to_scalar() if isinstance(smem, IntTuple) else smem, nm.Int32)
            line += f" dynamic_shared_memory_size {s.ir.name}"
        if self.operands:
            line += " args(" + ", ".join(f"{o.ir.name} : {o.ir.type}" for o in self.operands) + ")"
        b.raw(line + " " + _loc_text((file, lineno, col)))


def kernel(fn=None, *, name: str | None = None, known_block_size=None):
    """A device function; callable while a @flyc.jit function is traced."""
    if fn is None:
        return lambda f: Kernel(f, name=name, known_block_size=known_block_size)
    return Kernel(fn, name=name, known_block_size=known_block_size)
