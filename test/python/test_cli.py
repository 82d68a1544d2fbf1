"""The flydsl command, run as `python -m flydsl` in a subprocess."""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from flydsl import _fly


def run(*argv, **env):
    full = dict(os.environ, NO_COLOR="1", **env)
    return subprocess.run([sys.executable, "-m", "flydsl", *argv], capture_output=True,
                          text=True, env=full)


def test_env_lists_every_chip_with_wave_size():
    r = run("env")
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines() if line.strip()}
    for chip in _fly.supported_chips():
        assert int(rows[chip][2]) == _fly.chip_info(chip)["wave_size"]
    assert re.search(r"^LLVM: 22\.", r.stdout, re.M)
    data = json.loads(run("env", "--json").stdout)
    assert {c["name"]: c["wave_size"] for c in data["chips"]} == {
        c: _fly.chip_info(c)["wave_size"] for c in _fly.supported_chips()}
    assert {"gfx942": 64, "gfx1100": 32}.items() <= {c["name"]: c["wave_size"] for c in data["chips"]}.items()


def _grid(out):
    lines = out.splitlines()[1:]
    if "|" not in out:
        return [[int(x) for x in lines[0].split()]]
    return [[int(x) for x in line.split("|")[1].split()] for line in lines if "|" in line]


@pytest.mark.parametrize("text,shape,stride", [("(4,8):(1,4)", (4, 8), (1, 4)),
                                               ("(2,3):(3,1)", (2, 3), (3, 1))])
def test_layout_grid(text, shape, stride):
    r = run("layout", text)
    assert r.returncode == 0, r.stderr
    expect = [[i * stride[0] + j * stride[1] for j in range(shape[1])] for i in range(shape[0])]
    assert _grid(r.stdout) == expect
    assert "\x1b[" not in r.stdout


def test_layout_rank1():
    assert _grid(run("layout", "8:2").stdout) == [[2 * j for j in range(8)]]


def test_bad_layout_exits_2():
    r = run("layout", "(4,8):(1,4,3)")
    assert r.returncode == 2
    assert "(4,8):(1,4,3)" in r.stderr and "congruent" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_verb_and_help():
    assert run("frobnicate").returncode == 2
    for verb in ([], ["env"], ["cache"], ["cache", "prune"], ["layout"]):
        r = run(*verb, "--help")
        assert r.returncode == 0 and "usage:" in r.stdout


def test_cache_verbs(tmp_path):
    d = tmp_path / "cache"
    cache = _fly.DiskCache.open(str(d))
    for k in range(3):
        cache.store([("k", str(k))], b"x" * (100 + k))
    old = cache.entry_path([("k", "0")])
    # An entry being written is not an entry.
    tmp = old + ".tmp-123"
    open(tmp, "wb").write(b"partial")
    env = {"FLYDSL_RUNTIME_CACHE_DIR": str(d)}
    info = run("cache", "info", **env).stdout
    assert "entries: 3" in info
    sizes = [os.path.getsize(cache.entry_path([("k", str(k))])) for k in range(3)]
    assert f"bytes: {sum(sizes)}" in info
    lines = run("cache", "list", **env).stdout.splitlines()
    assert len(lines) == 3
    assert sorted(int(l.split()[1]) for l in lines) == sorted(sizes)
    t = time.time() - 8 * 86400
    os.utime(old, (t, t))
    r = run("cache", "prune", "--older-than", "7d", **env)
    assert r.returncode == 0 and "removed 1 entries" in r.stdout
    assert not os.path.exists(old) and os.path.exists(tmp)
    assert all(os.path.exists(cache.entry_path([("k", str(k))])) for k in (1, 2))
    assert run("cache", "prune", "--older-than", "soon", **env).returncode == 2
    r = run("cache", "clear", **env)
    assert "removed 2 entries" in r.stdout
    assert "entries: 0" in run("cache", "info", **env).stdout
    assert os.path.exists(tmp)


_KERNEL = """
import numpy as np
import flydsl.compiler as flyc
import flydsl.expr as fx

@flyc.kernel
def sink(A: fx.Tensor, B: fx.Tensor):
    A[0] = B[0]

@flyc.jit
def two(A, B):
    sink(A, B).launch(grid=(1, 1, 1), block=(1, 1, 1))

a = np.zeros((6, 10), np.float32)
flyc.compile(two, a, a.copy())
"""


def test_cache_of_a_compiled_kernel(tmp_path):
    d = tmp_path / "cache"
    env = dict(os.environ, COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_ENABLE_CACHE="1",
               FLYDSL_RUNTIME_CACHE_DIR=str(d))
    script = tmp_path / "kernel.py"  # the tracer reads the kernel's source
    script.write_text(_KERNEL)
    subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True)
    files = [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".flyc")]
    assert files
    info = run("cache", "info", FLYDSL_RUNTIME_CACHE_DIR=str(d)).stdout
    assert f"entries: {len(files)}" in info
    assert f"bytes: {sum(os.path.getsize(f) for f in files)}" in info
    assert "removed %d entries" % len(files) in run("cache", "clear", FLYDSL_RUNTIME_CACHE_DIR=str(d)).stdout
