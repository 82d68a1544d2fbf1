//===- WaveMode.cpp - The SIMD mode's wave collectives --------------------===//
//
// fly_emu_wave_* (Emu.h): a wave function calls these once for its whole
// wave, with each lane's operand in an array, where a kernel run as fibers
// parks each lane in the per-lane form until the wave has gathered. Both
// forms compute with computeWaveOp, so they agree bit for bit; a wave's
// trap is reported through its fiber (lane 0's), naming the first lane
// that takes part.
//
//===----------------------------------------------------------------------===//

#include "Matrix.h"
#include "WaveOps.h"
#include "Workgroup.h"

#include <cstdio>

namespace fly::emu {
namespace {

Fiber &fiberOf(FlyEmuWave *wave) {
  return *static_cast<Fiber *>(wave->lane[0]->runtime);
}

/// The lanes of `wave` that take part, ready for computeWaveOp.
WaveLanes &gather(FlyEmuWave *wave, uint64_t exec) {
  static thread_local WaveLanes lanes;
  lanes.size = wave->lane[0]->wave_size;
  lanes.exec = exec;
  return lanes;
}

[[noreturn]] void trapWave(FlyEmuWave *wave, uint64_t exec, const char *message) {
  const uint32_t first = exec ? uint32_t(__builtin_ctzll(exec)) : 0;
  FlyEmuContext *ctx = wave->lane[first];
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  fiberOf(wave).runner->trap(f, message);
}

// One lane exchange: lane l's `in` is old[l]:src[l] (src alone without
// `old`), its `aux` aux(l).
template <typename Aux, typename Out>
void exchange(FlyEmuWave *wave, uint64_t exec, WaveOp op, const uint32_t *old,
              const uint32_t *src, Aux aux, Out *out) {
  WaveLanes &lanes = gather(wave, exec);
  for (uint32_t l = 0; l < lanes.size; ++l) {
    lanes.in[l] = (old ? uint64_t(old[l]) << 32 : 0) | src[l];
    lanes.aux[l] = aux(l);
  }
  computeWaveOp(op, lanes);
  for (uint32_t l = 0; l < lanes.size; ++l)
    out[l] = Out(lanes.out[l]);
}

} // namespace
} // namespace fly::emu

using namespace fly::emu;

extern "C" {

void fly_emu_wave_ds_swizzle(FlyEmuWave *wave, uint64_t exec, const uint32_t *value,
                             uint32_t offset, uint32_t *out) {
  char message[160];
  if (!swizzleEmulated(offset, message, sizeof message))
    trapWave(wave, exec, message);
  exchange(wave, exec, WaveOp::Swizzle, nullptr, value,
           [&](uint32_t) { return offset; }, out);
}

void fly_emu_wave_update_dpp(FlyEmuWave *wave, uint64_t exec, const uint32_t *old,
                             const uint32_t *src, uint32_t control, uint32_t *out) {
  char message[96];
  if (!dppControlKnown(control, message, sizeof message))
    trapWave(wave, exec, message);
  exchange(wave, exec, WaveOp::Dpp, old, src, [&](uint32_t) { return control; }, out);
}

void fly_emu_wave_permlanex16(FlyEmuWave *wave, uint64_t exec, const uint32_t *old,
                              const uint32_t *src, uint32_t sel_lo, uint32_t sel_hi,
                              uint32_t flags, uint32_t *out) {
  exchange(wave, exec, WaveOp::PermlaneX16, old, src,
           [&](uint32_t lane) { return permlaneX16Aux(lane, sel_lo, sel_hi, flags); }, out);
}

void fly_emu_wave_permlane_swap(FlyEmuWave *wave, uint64_t exec, const uint32_t *old,
                                const uint32_t *src, uint32_t flags, uint64_t *out) {
  exchange(wave, exec, WaveOp::PermlaneSwap, old, src, [&](uint32_t) { return flags; },
           out);
}

void fly_emu_wave_matrix(FlyEmuWave *wave, uint64_t exec, uint32_t op, uint32_t control,
                         const void *const *a, const void *const *b,
                         const void *const *c, void *const *d, const uint64_t *scale_a,
                         const uint64_t *scale_b) {
  WaveLanes &lanes = gather(wave, exec);
  static thread_local MatrixLane matrixLanes[64];
  for (uint32_t l = 0; l < lanes.size; ++l) {
    matrixLanes[l] = MatrixLane{op,   control, a[l], b[l], c[l], d[l],
                                scale_a ? scale_a[l] : 0, scale_b ? scale_b[l] : 0};
    lanes.in[l] = reinterpret_cast<uintptr_t>(&matrixLanes[l]);
  }
  computeWaveOp(WaveOp::Matrix, lanes);
  const uint32_t first = exec ? uint32_t(__builtin_ctzll(exec)) : 0;
  if (lanes.out[first] != 0)
    trapWave(wave, exec, reinterpret_cast<const char *>(lanes.out[first]));
}

} // extern "C"
