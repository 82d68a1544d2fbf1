//===- WaveOps.cpp - Wave-level instructions, per the ISA -----------------===//
//
// Lane selects and addresses keep only the bits the hardware decodes: a wave
// of 2^k lanes uses the low k bits of a lane number, so an out-of-range lane
// wraps around instead of faulting.
//
//===----------------------------------------------------------------------===//

#include "WaveOps.h"

#include "LdsLoads.h"
#include "Matrix.h"
#include "fly/runtime/Emu.h"

#include <cstdio>

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
  case WaveOp::Dpp:
    return "update.dpp";
  case WaveOp::PermlaneX16:
    return "permlanex16";
  case WaveOp::PermlaneSwap:
    return "permlane swap";
  case WaveOp::LdsTranspose:
    return "ds_read_tr";
  }
  return "?";
}

static bool isActive(uint64_t exec, uint32_t lane) { return (exec >> lane) & 1; }

// ---- DPP (data-parallel primitives) ----------------------------------------
//
// V_MOV_B32 with DPP (llvm.amdgcn.update.dpp). Lanes form rows of 16 and,
// inside a row, banks of 4. Lane i of row base b (= i & ~15, r = i & 15)
// reads SRC0 of the lane DPP_CTRL selects:
//   0x000-0x0FF quad_perm   (i & ~3) | CTRL[2*(i&3)+1 : 2*(i&3)]
//   0x101-0x10F row_shl:n   i + n, within the row
//   0x111-0x11F row_shr:n   i - n, within the row
//   0x121-0x12F row_ror:n   b + ((r - n) mod 16)
//   0x130 wave_shl:1 (i+1), 0x134 wave_rol:1 ((i+1) mod wave),
//   0x138 wave_shr:1 (i-1), 0x13C wave_ror:1 ((i-1) mod wave)   (gfx9)
//   0x140 row_mirror        b + 15 - r
//   0x141 row_half_mirror   (i & ~7) + 7 - (i & 7)
//   0x142 row_bcast:15      lane 15 of the row below (rows 1-3)   (gfx9)
//   0x143 row_bcast:31      lane 31 (rows 2 and 3)                (gfx9)
//   0x150-0x15F row_share:n / row_newbcast:n   b + n
//   0x160-0x16F row_xmask:n b + (r ^ n)                          (gfx10+)
// A lane whose row is off in ROW_MASK or whose bank is off in BANK_MASK is
// not written (keeps OLD, which the intrinsic ties to the destination). A
// source out of range (or inactive) gives 0 with BOUND_CTRL, else OLD.
static int dppSource(uint32_t ctrl, uint32_t i, uint32_t size) {
  const int lane = int(i), base = int(i & ~15u), r = int(i & 15);
  const int n = int(ctrl & 15), wave = int(size);
  if (ctrl <= 0xff)
    return int(i & ~3u) | int((ctrl >> (2 * (i & 3))) & 3);
  if (ctrl >= 0x101 && ctrl <= 0x10f)
    return r + n < 16 ? lane + n : -1;
  if (ctrl >= 0x111 && ctrl <= 0x11f)
    return r >= n ? lane - n : -1;
  if (ctrl >= 0x121 && ctrl <= 0x12f)
    return base + ((r - n) & 15);
  switch (ctrl) {
  case 0x130: return lane + 1 < wave ? lane + 1 : -1;
  case 0x134: return (lane + 1) % wave;
  case 0x138: return lane >= 1 ? lane - 1 : -1;
  case 0x13c: return (lane + wave - 1) % wave;
  case 0x140: return base + 15 - r;
  case 0x141: return int(i & ~7u) + 7 - int(i & 7);
  case 0x142: return base >= 16 ? base - 1 : -1;
  case 0x143: return lane >= 32 ? 31 : -1;
  default: break;
  }
  if (ctrl >= 0x150 && ctrl <= 0x15f)
    return base + n;
  if (ctrl >= 0x160 && ctrl <= 0x16f)
    return base + (r ^ n);
  return -1; // not a control (fly_emu_update_dpp refuses it)
}

// V_PERMLANEX16_B32 (gfx10+): lane i reads SRC0 of lane `sel` of the other
// row of 16 in its group of 32 (sel: nibble i mod 16 of {SRC2, SRC1}). A
// source that gives no value (inactive: the emulator has none even with FI)
// gives 0 with BOUND_CTRL, else OLD.
static void computePermlaneX16(WaveLanes &w) {
  for (uint32_t i = 0; i < w.size; ++i) {
    if (!isActive(w.exec, i))
      continue;
    uint32_t sel = w.aux[i] & 15;
    bool boundCtrl = (w.aux[i] >> 4) & FLY_EMU_PERMLANE_BOUND_CTRL;
    uint32_t src = ((i & ~31u) | ((i & 16) ^ 16)) + sel;
    uint32_t old = uint32_t(w.in[i] >> 32);
    w.out[i] = src < w.size && isActive(w.exec, src) ? uint32_t(w.in[src])
               : boundCtrl                             ? 0
                                                       : old;
  }
}

// V_PERMLANE16_SWAP_B32 / V_PERMLANE32_SWAP_B32 (gfx950): with blocks of
// 16 (32) lanes, the odd blocks of VDST (OLD) and the even blocks of VSRC
// trade places; out = new VDST | new VSRC << 32. A partner lane that is
// inactive gives 0 with BOUND_CTRL, else the register keeps its value.
static void computePermlaneSwap(WaveLanes &w) {
  for (uint32_t i = 0; i < w.size; ++i) {
    if (!isActive(w.exec, i))
      continue;
    const uint32_t block = w.aux[i] & FLY_EMU_PERMLANE_SWAP_32 ? 32 : 16;
    const bool boundCtrl = w.aux[i] & FLY_EMU_PERMLANE_BOUND_CTRL;
    uint32_t dst = uint32_t(w.in[i] >> 32), src = uint32_t(w.in[i]);
    bool odd = (i / block) & 1;
    uint32_t partner = odd ? i - block : i + block;
    bool valid = partner < w.size && isActive(w.exec, partner);
    if (odd) // VDST's odd block takes VSRC's even block
      dst = valid ? uint32_t(w.in[partner]) : boundCtrl ? 0 : dst;
    else if (partner < w.size) // VSRC's even block takes VDST's odd block
      src = valid ? uint32_t(w.in[partner] >> 32) : boundCtrl ? 0 : src;
    w.out[i] = uint64_t(dst) | (uint64_t(src) << 32);
  }
}

static void computeDpp(WaveLanes &w) {
  for (uint32_t i = 0; i < w.size; ++i) {
    if (!isActive(w.exec, i))
      continue;
    const uint32_t control = w.aux[i];
    const uint32_t ctrl = FLY_EMU_DPP_CTRL(control),
                   rowMask = (control >> FLY_EMU_DPP_ROW_MASK_SHIFT) & 0xf,
                   bankMask = (control >> FLY_EMU_DPP_BANK_MASK_SHIFT) & 0xf;
    const bool boundCtrl = control & FLY_EMU_DPP_BOUND_CTRL;
    const uint32_t old = uint32_t(w.in[i] >> 32);
    if (!((rowMask >> (i >> 4)) & 1) || !((bankMask >> ((i >> 2) & 3)) & 1)) {
      w.out[i] = old;
      continue;
    }
    int src = dppSource(ctrl, i, w.size);
    bool valid = src >= 0 && uint32_t(src) < w.size && isActive(w.exec, src);
    w.out[i] = valid ? uint32_t(w.in[src]) : (boundCtrl ? 0 : old);
  }
}

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
  case WaveOp::Dpp:
    computeDpp(w);
    return;
  case WaveOp::PermlaneX16:
    computePermlaneX16(w);
    return;
  case WaveOp::PermlaneSwap:
    computePermlaneSwap(w);
    return;
  case WaveOp::LdsTranspose:
    computeLdsTranspose(w);
    return;
  case WaveOp::None:
    return;
  }
}

bool swizzleEmulated(uint32_t offset, char *message, size_t size) {
  const bool quadPerm = (offset & 0xff00) == 0x8000, bitMasks = (offset & 0x8000) == 0;
  if (quadPerm || bitMasks)
    return true;
  std::snprintf(message, size,
                "ds_swizzle with offset 0x%04x (a rotate or FFT mode) is not "
                "emulated; the quad-permute and bit-mask modes are",
                unsigned(offset & 0xffff));
  return false;
}

bool dppControlKnown(uint32_t control, char *message, size_t size) {
  const uint32_t ctrl = FLY_EMU_DPP_CTRL(control);
  const bool known =
      ctrl <= 0xff || (ctrl >= 0x101 && ctrl <= 0x12f && ctrl != 0x110 && ctrl != 0x120) ||
      ctrl == 0x130 || ctrl == 0x134 || ctrl == 0x138 || ctrl == 0x13c ||
      (ctrl >= 0x140 && ctrl <= 0x143) || (ctrl >= 0x150 && ctrl <= 0x16f);
  if (!known)
    std::snprintf(message, size, "update.dpp with dpp_ctrl 0x%03x, which is no DPP control",
                  unsigned(ctrl));
  return known;
}

uint32_t permlaneX16Aux(uint32_t lane, uint32_t selLo, uint32_t selHi,
                        uint32_t flags) {
  const uint64_t selector = (uint64_t(selHi) << 32) | selLo;
  const uint32_t nibble = uint32_t(selector >> (4 * (lane & 15))) & 15;
  return nibble | (flags << 4);
}

} // namespace fly::emu
