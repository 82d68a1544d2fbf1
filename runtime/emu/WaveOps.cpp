//===- WaveOps.cpp - Wave-level instructions, per the ISA -----------------===//
//
// Lane selects and addresses keep only the bits the hardware decodes: a wave
// of 2^k lanes uses the low k bits of a lane number, so an out-of-range lane
// wraps around instead of faulting.
//
//===----------------------------------------------------------------------===//

#include "WaveOps.h"

#include "Matrix.h"

namespace fly::emu {

const char *waveOpName(WaveOp op) {
  switch (op) {
  case WaveOp::None:
    return "none";
  case WaveOp::ReadLane:
    return "readlane";
  case WaveOp::ReadFirstLane:
    return "readfirstlane";
  case WaveOp::BPermute:
    return "ds_bpermute";
  case WaveOp::Swizzle:
    return "ds_swizzle";
  case WaveOp::Ballot:
    return "ballot";
  case WaveOp::Matrix:
    return "matrix instruction";
  }
  return "?";
}

static bool isActive(uint64_t exec, uint32_t lane) { return (exec >> lane) & 1; }

void computeWaveOp(WaveOp op, WaveLanes &w) {
  const uint32_t laneMask = w.size - 1;
  const uint64_t exec = w.exec;
  switch (op) {
  case WaveOp::ReadLane:
    // V_READLANE_B32: SDST = VGPR[lane select][SRC0]; the lane select is
    // taken modulo the wave size (its low 5 or 6 bits). It ignores EXEC
    // and reads whatever the source lane's VGPR holds; the emulator has no
    // value for a lane that is not here and gives 0.
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i)) {
        uint32_t src = w.aux[i] & laneMask;
        w.out[i] = isActive(exec, src) ? uint32_t(w.in[src]) : 0;
      }
    return;
  case WaveOp::ReadFirstLane: {
    // V_READFIRSTLANE_B32: the value of the lowest lane set in EXEC.
    uint32_t first = exec ? uint32_t(__builtin_ctzll(exec)) : 0;
    uint32_t value = isActive(exec, first) ? uint32_t(w.in[first]) : 0;
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i))
        w.out[i] = value;
    return;
  }
  case WaveOp::BPermute:
    // DS_BPERMUTE_B32 ("backward" permute, a pull): for each lane i,
    //   src_lane = ((ADDR[i] + OFFSET) / 4) mod wave_size
    //   tmp[i] = EXEC[src_lane] ? DATA0[src_lane] : 0
    // and active lanes write tmp to VDST. The LLVM intrinsic has no
    // offset: it is folded into ADDR.
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i)) {
        uint32_t src = (w.aux[i] >> 2) & laneMask;
        w.out[i] = isActive(exec, src) ? uint32_t(w.in[src]) : 0;
      }
    return;
  case WaveOp::Swizzle:
    // DS_SWIZZLE_B32: each lane i reads DATA0 of a lane picked by OFFSET:
    //   OFFSET[15:8] == 0x80 (quad permute): within each group of 4 lanes,
    //     src = (i & ~3) | OFFSET[2*(i&3)+1 : 2*(i&3)]
    //   OFFSET[15] == 0 (bit masks): within each group of 32 lanes,
    //     src = (i & ~31) | (((i & and) | or) ^ xor), with and = OFFSET[4:0],
    //     or = OFFSET[9:5], xor = OFFSET[14:10]
    // (fly_emu_ds_swizzle refuses the other encodings before they get
    // here). An inactive source lane gives 0, as for ds_bpermute.
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i)) {
        uint32_t offset = w.aux[i];
        uint32_t src;
        if ((offset & 0x8000) == 0) {
          uint32_t andMask = offset & 0x1f, orMask = (offset >> 5) & 0x1f,
                   xorMask = (offset >> 10) & 0x1f;
          src = (i & ~31u) | ((((i & 31) & andMask) | orMask) ^ xorMask);
        } else {
          src = (i & ~3u) | ((offset >> (2 * (i & 3))) & 3);
        }
        src &= laneMask;
        w.out[i] = isActive(exec, src) ? uint32_t(w.in[src]) : 0;
      }
    return;
  case WaveOp::Ballot: {
    // V_CMP_NE_U32 into an SGPR pair (llvm.amdgcn.ballot): bit i = lane i
    // active and its predicate true. Wave32 writes a 32-bit mask (VCC_LO);
    // the upper half reads as zero.
    uint64_t mask = 0;
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i) && w.in[i] != 0)
        mask |= uint64_t(1) << i;
    for (uint32_t i = 0; i < w.size; ++i)
      if (isActive(exec, i))
        w.out[i] = mask;
    return;
  }
  case WaveOp::Matrix:
    computeMatrix(w);
    return;
  case WaveOp::None:
    return;
  }
}

} // namespace fly::emu
