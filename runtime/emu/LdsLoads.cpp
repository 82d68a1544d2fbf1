//===- LdsLoads.cpp - Transposing LDS reads, per the ISA ------------------===//
//
// DS_READ_B64_TR_B16 / _TR_B8 / _TR_B4 and DS_READ_B96_TR_B6 (CDNA4 ISA):
// the lanes of a wave form rows of 16 (lanes 16r .. 16r+15). Each lane reads
// B bits (64, or 96 for the b6 form) at its own LDS address: n = B / w
// elements of w bits. Taking the row's elements lane after lane (lane 0's
// first, each lane's in order: element f = n * lane + e), lane t of the row
// receives elements t, t + 16, t + 32, ... (n of them, packed from bit 0).
// So with 16-bit elements the 16 lanes' reads form a 4 x 16 matrix (row k
// being lanes 4k .. 4k+3) whose column t lane t gets; with 8-bit elements
// two 8 x 8 byte transposes interleave (lanes 0-7 from the even lanes, 8-15
// from the odd ones); with 4- and 6-bit elements it is a 16 x 16 transpose.
// A lane that is not active contributes zeros (the emulator has no read
// for it) and receives nothing.
//
//===----------------------------------------------------------------------===//

#include "LdsLoads.h"

#include "Workgroup.h"

#include "fly/runtime/Emu.h"

#include <cstring>

namespace fly::emu {

namespace {

constexpr uint32_t kRow = 16;
constexpr uint32_t kMaxBytes = 12;

uint32_t getBits(const uint8_t *data, uint32_t at, uint32_t width) {
  uint32_t value = 0;
  for (uint32_t i = 0; i < width; ++i)
    value |= uint32_t((data[(at + i) / 8] >> ((at + i) % 8)) & 1) << i;
  return value;
}

void setBits(uint8_t *data, uint32_t at, uint32_t width, uint32_t value) {
  for (uint32_t i = 0; i < width; ++i) {
    uint8_t bit = uint8_t(1u << ((at + i) % 8));
    if ((value >> i) & 1)
      data[(at + i) / 8] |= bit;
    else
      data[(at + i) / 8] &= uint8_t(~bit);
  }
}

bool validForm(uint32_t width, uint32_t bytes) {
  return (bytes == 8 && (width == 4 || width == 8 || width == 16)) ||
         (bytes == 12 && width == 6);
}

} // namespace

void computeLdsTranspose(WaveLanes &w) {
  auto lane = [&](uint32_t i) {
    return reinterpret_cast<const LdsTransposeLane *>(w.in[i]);
  };
  auto active = [&](uint32_t i) { return (w.exec >> i) & 1; };
  // Every lane must run the same form.
  const LdsTransposeLane *first = nullptr;
  for (uint32_t i = 0; i < w.size; ++i)
    if (active(i)) {
      const LdsTransposeLane *l = lane(i);
      if (!first)
        first = l;
      const char *problem =
          !validForm(l->elementBits, l->bytes)
              ? "ds_read_tr: no transposing LDS read has this element width "
                "and size"
          : l->elementBits != first->elementBits || l->bytes != first->bytes
              ? "ds_read_tr: lanes of one wave ran different transposing "
                "LDS reads"
              : nullptr;
      if (problem) {
        for (uint32_t k = 0; k < w.size; ++k)
          if (active(k))
            w.out[k] = reinterpret_cast<uintptr_t>(problem);
        return;
      }
    }
  if (!first)
    return;
  const uint32_t width = first->elementBits, bytes = first->bytes;
  const uint32_t n = bytes * 8 / width; // elements per lane
  for (uint32_t row = 0; row < w.size; row += kRow) {
    uint8_t read[kRow][kMaxBytes] = {};
    for (uint32_t i = 0; i < kRow && row + i < w.size; ++i)
      if (active(row + i))
        std::memcpy(read[i], lane(row + i)->src, bytes);
    for (uint32_t t = 0; t < kRow && row + t < w.size; ++t) {
      if (!active(row + t))
        continue;
      uint8_t out[kMaxBytes] = {};
      for (uint32_t j = 0; j < n; ++j) {
        uint32_t f = t + kRow * j;
        setBits(out, j * width, width,
                getBits(read[f / n], (f % n) * width, width));
      }
      std::memcpy(lane(row + t)->dst, out, bytes);
      w.out[row + t] = 0;
    }
  }
}

} // namespace fly::emu

// ---- The C ABI --------------------------------------------------------------

extern "C" void fly_emu_ds_read_tr(FlyEmuContext *ctx, const void *addr,
                                   uint32_t element_bits, uint32_t bytes,
                                   void *dst) {
  using namespace fly::emu;
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  // In this frame, which stays put while the lane is parked.
  LdsTransposeLane lane{addr, dst, element_bits, bytes};
  uint64_t result = f.runner->collective(
      f, WaveOp::LdsTranspose, reinterpret_cast<uintptr_t>(&lane), 0);
  if (result != 0)
    fly_emu_trap(ctx, reinterpret_cast<const char *>(result));
}
