"""The Python front end on the three reference kernels, for every chip.

examples/{vector_add,tiled_copy_lds,fma_gemm}.py are traced and compiled
with COMPILE_ONLY; each must give the same kernel as its Fly IR twin
(examples/*.mlir compiled by fly-compile): the same register, spill, LDS
and scratch figures and the same memory, barrier and FMA instructions in
the ISA. Also: the package imports in a fresh interpreter with no
environment, FLYDSL_DUMP_IR writes every stage, and bad environment values
are errors naming the variable.
"""

import collections
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402

CHIPS = ["gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201", "gfx1250"]
KERNELS = {"vector_add": "vector_add", "tiled_copy_lds": "tiled_copy", "fma_gemm": "fma_gemm"}
# The instructions whose counts must agree: memory, barriers, FMAs.
INTERESTING = re.compile(r"^\s*((?:global|buffer|scratch|ds|flat)_\w+|s_barrier\w*|v_\w*fma\w*)\b")


@pytest.fixture
def env(monkeypatch):
    """Sets environment variables for one test and rereads them."""
    def set_env(**values):
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        return flyc.Environment.reload()
    yield set_env
    monkeypatch.undo()
    flyc.Environment.reload()


def _load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", REPO_ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python_compile(name):
    mod = _load_example(name)
    if name == "vector_add":
        import numpy as np
        a = np.zeros((100, 200), np.float32)
        args = [flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4) for x in (a, a.copy(), a.copy())]
        return flyc.compile(mod.vector_add, *args)
    if name == "tiled_copy_lds":
        *_, args = mod.arguments()
        return flyc.compile(mod.tiled_copy, *args)
    *_, args = mod.arguments()
    return flyc.compile(mod.fma_gemm, *args)


def _instruction_counts(isa: str):
    counts = collections.Counter()
    for line in isa.splitlines():
        m = INTERESTING.match(line)
        if m:
            counts[m.group(1)] += 1
    return counts


def _fly_ir_compile(tmp_path, name, chip):
    out = tmp_path / f"{name}.{chip}.hsaco"
    tool = REPO_ROOT / "build" / "bin" / "fly-compile"
    proc = subprocess.run([str(tool), str(REPO_ROOT / "examples" / f"{name}.mlir"), f"--chip={chip}",
                           "-o", str(out), "--print-resources"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    row = proc.stdout.strip().splitlines()[-1].split()
    resources = dict(zip(["wave_size", "vgprs", "agprs", "sgprs", "vgpr_spills", "sgpr_spills",
                          "lds_bytes", "scratch_bytes", "max_workgroup_size"], map(int, row[1:])))
    from flydsl import _fly
    return resources, _fly.disassemble(out.read_bytes())


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_python_kernel_matches_fly_ir_kernel(env, tmp_path, name, chip):
    env(COMPILE_ONLY="1", ARCH=chip)
    compiled = _python_compile(name)
    (resources,) = compiled.resources.values()
    want_resources, want_isa = _fly_ir_compile(tmp_path, name, chip)
    for key, value in want_resources.items():
        assert resources[key] == value, f"{name} on {chip}: {key} {resources[key]} != {value}"
    assert resources["vgpr_spills"] == 0 and resources["scratch_bytes"] == 0
    got, want = _instruction_counts(compiled.isa()), _instruction_counts(want_isa)
    assert got == want, f"{name} on {chip}: {dict(got)} != {dict(want)}"
    assert want, "the comparison must see some instructions"


def test_imports_in_a_fresh_interpreter():
    proc = subprocess.run([sys.executable, "-c",
                           "import flydsl.compiler as flyc, flydsl.expr as fx; "
                           "print(flyc.jit.__name__, fx.Int32.__name__)"],
                          capture_output=True, text=True, cwd="/",
                          env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["jit", "Int32"]


def test_dump_ir_writes_every_stage(env, tmp_path):
    env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=str(tmp_path),
        FLYDSL_RUNTIME_ENABLE_CACHE="0")
    mod = _load_example("tiled_copy_lds")
    *_, args = mod.arguments()
    flyc.compile(mod.tiled_copy, *args)
    files = sorted(os.listdir(tmp_path / "tiled_copy"))
    assert files[0] == "00-input.mlir"
    assert files[1:3] == ["01-fly-check-launches.mlir", "02-fly-rewrite-func-signature.mlir"]
    assert any(f.endswith("-convert-fly-to-rocdl.mlir") for f in files)
    assert any(f.endswith("-gpu-module-to-binary.mlir") for f in files)
    # Every file names its pass (no nameless nested-pipeline adaptors), in
    # an unbroken numbering.
    stages = [f for f in files if f.endswith(".mlir")]
    assert all(f.split("-", 1)[1] != ".mlir" for f in stages), stages
    assert [int(f[:2]) for f in files] == list(range(len(files)))
    # after the stages, numbered on: the device LLVM IR and the ISA of each
    # module, FlyDSL's names (NN_..._final_isa.s), and the host function's
    (isa_file,) = [f for f in files if f.endswith("_final_isa.s")]
    assert isa_file[2:] == "_tiled_copy_kernel_module_final_isa.s", files
    assert any(f[2:] == "_tiled_copy_kernel_module_llvm_ir.ll" for f in files)
    assert files[-1][2:] == "_host_llvm_ir.ll"
    isa = (tmp_path / "tiled_copy" / isa_file).read_text()
    assert "ds_write_b128" in isa and "s_barrier" in isa
    # Stage 00 is what crossed the boundary: the traced text, user locations.
    first = (tmp_path / "tiled_copy" / "00-input.mlir").read_text()
    assert "fly.copy" in first


@pytest.mark.parametrize("var,value", [("COMPILE_ONLY", "maybe"), ("FLYDSL_COMPILE_OPT_LEVEL", "7"),
                                       ("ARCH", "gfx999"), ("FLYDSL_RUNTIME_KIND", "cuda")])
def test_malformed_environment_names_the_variable(env, var, value):
    with pytest.raises(flyc.FlyDSLError, match=var):
        env(**{var: value})


@pytest.mark.parametrize("var, value, field, want", [
    ("FLYDSL_DEBUG_LOG_LEVEL", "INFO", "log_level", "info"),
    ("FLYDSL_DEBUG_LOG_LEVEL", " Warning ", "log_level", "warning"),
    ("FLYDSL_RUNTIME_KIND", "EMU", "runtime_kind", "emu"),
    ("ARCH", "GFX1100", "arch", "gfx1100"),
])
def test_enumerated_variables_take_any_case(env, var, value, field, want):
    env(**{var: value})
    assert getattr(flyc.Environment.current(), field) == want


def test_debug_variables(env, tmp_path, capfd):
    """FLYDSL_DUMP_IR writes the device LLVM IR too; FLYDSL_DEBUG_DUMP_ASM
    prints the ISA; FLYDSL_DEBUG_PRINT_AFTER_ALL prints the IR after every
    pass; FLYDSL_DEBUG_LOG_LEVEL=info logs the compile."""
    env(COMPILE_ONLY="1", ARCH="gfx1100", FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=str(tmp_path),
        FLYDSL_RUNTIME_ENABLE_CACHE="0", FLYDSL_DEBUG_DUMP_ASM="1",
        FLYDSL_DEBUG_PRINT_AFTER_ALL="1", FLYDSL_DEBUG_LOG_LEVEL="info")
    mod = _load_example("tiled_copy_lds")
    *_, args = mod.arguments()
    flyc.compile(mod.tiled_copy, *args)
    (device,) = (tmp_path / "tiled_copy").glob("*_tiled_copy_kernel_module_llvm_ir.ll")
    device = device.read_text()
    assert "define amdgpu_kernel void @tiled_copy_kernel" in device
    assert "load <4 x float>" in device
    err = capfd.readouterr().err
    assert "// ISA of tiled_copy (gfx1100)" in err and "ds_store_b128" in err
    assert "// -----// IR Dump After FlyLayoutLowering (fly-layout-lowering)" in err
    assert "[flydsl] tiled_copy: traced and compiled for gfx1100" in err


def test_the_dump_on_the_emulator_has_the_chips_isa(env, tmp_path):
    """FLYDSL_DUMP_IR while the kernels run on the emulator: the stages and
    ISA of the chip's compile, as on a GPU, and the emulator's own compile
    in emulator/; the kernel still runs."""
    env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", FLYDSL_DUMP_IR="1",
        FLYDSL_DUMP_DIR=str(tmp_path), FLYDSL_RUNTIME_ENABLE_CACHE="0")
    mod = _load_example("vector_add")
    a = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    b = np.ones_like(a)
    c = np.zeros_like(a)
    mod.vector_add(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    (isa,) = (tmp_path / "vector_add").glob("*_final_isa.s")
    assert "global_load_dwordx4" in isa.read_text() or "buffer_load_dwordx4" in isa.read_text()
    emulated = sorted(p.name for p in (tmp_path / "vector_add" / "emulator").iterdir())
    assert emulated[0] == "00-input.mlir" and not any(n.endswith("_final_isa.s") for n in emulated)


def test_a_compile_reads_the_environment_the_program_set(env, monkeypatch, tmp_path):
    """os.environ set by the program before a compile applies to it (as in
    FlyDSL), without Environment.reload()."""
    env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    mod = _load_example("vector_add")
    a = np.zeros((64, 128), dtype=np.float32)
    flyc.compile(mod.vector_add, a, a, a)
    assert not (tmp_path / "vector_add").exists()
    monkeypatch.setenv("FLYDSL_DUMP_IR", "1")
    monkeypatch.setenv("FLYDSL_DUMP_DIR", str(tmp_path))
    monkeypatch.setenv("ARCH", "gfx1100")
    compiled = flyc.compile(mod.vector_add, a, a, a)
    assert compiled.options.arch == "gfx1100"
    assert list((tmp_path / "vector_add").glob("*_final_isa.s"))


def test_debug_info_reaches_the_pipeline(env, tmp_path):
    env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=str(tmp_path),
        FLYDSL_RUNTIME_ENABLE_CACHE="0", FLYDSL_DEBUG_ENABLE_DEBUG_INFO="1")
    mod = _load_example("tiled_copy_lds")
    *_, args = mod.arguments()
    flyc.compile(mod.tiled_copy, *args)
    files = os.listdir(tmp_path / "tiled_copy")
    assert any(f.endswith("-ensure-debug-info-scope-on-llvm-func.mlir") for f in files)
