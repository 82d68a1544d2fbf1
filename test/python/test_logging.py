"""FLYDSL_DEBUG_LOG_LEVEL=info: one line per compile or disk-cache load
(function, kernels, chip, stage times, cache hit/miss and the entry's key
prefix), nothing for an in-memory hit or a warm call; one line per AOT job
of `flydsl compile`."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl.compiler import jit_function

SCRIPT = textwrap.dedent('''
    import numpy as np
    import flydsl.compiler as flyc
    import flydsl.expr as fx

    @flyc.kernel
    def inc_kernel(A: fx.Tensor):
        A[fx.thread_idx.x] = A[fx.thread_idx.x] + 1.0

    @flyc.jit
    def inc(A: fx.Tensor):
        inc_kernel(A).launch(grid=(1, 1, 1), block=(16, 1, 1))

    a = np.zeros(16, np.float32)
    inc(a)
    inc(a)
    print(a[0])
''')

LINE = re.compile(r"^\[flydsl\] (?P<function>\w+): (?P<what>traced and compiled|loaded from the "
                  r"disk cache) for (?P<chip>\w+)(?P<emu> \(emulator\))? in (?P<total>[\d.]+) ms "
                  r"\((?P<stages>[^;]*); (?P<cache>cache miss|cache hit|cache off)(?:, key "
                  r"(?P<key>[0-9a-f]{16}))?; kernels: (?P<kernels>[^)]*)\)$")


def _run(tmp_path, cache, **env):
    script = tmp_path / "inc.py"
    script.write_text(SCRIPT)
    full = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(cache), FLYDSL_DEBUG_LOG_LEVEL="info",
                **{"FLYDSL_RUNTIME_KIND": "emu", **env})
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=full)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ("2.0" if env.get("COMPILE_ONLY") is None else "0.0")
    return [m.groupdict() for m in map(LINE.match, r.stderr.splitlines()) if m], r.stderr


def _stages(text):
    return {name: float(ms) for name, ms in re.findall(r"(\w+) ([\d.]+) ms", text)}


def test_a_first_compile_then_a_disk_hit_in_a_new_process(tmp_path):
    cache = tmp_path / "cache"
    lines, _ = _run(tmp_path, cache)
    # two calls: the second is an in-memory (warm) hit and says nothing
    (first,) = lines
    assert first["function"] == "inc" and first["kernels"] == "inc_kernel"
    assert first["what"] == "traced and compiled" and first["cache"] == "cache miss"
    assert first["chip"] == "gfx942" and first["emu"]
    stages = _stages(first["stages"])
    assert set(stages) == {"trace", "compile"} and all(v > 0 for v in stages.values())
    assert float(first["total"]) >= stages["trace"] + stages["compile"]
    # the entry it names (the others are the host objects the run linked)
    digests = [digest for digest, *_ in _fly.DiskCache.open(str(cache)).entries()]
    assert [d for d in digests if d.startswith(first["key"])] != []

    lines, _ = _run(tmp_path, cache)
    (second,) = lines
    assert second["what"] == "loaded from the disk cache" and second["cache"] == "cache hit"
    assert second["key"] == first["key"] and set(_stages(second["stages"])) == {"load"}


def test_another_chip_and_the_cache_off(tmp_path):
    lines, _ = _run(tmp_path, tmp_path / "cache", COMPILE_ONLY="1", ARCH="gfx1100",
                    FLYDSL_RUNTIME_KIND="hip")
    (line,) = lines
    assert line["chip"] == "gfx1100" and not line["emu"] and line["cache"] == "cache miss"
    lines, _ = _run(tmp_path, tmp_path / "cache", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    (line,) = lines
    assert line["cache"] == "cache off" and line["key"] is None


def test_quiet_below_info(tmp_path):
    script = tmp_path / "inc.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "c"),
                                FLYDSL_RUNTIME_KIND="emu", FLYDSL_DEBUG_LOG_LEVEL="warning"))
    assert r.returncode == 0 and r.stderr == ""


@flyc.kernel
def _double_kernel(A: fx.Tensor):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] * 2.0


@flyc.jit
def _double(A: fx.Tensor):
    _double_kernel(A).launch(grid=(1, 1, 1), block=(8, 1, 1))


def test_warm_calls_and_memory_hits_report_nothing(fly_env, monkeypatch, capfd):
    """The report is made on the compile and load paths only: once for the
    first call, never for the warm ones or flyc.compile's memory hit."""
    fly_env(FLYDSL_RUNTIME_KIND="emu", FLYDSL_DEBUG_LOG_LEVEL="info")
    seen = []
    monkeypatch.setattr(jit_function, "compile_observers", [lambda r, c: seen.append(r)])
    a = np.ones(8, np.float32)
    for _ in range(20):
        _double(a)
    flyc.compile(_double, a)
    assert a[0] == 2.0 ** 21
    assert len(seen) == 1 and seen[0]["function"] == "_double"
    assert seen[0]["cache"] in ("miss", "hit")  # the session's cache may have it
    err = capfd.readouterr().err
    assert len(re.findall(r"^\[flydsl\] _double: ", err, re.M)) == 1


def test_flydsl_compile_logs_each_job(tmp_path):
    script = tmp_path / "inc.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "c"),
               FLYDSL_DEBUG_LOG_LEVEL="INFO")
    r = subprocess.run([sys.executable, "-m", "flydsl", "compile", str(script), "--arch",
                        "gfx942,gfx950"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    for arch in ("gfx942", "gfx950"):
        assert re.search(rf"^\[flydsl\] compile job {re.escape(str(script))} for {arch}: ok "
                         r"\(1 compile: 1 compiled, 0 from the cache; [\d.]+ s\)$", r.stderr,
                         re.M), r.stderr
        # and the script's own compile line, for that chip
        assert re.search(rf"^\[flydsl\] inc: traced and compiled for {arch} in ", r.stderr, re.M)
