"""The reference vector add (examples/vector_add.mlir) on the CPU emulator.

test/tools/fly-emu-run takes the Fly IR kernel through stage A for a chip
and convert-rocdl-to-emu, JIT-compiles it for this host and launches it
with the emulator runtime (runtime/emu) over the whole grid; it compares
every element of C with A + B (numbers it chose) and prints PASS or the
first mismatch. Shapes that are not multiples of the 16 x 64 tile exercise
the bounds predicate; wave64 and wave32 chips both run.
"""

import subprocess

import pytest

from conftest import REPO_ROOT, _build_tool


@pytest.mark.parametrize("chip,m,n", [
    ("gfx942", 100, 200), ("gfx942", 33, 68), ("gfx950", 1, 4),
    ("gfx1100", 100, 200), ("gfx1100", 17, 4), ("gfx1201", 16, 64), ("gfx1250", 64, 512),
])
def test_vector_add_runs_on_the_emulator(chip, m, n):
    tool = _build_tool("fly-emu-run", "FLY_EMU_RUN")
    proc = subprocess.run([tool, str(REPO_ROOT / "examples" / "vector_add.mlir"), f"--chip={chip}",
                           f"--m={m}", f"--n={n}"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wave = 64 if chip.startswith("gfx9") else 32
    assert proc.stdout.strip() == f"PASS {m}x{n} on {chip} (wave{wave})"
