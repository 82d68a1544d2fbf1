"""Wave collectives and buffer resources, compiled for the emulator.

The kernels (test/python/emu_kernels/*.mlir) are ROCDL-level gpu.modules as
stage A leaves them: convert-rocdl-to-emu lowers their mbcnt, readlane,
readfirstlane, ballot, ds_bpermute, buffer resources, raw buffer loads,
stores and atomics, and test/tools/fly-emu-run runs them through the
emulator's launch table and prints every buffer. The expected values are
computed here from the ISA's definitions of the instructions (what a wave
of 64 or 32 lanes with a given EXEC produces), not from the runtime.
"""

from __future__ import annotations

import struct

import pytest

from conftest import REPO_ROOT
from emu_run import run_kernel

KERNELS = REPO_ROOT / "test" / "python" / "emu_kernels"
MASK32 = (1 << 32) - 1


def run(tool, kernel_file, kernel, chip, block, args, expect_ok=True):
    return run_kernel(tool, KERNELS / kernel_file, kernel, chip, block, args, expect_ok)


def s32(x: int) -> int:
    x &= MASK32
    return x - (1 << 32) if x >> 31 else x


# ---- the ISA's definitions, per wave ----------------------------------------

def mbcnt(mask_lo, mask_hi, lane):
    """v_mbcnt_hi(mask_hi, v_mbcnt_lo(mask_lo, 0)): set bits of the 64-bit
    mask below this lane."""
    mask = (mask_hi & MASK32) << 32 | (mask_lo & MASK32)
    return bin(mask & ((1 << lane) - 1)).count("1")


def wave_collectives(values, active, wave, sel):
    """readlane / readfirstlane / ballot(even) / ds_bpermute of one wave.
    `values[i]` is lane i's value, `active[i]` its EXEC bit."""
    def src(lane):
        return values[lane] if active[lane] else 0  # no value for an inactive lane
    first = next(i for i in range(wave) if active[i])
    ballot = sum(1 << i for i in range(wave) if active[i] and values[i] % 2 == 0)
    out = {}
    for i in range(wave):
        if not active[i]:
            continue
        source = ((values[i] * 4 + 4) >> 2) % wave  # byte address / 4, mod the wave
        permuted = values[source] * 10 if active[source] else 0
        out[i] = (src(sel % wave), values[first], ballot, permuted)
    return out


CASES = [  # chip, wave, block, skip, sel, mask_lo, mask_hi
    ("gfx942", 64, 96, 3, 5, -1, -1),          # a partial second wave of 32 lanes
    ("gfx942", 64, 128, 0, 70, 0x0F0F0F0F, 0x12345678),  # a lane select past the wave wraps
    ("gfx942", 64, 64, 40, 2, -1, 0),          # readlane of an inactive lane: 0
    ("gfx1100", 32, 96, 3, 5, -1, -1),         # wave32: the hi mask never counts
    ("gfx1100", 32, 64, 0, 33, 0x55555555, -1),
    ("gfx1201", 32, 40, 1, 31, 0xFFFF0000, 7),
]


@pytest.mark.parametrize("chip,wave,block,skip,sel,mask_lo,mask_hi", CASES)
def test_wave_collectives(emu_run, chip, wave, block, skip, sel, mask_lo, mask_hi):
    values = [(t * 37 + 11) % 1000 for t in range(block)]  # even and odd
    out = run(emu_run, "wave_ops.mlir", "wave_ops", chip, block,
              [f"buf:i32:{block}:" + ",".join(map(str, values)),
               f"buf:i32:{6 * block}:fill=-1", f"buf:i64:{block}:fill=-1",
               f"buf:f32:{block}:fill=-1", f"i32:{mask_lo}", f"i32:{mask_hi}",
               f"i32:{sel}", f"i32:{skip}"])
    got = [int(x) for x in out[1]]
    wide = [int(x) for x in out[2]]
    half = [float(x) for x in out[3]]
    for w0 in range(0, block, wave):
        lanes = list(range(w0, min(w0 + wave, block)))
        # Lanes past the block (a partial last wave) and lanes that returned
        # are inactive.
        active = [w0 + i < block and w0 + i >= skip for i in range(wave)]
        wave_values = [values[t] for t in lanes] + [0] * (wave - len(lanes))
        expect = wave_collectives(wave_values, active, wave, sel)
        for i, t in enumerate(lanes):
            row = got[6 * t: 6 * t + 6]
            if not active[i]:
                assert row == [-1] * 6, (t, row)
                assert wide[t] == -1 and half[t] == -1.0
                continue
            lane_value, first, ballot, permuted = expect[i]
            want = [mbcnt(mask_lo, mask_hi if wave == 64 else 0, i), lane_value, first,
                    s32(ballot), s32(ballot >> 32), permuted]
            assert row == want, (chip, t, row, want)
            # The i64 travels as two dwords; the f16 zero-extended to one.
            src_lane = sel % wave
            if active[src_lane]:
                v = wave_values[src_lane]
                assert wide[t] == (v << 32 | (v + 1)), (t, wide[t])
                assert half[t] == float(struct.unpack("<e", struct.pack("<e", v + 0.5))[0])
            else:
                assert wide[t] == 0 and half[t] == 0.0


# ---- ds_swizzle --------------------------------------------------------------------

SWIZZLE_OFFSETS = [0x041F, 0x7C1F, 0x00E0, 0x801B]  # as in ds_swizzle.mlir


def swizzle_source(offset, lane):
    """DS_SWIZZLE_B32's source lane (the ISA's offset encodings): a
    permute within the lane's quad when offset[15:8] is 0x80, else the
    and/or/xor masks (offset bits 0-4, 5-9, 10-14) on its number within 32."""
    if offset >> 8 == 0x80:
        return lane - lane % 4 + ((offset >> 2 * (lane % 4)) & 3)
    j = lane % 32
    return lane - j + (((j & offset & 31) | (offset >> 5 & 31)) ^ (offset >> 10 & 31))


@pytest.mark.parametrize("chip,wave,block,skip", [("gfx942", 64, 64, 0), ("gfx942", 64, 96, 5),
                                                  ("gfx1100", 32, 64, 2), ("gfx950", 64, 40, 0)])
def test_ds_swizzle(emu_run, chip, wave, block, skip):
    values = [t * 7 + 3 for t in range(block)]
    out = run(emu_run, "ds_swizzle.mlir", "swizzle", chip, block,
              [f"buf:i32:{block}:" + ",".join(map(str, values)),
               f"buf:i32:{4 * block}:fill=-1", f"i32:{skip}"])
    got = [int(x) for x in out[1]]
    for t in range(block):
        row = got[4 * t: 4 * t + 4]
        if t < skip:
            assert row == [-1] * 4, (t, row)
            continue
        w0 = t - t % wave
        want = []
        for offset in SWIZZLE_OFFSETS:
            src = w0 + swizzle_source(offset, t - w0)
            want.append(values[src] if skip <= src < block else 0)  # an inactive source: 0
        assert row == want, (chip, t, row, want)


def test_ds_swizzle_rotate_mode_is_refused(emu_run):
    err = run(emu_run, "ds_swizzle.mlir", "swizzle_rotate", "gfx1100", 32,
              ["buf:i32:32:fill=1", "buf:i32:32:fill=0", "i32:0"], expect_ok=False)
    assert "ds_swizzle with offset 0xc001" in err and "not emulated" in err, err


# ---- buffer resources ------------------------------------------------------------

def in_range(offset, size, num_records):
    return offset + size <= num_records


def buffer_load(memory: bytes, offset, size, num_records):
    """A raw buffer load: dword components (or the whole narrower access)
    read 0 when not wholly below num_records (Emu.h)."""
    out = bytearray(size)
    parts = [(0, size)] if size < 4 else [(a, 4) for a in range(0, size, 4)]
    for at, n in parts:
        if in_range(offset + at, n, num_records):
            out[at:at + n] = memory[offset + at: offset + at + n]
    return bytes(out)


@pytest.mark.parametrize("chip,block", [("gfx942", 16), ("gfx1100", 16), ("gfx950", 13)])
def test_buffer_range_checks(emu_run, chip, block):
    n_in, n_out, n_narrow, n_acc, n_cas = 250, 200, 20, 24, 40
    src = list(range(1000, 1064))
    memory = struct.pack("<64i", *src)
    out = run(emu_run, "buffer_ops.mlir", "buffer_ops", chip, block,
              ["buf:i32:64:" + ",".join(map(str, src)), "buf:i32:64:fill=-1",
               f"buf:i32:{block}:fill=-1", f"buf:i32:{block}:fill=-1", "buf:f32:8:fill=10",
               "buf:i32:4:fill=-5", f"buf:i32:{block}:iota", f"buf:i32:{block}:fill=-1",
               f"i64:{n_in}", f"i64:{n_out}", f"i64:{n_narrow}", f"i64:{n_acc}",
               f"i64:{n_cas}"])

    # out: each work-item's 16 loaded bytes, stored where the store is in range.
    dst = bytearray(struct.pack("<64i", *[-1] * 64))
    for t in range(block):
        data = buffer_load(memory, 16 * t, 16, n_in)
        for at in range(0, 16, 4):
            if in_range(16 * t + at, 4, n_out):
                dst[16 * t + at: 16 * t + at + 4] = data[at: at + 4]
    assert [int(x) for x in out[1]] == list(struct.unpack("<64i", bytes(dst)))

    narrow = [struct.unpack("<H", buffer_load(memory, 2 * t + 2, 2, n_narrow))[0]
              for t in range(block)]
    assert [int(x) for x in out[2]] == narrow
    assert any(narrow) and narrow[-1] == 0  # both sides of the limit are seen
    assert [int(x) for x in out[3]] == [0] * block  # past 4 GiB: out of range

    acc = [10.0] * 8
    for t in range(block):
        if in_range(4 * (t % 8), 4, n_acc):
            acc[t % 8] += 1.0
    assert [float(x) for x in out[4]] == acc
    imax = [-5] * 4
    for t in range(block):
        if in_range(4 * (t % 4), 4, n_acc):
            imax[t % 4] = max(imax[t % 4], t)
    assert [int(x) for x in out[5]] == imax

    cas_in_range = [in_range(4 * t, 4, n_cas) for t in range(block)]
    assert [int(x) for x in out[6]] == [t + 100 if ok else t for t, ok in enumerate(cas_in_range)]
    assert [int(x) for x in out[7]] == [t if ok else 0 for t, ok in enumerate(cas_in_range)]


def test_strided_buffer_is_a_launch_error(emu_run):
    err = run(emu_run, "buffer_ops.mlir", "strided", "gfx942", 1,
              ["buf:i32:16:iota", "buf:i32:1:fill=-1"], expect_ok=False)
    assert "work-item (0,0,0)" in err
    assert "nonzero stride (structured buffers are not emulated)" in err
