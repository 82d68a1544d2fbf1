//===- WaveOps.h - Wave-level instructions, per the ISA ---------*- C++ -*-===//
//
// The semantics of the wave collectives, written from AMD's ISA documents
// (never from the compiler's atom tables, ARCHITECTURE.md). A collective sees
// the wave as the hardware does: one value per lane, and EXEC.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_WAVEOPS_H
#define FLY_RUNTIME_EMU_WAVEOPS_H

#include <cstddef>
#include <cstdint>

namespace fly::emu {

enum class WaveOp : uint32_t {
  None,
  ReadLane,
  ReadFirstLane,
  BPermute,
  Swizzle, // ds_swizzle_b32: `aux` is the instruction's offset field
  Ballot,
  Matrix, // MFMA/WMMA: `in` is the lane's MatrixLane address (Matrix.h)
  Dpp,    // update.dpp: `in` is old << 32 | src, `aux` the control word
  PermlaneX16, // `in` is old << 32 | src, `aux` the lane's selector nibble
               // | flags << 4 (fly_emu_permlanex16)
  PermlaneSwap, // `in` is old << 32 | src, `aux` fly_emu_permlane_swap's flags
  LdsTranspose  // ds_read_tr*: `in` is the lane's LdsTransposeLane address
                // (LdsLoads.h)
};

const char *waveOpName(WaveOp op);

// One wave's operands and results: `in` and `aux` (a lane select or a byte
// address) are written by each arriving lane, `out` by the computation.
struct WaveLanes {
  uint32_t size = 64; // 32 or 64
  uint64_t exec = 0;  // the lanes taking part
  uint64_t in[64];
  uint32_t aux[64];
  uint64_t out[64];
};

// Computes `op` once for the whole wave: out[i] for every lane i in exec.
void computeWaveOp(WaveOp op, WaveLanes &lanes);

// The checks and operand packing the per-lane (fly_emu_*) and whole-wave
// (fly_emu_wave_*) forms share. False, with the trap's message in
// `message`, for a ds_swizzle offset (a rotate or FFT mode) or a DPP
// control the emulator does not run.
bool swizzleEmulated(uint32_t offset, char *message, size_t size);
bool dppControlKnown(uint32_t control, char *message, size_t size);
// A permlanex16 lane's `aux` (WaveOp::PermlaneX16).
uint32_t permlaneX16Aux(uint32_t lane, uint32_t selLo, uint32_t selHi,
                        uint32_t flags);

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_WAVEOPS_H
