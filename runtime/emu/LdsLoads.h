//===- LdsLoads.h - LDS reads that exchange data across lanes ---*- C++ -*-===//
//
// gfx950's transposing LDS reads (ds_read_b64_tr_b4/_b8/_b16,
// ds_read_b96_tr_b6) as a wave collective (Emu.h, "LDS loads"): each lane
// parks with a pointer to its LdsTransposeLane record and the wave's rows of
// 16 lanes are exchanged once all lanes are there.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_LDSLOADS_H
#define FLY_RUNTIME_EMU_LDSLOADS_H

#include "WaveOps.h"

#include <cstdint>

namespace fly::emu {

// One lane's operands: what it passed to fly_emu_ds_read_tr.
struct LdsTransposeLane {
  const void *src;      // its LDS address
  void *dst;            // its result registers
  uint32_t elementBits; // 4, 6, 8 or 16
  uint32_t bytes;       // 8 or 12
};

// Computes the read of a wave: lanes.in[i] is lane i's LdsTransposeLane (as
// an address). Writes every active lane's result and sets out[i] to 0, or,
// when the lanes disagree on the form, writes nothing and sets out[i] to a
// message for the lane to trap with.
void computeLdsTranspose(WaveLanes &lanes);

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_LDSLOADS_H
