"""Autotuning at scale: the candidates are compiled by worker processes
into the shared disk cache before they are timed (on the emulator here,
labelled so), the choice is kept per (kernel, signature, chip) in
FLYDSL_AUTOTUNE_CACHE_DIR, and the progress is logged (info) or drawn (a
terminal). The disk cache under concurrent writers, and a copied cache
directory used as is."""
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import textwrap
import time

from flydsl import _fly

# The configs differ in work by 1000x (REPS), and one cannot launch (a
# workgroup of 4096 work-items); a search must pick REPS=20.
TUNE = textwrap.dedent('''
    import json, os
    import numpy as np
    import flydsl.compiler as flyc
    import flydsl.expr as fx
    from flydsl import Config, autotune

    @flyc.kernel
    def work(A: fx.Tensor, REPS: fx.Constexpr[int]):
        i = fx.thread_idx.x
        acc = A[i]
        for _ in range(REPS):
            acc = acc + 1.0
        A[i] = acc

    CONFIGS = [Config(REPS=20000, BLOCK=256), Config(REPS=20, BLOCK=256),
               Config(REPS=20, BLOCK=4096), Config(REPS=2000, BLOCK=256)]

    @autotune(configs=CONFIGS, key=["n"], warmup=1, rep=3)
    @flyc.jit
    def run(A: fx.Tensor, n: fx.Constexpr[int], REPS: fx.Constexpr[int],
            BLOCK: fx.Constexpr[int]):
        work(A, REPS).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    a = np.zeros(256, np.float32)
    run(a, 256)
    a[:] = 0
    run(a, 256)
    print(json.dumps({"best": run.best_config.to_dict(), "a0": float(a[0]), "pid": os.getpid()}))
''')


def _env(tmp_path, **extra):
    env = dict(os.environ, FLYDSL_AUTOTUNE_CACHE_DIR=str(tmp_path / "choices"),
               FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "cache"), FLYDSL_RUNTIME_KIND="emu",
               FLYDSL_DEBUG_LOG_LEVEL="info", **extra)
    env.pop("FLYDSL_AUTOTUNE", None)
    # The configs differ 1000x in work as the fiber mode runs them; the SIMD
    # mode runs the work loop so fast that the launch's own cost decides.
    env["FLYDSL_EMU_MODE"] = "fiber"
    return env


def _tune(tmp_path, **extra):
    script = tmp_path / "tune.py"
    script.write_text(TUNE)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=_env(tmp_path, **extra), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


CANDIDATE = re.compile(r"^\[flydsl\] autotune run: config (\d)/4 (Config\([^)]*\)): (.*); "
                       r"compiled (.*)$", re.M)


def test_workers_compile_the_candidates_then_each_is_loaded_and_timed(tmp_path):
    result, log = _tune(tmp_path)
    assert result["best"] == {"REPS": 20, "BLOCK": 256}
    assert result["a0"] == 20.0  # the chosen config ran
    candidates = {int(n): (config, outcome, how) for n, config, outcome, how in
                  CANDIDATE.findall(log)}
    assert sorted(candidates) == [1, 2, 3, 4]
    for n in (1, 2, 4):
        config, outcome, how = candidates[n]
        assert re.fullmatch(r"[\d.]+ ms \(emulator timing\)", outcome), outcome
        assert re.fullmatch(r"worker \d+ in [\d.]+ ms, key [0-9a-f]{16}", how), how
    # the config that cannot launch fails in its worker and again here
    config, outcome, how = candidates[3]
    assert config == "Config(REPS=20, BLOCK=4096)" and outcome.startswith("failed: ")
    assert "4096 work-items" in outcome and how == "in process (worker failed)"
    # worker processes, not this one; the first two jobs always run on two
    # of them at once (one per core)
    workers = {int(candidates[n][2].split()[1]) for n in (1, 2, 4)}
    assert result["pid"] not in workers
    assert len(workers) >= min(os.cpu_count(), 2)
    times = {n: float(candidates[n][1].split()[0]) for n in (1, 2, 4)}
    assert times[1] > 10 * times[2]  # 1000x the work
    # this process compiled nothing that a worker had compiled: it loaded
    # each from the cache, under the key the worker's candidate line names
    loads = re.findall(r"^\[flydsl\] run: loaded from the disk cache for gfx942 \(emulator\) "
                       r"in .*cache hit, key ([0-9a-f]{16})", log, re.M)
    assert sorted(loads) == sorted(candidates[n][2].split()[-1] for n in (1, 2, 4))
    assert "run: traced and compiled" not in log  # (the failing config: no artifact)
    # the summary table: every config, the failed one marked
    table = log[log.index("autotune run: 4 configs, emulator timing; best "
                          "Config(REPS=20, BLOCK=256)"):]
    rows = re.findall(r"^\[flydsl\]   (Config\([^)]*\))\s+(\S+)\s+(\S+)", table, re.M)
    assert [(c, t) for c, t, _ in rows][1] == ("Config(REPS=20, BLOCK=256)",
                                               candidates[2][1].split()[0])
    assert dict((c, v) for c, _, v in rows)["Config(REPS=20, BLOCK=256)"] == "1.00x"
    assert dict((c, t) for c, t, _ in rows)["Config(REPS=20, BLOCK=4096)"] == "failed"
    # the choice, per (kernel, signature, chip, runtime), in the autotune cache
    (choice_file,) = (tmp_path / "choices").iterdir()
    (key, entry), = json.loads(choice_file.read_text()).items()
    assert entry["config"] == {"REPS": 20, "BLOCK": 256} and entry["timing"] == "emulator timing"
    assert "('chip', 'gfx942')" in key and "256" in key and "float32" in key


def test_a_second_process_reads_the_choice_without_timing(tmp_path):
    first, _ = _tune(tmp_path)
    second, log = _tune(tmp_path)
    assert second["pid"] != first["pid"] and second["best"] == {"REPS": 20, "BLOCK": 256}
    assert second["a0"] == 20.0
    # (the choice as stored: its keywords sorted)
    assert re.search(r"^\[flydsl\] autotune run: Config\(BLOCK=256, REPS=20\) from "
                     rf"{re.escape(str(tmp_path / 'choices' / 'run.json'))} \(no search\)$",
                     log, re.M), log
    assert not CANDIDATE.search(log) and "timing" not in log
    # and the chosen kernel itself is a disk hit
    assert re.search(r"^\[flydsl\] run: loaded from the disk cache .*cache hit", log, re.M)
    # another chip is another choice: searched again
    third, log = _tune(tmp_path, ARCH="gfx950")
    assert len(CANDIDATE.findall(log)) == 4
    data = json.loads((tmp_path / "choices" / "run.json").read_text())
    assert sorted("('chip', 'gfx950')" in k for k in data) == [False, True]


def test_progress_bar_on_a_terminal(tmp_path):
    script = tmp_path / "tune.py"
    script.write_text(TUNE)
    env = _env(tmp_path)
    env.pop("FLYDSL_DEBUG_LOG_LEVEL")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=follower, env=env, cwd=tmp_path)
    os.close(follower)
    err = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out = proc.stdout.read().decode()
    assert proc.wait() == 0, err
    os.close(leader)
    text = err.decode()
    # redrawn in place: the compile phase, each config timed, then done
    assert "\r\x1b[K[autotune] run [" in text
    assert re.search(r"\[\.{24}\] 0/4 timing Config\(REPS=20000, BLOCK=256\)", text), text
    assert f"[{'#' * 24}] 4/4 done" in text
    # FlyDSL's lines on stdout
    assert "[autotune] run: timing 4 configs (emulator timing)" in out
    assert "[autotune] run: best Config(REPS=20, BLOCK=256)" in out


# ---------------------------------------------------------------- the disk cache

WRITER = textwrap.dedent('''
    import sys, time
    from flydsl import _fly
    directory, name, start, size = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    payload = (name.encode() * (size // len(name) + 1))[:size]
    cache = _fly.DiskCache.open(directory)
    time.sleep(max(0.0, start - time.time()))
    for _ in range(5):
        cache.store([("entry", name)], payload)
''')


def _writers(tmp_path, names, size):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    start = time.time() + 3.0  # every process is up and waiting before it
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "shared"), name,
                               repr(start), str(size)]) for name in names]
    assert [p.wait() for p in procs] == [0] * len(names)
    return _fly.DiskCache.open(str(tmp_path / "shared"))


def _payload(name, size):
    return (name.encode() * (size // len(name) + 1))[:size]


def test_eight_processes_writing_eight_entries_at_once(tmp_path):
    size = 3 << 20
    names = [f"kernel-{i}" for i in range(8)]
    cache = _writers(tmp_path, names, size)
    for name in names:
        assert cache.lookup([("entry", name)]) == _payload(name, size)
    assert len(cache.entries()) == 8
    leftovers = [p for p in (tmp_path / "shared").rglob("*") if p.is_file()
                 and not p.name.endswith(".flyc")]
    assert leftovers == []


def test_eight_processes_writing_the_same_entry(tmp_path):
    size = 3 << 20
    cache = _writers(tmp_path, ["same"] * 8, size)
    assert cache.lookup([("entry", "same")]) == _payload("same", size)
    (entry,) = cache.entries()
    assert entry[2] > size  # the header and the whole payload
    leftovers = [p for p in (tmp_path / "shared").rglob("*") if p.is_file()
                 and not p.name.endswith(".flyc")]
    assert leftovers == []


def test_a_copied_cache_directory_is_used_as_is(tmp_path):
    """Compiled with the cache in A; A copied to B (another machine's copy,
    a network mount); a new process using B loads the artifact."""
    script = tmp_path / "one.py"
    script.write_text(textwrap.dedent('''
        import numpy as np
        import flydsl.compiler as flyc
        import flydsl.expr as fx

        @flyc.kernel
        def k(A: fx.Tensor):
            A[fx.thread_idx.x] = A[fx.thread_idx.x] + 3.0

        @flyc.jit
        def f(A: fx.Tensor):
            k(A).launch(grid=(1, 1, 1), block=(32, 1, 1))

        a = np.zeros(32, np.float32)
        f(a)
        print(a[5], flyc.compile(f, a).from_cache)
    '''))

    def run(cache, cwd):
        env = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(cache), FLYDSL_RUNTIME_KIND="emu",
                   FLYDSL_DEBUG_LOG_LEVEL="info")
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env, cwd=cwd)
        assert r.returncode == 0, r.stderr
        return r.stdout.split(), r.stderr

    out, log = run(tmp_path / "A", tmp_path)
    assert out == ["3.0", "False"] and "f: traced and compiled" in log
    key = re.search(r"cache miss, key ([0-9a-f]{16})", log).group(1)
    shutil.copytree(tmp_path / "A", tmp_path / "B")
    shutil.rmtree(tmp_path / "A")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out, log = run(tmp_path / "B", elsewhere)
    assert out == ["3.0", "True"]
    assert "f: loaded from the disk cache for gfx942 (emulator)" in log
    assert f"cache hit, key {key}" in log and "traced and compiled" not in log


def test_flydsl_compile_of_an_autotuned_script_compiles_every_config(tmp_path):
    """Under COMPILE_ONLY (`flydsl compile`) a search compiles every config
    into the cache, times none and keeps no choice."""
    script = tmp_path / "tune.py"
    script.write_text(TUNE)
    env = _env(tmp_path)
    r = subprocess.run([sys.executable, "-m", "flydsl", "compile", str(script), "--arch",
                        "gfx942,gfx1100"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "choices").exists() and "emulator timing" not in r.stderr
    # three configs launch; the fourth (4096 work-items) is reported and skipped
    assert len(_fly.DiskCache.open(str(tmp_path / "cache")).entries()) == 3 * 2
    assert "Config(REPS=20, BLOCK=4096): failed: " in r.stderr
    for arch in ("gfx942", "gfx1100"):
        assert f"{arch}: ok (" in r.stdout
