"""Wave shuffles written with fx, compiled by the whole compiler for a chip
and run on the emulator (wave64 on gfx942, wave32 on gfx1100), checked
against numpy.

convert-gpu-to-rocdl turns every `fx.shuffle_*` into mbcnt (the lane id)
and ds_bpermute; convert-rocdl-to-emu lowers those to the emulator's wave
collectives. The reductions sum with a butterfly of xor shuffles, then
combine the waves of a block through LDS and a barrier and a second round
of down shuffles in the first wave.
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 256
CHIPS = [("gfx942", 64), ("gfx1100", 32)]


@pytest.fixture
def chip(request, fly_env):
    arch, wave = request.param
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return arch, wave


def make_reduction(wave: int):
    waves = BLOCK // wave

    @flyc.kernel(known_block_size=(BLOCK, 1, 1))
    def block_sum_kernel(A: fx.Tensor, WaveSums: fx.Tensor, BlockSums: fx.Tensor):
        tid = fx.thread_idx.x
        bid = fx.block_idx.x
        x = A[bid * BLOCK + tid]
        step = wave // 2
        while step >= 1:  # static: unrolled at trace time
            x = x + fx.shuffle_xor(x, step, wave)
            step //= 2
        WaveSums[bid * BLOCK + tid] = x  # every lane holds its wave's sum

        smem = fx.SharedAllocator()
        partial = smem.allocate_tensor(fx.Float32, fx.make_layout((waves,), (1,)))
        lane = tid % wave
        if lane == 0:
            partial[tid // wave] = x
        fx.barrier()
        if tid < wave:
            y = fx.Float32(0.0)
            if lane < waves:
                y = partial[lane]
            step = wave // 2
            while step >= 1:
                y = y + fx.shuffle_down(y, step, wave)
                step //= 2
            if tid == 0:
                BlockSums[bid] = y

    @flyc.jit
    def block_sum(A, WaveSums, BlockSums):
        n = A.shape[0]
        block_sum_kernel(A, WaveSums, BlockSums).launch(grid=(n // BLOCK, 1, 1),
                                                        block=(BLOCK, 1, 1))

    return block_sum


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("blocks", [1, 3])
def test_reduction_with_lane_shuffles(chip, blocks):
    arch, wave = chip
    rng = np.random.default_rng(7 + blocks)
    # Small integers: every partial sum is exact in f32, so the order of the
    # additions cannot hide a wrong lane.
    a = rng.integers(-50, 50, size=blocks * BLOCK).astype(np.float32)
    wave_sums = np.full_like(a, np.nan)
    block_sums = np.full(blocks, np.nan, dtype=np.float32)
    make_reduction(wave)(a, wave_sums, block_sums)
    want_waves = np.repeat(a.reshape(-1, wave).sum(axis=1), wave)
    np.testing.assert_array_equal(wave_sums, want_waves)
    np.testing.assert_array_equal(block_sums, a.reshape(blocks, BLOCK).sum(axis=1))


# ---- each shuffle mode against a model of gpu.shuffle on AMD ---------------------

def make_shuffle(mode: str, offset: int, width: int):
    @flyc.kernel(known_block_size=(BLOCK, 1, 1))
    def shuffle_kernel(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        x = A[tid]
        if mode == "idx":
            v = fx.shuffle_idx(x, (tid * 7 + offset) % fx.num_warp_threads(), width)
        elif mode == "xor":
            v = fx.shuffle_xor(x, offset, width)
        elif mode == "xor-method":  # Numeric.shuffle_xor, as FlyDSL's norm kernels write it
            v = x.shuffle_xor(offset, width)
        elif mode == "up":
            v = fx.shuffle_up(x, offset, width)
        else:
            v = fx.shuffle_down(x, offset, width)
        Out[tid] = v

    @flyc.jit
    def run(A, Out):
        shuffle_kernel(A, Out).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    return run


def shuffle_model(mode, offset, wave, width):
    """The thread each thread reads, as convert-gpu-to-rocdl lowers
    gpu.shuffle: a source lane of the wave (idx: the lane given, absolute);
    one at or past the end of the lane's `width`-lane segment gives the lane
    its own value. An up shuffle is not checked: below the segment it reads
    the segment before, below the wave the top of the wave."""
    sources = []
    for t in range(BLOCK):
        lane, wave_base = t % wave, t - t % wave
        segment_end = lane - lane % width + width
        if mode == "up":
            sources.append(wave_base + (lane - offset) % wave)
            continue
        src = {"idx": (t * 7 + offset) % wave, "xor": lane ^ offset, "xor-method": lane ^ offset,
               "down": lane + offset}[mode]
        sources.append(wave_base + src if src < segment_end else t)
    return sources


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("mode,offset,width", [
    ("idx", 3, 32), ("xor", 1, 32), ("xor", 5, 32), ("up", 2, 32), ("down", 7, 32),
    ("down", 1, 32), ("idx", 3, 16), ("xor", 2, 4), ("up", 3, 8), ("down", 3, 8),
    ("up", 1, 32), ("idx", 0, 2), ("xor", 8, 4), ("down", 5, 1), ("xor-method", 4, 32),
    ("xor-method", 1, 2)])
def test_shuffle_modes(chip, mode, offset, width):
    _, wave = chip
    a = np.arange(BLOCK, dtype=np.float32) * 2.0 + 1.0
    out = np.zeros_like(a)
    make_shuffle(mode, offset, width)(a, out)
    np.testing.assert_array_equal(out, a[shuffle_model(mode, offset, wave, width)])


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
def test_full_wave_width(chip):
    """width = num_warp_threads(): the segment is the wave (64 or 32 lanes)."""
    _, wave = chip
    for mode, offset in (("xor", 17), ("down", 9), ("idx", 5)):
        a = np.arange(BLOCK, dtype=np.float32)
        out = np.zeros_like(a)
        make_shuffle(mode, offset, wave)(a, out)
        np.testing.assert_array_equal(out, a[shuffle_model(mode, offset, wave, wave)])
