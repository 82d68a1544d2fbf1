"""The ROCm backend: AMDGPU chips through the C++ pipeline (stages A, B, C
of SPEC §3), for the chip or, with `CompileOptions.emulator`, for the CPU
emulator (which runs code compiled for an AMD arch)."""

from __future__ import annotations

import os
import re

from ... import _fly
from ...tracing.errors import ArgumentError
from .base import BaseBackend, CompileOptions, GPUTarget

# The hints a ROCm compile takes (FlyDSL's `flyc.compile[{...}]` names).
COMPILE_HINTS = ("waves_per_eu", "maxnreg", "fast_fp_math", "unsafe_fp_math", "fastmath",
                 "emu_check", "llvm_options")


def _warp_size(arch: str) -> int:
    try:
        return _fly.chip_info(arch)["wave_size"]
    except ValueError as err:
        raise ArgumentError(f"the ROCm backend: {err}") from None


def _count_hint(hints: dict, name: str) -> int:
    value = hints.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ArgumentError(f"compile hint {name}={value!r}: a non-negative int")
    return value


class RocmBackend(BaseBackend):
    """AMDGPU code objects (HSACO) for the chips of the C++ chip table."""

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "rocm" and target.arch in _fly.supported_chips()

    @staticmethod
    def detect_target() -> GPUTarget:
        from ..env import Environment

        arch = Environment.current().arch
        return GPUTarget(backend="rocm", arch=arch, warp_size=_warp_size(arch))

    @classmethod
    def make_target(cls, arch: str) -> GPUTarget:
        return GPUTarget(backend="rocm", arch=arch, warp_size=_warp_size(arch))

    @classmethod
    def llvm_address_space(cls, address_space) -> int:
        from ...expr._ir_types import AddressSpace

        numbers = {AddressSpace.Generic: 0, AddressSpace.Global: 1, AddressSpace.Shared: 3,
                   AddressSpace.Register: 5}
        try:
            return numbers[AddressSpace(address_space)]
        except (KeyError, ValueError):
            raise ArgumentError(f"the address space {address_space!r} has no AMDGPU LLVM "
                                "address space") from None

    def pipeline_fragments(self, *, compile_hints: dict) -> list:
        options = [f"chip={self.target.arch}", f"O={compile_hints.get('opt_level', 2)}"]
        if compile_hints.get("debug_info"):
            options.append("debug-info=true")
        if compile_hints.get("waves_per_eu"):
            options.append(f"waves-per-eu={compile_hints['waves_per_eu']}")
        if compile_hints.get("maxnreg"):
            options.append(f"maxnreg={compile_hints['maxnreg']}")
        if compile_hints.get("fast_fp_math"):
            options.append("fast=true")
        if compile_hints.get("unsafe_fp_math"):
            options.append("unsafe-math=true")
        return [f"fly-pipeline{{stage={stage} {' '.join(options)}}}"
                for stage in ("pre_binary", "binary_prep", "binary")]

    def lower_compile_hints(self, module, *, compile_hints: dict):
        """`waves_per_eu` as the `rocdl.waves_per_eu` attribute of every
        kernel (the pipeline keeps an attribute a kernel already has)."""
        waves = _count_hint(compile_hints, "waves_per_eu")
        if waves == 0:
            return module
        attr = f"rocdl.waves_per_eu = {waves} : i32"

        def add(m):
            head, attrs = m.group(1), m.group(2)
            if attrs is not None and re.search(r'(^|[ ,])"?rocdl\.waves_per_eu"? =', attrs):
                return m.group(0)  # the kernel's own (value_attrs=) wins
            if attrs is None:
                return f"{head} attributes {{{attr}}} {{"
            return f"{head} attributes {{{attrs}, {attr}}} {{"

        return re.sub(r"^(gpu\.func @[\w$.]+\(.*\) kernel)(?: attributes \{(.*)\})? \{$", add,
                      module, flags=re.M)

    def gpu_module_targets(self) -> list:
        return [f'#rocdl.target<chip = "{self.target.arch}">']

    def compile(self, module_text: str, options: CompileOptions):
        module_text = self.lower_compile_hints(module_text, compile_hints=options.hints)
        hints = options.hints
        if hints.get("llvm_options"):
            import warnings

            warnings.warn(f"compile hint llvm_options {dict(hints['llvm_options'])!r} is not "
                          "applied: this compiler does not set LLVM's command-line options "
                          "per compile, and compiles with LLVM's defaults", stacklevel=2)
        dump_dir = options.dump_dir
        if dump_dir and options.emulator:
            # FLYDSL_DUMP_IR on the emulator: the stages and the ISA of the
            # chip's compile (what the kernel is on the GPU), and in
            # emulator/ those of the host code the emulator runs.
            self._compile(module_text, options, hints, dump_dir, emulator=False)
            dump_dir = os.path.join(dump_dir, "emulator")
            os.makedirs(dump_dir, exist_ok=True)
        return self._compile(module_text, options, hints, dump_dir, options.emulator)

    def _compile(self, module_text, options, hints, dump_dir, emulator):
        return _fly.compile(module_text, self.target.arch, options.opt_level, dump_dir,
                            options.verify_each_pass, options.debug_info,
                            options.print_after_all, emulator,
                            maxnreg=_count_hint(hints, "maxnreg"),
                            fast_math=bool(hints.get("fast_fp_math")),
                            unsafe_math=bool(hints.get("unsafe_fp_math")),
                            emu_check=hints.get("emu_check", "") if emulator else "")

    def hash(self) -> str:
        return f"rocm:{self.target.arch}:wave{self.target.warp_size}"

    def native_lib_patterns(self) -> list:
        return ["_fly*.so"]

    def jit_runtime_lib_basenames(self) -> list:
        return []  # the host entry links against nothing but the launch table
