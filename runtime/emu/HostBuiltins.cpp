//===- HostBuiltins.cpp - Compiler-runtime helpers the host JIT needs -----===//
//
// Emulated kernels are host code, and LLVM lowers some of their operations
// on x86-64 to calls of compiler-runtime helpers. Most come from the
// process (libgcc: the f16 conversions, say); the bfloat16 truncations are
// missing from older libgcc (Debian 12's), so the emulator's launch table
// defines them from these. Round to nearest even, NaN kept quiet with its
// sign, as the GPU's v_cvt does and the IEEE conversion would.
//
// ABI: the x86-64 psABI passes a bfloat16 like a _Float16, in the low 16
// bits of %xmm0; a _Float16 holding the bits is returned for it.
//
//===----------------------------------------------------------------------===//

#include "HostBuiltins.h"

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

// Via float: a double rounded twice (to f32, then to bf16) can differ from
// the direct rounding in the last bit, for values within 2^-24 relative of
// a tie.
_Float16 fly_emu_truncdfbf2(double value) {
  return asXmmHalf(roundToBFloat16(float(value)));
}

} // extern "C"
