"""The three reference kernels (examples/*.mlir) on the CPU emulator.

test/tools/fly-emu-run takes a Fly IR kernel through stage A for a chip and
convert-rocdl-to-emu, JIT-compiles it for this host and launches it with
the emulator runtime (runtime/emu) over its whole grid; it checks every
element of the result against a host computation (A + B; the copy of A
through swizzled LDS and a barrier; A * B^T) and prints PASS or the first
mismatch. Shapes that are not tile multiples exercise vector_add's bounds
predicate; wave64 and wave32 chips both run.
"""

import subprocess

import pytest

from conftest import REPO_ROOT, _build_tool

CASES = [
    ("vector_add", "gfx942", 100, 200, 0), ("vector_add", "gfx942", 33, 68, 0),
    ("vector_add", "gfx950", 1, 4, 0), ("vector_add", "gfx1100", 17, 4, 0),
    ("vector_add", "gfx1201", 16, 64, 0), ("vector_add", "gfx1250", 64, 512, 0),
    ("tiled_copy", "gfx942", 32, 128, 0), ("tiled_copy", "gfx1100", 16, 64, 0),
    ("tiled_copy", "gfx1250", 48, 192, 0),
    ("fma_gemm", "gfx942", 128, 256, 32), ("fma_gemm", "gfx1100", 256, 128, 16),
]
FILES = {"vector_add": "vector_add.mlir", "tiled_copy": "tiled_copy_lds.mlir",
         "fma_gemm": "fma_gemm.mlir"}


@pytest.mark.parametrize("kernel,chip,m,n,k", CASES)
def test_reference_kernel_on_the_emulator(kernel, chip, m, n, k):
    tool = _build_tool("fly-emu-run", "FLY_EMU_RUN")
    args = [tool, str(REPO_ROOT / "examples" / FILES[kernel]), f"--kernel={kernel}",
            f"--chip={chip}", f"--m={m}", f"--n={n}"] + ([f"--k={k}"] if k else [])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wave = 64 if chip.startswith("gfx9") else 32
    assert proc.stdout.strip() == f"PASS {kernel} {m}x{n} on {chip} (wave{wave})"
