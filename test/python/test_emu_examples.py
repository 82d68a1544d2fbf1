"""Every Python example (examples/*.py) on the CPU emulator, on the chips
EXAMPLES lists for it: the generic ones on a wave64 chip (gfx942) and a
wave32 chip (gfx1100), the ones of a matrix-instruction family on the chips
that have it.

Each example is a self-checking program: it runs its kernels on several
shapes, compares with numpy and prints PASS (exit 0) or FAIL (exit 1). Here
each runs as a subprocess in a fresh interpreter (the runtime is installed
once per process) with FLYDSL_RUNTIME_KIND=emu, and must end with PASS,
report no WRONG line, and have compiled its kernels for the emulator of
the requested chip. The list of examples is checked against the directory,
so a new example cannot be left out.
"""

import subprocess
import sys

import pytest

from conftest import REPO_ROOT

CHIPS = ["gfx942", "gfx1100"]
# example -> the chips it runs on
EXAMPLES = {name: CHIPS for name in ["vector_add", "tiled_copy_lds", "fma_gemm", "gather_scatter",
                                     "warp_collectives", "block_scan", "language_tour",
                                     "buffer_tiled_copy"]}
EXAMPLES["mfma_gemm"] = ["gfx942", "gfx950"]
EXAMPLES["mx_gemm"] = ["gfx942", "gfx950"]  # fp8 on both; MX (MFMA_Scale) on gfx950
EXAMPLES["wmma_gemm"] = ["gfx1100", "gfx1201", "gfx1250"]
EXAMPLES["tdm_copy"] = ["gfx1250"]  # the tensor data mover: gfx1250 only

# Runs an example's main() and then reports how its jit functions were
# compiled (each compiled artifact: emulator or not, for which chip).
DRIVER = """
import importlib.util, sys
import flydsl.compiler as flyc
path = sys.argv[1]
spec = importlib.util.spec_from_file_location("example", path)
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)
rc = ex.main()
jits = [v for v in vars(ex).values() if isinstance(v, flyc.JitFunction)]
compiled = [c for j in jits for c in j._compiled.values()]
print("compiled:", len(compiled), "emulator" if compiled and all(c.emulator for c in compiled) else "NOT emulator",
      flyc.Environment.current().arch)
sys.exit(rc)
"""


def test_every_example_is_listed():
    found = sorted(p.stem for p in (REPO_ROOT / "examples").glob("*.py"))
    assert found == sorted(EXAMPLES)


@pytest.mark.parametrize("name,chip", [(name, chip) for name, chips in EXAMPLES.items() for chip in chips])
def test_example_passes_on_the_emulator(tmp_path, chip, name):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ARCH": chip,
           "PYTHONPATH": str(REPO_ROOT / "frontend" / "python"),
           "FLYDSL_RUNTIME_KIND": "emu", "FLYDSL_RUNTIME_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(REPO_ROOT / "examples" / f"{name}.py")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[-2] == "PASS", proc.stdout
    assert not any("WRONG" in line or "FAIL" in line for line in lines), proc.stdout
    count, kind, arch = lines[-1].split()[1:]
    assert int(count) >= 1 and kind == "emulator" and arch == chip, lines[-1]
