"""The compile-backend interface: a target record (`GPUTarget`), the
abstract `BaseBackend` FlyDSL's backends implement, and the one explicit
record of compile options (`CompileOptions`) a @flyc.jit call is compiled
with.

The members of `BaseBackend` are FlyDSL's. Where FlyDSL's backend hands
out MLIR pass-pipeline fragments for its Python pass manager, ours name the
C++ pipeline (`fly-pipeline{...}`, what `fly-opt --fly-pipeline` runs):
the pipeline is defined once, in C++ (ARCHITECTURE.md), and a backend
chooses its options and runs it through `compile`."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from dataclasses import dataclass, field

from ...tracing.errors import ArgumentError


@dataclass(frozen=True)
class GPUTarget:
    """What code is compiled for: the backend's name, the chip and its
    wave size."""

    backend: str
    arch: str
    warp_size: int


@dataclass(frozen=True)
class CompileOptions:
    """Everything a compile depends on besides the traced module, made once
    per call from the environment (SPEC §11) and the function's compile
    hints: the backend and its target, the optimisation level, debug info,
    the hints (`waves_per_eu`, ...), whether the code is for the CPU
    emulator, and the diagnostics that do not change the artifact (dumps,
    verifier, pass printing). `key()` is the part that enters the cache
    keys."""

    backend: str
    target: GPUTarget
    backend_hash: str
    opt_level: int = 2
    debug_info: bool = False
    emulator: bool = False
    compile_hints: tuple = ()  # sorted (name, value) pairs
    verify_each_pass: bool = False
    print_after_all: bool = False
    dump_dir: str = ""  # "" when FLYDSL_DUMP_IR is off
    dump_asm: bool = False
    show_stacktrace: bool = False
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def arch(self) -> str:
        return self.target.arch

    @property
    def hints(self) -> dict:
        return dict(self.compile_hints)

    def key(self) -> tuple:
        """What the artifact depends on (the in-process and disk keys)."""
        return (self.backend_hash, self.opt_level, self.debug_info, self.emulator,
                self.compile_hints)

    def key_text(self) -> str:
        hints = " ".join(f"{k}={v!r}" for k, v in self.compile_hints)
        return (f"{self.backend_hash} O{self.opt_level} debug_info={self.debug_info}"
                + (f" hints[{hints}]" if hints else ""))


class BaseBackend(metaclass=ABCMeta):
    """A compile backend for one target. Subclasses are registered with
    `register_backend(name, cls)` and chosen by FLYDSL_COMPILE_BACKEND."""

    def __init__(self, target: GPUTarget) -> None:
        if not isinstance(target, GPUTarget):
            raise ArgumentError(f"{type(self).__name__}(target): a GPUTarget, got "
                                f"{type(target).__name__} {target!r}")
        if not self.supports_target(target):
            raise ArgumentError(f"{type(self).__name__} does not support the target {target}")
        self.target = target

    # -- the target ------------------------------------------------------

    @staticmethod
    @abstractmethod
    def supports_target(target: GPUTarget) -> bool:
        """Whether this backend compiles for `target`."""

    @staticmethod
    @abstractmethod
    def detect_target() -> GPUTarget:
        """The target of this machine (its device, or the default)."""

    @classmethod
    def make_target(cls, arch: str) -> GPUTarget:
        """The target of an explicit `arch`: the detected one's backend and
        wave size, with that arch (subclasses know better wave sizes)."""
        detected = cls.detect_target()
        return GPUTarget(backend=detected.backend, arch=arch, warp_size=detected.warp_size)

    @classmethod
    def llvm_address_space(cls, address_space) -> int:
        """The LLVM address space number of a Fly address space."""
        raise NotImplementedError(f"{cls.__name__} does not lower !fly.ptr to !llvm.ptr")

    # -- the pipeline ----------------------------------------------------

    @abstractmethod
    def pipeline_fragments(self, *, compile_hints: dict) -> list:
        """The pass pipeline, as pipeline texts in order."""

    def lower_compile_hints(self, module, *, compile_hints: dict):
        """Applies the hints the pipeline options do not carry to the traced
        module before it is compiled; returns the module (text here)."""
        return module

    def external_binary_pipeline_fragments(self, *, compile_hints: dict):
        """(the fragments before code generation, the code-generation
        fragment), for an external LLVM toolchain."""
        raise NotImplementedError(f"{type(self).__name__} does not support external LLVM codegen")

    @abstractmethod
    def gpu_module_targets(self) -> list:
        """The target attributes of the gpu.modules it compiles."""

    def compile(self, module_text: str, options: CompileOptions):
        """Compiles a traced module: ([(module, chip, code object)], [kernel
        dicts], host module bitcode, [host function dicts])."""
        raise NotImplementedError(f"{type(self).__name__} does not compile modules")

    # -- the cache -------------------------------------------------------

    def hash(self) -> str:
        """What identifies this backend and target in cache keys."""
        return f"{self.target}"

    @abstractmethod
    def native_lib_patterns(self) -> list:
        """The native libraries whose contents identify the toolchain."""

    @abstractmethod
    def jit_runtime_lib_basenames(self) -> list:
        """The shared libraries the compiled host code is run with."""
