"""The two native extensions (frontend/python/bindings): flydsl._fly_runtime
runs compiled functions and links LLVM but not MLIR; flydsl._fly_compiler
traces and compiles and is loaded on first use (flydsl/_fly.py joins them).
So importing the package, and a call whose artifact is in the disk cache,
never load libMLIR: what each process loads is read from sys.modules and
/proc/self/maps of a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "frontend" / "python"
READELF = "/usr/lib/llvm-22/bin/llvm-readelf"

# What a process reports about itself (the last line of its output).
REPORT = """
import json, sys
maps = open('/proc/self/maps').read()
print(json.dumps({'compiler': 'flydsl._fly_compiler' in sys.modules,
                  'mlir': 'libMLIR' in maps, 'llvm': 'libLLVM' in maps}))
"""

VECTOR_ADD = """
import sys
sys.path.insert(0, {package!r})
import numpy as np
import flydsl.compiler as flyc
import flydsl.expr as fx

@flyc.kernel
def add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    C[i] = A[i] + B[i]

@flyc.jit
def add(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    add_kernel(A, B, C).launch(grid=(A.shape[0] // 64, 1, 1), block=(64, 1, 1), stream=stream)

a = np.arange(256, dtype=np.float32)
b = np.full(256, 0.5, dtype=np.float32)
c = np.zeros(256, dtype=np.float32)
add(a, b, c)
assert np.array_equal(c, a + b), c
"""


def run(code: str, where: Path, cwd: Path | None = None, flags=(), **env) -> dict:
    """Runs `code` as the script where/script.py (kernels need their source
    file) from directory `cwd` (default: `where`), with the interpreter's
    `flags`."""
    full = dict(os.environ, FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", **env)
    full.pop("COMPILE_ONLY", None)
    script = where / "script.py"
    script.write_text(code + REPORT)
    out = subprocess.run([sys.executable, *flags, str(script)], cwd=cwd or where, env=full,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def extension(name: str) -> Path:
    found = sorted((PACKAGE / "flydsl").glob(f"{name}.*.so"))
    assert len(found) == 1, f"expected one {name} extension, found {found}"
    return found[0]


def needed(path: Path) -> list[str]:
    out = subprocess.run([READELF, "--dynamic", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [line.split("[")[1].rstrip("]") for line in out.stdout.splitlines()
            if "(NEEDED)" in line]


def test_the_runtime_extension_links_llvm_but_not_mlir():
    runtime = needed(extension("_fly_runtime"))
    assert any(n.startswith("libLLVM") for n in runtime), runtime
    assert not any(n.startswith("libMLIR") for n in runtime), runtime
    assert any(n.startswith("libMLIR") for n in needed(extension("_fly_compiler")))


def test_importing_the_package_does_not_load_the_compiler(tmp_path):
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE)!r})\n"
            "import flydsl.compiler, flydsl.expr, flydsl._fly as f, flydsl._fly_runtime as r\n"
            "assert f.Error is r.Error\n"
            "assert f.supported_chips() == r.supported_chips() and 'gfx942' in f.supported_chips()\n"
            # Nor what only some calls need (hashing is the runtime's BLAKE3;
            # fx.arith's ArithValue is in flydsl.expr.utils, the pictures not).
            "unexpected = {'numpy', 'hashlib', 'statistics', 'html', 'sysconfig', 'flydsl.expr.rocdl',\n"
            "              'flydsl.expr.utils.print_typst', 'flydsl.expr._draw'} & set(sys.modules)\n"
            "assert not unexpected, unexpected\n")
    # -S: without site, whose .pth files may import anything.
    report = run(code, tmp_path, flags=("-S",))
    assert report == {"compiler": False, "mlir": False, "llvm": True}


def test_a_disk_cache_hit_runs_without_the_compiler(tmp_path):
    cache = tmp_path / "cache"
    script = VECTOR_ADD.format(package=str(PACKAGE))
    first = run(script, tmp_path, FLYDSL_RUNTIME_CACHE_DIR=str(cache))
    assert first["compiler"] and first["mlir"]   # it traced and compiled
    elsewhere = tmp_path / "elsewhere"   # the same script, run from another directory
    elsewhere.mkdir()
    # A miss would trace, which loads the compiler.
    second = run(script, tmp_path, cwd=elsewhere, FLYDSL_RUNTIME_CACHE_DIR=str(cache))
    assert second == {"compiler": False, "mlir": False, "llvm": True}


def test_tracing_loads_the_compiler_and_its_errors_are_the_runtimes(tmp_path):
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE)!r})\n"
            "import flydsl._fly as f, flydsl._fly_runtime as r\n"
            "assert 'flydsl._fly_compiler' not in sys.modules\n"
            "try:\n"
            "    f.parse_type('!fly.no_such_type')\n"
            "    raise SystemExit('no error')\n"
            "except r.Error as e:\n"
            "    assert 'no_such_type' in str(e), e\n"
            "import flydsl._fly_compiler as c\n"
            "assert f.Type is c.Type and c.Error is r.Error\n"
            "assert str(f.parse_type('i32')) == 'i32'\n"
            "try:\n"
            "    f.no_such_name\n"
            "    raise SystemExit('no AttributeError')\n"
            "except AttributeError as e:\n"
            "    assert 'no_such_name' in str(e)\n")
    report = run(code, tmp_path)
    assert report == {"compiler": True, "mlir": True, "llvm": True}


def test_the_compiler_loads_with_lazy_binding_and_the_flags_are_restored(tmp_path):
    # The flags the process had (RTLD_GLOBAL added, say) are its own again
    # after the load, and nothing but the load saw RTLD_LAZY.
    code = (f"import os, sys; sys.path.insert(0, {str(PACKAGE)!r})\n"
            "import flydsl._fly as f\n"
            "seen = []\n"
            "class Finder:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'flydsl._fly_compiler':\n"
            "            seen.append(sys.getdlopenflags())\n"
            "sys.meta_path.insert(0, Finder())\n"
            "mine = os.RTLD_NOW | os.RTLD_GLOBAL\n"
            "sys.setdlopenflags(mine)\n"
            # Four threads ask for it at once: one loads it.
            "import threading\n"
            "threads = [threading.Thread(target=f.compiler) for _ in range(4)]\n"
            "for t in threads: t.start()\n"
            "for t in threads: t.join()\n"
            "assert str(f.parse_type('i32')) == 'i32'\n"
            "assert sys.getdlopenflags() == mine, sys.getdlopenflags()\n"
            "assert seen == [os.RTLD_LAZY | os.RTLD_GLOBAL], seen\n")
    report = run(code, tmp_path)
    assert report == {"compiler": True, "mlir": True, "llvm": True}
