"""What a compile gives: the code objects, the kernels' resources and the
host module of a traced @flyc.jit signature, and calling it -- the argument
block packed through the native packer (bindings/ArgumentPacker.cpp) or,
by the PackingPlan of the arguments' descriptions (arguments.py), in
Python, into the host entry."""

from __future__ import annotations

import atexit
import json
import re
import sys
import weakref

from dataclasses import dataclass, field

from .. import _fly
from . import arguments as args_mod
from .env import Environment
from ..tracing.errors import ArgumentError, FlyDSLError, TraceError, user_traceback
from ..tracing.ir import user_location
from .runtime import ensure_runtime
from . import emu_check as _emu_check
from ..tracing.signature import Stream
from ..utils.file import atomic_write


@dataclass
class CallState:
    """What a compile gives for one signature: the traced module, the
    kernels' code objects and resources, and the host module with its
    functions (their argument slots), for the chip or the emulator."""

    name: str
    module_text: str  # the traced module (stage 00)
    code_objects: list  # [(module, chip, bytes)]
    kernels: list  # [dict]
    host_module: bytes = b""  # LLVM bitcode of the host side
    host_functions: list = field(default_factory=list)  # [dict]
    arg_names: list = field(default_factory=list)  # the host function's arguments
    from_cache: bool = False  # loaded from the disk cache
    emulator: bool = False  # compiled for the CPU emulator


class CompiledFunction:
    """The compiled module of one signature of a @flyc.jit function (what
    `flyc.compile` returns): calling it launches the kernels as the traced
    host function does. `call_state` is the CallState of the compile,
    `keepalive` what must live as long as it (the @flyc.jit function)."""

    _MAGIC = b"FLYDSL-ARTIFACT-4\n"

    def __init__(self, call_state, keepalive):
        if not isinstance(call_state, CallState):
            raise ArgumentError(f"CompiledFunction(call_state): a CallState, got "
                                f"{type(call_state).__name__} (flyc.compile makes these)",
                                *user_location()[:2])
        self._call_state = call_state
        self._keepalive = keepalive
        # the jit function's signature (its arguments.JitSignature) and what
        # it was compiled for, one ArgumentSpec per argument: set by
        # JitFunction; calls are bound by the one and checked against the other
        self.signature = None
        self.specs = None
        self.options = None  # the CompileOptions, set by JitFunction
        self._entry = None
        self._packer = None
        # The native warm-call path (_fly.ArgumentPacker), made after the
        # first call; False when this function's arguments cannot take it.
        self._native = None
        self._native_torch = None  # torch.Tensor when the packer was made
        self._stage_ms = {}  # a compile's stage times (jit_function.compile_traced)

    @classmethod
    def build(cls, call_state: CallState, keepalive=None) -> "CompiledFunction":
        return cls(call_state, keepalive)

    # the compile's record, read through
    name = property(lambda self: self._call_state.name)
    module_text = property(lambda self: self._call_state.module_text)
    code_objects = property(lambda self: self._call_state.code_objects)
    kernels = property(lambda self: self._call_state.kernels)
    host_module = property(lambda self: self._call_state.host_module)
    host_functions = property(lambda self: self._call_state.host_functions)
    arg_names = property(lambda self: self._call_state.arg_names)
    from_cache = property(lambda self: self._call_state.from_cache)
    emulator = property(lambda self: self._call_state.emulator)

    def to_bytes(self) -> bytes:
        """The disk-cache payload: a JSON header, then the code objects, the
        host module and the module's text (not in the JSON: decoding it
        there was most of a cache hit's header)."""
        text = self.module_text.encode()
        header = json.dumps({"name": self.name, "module_text": len(text),
                             "kernels": self.kernels, "host_functions": self.host_functions,
                             "arg_names": self.arg_names, "host_module": len(self.host_module),
                             "emulator": self.emulator,
                             "code_objects": [[m, c, len(e)] for m, c, e in self.code_objects]})
        data = header.encode()
        return (self._MAGIC + len(data).to_bytes(8, "little") + data
                + b"".join(e for _, _, e in self.code_objects) + self.host_module + text)

    @classmethod
    def from_bytes(cls, payload: bytes, keepalive=None) -> "CompiledFunction":
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
        at += header["host_module"]
        text = payload[at:at + header["module_text"]].decode()
        return cls(CallState(header["name"], text, objects, header["kernels"],
                             host, header["host_functions"], header["arg_names"],
                             from_cache=True, emulator=header.get("emulator", False)), keepalive)

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
        with atomic_write(path, mode="wb") as f:  # no half-written code object
            f.write(self.code_objects[0][2])

    def pack(self, *args, **kwargs) -> bytes:
        """The host entry's argument block for these arguments, each checked
        against what it was compiled for: an ArgumentError names the
        parameter, what it was compiled for and what it got."""
        try:
            return self._pack(self._bind(args, kwargs, f"compiled {self.name}"))
        except TraceError as err:
            raise ArgumentError(err.bare_message + " (flyc.compile again for these "
                                "arguments, or call the @flyc.jit function, which compiles "
                                "per signature)", *user_location()[:2]) from None

    def _bind(self, args, kwargs, what: str) -> dict:
        names = self.signature.names
        if not kwargs and len(args) == len(names):
            return dict(zip(names, args))
        return self.signature.bind(args, kwargs, what)

    def _host_function(self) -> dict:
        (info,) = [f for f in self.host_functions if f["name"] == self.name]
        return info

    def _packing(self):
        """(the argument block, the PackingPlan), made once from the
        compiler's description of the block."""
        if self._packer is None:
            info = self._host_function()
            self._packer = (_fly.ArgumentBlock(info),
                            args_mod.PackingPlan(self.specs, info, self.arg_names))
            _holding_native.add(self)
        return self._packer

    def _pack(self, arguments) -> bytes:
        block, plan = self._packing()
        slots, parameters = plan.values(arguments, "cpu" if self.emulator else None)
        if self._emu_checked():  # the extents of a checked emulation's tensors
            self._extents = [
                (*_emu_check.tensor_extent(arguments[spec.name], parameters[index][0]), spec.name)
                for index, (spec, _, kind, _) in enumerate(plan.entries) if kind == "tensor"]
        try:
            return block.pack(slots)
        except ValueError as err:
            raise ArgumentError(f"the arguments of {self.name} do not fit its argument "
                                f"block: {err}", *user_location()[:2]) from None

    def __call__(self, *args, **kwargs):
        """Launches the kernels as the traced host function does."""
        try:
            native = self._native
            if native:
                if native.call(args, kwargs):
                    return
                if self._native_stale():  # made again below
                    native = self._native = None
            self._run(self.pack(*args, **kwargs))
        except FlyDSLError as err:
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None
        if native is None:
            self._native = self._native_packer()

    def _native_stale(self) -> bool:
        """Whether the packer should be made again: another runtime was
        installed since, or torch was imported after it was made."""
        return not self._native.current or (self._native_torch is None
                                            and torch_tensor_type() is not None)

    def _native_packer(self):
        """The native warm-call path: binds, checks and packs what _pack
        does for numpy arrays, torch tensors, descriptors, Python numbers
        and streams, in C++ from the same description of the block
        (anything else, or a mismatch, falls back to the Python path, which
        names the problem). False when the signature cannot use it."""
        if self.signature is None or self._entry is None or self._emu_checked():
            return False  # (a checked launch describes its tensors: Python's path)
        binding = self.signature.binding
        if binding is None:
            return False
        block, plan = self._packing()
        params = plan.native_params()
        if params is None:  # a protocol value: its parts are Python's
            return False
        try:
            self._native_torch = torch_tensor_type()
            return _fly.ArgumentPacker(self._entry, block, params, binding,
                                       args_mod.TensorDescriptor, Stream, self._native_torch,
                                       self.emulator, weakref.WeakMethod(self._runtime_error))
        except ValueError:  # a parameter it does not take
            return False

    def _run(self, block: bytes) -> None:
        if not self.host_module:
            raise FlyDSLError(f"{self.name} has no host function to call")
        ensure_runtime(Environment.current(), "emu" if self.emulator else "hip")
        if self._entry is None:
            self._entry = _fly.HostEntry(self.host_module, self.name)
            _holding_native.add(self)
        extents = self.__dict__.pop("_extents", None)
        if extents is not None:
            _fly.emu_set_tensor_extents(extents)
        try:
            self._entry.call(block)
        except _fly.Error as err:
            raise self._runtime_error(str(err)) from None
        finally:
            if extents is not None:
                _fly.emu_set_tensor_extents([])
                _emu_check.emit_warnings()  # bounds=strict's, of the launches just made

    def _emu_checked(self) -> bool:
        """Whether the kernels are emulator code compiled with checks: the
        compile's `emu_check` hint (JitFunction puts FLYDSL_EMU_CHECK there
        for the emulator only)."""
        return self.options is not None and any(
            name == "emu_check" for name, _ in self.options.compile_hints)

    def _call_unchecked(self, args, kwargs) -> None:
        """A call from the @flyc.jit function that chose this compiled
        function for these arguments."""
        native = self._native
        if native:
            if native.call(args, kwargs):
                return
            if self._native_stale():
                native = self._native = None
        self._run(self._pack(self._bind(args, kwargs, self.name)))
        if native is None:
            self._native = self._native_packer()

    def launches(self) -> list:
        """The kernel launches of the host function, in order:
        [(kernel symbol, file, line)], from the traced module's locations."""
        import re

        found = []
        for line in self.module_text.splitlines():
            m = re.match(r'^(?:%\w+ = )?gpu\.launch_func .*?@\w+::@(\w+) .*'
                         r'loc\("((?:[^"\\]|\\.)*)":(\d+):\d+\)$',
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
        if self.emulator and _emu_check.is_report(detail):
            return _emu_check.error(f"{self.name}: launch failed {runtime}: ", detail)
        launches = sorted(set(self.launches()), key=lambda x: (x[1], x[2], x[0]))
        if len(launches) == 1:
            (kernel, file, line), = launches
            return FlyDSLError(f"{self.name}: launch of kernel {kernel} failed {runtime}: "
                               f"{detail}", file, line)
        where = ", ".join(f"{k} at {f}:{n}" for k, f, n in launches)
        return FlyDSLError(f"{self.name}: a kernel launch failed {runtime} (one of: {where}): "
                           f"{detail}")


def torch_tensor_type():
    """torch.Tensor if torch is imported (never imported for this)."""
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None)


# The compiled functions holding extension objects (a host entry, an
# argument block): they are released at exit, before the interpreter tears
# down modules (a function kept in a module's globals would otherwise
# outlive the extension's own state).
_holding_native: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()


@atexit.register
def _release_native() -> None:
    for compiled in list(_holding_native):
        compiled._native = None  # it holds the entry too
        compiled._entry = None
        compiled._packer = None
