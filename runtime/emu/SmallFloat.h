//===- SmallFloat.h - 8- and 4-bit float formats of AMD GPUs ----*- C++ -*-===//
//
// The formats, from their definitions: E4M3 ("fp8") and E5M2 ("bf8") in
// two encodings, FNUZ (gfx942: biases 8 and 16, no infinities, 0x80 the
// only NaN, no negative zero) and OCP (gfx950, gfx12: E4M3FN with bias 7,
// no infinities and S.1111.111 the NaN; E5M2 with bias 15 and IEEE
// infinities and NaNs); OCP's E2M1 ("fp4": bias 1, no infinities or NaN).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_SMALLFLOAT_H
#define FLY_RUNTIME_EMU_SMALLFLOAT_H

#include <cmath>
#include <cstdint>
#include <limits>

namespace fly::emu {

/// The value of an 8-bit float code: E4M3 (`wide` false) or E5M2.
inline double decodeFp8(uint8_t x, bool wide, bool ocp) {
  const int manBits = wide ? 2 : 3;
  const int expMax = wide ? 31 : 15;
  const int bias = (wide ? 15 : 7) + (ocp ? 0 : 1);
  const bool negative = x & 0x80;
  const int exp = (x >> manBits) & expMax;
  const int man = x & ((1 << manBits) - 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!ocp && x == 0x80)
    return nan;
  if (ocp && wide && exp == expMax)
    return man ? nan : (negative ? -INFINITY : INFINITY);
  if (ocp && !wide && exp == expMax && man == 7)
    return nan;
  double value = exp == 0 ? std::ldexp(man, 1 - bias - manBits)
                          : std::ldexp(man + (1 << manBits), exp - bias - manBits);
  return negative ? -value : value;
}

/// The value of an E2M1 code (the low 4 bits of `x`).
inline double decodeFp4(uint8_t x) {
  const int exp = (x >> 1) & 3, man = x & 1;
  double value = exp == 0 ? 0.5 * man : std::ldexp(1.0 + 0.5 * man, exp - 1);
  return (x & 8) ? -value : value;
}

/// The value of an E2M3 (`wide` false: bias 1) or E3M2 (bias 3) code, the
/// low 6 bits of `x` (no infinities or NaN).
inline double decodeFp6(uint8_t x, bool wide) {
  const int manBits = wide ? 2 : 3, bias = wide ? 3 : 1;
  const int exp = (x >> manBits) & (wide ? 7 : 3);
  const int man = x & ((1 << manBits) - 1);
  double value = exp == 0 ? std::ldexp(man, 1 - bias - manBits)
                          : std::ldexp(man + (1 << manBits), exp - bias - manBits);
  return (x & 0x20) ? -value : value;
}

/// The value of an E8M0 scale: 2^(x - 127), NaN for 0xFF.
inline double decodeE8M0(uint8_t x) {
  return x == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                   : std::ldexp(1.0, int(x) - 127);
}

/// `a` (> 0, finite) rounded to nearest even on the grid of a float with
/// `manBits` mantissa bits whose smallest normal exponent is `emin`: the
/// exponent and the integer significand (2^manBits and more: normal).
struct Rounded {
  int exp;
  int64_t significand;
};
inline Rounded roundToGrid(double a, int manBits, int emin) {
  int e;
  std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
  e = std::max(e - 1, emin);
  double n = std::nearbyint(std::ldexp(a, manBits - e)); // to nearest even
  if (n >= double(int64_t(2) << manBits)) {             // carried
    n /= 2;
    ++e;
  }
  return {e, int64_t(n)};
}

/// An 8-bit float code of `x`, rounded to nearest even, not saturating:
/// what rounds past the largest finite value is infinity in OCP E5M2 and
/// NaN in the others; a NaN stays NaN; zero keeps its sign except in FNUZ.
inline uint8_t encodeFp8(double x, bool wide, bool ocp) {
  const int manBits = wide ? 2 : 3;
  const int bias = (wide ? 15 : 7) + (ocp ? 0 : 1);
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const uint8_t nan = !ocp ? 0x80 : uint8_t(sign | (wide ? 0x7E : 0x7F));
  // The largest finite: every exponent field but OCP E5M2's all-ones; all
  // mantissas but OCP E4M3's S.1111.111.
  const int expTop = (wide ? 31 : 15) - (ocp && wide ? 1 : 0);
  const int manTop = (1 << manBits) - 1 - (ocp && !wide ? 1 : 0);
  const double maxFinite =
      std::ldexp((1 << manBits) + manTop, expTop - bias - manBits);
  if (std::isnan(x))
    return nan;
  double a = std::fabs(x);
  if (a == 0)
    return ocp ? sign : 0;
  if (std::isinf(a))
    return ocp && wide ? uint8_t(sign | 0x7C) : nan;
  Rounded r = roundToGrid(a, manBits, 1 - bias);
  double value = std::ldexp(double(r.significand), r.exp - manBits);
  if (value > maxFinite)
    return ocp && wide ? uint8_t(sign | 0x7C) : nan;
  if (r.significand == 0)
    return ocp ? sign : 0;
  int expField = r.significand < (1 << manBits) ? 0 : r.exp + bias;
  int man = int(r.significand & ((1 << manBits) - 1));
  return uint8_t(sign | (expField << manBits) | man);
}

/// An E2M1 code of `x`, rounded to nearest even and saturating at +-6 (the
/// format has no infinity or NaN; a NaN becomes +6).
inline uint8_t encodeFp4(double x) {
  if (std::isnan(x))
    return 0x7;
  const uint8_t sign = std::signbit(x) ? 8 : 0;
  double a = std::fabs(x);
  if (a >= 6)
    return sign | 0x7;
  if (a == 0)
    return sign;
  Rounded r = roundToGrid(a, 1, 0);
  if (std::ldexp(double(r.significand), r.exp - 1) > 6)
    return sign | 0x7;
  if (r.significand == 0)
    return sign;
  int expField = r.significand < 2 ? 0 : r.exp + 1;
  return uint8_t(sign | (expField << 1) | (r.significand & 1));
}

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_SMALLFLOAT_H
