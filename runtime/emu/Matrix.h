//===- Matrix.h - MFMA and WMMA, per the ISA --------------------*- C++ -*-===//
//
// Matrix instructions as wave collectives (Emu.h, "Matrix instructions"):
// each lane parks with a pointer to its MatrixLane record (in its own fiber
// frame, valid while it is parked) as its collective value, and the wave's
// D = A * B + C is computed once from all of them.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_MATRIX_H
#define FLY_RUNTIME_EMU_MATRIX_H

#include "WaveOps.h"

#include <cstdint>

namespace fly::emu {

// One lane's operands: what it passed to fly_emu_matrix.
struct MatrixLane {
  uint32_t op;      // FlyEmuMatrixOp
  uint32_t control; // FLY_EMU_MATRIX_* bits
  const void *a, *b, *c;
  void *d;
  uint64_t scaleA = 0, scaleB = 0; // scaled MFMA / WMMA: the E8M0 scales
};

// Computes the matrix instruction of a wave: lanes.in[i] is lane i's
// MatrixLane (as an address), for every lane in lanes.exec. Writes every
// lane's D and sets out[i] to 0, or, when the instruction cannot run (see
// Emu.h), writes no D and sets out[i] to the address of a message for the
// lane to trap with (valid until this OS thread's next matrix instruction).
void computeMatrix(WaveLanes &lanes);

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_MATRIX_H
