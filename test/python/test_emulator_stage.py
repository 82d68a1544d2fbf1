"""The emulator's stage of the pipeline, seen from Python.

With FLYDSL_RUNTIME_KIND=emu a kernel goes through stage A, then the
emulator's stage (convert-rocdl-to-emu and the vector and arith conversions
in the gpu.modules) in place of binary_prep and binary for the chip, then
binary_prep for the host code. FLYDSL_DUMP_IR shows the emulator's stage
pass by pass, in the one numbering of the compile, and the kernel's
results stay right (numpy reference).
"""

from __future__ import annotations

import importlib.util
import os
import re

import numpy as np
import pytest

import flydsl.compiler as flyc

from conftest import REPO_ROOT

EMULATOR_PASSES = ["convert-rocdl-to-emu", "convert-vector-to-llvm",
                   "convert-arith-to-llvm", "reconcile-unrealized-casts"]


def _vector_add():
    spec = importlib.util.spec_from_file_location("example_vector_add",
                                                  REPO_ROOT / "examples" / "vector_add.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _passes(dump_dir):
    """The passes of the dump, in their numbered order (00-input first; the
    numbering goes on over the LLVM IR files after them)."""
    numbered = sorted(f for f in os.listdir(dump_dir) if re.match(r"\d\d[-_]", f))
    assert [int(f[:2]) for f in numbered] == list(range(len(numbered))), numbered
    return [f[3:-len(".mlir")] for f in numbered if f.endswith(".mlir")]


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
def test_dump_ir_lists_the_emulator_stage_and_results_stay_right(fly_env, tmp_path, chip):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None, FLYDSL_DUMP_IR="1",
            FLYDSL_DUMP_DIR=str(tmp_path), FLYDSL_RUNTIME_ENABLE_CACHE="0")
    example = _vector_add()
    rng = np.random.default_rng(7)
    a = rng.standard_normal((37, 70), dtype=np.float32)
    b = rng.standard_normal((37, 70), dtype=np.float32)
    c = np.full_like(a, np.nan)
    example.vector_add(a, b, c, copy_bits=32)
    np.testing.assert_array_equal(c, a + b)

    # The chip's compile, as on a GPU, with its ISA; the emulator's own in
    # emulator/.
    assert list((tmp_path / "vector_add").glob("*_vector_add_kernel_module_final_isa.s"))
    assert "fly-rocdl-cluster-attr" in _passes(tmp_path / "vector_add")
    dump = tmp_path / "vector_add" / "emulator"
    passes = _passes(dump)
    assert passes[0] == "input"
    # Stage A ends with fly-rocdl-cluster-attr; the emulator's four passes
    # follow it in order; then binary_prep, for the host code; no binary.
    end_of_a = passes.index("fly-rocdl-cluster-attr")
    assert passes[end_of_a + 1:end_of_a + 5] == EMULATOR_PASSES, passes
    assert passes[end_of_a + 5] == "rocdl-attach-target", passes
    assert "gpu-module-to-binary" not in passes

    # Before the emulator's stage the kernel is ROCDL; after its first pass
    # it is the emulator's entry, its ids loads from the context.
    def text(index):
        return (dump / f"{index:02d}-{passes[index]}.mlir").read_text()
    before, after = text(end_of_a), text(end_of_a + 1)
    assert "rocdl.workitem.id.x" in before and "rocdl.kernel" in before
    assert "fly.emu.kernel" in after and "llvm.func internal @vector_add_kernel" in after
    gpu_module = after[after.index("gpu.module"):]
    assert "rocdl." not in gpu_module.split("\n  }\n")[0]


def test_print_after_all_shows_the_emulator_passes(fly_env, capfd):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_PRINT_AFTER_ALL="1", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    example = _vector_add()
    a = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    c = np.zeros_like(a)
    example.vector_add(a, a, c)
    np.testing.assert_array_equal(c, 2 * a)
    err = capfd.readouterr().err
    order = [err.find(f"// -----// IR Dump After {name} ({arg})")
             for name, arg in [("ConvertROCDLToEmu", "convert-rocdl-to-emu"),
                               ("ConvertVectorToLLVMPass", "convert-vector-to-llvm"),
                               ("ArithToLLVMConversionPass", "convert-arith-to-llvm"),
                               ("ReconcileUnrealizedCastsPass", "reconcile-unrealized-casts")]]
    assert -1 not in order, err[-2000:]
    assert order == sorted(order)
    assert "(gpu-module-to-binary)" not in err
