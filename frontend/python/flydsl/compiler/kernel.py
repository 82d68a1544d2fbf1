"""@flyc.kernel and @flyc.jit: tracing Python functions into one module.

A @flyc.jit function is the host side. Its first call with a new argument
signature traces it into a `func.func` (its tensor, scalar and stream
arguments become arguments of that function; Constexpr ones are Python
values), compiles the module, and keeps the result for that signature.
Calling a @flyc.kernel inside it traces the kernel (once per argument
types and Constexpr values) into a `gpu.func` of its own gpu.module and
returns a launcher whose `.launch(grid=, block=, smem=)` emits the
`gpu.launch_func`.
"""

from __future__ import annotations

import atexit
import inspect
import itertools
import json
import os
import re
import logging
import struct
import sys
import time
import typing
import weakref

from .. import _fly
from . import arguments as args_mod
from .ast_rewriter import rewrite
from .cache_key import key_material
from .tracer import Tracer
from .env import Environment
from .errors import ArgumentError, CompileError, FlyDSLError, TraceError
from .ir import Value, _loc_text, parse_type, user_location
from .trace import Trace


class _ConstexprMarker:
    """`fx.Constexpr[T]`: a parameter specialised at trace time."""

    def __class_getitem__(cls, item):
        return typing.Annotated[item, cls]


Constexpr = _ConstexprMarker


class Stream:
    """A device stream passed to a @flyc.jit function (`fx.Stream`): its
    native handle (a hipStream_t; 0 is the default stream). Inside the
    traced function it is a value to give to `.launch(stream=...)`."""

    def __init__(self, handle: int = 0):
        self.handle = int(handle)


class StreamValue:
    """A stream inside a traced host function (an !llvm.ptr argument)."""

    def __init__(self, ir: Value):
        self.ir = ir


def _is_constexpr(annotation) -> bool:
    if annotation is _ConstexprMarker:
        return True
    return _ConstexprMarker in getattr(annotation, "__metadata__", ())


def _constexpr_type(annotation):
    return getattr(annotation, "__origin__", None)


_symbols = itertools.count()
_log = logging.getLogger("flydsl")


class Kernel:
    def __init__(self, fn, name: str | None = None, known_block_size=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.known_block_size = tuple(known_block_size) if known_block_size else None
        self.signature = _signature(fn)

    def __call__(self, *args, **kwargs) -> "Launcher":
        if not Trace.active():
            raise TraceError(f"kernel {self.name} is called outside of a @flyc.jit "
                             "function: launch kernels from the host function",
                             *user_location()[:2])
        trace = Trace.current()
        bound = bind_arguments(self.signature, f"kernel {self.name}", args, kwargs)
        dynamic, static = [], {}
        for name, value in bound.arguments.items():
            annotation = self.signature.parameters[name].annotation
            if _is_constexpr(annotation) or not hasattr(value, "ir"):
                static[name] = value
            else:
                dynamic.append((name, value))
        key = (self, tuple((n, str(v.ir.type)) for n, v in dynamic),
               tuple((n, repr(v)) for n, v in static.items()))
        symbol = trace.kernels.get(key)
        if symbol is None:
            symbol = self._trace(trace, dynamic, static)
            trace.kernels[key] = symbol
        return Launcher(trace, symbol, [v for _, v in dynamic], self)

    def _trace(self, trace: Trace, dynamic, static) -> str:
        from ..expr.algebra import wrap

        b = trace.builder
        block = b.push_block([v.ir.type for _, v in dynamic])
        params = dict(static)
        for (name, _), arg in zip(dynamic, block.args):
            params[name] = wrap(arg)
        try:
            with Tracer().activate():
                rewrite(self.fn)(**params)
            b.op("gpu.return", [])
        finally:
            b.pop_block()
        symbol = f"{self.name}_{next(_symbols)}" if any(
            s.startswith(f"{self.name}::") for s in trace.kernels.values()) else self.name
        attrs = ""
        if self.known_block_size:
            attrs = (" attributes {known_block_size = array<i32: "
                     + ", ".join(str(int(x)) for x in self.known_block_size) + ">}")
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        body = "\n".join(block.lines)
        trace.gpu_modules.append(
            f"gpu.module @{symbol}_module {{\n"
            f"gpu.func @{symbol}({params_text}) kernel{attrs} {{\n{body}\n}}\n}}")
        return f"{symbol}_module::@{symbol}"


class Launcher:
    def __init__(self, trace: Trace, symbol: str, operands, kernel: "Kernel | None" = None):
        self.trace = trace
        self.symbol = symbol
        self.operands = operands
        self.kernel = kernel

    def launch(self, grid=(1, 1, 1), block=(1, 1, 1), smem=0, stream=None) -> None:
        from ..expr import numeric as nm
        from ..expr.algebra import IntTuple

        b = self.trace.builder
        index = parse_type("index")
        file, lineno, col = user_location()
        name = self.kernel.name if self.kernel is not None else self.symbol

        def fail(message):
            raise TraceError(f"launch of kernel {name}: {message}", file, lineno)

        def static(what, x):
            """x as a Python int when static, None when dynamic."""
            if isinstance(x, IntTuple):
                v = x.value
                if isinstance(v, tuple):
                    fail(f"{what} is the tuple {v}, not one integer")
                return v
            if isinstance(x, nm.Numeric):
                if isinstance(x, nm.Vector) or x.is_float:
                    fail(f"{what} is a {type(x).__name__}, not an integer")
                return None
            if isinstance(x, bool) or not isinstance(x, int):
                fail(f"{what} is {x!r}, not an integer (a Python int or a dynamic integer)")
            return x

        def as_index(x):
            if isinstance(x, IntTuple):
                x = x.to_scalar()
            if isinstance(x, nm.Numeric):
                (v,) = b.op("arith.index_cast", [nm.convert(x, nm.Int32).ir], [index])
                return v
            (v,) = b.op("arith.constant", [], [index], f"value = {int(x)} : index")
            return v

        def dims(what, x):
            x = tuple(x) if isinstance(x, (tuple, list)) else (x,)
            if not 1 <= len(x) <= 3:
                fail(f"{what}={x} has {len(x)} dimensions; give 1 to 3")
            x = x + (1,) * (3 - len(x))
            return x, [static(f"{what} dimension {'xyz'[i]}", d) for i, d in enumerate(x)]

        grid, grid_static = dims("grid", grid)
        block, block_static = dims("block", block)
        smem_static = static("smem", smem)
        self._check(fail, grid_static, block_static, smem_static)

        g, t = [as_index(d) for d in grid], [as_index(d) for d in block]
        line = "gpu.launch_func "
        if stream is not None:
            if not isinstance(stream, StreamValue):
                raise TraceError("launch(stream=...) takes the fx.Stream argument of the "
                                 "@flyc.jit function", file, lineno)
            line += f"<{stream.ir.name} : {stream.ir.type}> "
        line += (f"@{self.symbol} blocks in ({', '.join(v.name for v in g)}) "
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

    def _check(self, fail, grid, block, smem) -> None:
        """The launch's static dimensions and LDS against the chip's limits
        and the kernel's known_block_size (None: a dynamic value, checked by
        the runtime when the launch runs)."""
        chip = _fly.chip_info(Environment.current().arch)
        max_items = chip["max_workgroup_size"]

        def text(d):
            return "(" + ", ".join("?" if v is None else str(v) for v in d) + ")"

        for what, d in (("block", block), ("grid", grid)):
            for axis, v in zip("xyz", d):
                if v is not None and v < 1:
                    fail(f"{what}={text(d)}: dimension {axis} is {v}; each dimension "
                         "must be at least 1")
                if v is not None and v > 0xFFFFFFFF:
                    fail(f"{what}={text(d)}: dimension {axis} is {v}, beyond the "
                         "launch's 32-bit limit of 4294967295")
        if None not in block:
            items = block[0] * block[1] * block[2]
            if items > max_items:
                fail(f"block={text(block)} is a workgroup of {items} work-items, over the "
                     f"limit of {max_items} work-items per workgroup")
        known = self.kernel.known_block_size if self.kernel is not None else None
        if known:
            known = tuple(int(v) for v in known) + (1,) * (3 - len(known))
            if any(v is not None and v != k for v, k in zip(block, known)):
                fail(f"block={text(block)} contradicts the kernel's "
                     f"known_block_size={known}")
        if smem is not None:
            if smem < 0:
                fail(f"smem={smem}: the dynamic LDS size cannot be negative")
            limit = chip["lds_bytes_per_workgroup"]
            if smem > limit:
                fail(f"smem={smem} bytes of dynamic LDS exceed the {limit} bytes of LDS "
                     f"a workgroup can have on {chip['name']}")


def _signature(fn) -> inspect.Signature:
    """fn's signature with its annotations evaluated: under `from __future__
    import annotations` they are strings, and fx.Constexpr[int] must still
    be recognised. One that does not evaluate (a name defined later) is an
    error naming it, not a silently ignored annotation."""
    try:
        return inspect.signature(fn, eval_str=True)
    except Exception as err:  # NameError, SyntaxError, ... from the annotation text
        code = fn.__code__
        raise TraceError(f"the annotations of {fn.__name__} do not evaluate: {err}",
                         code.co_filename, code.co_firstlineno) from None


def kernel(fn=None, *, name: str | None = None, known_block_size=None):
    """A device function; callable while a @flyc.jit function is traced."""
    if fn is None:
        return lambda f: Kernel(f, name=name, known_block_size=known_block_size)
    return Kernel(fn, name=name, known_block_size=known_block_size)


class CompiledFunction:
    """The compiled module of one signature of a @flyc.jit function: the
    kernels' code objects and the host entry that launches them."""

    _MAGIC = b"FLYDSL-ARTIFACT-2\n"

    def __init__(self, name, module_text, code_objects, kernels, host_module=b"",
                 host_functions=(), arg_names=(), from_cache=False, emulator=False):
        self.name = name
        self.emulator = emulator  # compiled for the CPU emulator
        self.module_text = module_text  # the traced module (stage 00)
        self.code_objects = code_objects  # [(module, chip, bytes)]
        self.kernels = kernels  # [dict]
        self.host_module = host_module  # LLVM bitcode of the host side
        self.host_functions = list(host_functions)  # [dict]
        self.arg_names = list(arg_names)  # the host function's arguments
        self.from_cache = from_cache  # loaded from the disk cache
        self.signature = None  # the jit function's, set by JitFunction
        # what it was compiled for, per parameter (name, kind, spec), set by
        # JitFunction; calls are checked against it
        self.specs = None
        self._entry = None
        self._packer = None
        # The native warm-call path (_fly.ArgumentPacker), made after the
        # first call; False when this function's arguments cannot take it.
        self._native = None

    def to_bytes(self) -> bytes:
        """The disk-cache payload: a JSON header, then the code objects and
        the host module."""
        header = json.dumps({"name": self.name, "module_text": self.module_text,
                             "kernels": self.kernels, "host_functions": self.host_functions,
                             "arg_names": self.arg_names, "host_module": len(self.host_module),
                             "emulator": self.emulator,
                             "code_objects": [[m, c, len(e)] for m, c, e in self.code_objects]})
        data = header.encode()
        return (self._MAGIC + len(data).to_bytes(8, "little") + data
                + b"".join(e for _, _, e in self.code_objects) + self.host_module)

    @classmethod
    def from_bytes(cls, payload: bytes) -> "CompiledFunction":
        if not payload.startswith(cls._MAGIC):
            raise FlyDSLError("a cache entry that is not a FlyDSL artifact")
        at = len(cls._MAGIC)
        size = int.from_bytes(payload[at:at + 8], "little")
        header = json.loads(payload[at + 8:at + 8 + size])
        at += 8 + size
        objects = []
        for module, chip, length in header["code_objects"]:
            objects.append((module, chip, payload[at:at + length]))
            at += length
        host = payload[at:at + header["host_module"]]
        return cls(header["name"], header["module_text"], objects, header["kernels"], host,
                   header["host_functions"], header["arg_names"], from_cache=True,
                   emulator=header.get("emulator", False))

    @property
    def resources(self):
        """Per kernel: VGPRs, SGPRs, AGPRs, spills, LDS, scratch, wave size,
        max workgroup size."""
        return {k["name"]: k["resources"] for k in self.kernels}

    def isa(self) -> str:
        if self.emulator:
            raise FlyDSLError(f"{self.name} is compiled for the CPU emulator: it has no ISA "
                              "(compile for a chip: FLYDSL_RUNTIME_KIND=hip or COMPILE_ONLY=1)")
        return "\n".join(_fly.disassemble(elf) for _, _, elf in self.code_objects)

    def save(self, path: str) -> None:
        """Writes the code object (one gpu.module: exactly `path`)."""
        if len(self.code_objects) != 1:
            raise FlyDSLError(f"{self.name} has {len(self.code_objects)} code objects; "
                              "save them one by one from .code_objects")
        with open(path, "wb") as f:
            f.write(self.code_objects[0][2])

    def pack(self, *args, **kwargs) -> bytes:
        """The host entry's argument block for these arguments. When the
        signature it was compiled for is known (`specs`), each argument is
        checked against it: an ArgumentError names the parameter, what it
        was compiled for and what it got."""
        layout, fields, plan = self._packing()
        if not kwargs and len(args) == len(self.signature.parameters):
            arguments = dict(zip(self.signature.parameters, args))
        else:
            arguments = bind_arguments(self.signature, f"compiled {self.name}", args,
                                       kwargs).arguments
        if plan is None:
            return self._pack_unchecked(layout, fields, arguments)
        try:
            return self._pack_checked(layout, fields, plan, arguments)
        except TraceError as err:
            raise ArgumentError(err.bare_message + " (flyc.compile again for these "
                                "arguments, or call the @flyc.jit function, which compiles "
                                "per signature)", *user_location()[:2]) from None

    def _packing(self):
        """(the argument block's struct, its fields [(kind, argument index)],
        per parameter (kind, what it was compiled for) or None), made once."""
        if self._packer is None:
            (info,) = [f for f in self.host_functions if f["name"] == self.name]
            self._packer = (struct.Struct(info["pack_format"]),
                            [(a["abi"].split(":")[0], int(a["abi"].split(":")[1]))
                             for a in info["arguments"]],
                            {n: (k, args_mod.CompiledTensor(v) if k == "tensor" else v)
                             for n, k, v in self.specs} if self.specs is not None else None)
        return self._packer

    def _pack_checked(self, layout, fields, plan, arguments) -> bytes:
        tensors = {}
        for name, (kind, compiled) in plan.items():
            if kind == "constexpr":
                value = arguments[name]
                if not _same_constant(value, compiled):
                    raise TraceError(f"argument '{name}' of {self.name} is a Constexpr "
                                     f"compiled as {compiled!r}, got {value!r}")
        values = []
        for kind, index in fields:
            name = self.arg_names[index]
            value = arguments[name]
            spec_kind, compiled = plan[name]
            where = f"argument '{name}' of {self.name}"
            if spec_kind == "tensor":
                if name not in tensors:
                    tensors[name] = compiled.leaves(value, where,
                                                    "cpu" if self.emulator else None)
                address, leaves = tensors[name]
                if kind == "ptr":
                    values.append(address)
                elif kind == "leaves":
                    values.extend(leaves)
            elif spec_kind == "stream":
                if not isinstance(value, Stream):
                    raise TraceError(f"{where} is a stream (fx.Stream), got "
                                     f"{type(value).__name__} {value!r}")
                values.append(value.handle)
            else:
                values.append(_scalar(value, compiled, where))
        try:
            return layout.pack(*values)
        except struct.error as err:
            raise TraceError(f"the arguments of {self.name} do not fit its argument "
                             f"block: {err}") from None

    def _pack_unchecked(self, layout, fields, arguments) -> bytes:
        values = []
        for kind, index in fields:
            name = self.arg_names[index]
            value = arguments[name]
            if kind == "ptr":
                values.append(_address(value, name))
            elif kind == "leaves":
                values.extend(_dynamic_leaves(value, name))
            elif isinstance(value, Stream):
                values.append(value.handle)
            elif hasattr(value, "host_value"):  # an fx numeric made outside a trace
                values.append(value.host_value)
            else:
                values.append(value)
        return layout.pack(*values)

    def __call__(self, *args, **kwargs):
        """Launches the kernels as the traced host function does."""
        native = self._native
        if native:
            if not kwargs and native.call(args):
                return
            if not native.current:  # another runtime since: made again below
                native = self._native = None
        self._run(self.pack(*args, **kwargs))
        if native is None:
            self._native = self._native_packer()

    def _native_packer(self):
        """The native warm-call path for positional calls: checks and packs
        what _pack_checked does for numpy arrays and Python numbers, in C++
        (anything else, or a mismatch, falls back to the Python path, which
        names the problem). False when the signature cannot use it."""
        if self.specs is None or self.signature is None or self._entry is None:
            return False
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in self.signature.parameters.values()):
            return False
        _, _, plan = self._packing()
        names = list(self.signature.parameters)
        params = []
        for name in names:
            kind, compiled = plan[name]
            if kind == "tensor":
                element = compiled.spec.element
                if element not in _BUFFER_FORMATS:
                    return False
                formats, itemsize = _BUFFER_FORMATS[element]
                params.append(("tensor", element, formats, itemsize, compiled.rank,
                               [tuple(x) for x in compiled._static],
                               [tuple(x) for x in compiled._dynamic], compiled.spec.align))
            elif kind == "scalar" and compiled.startswith("i"):
                params.append(("int",))
            elif kind == "scalar" and compiled in ("f32", "f64"):
                params.append(("float",))
            elif kind == "constexpr":
                params.append(("constexpr", compiled))
            else:  # streams, f16/bf16 scalars
                return False
        (info,) = [f for f in self.host_functions if f["name"] == self.name]
        slots = []
        for arg in info["arguments"]:
            kind, index = arg["abi"].split(":")
            param = names.index(self.arg_names[int(index)])
            if kind == "ptr":
                slots.append((arg["offset"], "P", param, -1))
            elif kind == "leaves":
                at, leaf = arg["offset"], 0
                for count, char in re.findall(r"(\d*)([a-zA-Z?])", arg["format"]):
                    count = int(count or 1)
                    if char == "x":
                        at += count
                        continue
                    for _ in range(count):
                        slots.append((at, char, param, leaf))
                        at += struct.calcsize("=" + char)
                        leaf += 1
            else:
                slots.append((arg["offset"], arg["format"], param, -1))
        try:
            return _fly.ArgumentPacker(self._entry, params, slots, args_mod.TensorDescriptor)
        except ValueError:  # a value format it does not write
            return False

    def _run(self, block: bytes) -> None:
        if not self.host_module:
            raise FlyDSLError(f"{self.name} has no host function to call")
        _ensure_runtime(Environment.current(), "emu" if self.emulator else "hip")
        if self._entry is None:
            self._entry = _fly.HostEntry(self.host_module, self.name)
            _with_entries.add(self)
        try:
            self._entry.call(block)
        except _fly.Error as err:
            raise self._runtime_error(str(err)) from None

    def _call_unchecked(self, args, kwargs) -> None:
        """A call from the @flyc.jit function that chose this compiled
        function for these very arguments: nothing to check."""
        native = self._native
        if native:
            if not kwargs and native.call(args):
                return
            if not native.current:
                native = self._native = None
        layout, fields, _ = self._packing()
        if not kwargs and len(args) == len(self.signature.parameters):
            arguments = dict(zip(self.signature.parameters, args))
        else:
            arguments = bind_arguments(self.signature, self.name, args, kwargs).arguments
        self._run(self._pack_unchecked(layout, fields, arguments))
        if native is None:
            self._native = self._native_packer()

    def launches(self) -> list:
        """The kernel launches of the host function, in order:
        [(kernel symbol, file, line)], from the traced module's locations."""
        import re

        found = []
        for line in self.module_text.splitlines():
            m = re.match(r'^gpu\.launch_func .*?@\w+::@(\w+) .*loc\("((?:[^"\\]|\\.)*)":(\d+):\d+\)$',
                         line)
            if m:
                found.append((m.group(1), m.group(2).replace('\\"', '"').replace("\\\\", "\\"),
                              int(m.group(3))))
        return found

    def _runtime_error(self, text: str) -> FlyDSLError:
        """The host entry's error as a FlyDSLError naming this function and,
        for a failed launch, the kernel and the line that launches it."""
        import re

        m = re.match(r"runtime: (.+?) failed \(status (-?\d+)\)(?:: (.*))?$", text, re.S)
        if m is None:
            return FlyDSLError(f"{self.name}: {text}")
        what, status = m.group(1), m.group(2)
        detail = m.group(3) or "the runtime gave no reason"
        runtime = "on the emulator" if self.emulator else "on the GPU"
        if not self.emulator:  # the HIP error code, beside its name
            detail += f" (status {status})"
        if detail.startswith("emulator: "):
            detail = detail[len("emulator: "):]
            if detail.startswith("bad launch: "):
                detail = detail[len("bad launch: "):]
        if what != "launch":
            return FlyDSLError(f"{self.name}: {what} failed {runtime}: {detail}")
        launches = sorted(set(self.launches()), key=lambda x: (x[1], x[2], x[0]))
        if len(launches) == 1:
            (kernel, file, line), = launches
            return FlyDSLError(f"{self.name}: launch of kernel {kernel} failed {runtime}: "
                               f"{detail}", file, line)
        where = ", ".join(f"{k} at {f}:{n}" for k, f, n in launches)
        return FlyDSLError(f"{self.name}: a kernel launch failed {runtime} (one of: {where}): "
                           f"{detail}")


def _parameters_text(signature) -> str:
    parts = []
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            parts.append("**" + p.name)
        elif p.default is not p.empty:
            parts.append(f"{p.name}={p.default!r}")
        else:
            parts.append(p.name)
    return ", ".join(parts)


def bind_arguments(signature, what: str, args, kwargs):
    """`signature.bind` with defaults applied; a call that does not fit is
    an ArgumentError naming `what` and its parameters, at the caller's line."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as err:
        params = list(signature.parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = _parameters_text(signature)
        if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in params):
            required = sum(p.default is p.empty for p in positional)
            most = len(positional)
            count = str(most) if required == most else f"{required} to {most}"
            message = (f"{what}() takes {count} positional argument{'s' if most != 1 else ''} "
                       f"({names}), got {len(args)}")
        else:
            detail = str(err)
            unknown = [k for k in kwargs if k not in signature.parameters
                       or signature.parameters[k].kind is inspect.Parameter.POSITIONAL_ONLY]
            if unknown and not any(p.kind is p.VAR_KEYWORD for p in params):
                detail = f"got an unexpected keyword argument '{unknown[0]}'"
            if detail.startswith("multiple values"):
                detail = "got " + detail
            message = f"{what}() {detail}; its parameters are ({names})"
        raise ArgumentError(message, *user_location()[:2]) from None
    bound.apply_defaults()
    return bound


# Element type -> (the buffer-protocol format characters of arrays that
# hold it, the item size): what the native packer accepts.
_BUFFER_FORMATS = {"f32": ("f", 4), "f16": ("e", 2), "f64": ("d", 8), "i8": ("bB", 1),
                   "i16": ("hH", 2), "i32": ("iI", 4), "i64": ("lLqQ", 8), "i1": ("?", 1)}


def _same_constant(value, compiled) -> bool:
    if value is compiled:
        return True
    try:
        return type(value) is type(compiled) and bool(value == compiled)
    except Exception:
        return False


def _scalar(value, mlir_type: str, where: str):
    """A scalar argument's value for the argument block, checked against the
    type it was compiled for."""
    if hasattr(value, "host_value"):  # an fx numeric made outside a trace
        if value.mlir_type != mlir_type:
            raise TraceError(f"{where} was compiled for a scalar of {mlir_type}, got "
                             f"{type(value).__name__} ({value.mlir_type})")
        return value.host_value
    if mlir_type.startswith("i") and isinstance(value, int):
        return value
    if mlir_type.startswith(("f", "bf")) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    article = "a" if mlir_type.startswith("b") else "an"
    raise TraceError(f"{where} was compiled for {article} {mlir_type} scalar, got "
                     f"{type(value).__name__} {value!r}")


# The compiled functions holding a host entry: the entries are released at
# exit, before the interpreter tears down modules (a function kept in a
# module's globals would otherwise outlive the extension's own state).
_with_entries: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()


@atexit.register
def _release_host_entries() -> None:
    for compiled in list(_with_entries):
        compiled._native = None  # it holds the entry too
        compiled._entry = None


_hip_problem: list = []  # why HIP cannot run kernels here, once known


def target_runtime(env) -> str:
    """"hip" or "emu": what a call will run on, decided before compiling
    (the emulator needs its own artifact). FLYDSL_RUNTIME_KIND says; by
    default HIP when it has a device, else the CPU emulator; COMPILE_ONLY
    compiles for the chip unless the emulator is asked for."""
    if env.runtime_kind is not None:
        return env.runtime_kind
    if env.compile_only:
        return "hip"
    if not _hip_problem:
        if (sys.platform.startswith("linux") and not os.path.exists("/dev/kfd")
                and not os.environ.get("FLYDSL_HIP_LIBRARY")):
            # No AMD GPU driver: no device, without the ~15 ms of loading
            # and initialising HIP to learn it.
            _hip_problem.append("no HIP device (no /dev/kfd: no AMD GPU driver)")
        else:
            status = _fly.hip_runtime_status()
            _hip_problem.append("" if status.get("device_count")
                                else status.get("error") or "no HIP device")
    return "emu" if _hip_problem[0] else "hip"


def _ensure_runtime(env, kind: str) -> None:
    """Installs the runtime of `kind` unless one is installed (the tests'
    launch-table doubles, or an earlier call)."""
    if _fly.launch_table():
        return
    if kind == "emu":
        _fly.install_emu_runtime()
        return
    try:
        _fly.install_hip_runtime()
    except _fly.Error as err:
        raise FlyDSLError(f"no runtime: FLYDSL_RUNTIME_KIND=hip, but {err}"
                          if env.runtime_kind == "hip" else f"no runtime: {err}") from None


def _address(value, name) -> int:
    if type(value).__name__ == "ndarray":
        return _fly.data_address(value)
    return _descriptor(value, name).address


def _dynamic_leaves(value, name) -> list:
    """A tensor's dynamic leaves; for a raw numpy array (every extent and
    every stride but the unit one dynamic, mark_layout_dynamic's rule)
    straight from its shape and strides."""
    if type(value).__name__ == "ndarray" and value.ndim:
        itemsize = value.itemsize
        strides = [s // itemsize for s in value.strides]
        lead = strides.index(1) if 1 in strides else None  # the first unit stride
        return list(value.shape) + [x for i, x in enumerate(strides) if i != lead]
    return _descriptor(value, name).dynamic_leaves()


def _descriptor(value, name):
    if isinstance(value, args_mod.TensorDescriptor):
        return value
    desc = args_mod.describe_array(value, f"argument '{name}'")
    if desc.shape:
        desc.mark_layout_dynamic()
    return desc


class JitFunction:
    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.signature = _signature(fn)
        self._compiled: dict = {}
        # The fast path of warm calls: positional arrays, descriptors and
        # Python numbers, keyed by what their specs depend on (and the
        # values of Constexpr parameters), straight to the compiled
        # function. A key is only stored after the full path accepted it.
        self._fast: dict = {}
        params = list(self.signature.parameters.values())
        self._fast_ok = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                            for p in params)
        self._constexpr_positions = tuple(i for i, p in enumerate(params)
                                          if _is_constexpr(p.annotation))
        self._arity = len(params)

    def _fast_key(self, args):
        """What the argument specs of a positional call depend on: per
        array its type, dtype, strides, rank and address modulo 16; per
        number its type. None when a call needs the full path."""
        key = []
        for a in args:
            t = type(a)
            if t is int or t is float or t is bool:
                key.append(t)
            elif t.__name__ == "ndarray":
                key.append((t, a.dtype.char, a.strides, _fly.data_address(a) & 15))
            elif t.__name__ == "Tensor" and hasattr(a, "data_ptr"):  # torch
                key.append((t, a.dtype, a.stride(), a.data_ptr() & 15))
            elif t is args_mod.TensorDescriptor:
                key.append((t, a.spec()))
            else:
                return None
        return tuple(key)

    def _specs(self, bound):
        """Per parameter: ("tensor", TensorSpec) / ("scalar", mlir type) /
        ("constexpr", value); the key is the tuple of them."""
        from ..expr import numeric as nm

        specs = []
        for name, value in bound.arguments.items():
            annotation = self.signature.parameters[name].annotation
            where = f"argument '{name}' of {self.name}"
            if _is_constexpr(annotation):
                want = _constexpr_type(annotation)
                if want is not None and isinstance(want, type) and not isinstance(value, want):
                    raise TraceError(f"{where} is Constexpr[{want.__name__}] but got "
                                     f"{type(value).__name__} {value!r}")
                specs.append((name, "constexpr", value))
            elif isinstance(value, Stream) or annotation is Stream:
                specs.append((name, "stream", "!llvm.ptr"))
            elif isinstance(value, args_mod.TensorDescriptor):
                specs.append((name, "tensor", value.spec()))
            elif isinstance(annotation, type) and issubclass(annotation, nm.Numeric):
                if not isinstance(value, (bool, int, float, nm.Numeric)):
                    raise TraceError(f"{where} is {annotation.__name__} but got "
                                     f"{type(value).__name__} {value!r}")
                specs.append((name, "scalar", annotation.mlir_type))
            elif isinstance(value, nm.Numeric):
                specs.append((name, "scalar", value.mlir_type))
            elif isinstance(value, bool):
                specs.append((name, "scalar", "i1"))
            elif isinstance(value, int):
                specs.append((name, "scalar", "i32"))
            elif isinstance(value, float):
                specs.append((name, "scalar", "f32"))
            elif isinstance(value, str):
                raise TraceError(f"{where}: a str is not a kernel argument (expected a tensor, "
                                 "a number or a Constexpr)")
            else:
                specs.append((name, "tensor", args_mod.raw_tensor_spec(value, where)))
        return tuple(specs)

    def compile(self, *args, **kwargs) -> CompiledFunction:
        bound = bind_arguments(self.signature, self.name, args, kwargs)
        specs = self._specs(bound)
        env = Environment.current()
        runtime = target_runtime(env)
        key = (specs, env.arch, env.opt_level, env.debug_info, runtime)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._load_or_compile(specs, env, runtime == "emu")
            compiled.signature = self.signature
            compiled.specs = specs
            self._compiled[key] = compiled
        return compiled

    def _load_or_compile(self, specs, env, emulator: bool) -> CompiledFunction:
        """From the disk cache, or traced and compiled (and stored) once
        across processes."""
        if not env.enable_cache:
            return self._trace_and_compile(specs, emulator)
        fields = key_material(self.fn, specs, env) + [("emulator", str(emulator))]
        try:
            cache = _fly.DiskCache.open(env.cache_dir)
        except RuntimeError as err:
            raise FlyDSLError(f"the disk cache: {err}") from None
        built = []

        def build() -> bytes:
            compiled = self._trace_and_compile(specs, emulator)
            built.append(compiled)
            return compiled.to_bytes()

        payload = cache.get_or_create(fields, build)
        if built:
            return built[0]
        _log.info("%s: loaded from the disk cache %s", self.name, env.cache_dir)
        return CompiledFunction.from_bytes(payload)

    def __call__(self, *args, **kwargs):
        env = Environment.current()
        fast = None
        if self._fast_ok and not kwargs and len(args) == self._arity:
            fast = _fly.jit_key(args)
            if fast is None:
                fast = self._fast_key(args)
            if fast is not None and self._constexpr_positions:
                fast = (fast,) + tuple((type(args[i]), args[i])
                                       for i in self._constexpr_positions)
                try:
                    hash(fast)
                except TypeError:  # an unhashable Constexpr value
                    fast = None
        compiled = self._fast.get((fast, Environment.generation)) if fast is not None else None
        if compiled is None:
            compiled = self.compile(*args, **kwargs)
            if fast is not None and len(self._fast) < 256:
                self._fast[(fast, Environment.generation)] = compiled
        if env.compile_only:
            return None
        compiled._call_unchecked(args, kwargs)

    def _trace_and_compile(self, specs, emulator: bool = False) -> CompiledFunction:
        from ..expr import numeric as nm
        from ..expr.algebra import wrap

        start = time.perf_counter()
        trace = Trace()
        b = trace.builder
        dynamic = [(n, parse_type(s.type_text() if k == "tensor" else s))
                   for n, k, s in specs if k != "constexpr"]
        with trace.activate():
            block = b.push_block([t for _, t in dynamic])
            params = {n: s for n, k, s in specs if k == "constexpr"}
            kinds = {n: k for n, k, _ in specs}
            for (name, _), arg in zip(dynamic, block.args):
                params[name] = StreamValue(arg) if kinds[name] == "stream" else wrap(arg)
            with Tracer().activate():
                rewrite(self.fn)(**params)
            b.op("func.return", [])
            b.pop_block()
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        trace.host_lines.append(f"func.func @{self.name}({params_text}) {{\n"
                                + "\n".join(block.lines) + "\n}")
        text = trace.module_text()
        env = Environment.current()
        try:
            objects, kernels, host_module, host_functions = _fly.compile(
                text, env.arch, env.opt_level, env.dump_dir_for(self.name), env.verify_each_pass,
                env.debug_info, env.print_after_all, emulator)
        except _fly.Error as err:
            error = CompileError(f"{self.name}: {_with_source_lines(str(err))}")
            if env.show_stacktrace:
                raise error from err
            raise error from None
        compiled = CompiledFunction(self.name, text, objects, kernels, host_module, host_functions,
                                    [n for n, k, _ in specs if k != "constexpr"],
                                    emulator=emulator)
        _log.info("%s: traced and compiled for %s in %.1f ms", self.name, env.arch,
                  (time.perf_counter() - start) * 1e3)
        if env.dump_asm and not emulator:
            sys.stderr.write(f"// ISA of {self.name} ({env.arch})\n{compiled.isa()}\n")
        return compiled


def _with_source_lines(diagnostics: str) -> str:
    """Each `file:line:col: error: ...` line followed by the user's source
    line and a caret under the column."""
    import linecache
    import re

    out = []
    for line in diagnostics.splitlines():
        out.append(line)
        m = re.match(r"^(.+):(\d+):(\d+): (error|warning|note): ", line)
        if m:
            source = linecache.getline(m.group(1), int(m.group(2))).rstrip()
            if source:
                out.append("    " + source)
                out.append("    " + " " * (len(source) - len(source.lstrip())) + "^")
    return "\n".join(out)


def jit(fn):
    """A host function traced and compiled per argument signature."""
    return JitFunction(fn)


def compile(fn, *args, **kwargs) -> CompiledFunction:
    """The compiled form of a @flyc.jit function for these arguments."""
    if not isinstance(fn, JitFunction):
        fn = JitFunction(fn)
    return fn.compile(*args, **kwargs)
