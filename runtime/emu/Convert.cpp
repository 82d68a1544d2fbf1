//===- Convert.cpp - The packed 8- and 4-bit float conversions ------------===//
//
// fly_emu_convert (Emu.h): V_CVT_F32_FP8/BF8, V_CVT_PK_F32_FP8/BF8,
// V_CVT_PK_FP8/BF8_F32 (CDNA3, gfx950) and gfx950's V_CVT_SCALEF32_PK_*
// of fp4, per lane on the bits of their operands. The formats are
// SmallFloat.h's; the chip's fp8 encoding comes in the control word.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Emu.h"

#include "SmallFloat.h"

#include <cstring>

using namespace fly::emu;

namespace {

float asFloat(uint64_t bits) {
  uint32_t low = uint32_t(bits);
  float f;
  std::memcpy(&f, &low, 4);
  return f;
}

uint64_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

/// f32 to bf16, to nearest even, a NaN quieted with its sign.
uint64_t bf16Of(float f) {
  uint32_t bits = uint32_t(bitsOf(f));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (bits >> 16) | 0x40u;
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return bits >> 16;
}

/// 2^(the exponent field of `scale` - 127): the part of the scale the
/// scaled conversions use (its mantissa is ignored).
double scaleFactor(uint64_t scale) {
  int field = int((uint32_t(scale) >> 23) & 0xff);
  return std::ldexp(1.0, field - 127);
}

/// Replaces the `bits`-wide field `index` of `word` with `value`.
uint64_t insertField(uint64_t word, unsigned bits, unsigned index,
                     uint64_t value) {
  uint64_t mask = ((uint64_t(1) << bits) - 1) << (bits * index);
  return (word & ~mask & 0xffffffffu) | ((value << (bits * index)) & mask);
}

} // namespace

extern "C" uint64_t fly_emu_convert(uint32_t op, uint32_t control, uint64_t a,
                                    uint64_t b, uint64_t c, uint64_t d) {
  const bool ocp = control & FLY_EMU_CVT_OCP;
  const unsigned sel = FLY_EMU_CVT_SEL(control);
  switch (op) {
  case FLY_EMU_CVT_F32_FP8:
  case FLY_EMU_CVT_F32_BF8:
    return bitsOf(float(decodeFp8(uint8_t(a >> (8 * (sel & 3))),
                                  op == FLY_EMU_CVT_F32_BF8, ocp)));
  case FLY_EMU_CVT_PK_F32_FP8:
  case FLY_EMU_CVT_PK_F32_BF8: {
    bool wide = op == FLY_EMU_CVT_PK_F32_BF8;
    uint64_t half = (a >> (16 * (sel & 1))) & 0xffff;
    return bitsOf(float(decodeFp8(uint8_t(half), wide, ocp))) |
           bitsOf(float(decodeFp8(uint8_t(half >> 8), wide, ocp))) << 32;
  }
  case FLY_EMU_CVT_PK_FP8_F32:
  case FLY_EMU_CVT_PK_BF8_F32: {
    bool wide = op == FLY_EMU_CVT_PK_BF8_F32;
    uint64_t pair = encodeFp8(asFloat(a), wide, ocp) |
                    uint64_t(encodeFp8(asFloat(b), wide, ocp)) << 8;
    return insertField(c, 16, sel & 1, pair);
  }
  case FLY_EMU_CVT_SCALEF32_PK_F32_FP4:
  case FLY_EMU_CVT_SCALEF32_PK_BF16_FP4: {
    uint8_t byte = uint8_t(a >> (8 * (sel & 3)));
    double factor = scaleFactor(b);
    float lo = float(decodeFp4(byte & 0xf) * factor);
    float hi = float(decodeFp4(byte >> 4) * factor);
    if (op == FLY_EMU_CVT_SCALEF32_PK_F32_FP4)
      return bitsOf(lo) | bitsOf(hi) << 32;
    return bf16Of(lo) | bf16Of(hi) << 16;
  }
  case FLY_EMU_CVT_SCALEF32_PK_FP4_F32: {
    double factor = scaleFactor(d);
    uint64_t byte = encodeFp4(asFloat(b) / factor) |
                    uint64_t(encodeFp4(asFloat(c) / factor)) << 4;
    return insertField(a, 8, sel & 3, byte);
  }
  }
  return 0;
}
