"""The emulator traps an access less aligned than its code declares.

A load, store or atomic in flat, global or LDS memory carries the alignment
the compiler promised for it (LLVM's `align`, by which the backend picks
the instruction: a 16-byte-aligned access may become one dwordx4, and on
the GPU a misaligned one reads the wrong bytes or faults). The host does
not care, so without a check a compiler that over-promises would pass
every emulator test. convert-rocdl-to-emu checks each such access
(fly_emu_trap_misaligned in fly/runtime/Emu.h) and the launch fails
naming the work-item, the access, its source line and the address.

Planted: ROCDL-level kernels (emu_kernels/alignment.mlir) in which work-
item 3 is a few bytes off. Real: the vector-add example on views whose
rows and base are only 4-byte aligned must run and be right, which only
holds if the lowering declares what it can prove (not the atom's width).
"""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import flydsl.compiler as flyc
from conftest import REPO_ROOT
from emu_run import run_kernel

KERNELS = REPO_ROOT / "test" / "python" / "emu_kernels" / "alignment.mlir"
WHERE = "kernel trap in workgroup (0,0,0), work-item (3,0,0): misaligned "
TAIL = " bytes, the alignment the code declares for it"


def run(tool, kernel, buffer, shift, expect_ok=True):
    return run_kernel(tool, KERNELS, kernel, "gfx942", 8, [buffer, f"i32:{shift}"], expect_ok)


def test_aligned_accesses_run(emu_run):
    out = run(emu_run, "vector_global", "buf:f32:32:iota", 0)
    assert [float(v) for v in out[0]] == [i + 1.0 for i in range(32)]
    # 16 bytes off is still a multiple of 16: allowed. Work-item 3 adds to
    # elements 16..19 (work-item 4's too) instead of 12..15.
    out = run(emu_run, "vector_global", "buf:f32:32:iota", 16)
    adds = [1] * 12 + [0] * 4 + [2] * 4 + [1] * 12
    assert [float(v) for v in out[0]] == [i + n for i, n in enumerate(adds)]
    assert [int(v) for v in run(emu_run, "lds_i64", "buf:i64:8:fill=0", 0)[0]] == \
        [100 + i for i in range(8)]
    assert [float(v) for v in run(emu_run, "atomic_add", "buf:f32:8:fill=2", 0)[0]] == [3.0] * 8


@pytest.mark.parametrize("kernel, buffer, shift, what", [
    ("vector_global", "buf:f32:40:iota", 4, "global load of 16 bytes at planted.py:11:7"),
    ("vector_global", "buf:f32:40:iota", 8, "global load of 16 bytes at planted.py:11:7"),
    ("atomic_add", "buf:f32:8:fill=0", 2, "global atomic of 4 bytes at planted.py:31:9"),
])
def test_misaligned_global_access_traps(emu_run, kernel, buffer, shift, what):
    err = run(emu_run, kernel, buffer, shift, expect_ok=False)
    m = re.search(re.escape(WHERE + what) + r": address 0x([0-9a-f]+) is not a multiple of (\d+)"
                  + re.escape(TAIL), err)
    assert m, err
    address, align = int(m.group(1), 16), int(m.group(2))
    assert address % align == shift % align and align == (16 if kernel == "vector_global" else 4)


def test_misaligned_lds_access_names_its_offset(emu_run):
    err = run(emu_run, "lds_i64", "buf:i64:8:fill=0", 4, expect_ok=False)
    # Work-item 3 stores at 8 * 3 + 4 = 28, which is not a multiple of 8.
    assert WHERE + "LDS store of 8 bytes at planted.py:21:5: LDS offset 28 is not a multiple of 8" \
        + TAIL in err, err


def _vector_add():
    spec = importlib.util.spec_from_file_location("vector_add_example", REPO_ROOT / "examples" / "vector_add.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.vector_add


VIEWS = [(40, 128, 1), (17, 68, 3), (33, 64, 2), (16, 128, 0), (40, 130, 0), (17, 67, 1)]


@pytest.mark.parametrize("rows, cols, offset, declared",
                         [(*v, "raw") for v in VIEWS] +
                         [(*v, "divisibility=4") for v in VIEWS if v[1] % 4 == 0])
def test_vector_add_on_views_aligned_to_less_than_its_copies(fly_env, rows, cols, offset, declared):
    """128-bit copies over views whose base is 4, 8 or 12 bytes off a 16-byte
    boundary, or whose rows are not (odd lengths), as raw arrays (nothing known
    of the strides) and, where the row length allows, with the strides
    declared divisible by 4 (only the base misaligned): the code must
    declare what the layout and the base prove, so the emulator neither
    traps nor computes a wrong sum. (The example's predicate tests a
    vector's first column: with cols % 4 != 0 a row's last vector spills
    into the next row, which gets the same sums, and the last row's past
    the view, into 4 elements of slack.)"""
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None)
    vector_add = _vector_add()
    rng = np.random.default_rng(rows * cols + offset)

    def view():
        flat = rng.random(offset + rows * cols + 4, dtype=np.float32)
        return flat[offset:offset + rows * cols].reshape(rows, cols)

    a, b, c = view(), view(), view()
    c[:] = 0
    if declared == "raw":
        vector_add(a, b, c)
    else:
        vector_add(*(flyc.from_dlpack(t).mark_layout_dynamic(divisibility=4) for t in (a, b, c)))
    np.testing.assert_array_equal(c, a + b)
