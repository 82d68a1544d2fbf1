"""FlyDSL's documented environment variables (its utils/env.py and
tests/README.md) read with FlyDSL's meaning (SPEC §11): the ones with an
effect here, and the ones accepted and checked that have none
(env.NO_EFFECT says why)."""

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler import env as env_mod
from flydsl.tracing.errors import CompileError, FlyDSLError


@flyc.kernel
def _inc(A: fx.Tensor):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] + 1.0


def _fresh():
    @flyc.jit
    def launch_inc(A: fx.Tensor):
        _inc(A).launch(grid=(1, 1, 1), block=(4, 1, 1))

    return launch_inc


def test_runtime_kind_takes_flydsls_rocm_name_and_any_case(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="ROCm")
    assert flyc.Environment.current().runtime_kind == "hip"
    fly_env(FLYDSL_RUNTIME_KIND="EMU")
    assert flyc.Environment.current().runtime_kind == "emu"
    with pytest.raises(FlyDSLError, match="FLYDSL_RUNTIME_KIND='cuda' must be one of hip, emu"):
        fly_env(FLYDSL_RUNTIME_KIND="cuda")


def test_gpu_arch_and_hsa_override_pick_the_default_target(fly_env):
    fly_env(ARCH=None, FLYDSL_GPU_ARCH="gfx950")
    assert flyc.Environment.current().arch == "gfx950"
    assert flyc.get_backend().target == flyc.GPUTarget("rocm", "gfx950", 64)
    fly_env(FLYDSL_GPU_ARCH=None, HSA_OVERRIDE_GFX_VERSION="12.0.1")
    assert flyc.Environment.current().arch == "gfx1201"
    with pytest.raises(FlyDSLError, match=r"FLYDSL_GPU_ARCH='gfx90a' gives the arch gfx90a, "
                                          r"which this compiler does not support"):
        fly_env(HSA_OVERRIDE_GFX_VERSION=None, FLYDSL_GPU_ARCH="gfx90a")


def test_compile_backend_is_read_lower_case(fly_env):
    fly_env(FLYDSL_COMPILE_BACKEND="ROCM")
    assert flyc.compile_backend_name() == "rocm"
    fly_env(FLYDSL_COMPILE_BACKEND=None)
    assert flyc.compile_backend_name() == "rocm"


def test_run_only_loads_from_the_cache_and_never_compiles(fly_env, tmp_path):
    fly_env(FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path), FLYDSL_RUNTIME_RUN_ONLY="1",
            FLYDSL_RUNTIME_ENABLE_CACHE="0")
    a = np.zeros(4, np.float32)
    with pytest.raises(CompileError, match="FLYDSL_RUNTIME_RUN_ONLY=1, but the disk cache"):
        _fresh()(a)
    fly_env(FLYDSL_RUNTIME_RUN_ONLY=None, FLYDSL_RUNTIME_ENABLE_CACHE="1")
    _fresh()(a)  # fills the cache
    fly_env(FLYDSL_RUNTIME_RUN_ONLY="yes", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    f = _fresh()
    f(a)
    (compiled,) = f._compiled.values()
    assert compiled.from_cache and a.tolist() == [2.0] * 4


def test_print_origin_ir_prints_the_traced_module(fly_env, capfd):
    fly_env(FLYDSL_DEBUG_PRINT_ORIGIN_IR="on", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    _fresh()(np.zeros(4, np.float32))
    err = capfd.readouterr().err
    assert "// the traced module of launch_inc" in err and "func.func @launch_inc(" in err


def test_log_to_file_gets_the_records(fly_env, tmp_path):
    log = tmp_path / "flydsl.log"
    fly_env(FLYDSL_DEBUG_LOG_TO_FILE=str(log), FLYDSL_DEBUG_LOG_LEVEL="INFO",
            FLYDSL_RUNTIME_ENABLE_CACHE="0")
    _fresh()(np.zeros(4, np.float32))
    assert "launch_inc: traced and compiled for gfx942" in log.read_text()
    fly_env(FLYDSL_DEBUG_LOG_TO_FILE=None, FLYDSL_DEBUG_LOG_LEVEL=None)


def test_autotune_variables(fly_env, tmp_path):
    fly_env(FLYDSL_AUTOTUNE="TRUE", FLYDSL_AUTOTUNE_CACHE_DIR=str(tmp_path))
    assert flyc.Environment.current().autotune
    assert flyc.Environment.current().autotune_cache_dir == str(tmp_path)
    with pytest.raises(FlyDSLError, match="FLYDSL_AUTOTUNE='maybe' is not a boolean"):
        fly_env(FLYDSL_AUTOTUNE="maybe")


@pytest.mark.parametrize("name", sorted(env_mod.NO_EFFECT))
def test_accepted_without_effect_are_still_checked(fly_env, name):
    good = {"FLYDSL_DEBUG_MAX_LOC_DEPTH": "3", "FLYDSL_KTRACE_BUFFER_BYTES": "8192"}.get(name, "1")
    fly_env(**{name: good})
    bad = {"FLYDSL_DEBUG_MAX_LOC_DEPTH": "0", "FLYDSL_KTRACE_BUFFER_BYTES": "12"}.get(name)
    bools = ("FLYDSL_DEBUG_AST_DIFF", "FLYDSL_DEBUG_LOG_TO_CONSOLE", "FLYDSL_KTRACE_ENABLE")
    if name in bools:
        bad = "sometimes"
    if bad is not None:
        with pytest.raises(FlyDSLError, match=f"environment variable {name}="):
            fly_env(**{name: bad})
