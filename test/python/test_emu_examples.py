"""The Python examples on the CPU emulator (FLYDSL_RUNTIME_KIND=emu).

Each example (examples/*.py) is traced, compiled in emulator mode for a
wave64 chip (gfx942) and a wave32 chip (gfx1100), launched through the host
entry and the emulator's launch table, and its result compared with numpy
for several shapes: vector add on shapes that are not tile multiples (the
bounds predicate), the copy through swizzled LDS and a barrier, the FMA
GEMM. Each case runs in a fresh interpreter (the runtime is installed once
per process).
"""

import subprocess
import sys
import textwrap

import pytest

from conftest import REPO_ROOT

SCRIPT = textwrap.dedent("""
    import importlib.util, sys
    import numpy as np
    import flydsl.compiler as flyc
    name, shapes = sys.argv[1], eval(sys.argv[2])
    spec = importlib.util.spec_from_file_location(name, {examples!r} + "/" + name + ".py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    rng = np.random.default_rng(7)
    for shape in shapes:
        if name == "vector_add":
            a, b = (rng.random(shape, dtype=np.float32) for _ in range(2))
            c = np.zeros_like(a)
            ex.vector_add(a, b, c)
            ok = np.array_equal(c, a + b)
        elif name == "tiled_copy_lds":
            a, b, args = ex.arguments(*shape)
            ex.tiled_copy(*args)
            ok = np.array_equal(a, b)
        else:
            a, b, c, args = ex.arguments(*shape)
            ex.fma_gemm(*args)
            ok = np.allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
        print(shape, "PASS" if ok else "FAIL")
    compiled = list(getattr(ex, {{"vector_add": "vector_add", "tiled_copy_lds": "tiled_copy",
                                  "fma_gemm": "fma_gemm"}}[name])._compiled.values())
    print("emulator" if all(c.emulator for c in compiled) else "not the emulator")
""").format(examples=str(REPO_ROOT / "examples"))

CASES = [
    ("vector_add", [(100, 200), (17, 4), (1, 1024), (33, 68)]),
    ("tiled_copy_lds", [(64, 256), (16, 64)]),
    ("fma_gemm", [(256, 128, 64), (128, 256, 8)]),
]


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("name,shapes", CASES)
def test_example_on_the_emulator(tmp_path, chip, name, shapes):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ARCH": chip,
           "FLYDSL_RUNTIME_KIND": "emu", "FLYDSL_RUNTIME_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, name, repr(shapes)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines == [f"{tuple(s)} PASS" for s in shapes] + ["emulator"], proc.stdout
