"""The serializer keeps its LLVM target machines for the process (one per
chip and features, leased to one compile at a time, warmed up on a thread
while the module is parsed and the MLIR stages run, with the code-generation
pipeline of the compile's O level built there too). A kept target machine
must not carry anything from one compile into the next: each code object
compiled in a process that already compiled others (other chips, other O
levels, the same kernel) is byte for byte the one a fresh process makes,
and the one fly-compile makes (no warm-up: the pipeline is built in line)."""

import subprocess
import sys
import threading

import pytest

from conftest import REPO_ROOT, _build_tool

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
from flydsl import _fly  # noqa: E402

KERNEL = (REPO_ROOT / "examples" / "vector_add.mlir").read_text()
CASES = [("gfx942", 2), ("gfx1100", 2), ("gfx942", 0), ("gfx950", 3), ("gfx1201", 2)]

FRESH = """
import sys
sys.path.insert(0, {python!r})
from flydsl import _fly
text = open({kernel!r}).read()
objects = _fly.compile(text, {chip!r}, {opt})[0]
sys.stdout.buffer.write(objects[0][2])
"""


def code_object(chip, opt):
    objects = _fly.compile(KERNEL, chip, opt)[0]
    assert len(objects) == 1 and objects[0][1] == chip
    return objects[0][2]


@pytest.fixture(scope="module")
def fresh():
    """Each case's code object from a process that compiles nothing else."""
    out = {}
    for chip, opt in CASES:
        script = FRESH.format(python=str(REPO_ROOT / "frontend" / "python"),
                              kernel=str(REPO_ROOT / "examples" / "vector_add.mlir"),
                              chip=chip, opt=opt)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
        assert done.stdout[:4] == b"\x7fELF"
        out[chip, opt] = done.stdout
    return out


def test_interleaved_compiles_match_a_fresh_process(fresh):
    # Every chip twice, the O levels of one chip alternating: each compile
    # after the first for its chip runs on a kept target machine.
    order = CASES + CASES[::-1] + CASES
    for chip, opt in order:
        assert code_object(chip, opt) == fresh[chip, opt], (chip, opt)
    # The O level is the target machine's own state: O0 differs from O2.
    assert fresh["gfx942", 0] != fresh["gfx942", 2]


def test_compiles_on_several_threads_match_a_fresh_process(fresh):
    # The Python binding serializes compiles on its one compiler; several
    # threads still lease and return target machines in any order.
    results, errors = {}, []

    def work(index, chip, opt):
        try:
            results[index] = (chip, opt, code_object(chip, opt))
        except Exception as err:  # reported below, with the case
            errors.append((chip, opt, err))

    threads = [threading.Thread(target=work, args=(i, *case))
               for i, case in enumerate(CASES * 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == len(CASES) * 3
    for chip, opt, elf in results.values():
        assert elf == fresh[chip, opt], (chip, opt)


@pytest.mark.parametrize("chip, opt", [("gfx942", 2), ("gfx942", 0), ("gfx950", 3)])
def test_a_pipeline_built_ahead_compiles_as_one_built_in_line(fresh, tmp_path, chip, opt):
    out = tmp_path / "k.hsaco"
    subprocess.run([_build_tool("fly-compile", "FLY_COMPILE"),
                    str(REPO_ROOT / "examples" / "vector_add.mlir"), f"--chip={chip}",
                    f"-O{opt}", "-o", str(out)], check=True)
    assert out.read_bytes() == fresh[chip, opt] == code_object(chip, opt)
