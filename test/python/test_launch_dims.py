"""fx.block_dim and fx.grid_dim: read from the HSA dispatch packet.

convert-fly-to-rocdl lowers gpu.block_dim / gpu.grid_dim to loads from the
kernel dispatch packet (llvm.amdgcn.dispatch.ptr) instead of the device
library's __ockl_get_local_size / __ockl_get_num_groups, which code objects
are linked without. The emulator hands kernels a dispatch packet of the
launch. Checked: every chip compiles such a kernel, and on the emulator
each work-item reads the launch's block and grid in all three dimensions.
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly


@flyc.kernel
def dims_kernel(Out: fx.Tensor):
    bx, by, bz = fx.block_idx.x, fx.block_idx.y, fx.block_idx.z
    tx, ty, tz = fx.thread_idx.x, fx.thread_idx.y, fx.thread_idx.z
    gx, gy = fx.grid_dim.x, fx.grid_dim.y
    nx, ny, nz = fx.block_dim.x, fx.block_dim.y, fx.block_dim.z
    block = (bz * gy + by) * gx + bx
    item = block * (nx * ny * nz) + (tz * ny + ty) * nx + tx
    Out[item, 0] = nx
    Out[item, 1] = ny
    Out[item, 2] = nz
    Out[item, 3] = gx
    Out[item, 4] = gy
    Out[item, 5] = fx.grid_dim.z


@flyc.jit
def dims(Out, g0, g1, g2, b0, b1, b2):
    dims_kernel(Out).launch(grid=(g0, g1, g2), block=(b0, b1, b2))  # run-time sizes


@pytest.mark.parametrize("chip", _fly.supported_chips())
def test_every_chip_compiles_without_the_device_library(fly_env, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    out = np.zeros((8, 6), np.int32)
    compiled = flyc.compile(dims, out, 1, 1, 1, 8, 1, 1)
    isa = compiled.isa()
    assert "ockl" not in isa and "ockl" not in compiled.module_text
    assert "s_load" in isa  # the dispatch packet's fields
    assert "__ockl" not in compiled.module_text


@pytest.mark.parametrize("grid, block", [((3, 1, 1), (64, 1, 1)), ((2, 3, 2), (8, 4, 2)),
                                         ((1, 1, 5), (1, 1, 7)), ((4, 2, 1), (33, 3, 1))])
@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
def test_dims_on_the_emulator(fly_env, chip, grid, block):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    n = int(np.prod(grid) * np.prod(block))
    out = np.full((n, 6), -1, np.int32)
    dims(out, *grid, *block)
    np.testing.assert_array_equal(out, np.tile(list(block) + list(grid), (n, 1)))

