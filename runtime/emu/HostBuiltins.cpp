//===- HostBuiltins.cpp - Compiler-runtime helpers the host JIT needs -----===//
//
// Emulated kernels are host code, and LLVM lowers some of their operations
// on x86-64 to calls of compiler-runtime helpers. Most come from the
// process (libgcc: the f32 <-> f16 conversions, say); the bfloat16
// truncations, and the f64 -> f16 one, are missing from older libgcc's
// shared library (Debian 12's), so the emulator's launch table defines them
// from these. Round to nearest even, NaN kept quiet with its
// sign, as the GPU's v_cvt does and the IEEE conversion would.
//
// ABI: the x86-64 psABI passes a bfloat16 like a _Float16, in the low 16
// bits of %xmm0; a _Float16 holding the bits is returned for it.
//
//===----------------------------------------------------------------------===//

#include "HostBuiltins.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

uint16_t roundToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, sign kept
    return uint16_t((bits >> 16) | 0x0040u);
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even
  // (an overflow to the next binade, up to infinity, is the right result).
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

_Float16 asXmmHalf(uint16_t bits) {
  _Float16 half;
  std::memcpy(&half, &bits, sizeof half);
  return half;
}

} // namespace

extern "C" {

_Float16 fly_emu_truncsfbf2(float value) {
  return asXmmHalf(roundToBFloat16(value));
}

// Rounded once: the double goes to float rounded to odd (toward zero, the
// lowest bit set when anything was dropped), which keeps enough to round
// to bf16 correctly afterwards, as the GPU's v_cvt does for f64.
_Float16 fly_emu_truncdfbf2(double value) {
  float nearest = float(value);
  if (double(nearest) == value || value != value)
    return asXmmHalf(roundToBFloat16(nearest));
  uint32_t bits;
  std::memcpy(&bits, &nearest, sizeof bits);
  if (std::fabs(double(nearest)) > std::fabs(value))
    bits -= 1; // toward zero: the same sign, one step smaller in magnitude
  bits |= 1u;
  float odd;
  std::memcpy(&odd, &bits, sizeof odd);
  return asXmmHalf(roundToBFloat16(odd));
}

// GCC's conversion of a double to _Float16 rounds once, to nearest even.
_Float16 fly_emu_truncdfhf2(double value) { return _Float16(value); }

} // extern "C"
