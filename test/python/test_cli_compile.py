"""`flydsl compile SCRIPT.py --arch ... -j N`, run as `python -m flydsl` in a
subprocess: the script's jit calls compile (COMPILE_ONLY) for each arch
into the disk cache, and the table gives each kernel's resources. The
expected numbers come from the code objects themselves, read with LLVM's
llvm-readelf (the AMDGPU metadata note and the symbol table)."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import marker_lines
from flydsl import _fly

READELF = shutil.which("llvm-readelf-22") or "/usr/lib/llvm-22/bin/llvm-readelf"

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    import flydsl.compiler as flyc
    import flydsl.expr as fx

    @flyc.kernel
    def add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        i = fx.thread_idx.x
        C[i] = A[i] + B[i]

    @flyc.kernel
    def scale_kernel(A: fx.Tensor, REPS: fx.Constexpr[int]):
        i = fx.thread_idx.x
        acc = A[i]
        for _ in range(REPS):
            acc = acc * 1.5 + A[i]
        A[i] = acc

    @flyc.jit
    def vadd(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        add_kernel(A, B, C).launch(grid=(1, 1, 1), block=(64, 1, 1))

    @flyc.jit
    def scale(A: fx.Tensor, REPS: fx.Constexpr[int]):
        scale_kernel(A, REPS).launch(grid=(1, 1, 1), block=(64, 1, 1))

    def arguments():
        a = np.ones(64, np.float32)
        return a, a.copy(), np.zeros(64, np.float32)

    if __name__ == "__main__":
        a, b, c = arguments()
        vadd(a, b, c)
        scale(a, int(sys.argv[1]) if len(sys.argv) > 1 else 4)
''')

FAILING = textwrap.dedent('''
    import numpy as np
    import flydsl.compiler as flyc
    import flydsl.expr as fx

    @flyc.kernel
    def k(A: fx.Tensor):
        A[fx.thread_idx.x] = 1.0

    @flyc.jit
    def good(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    good(np.zeros(64, np.float32))
    raise RuntimeError("the script's own failure")  # L:raise
''')


def flydsl(*argv, cache, **env):
    full = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(cache), NO_COLOR="1", **env)
    for name in ("FLYDSL_DEBUG_LOG_LEVEL", "COMPILE_ONLY", "ARCH"):
        if name not in env:
            full.pop(name, None)
    return subprocess.run([sys.executable, "-m", "flydsl", *argv], capture_output=True,
                          text=True, env=full)


def tables(out: str) -> dict:
    """{arch: [row dict]} of `flydsl compile`'s output."""
    found, arch, header = {}, None, None
    for line in out.splitlines():
        m = re.match(r"^(gfx\w+): ", line)
        if m:
            arch, header = m.group(1), None
            found[arch] = []
        elif line.startswith("function "):
            header = line.split()
        elif header and line.strip():
            cells = line.split()
            # "spill v/s" is one header word pair and one cell; "cache" is
            # "miss <key>" / "hit <key>"
            names = ["function", "kernel", "vgpr", "sgpr", "agpr", "spill", "lds", "scratch",
                     "code", "wave", "cache", "key"]
            found[arch].append(dict(zip(names, cells)))
    return found


def _readelf_metadata(elf: bytes, tmp_path, name: str) -> dict:
    path = tmp_path / f"{name}.hsaco"
    path.write_bytes(elf)
    notes = subprocess.run([READELF, "--notes", str(path)], capture_output=True, text=True,
                           check=True).stdout
    fields = {}
    for key in (".vgpr_count", ".sgpr_count", ".group_segment_fixed_size",
                ".private_segment_fixed_size", ".wavefront_size"):
        m = re.search(rf"^\s*{re.escape(key)}:\s+(\d+)", notes, re.M)
        assert m, f"{key} not in the metadata note of {name}"
        fields[key] = int(m.group(1))
    symbols = subprocess.run([READELF, "-s", "--wide", str(path)], capture_output=True,
                             text=True, check=True).stdout
    for line in symbols.splitlines():
        cells = line.split()
        if len(cells) >= 8 and cells[3] == "FUNC" and cells[7] == name:
            fields["code"] = int(cells[2], 0)
    return fields


def _load_script(path: Path):
    spec = importlib.util.spec_from_file_location("aot_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_arches_fill_the_cache_and_the_table_is_the_code_objects(tmp_path, fly_env):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    r = flydsl("compile", str(script), "--arch", "gfx942", "--arch", "gfx1100", "-j", "2",
               cache=cache)
    assert r.returncode == 0, r.stderr
    got = tables(r.stdout)
    assert set(got) == {"gfx942", "gfx1100"}
    # one entry per (jit function, arch): 2 functions x 2 arches
    entries = _fly.DiskCache.open(str(cache)).entries()
    assert len(entries) == 4
    assert sorted(row["key"] for rows in got.values() for row in rows) == \
        sorted(digest[:16] for digest, *_ in entries)
    # the same compiles in this process are hits on those entries; their code
    # objects, read by llvm-readelf, give the table's numbers
    module = _load_script(script)
    for arch, rows in got.items():
        assert {row["kernel"] for row in rows} == {"add_kernel", "scale_kernel"}
        assert all(row["cache"] == "miss" for row in rows)
        fly_env(COMPILE_ONLY="1", ARCH=arch, FLYDSL_RUNTIME_CACHE_DIR=str(cache),
                FLYDSL_RUNTIME_KIND=None)
        a, b, c = module.arguments()
        compiled = {"vadd": module.flyc.compile(module.vadd, a, b, c),
                    "scale": module.flyc.compile(module.scale, a, 4)}
        for row in rows:
            fn = compiled[row["function"]]
            assert fn.from_cache
            (elf,) = [e for _, _, e in fn.code_objects]
            want = _readelf_metadata(elf, tmp_path, row["kernel"])
            assert int(row["vgpr"]) == want[".vgpr_count"]
            assert int(row["sgpr"]) == want[".sgpr_count"]
            assert int(row["lds"]) == want[".group_segment_fixed_size"]
            assert int(row["scratch"]) == want[".private_segment_fixed_size"]
            assert int(row["wave"]) == want[".wavefront_size"] == (64 if arch == "gfx942" else 32)
            assert int(row["code"]) == want["code"] > 0
    # the second run finds every entry
    again = flydsl("compile", str(script), "--arch", "gfx942,gfx1100", cache=cache)
    assert again.returncode == 0, again.stderr
    assert all(row["cache"] == "hit" for rows in tables(again.stdout).values() for row in rows)
    assert len(_fly.DiskCache.open(str(cache)).entries()) == 4


def test_script_arguments_after_a_double_dash(tmp_path):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    r = flydsl("compile", str(script), "--arch", "gfx950", "--", "9", cache=cache)
    assert r.returncode == 0, r.stderr
    first = tables(r.stdout)["gfx950"]
    # REPS=9 is another signature of `scale` than the default 4: a new entry
    r = flydsl("compile", str(script), "--arch", "gfx950", cache=cache)
    second = tables(r.stdout)["gfx950"]
    by_kernel = lambda rows: {row["kernel"]: (row["cache"], row["key"]) for row in rows}
    assert by_kernel(second)["add_kernel"] == ("hit", by_kernel(first)["add_kernel"][1])
    assert by_kernel(second)["scale_kernel"][0] == "miss"
    assert by_kernel(second)["scale_kernel"][1] != by_kernel(first)["scale_kernel"][1]


def test_a_failing_script_names_its_line_and_exits_1(tmp_path):
    script = tmp_path / "failing.py"
    script.write_text(FAILING)
    line = marker_lines(script)["raise"]
    r = flydsl("compile", str(script), "--arch", "gfx942", "--arch", "gfx1201",
               cache=tmp_path / "c")
    assert r.returncode == 1
    for arch in ("gfx942", "gfx1201"):
        assert (f"{arch}: failed: {script}:{line}: RuntimeError: the script's own failure"
                in r.stdout), r.stdout
    # what it compiled before failing is in the table and the cache
    assert [row["kernel"] for row in tables(r.stdout)["gfx942"]] == ["k"]
    assert "Traceback" in r.stderr and "runpy" not in r.stderr


def test_usage_errors_name_the_problem(tmp_path):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    r = flydsl("compile", str(tmp_path / "missing.py"), cache=tmp_path / "c")
    assert r.returncode == 2 and f"no such script: {tmp_path / 'missing.py'}" in r.stderr
    r = flydsl("compile", str(script), "--arch", "gfx906", cache=tmp_path / "c")
    assert r.returncode == 2
    assert "unknown arch 'gfx906'" in r.stderr
    assert ", ".join(_fly.supported_chips()) in r.stderr
    r = flydsl("compile", str(script), "-j", "0", cache=tmp_path / "c")
    assert r.returncode == 2 and "invalid job count '0'" in r.stderr
    r = flydsl("compile", str(script), "--bogus", cache=tmp_path / "c")
    assert r.returncode == 2 and "--bogus" in r.stderr and "after --" in r.stderr
    assert not (tmp_path / "c").exists() or not _fly.DiskCache.open(str(tmp_path / "c")).entries()
    r = flydsl("compile", "--help", cache=tmp_path / "c")
    assert r.returncode == 0
    assert "COMPILE_ONLY=1" in r.stdout and "--arch gfxNNN" in r.stdout and "-j N" in r.stdout


def test_default_arch_is_the_environments(tmp_path):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    r = flydsl("compile", str(script), cache=tmp_path / "c", ARCH="gfx1200")
    assert r.returncode == 0, r.stderr
    assert list(tables(r.stdout)) == ["gfx1200"]
