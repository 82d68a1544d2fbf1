"""flydsl.autotune (FlyDSL's Config / @autotune, `from flydsl import
Config, autotune`): it times the configs on the runtime in use (the
emulator here, labelled as emulator timing), runs the fastest, and keeps
the choice in FLYDSL_AUTOTUNE_CACHE_DIR, where another process finds it;
FLYDSL_AUTOTUNE=1 searches again."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from flydsl import Config, autotune
from flydsl.tracing.errors import ArgumentError

HERE = Path(__file__).resolve().parent

# A kernel whose configs differ in work: REPS=1 is the fastest by far.
SCRIPT = '''
import sys, json
import numpy as np
import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import Config, autotune

ran = []

@flyc.kernel
def fill(A: fx.Tensor, REPS: fx.Constexpr[int]):
    for _ in fx.range_constexpr(REPS):
        A[fx.thread_idx.x] = A[fx.thread_idx.x] + 1.0

def fake_bench(fn, warmup, rep):
    fn()
    return {1: 1.0, 64: 5.0, 256: 9.0}[ran[-1]]

def record(kwargs):
    ran.append(kwargs["REPS"])

@autotune(configs=[Config(REPS=256), Config(REPS=1), Config(REPS=64)], key=["n"],
          warmup=0, rep=1, pre_hook=record, do_bench=fake_bench if "--fake" in sys.argv else None)
@flyc.jit
def run(A: fx.Tensor, n: fx.Constexpr[int], REPS: fx.Constexpr[int]):
    fill(A, REPS).launch(grid=(1, 1, 1), block=(n, 1, 1))

a = np.zeros(64, np.float32)
run(a, 64)
print(json.dumps({"ran": ran, "best": run.best_config.to_dict(), "a0": float(a[0])}))
'''


def _run(tmp_path, *flags, env=None):
    script = tmp_path / "tune.py"
    script.write_text(SCRIPT)
    environ = dict(os.environ, FLYDSL_AUTOTUNE_CACHE_DIR=str(tmp_path / "tune-cache"),
                   FLYDSL_RUNTIME_KIND="emu", **(env or {}))
    environ.pop("FLYDSL_AUTOTUNE", None) if not env or "FLYDSL_AUTOTUNE" not in env else None
    out = subprocess.run([sys.executable, str(script), *flags], capture_output=True, text=True,
                         env=environ, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


def test_picks_the_fastest_and_a_second_process_reuses_it(tmp_path):
    result, log = _run(tmp_path)
    # each config ran (its pre_hook), timed on the emulator; then the best ran
    assert sorted(set(result["ran"])) == [1, 64, 256]
    assert "emulator timing" in log
    assert result["best"] == {"REPS": 1}
    assert result["ran"][-1] == 1
    (cache_file,) = (tmp_path / "tune-cache").iterdir()
    assert cache_file.name == "run.json"
    (entry,) = json.loads(cache_file.read_text()).values()
    assert entry["config"] == {"REPS": 1} and entry["timing"] == "emulator timing"
    key = next(iter(json.loads(cache_file.read_text())))
    assert "('chip', 'gfx942')" in key and "('runtime', 'emu')" in key and "64" in key

    again, log = _run(tmp_path)
    assert again["ran"] == [1] and "timing" not in log  # the cached choice, no search
    assert again["a0"] == 1.0


def test_flydsl_autotune_searches_again(tmp_path):
    first, _ = _run(tmp_path, "--fake")
    assert first["best"] == {"REPS": 1}
    cache_file = tmp_path / "tune-cache" / "run.json"
    data = json.loads(cache_file.read_text())
    for entry in data.values():  # a stale choice...
        entry["config"] = {"REPS": 64}
    cache_file.write_text(json.dumps(data))
    reused, _ = _run(tmp_path, "--fake")
    assert reused["ran"] == [64]
    forced, log = _run(tmp_path, "--fake", env={"FLYDSL_AUTOTUNE": "1"})
    assert forced["best"] == {"REPS": 1} and sorted(set(forced["ran"])) == [1, 64, 256]


def test_config_members_and_errors():
    c = Config(BLOCK=128, num_warps=4, waves_per_eu=2)
    assert c.all_kwargs() == {"BLOCK": 128, "num_warps": 4}
    assert c.compiler_opts() == {"waves_per_eu": 2}
    assert Config.from_dict(c.to_dict()) == c
    assert repr(c) == "Config(BLOCK=128, num_warps=4, waves_per_eu=2)"
    with pytest.raises(TypeError, match="maxnreg"):
        Config(maxnreg=128)
    with pytest.raises(ArgumentError, match="decorates a @flyc.jit function or a Python"):
        autotune(configs=[c])(42)
    import flydsl.compiler as flyc

    @flyc.jit
    def f(n: int):
        pass

    with pytest.raises(ArgumentError, match=r"key=\): \['m'\] are not parameters of f"):
        autotune(configs=[c], key=["m"])(f)
