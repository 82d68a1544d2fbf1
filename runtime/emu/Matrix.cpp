//===- Matrix.cpp - MFMA and WMMA, per the ISA ----------------------------===//
//
// The register layouts of the matrix instructions, written as formulas from
// AMD's ISA documents (CDNA3 ISA, "Matrix Arithmetic Instructions"; RDNA3,
// RDNA4 and gfx1250 ISA, "Wave Matrix Multiply Accumulate"), never from the
// compiler's atom tables or from the layout data files, which the tests
// use to check these formulas.
//
// Every instruction computes, per block b of `blocks`,
//   D[b] = A[b] (M x K) * B[b] (K x N) + C[b] (M x N)
// and a layout says, for lane l and element e of an operand's registers
// (element e of the LLVM vector), which block, row and column it holds.
//
//===----------------------------------------------------------------------===//

#include "Matrix.h"
#include "SmallFloat.h"

#include "Workgroup.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace fly::emu {

namespace {

// Element types of the operands.
enum class Elem : uint8_t {
  F32,  // IEEE binary32
  XF32, // binary32 truncated to 10 mantissa bits (TF32) before use
  F16,  // IEEE binary16
  BF16, // the high half of a binary32
  I8,   // signed 8-bit
  IU8,  // 8-bit, signed or unsigned by FLY_EMU_MATRIX_SIGN_A/B
  IU4,  // 4-bit, likewise
  F64,  // IEEE binary64
  I32,  // the integer accumulator
  FP8,  // E4M3: FNUZ (gfx942) or OCP E4M3FN
  BF8,  // E5M2: FNUZ (gfx942) or OCP E5M2
  FP6,  // OCP E2M3 (the scaled MFMA's), packed at 6 bits
  BF6,  // OCP E3M2, likewise
  FP4   // OCP E2M1, packed at 4 bits
};

enum class Family : uint8_t {
  Mfma,   // CDNA3 v_mfma, wave64
  Wmma11, // RDNA3 v_wmma, wave32
  Wmma12, // RDNA4 v_wmma, wave32
  Wmma1250 // gfx1250 v_wmma, wave32
};

struct Info {
  uint32_t id; // FlyEmuMatrixOp
  const char *name;
  Family family;
  uint8_t m, n, k, blocks;
  Elem a, b, c; // D has C's type
};

constexpr Family MF = Family::Mfma, W11 = Family::Wmma11,
                 W12 = Family::Wmma12, W1250 = Family::Wmma1250;
using E = Elem;

const Info kInstructions[] = {
    {FLY_EMU_MFMA_F32_32X32X1_2B_F32, "v_mfma_f32_32x32x1_2b_f32", MF, 32, 32, 1, 2, E::F32, E::F32, E::F32},
    {FLY_EMU_MFMA_F32_16X16X1_4B_F32, "v_mfma_f32_16x16x1_4b_f32", MF, 16, 16, 1, 4, E::F32, E::F32, E::F32},
    {FLY_EMU_MFMA_F32_4X4X1_16B_F32, "v_mfma_f32_4x4x1_16b_f32", MF, 4, 4, 1, 16, E::F32, E::F32, E::F32},
    {FLY_EMU_MFMA_F32_32X32X2_F32, "v_mfma_f32_32x32x2_f32", MF, 32, 32, 2, 1, E::F32, E::F32, E::F32},
    {FLY_EMU_MFMA_F32_16X16X4_F32, "v_mfma_f32_16x16x4_f32", MF, 16, 16, 4, 1, E::F32, E::F32, E::F32},
    {FLY_EMU_MFMA_F32_32X32X4_2B_F16, "v_mfma_f32_32x32x4_2b_f16", MF, 32, 32, 4, 2, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_16X16X4_4B_F16, "v_mfma_f32_16x16x4_4b_f16", MF, 16, 16, 4, 4, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_4X4X4_16B_F16, "v_mfma_f32_4x4x4_16b_f16", MF, 4, 4, 4, 16, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_32X32X8_F16, "v_mfma_f32_32x32x8_f16", MF, 32, 32, 8, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_16X16X16_F16, "v_mfma_f32_16x16x16_f16", MF, 16, 16, 16, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_32X32X4_2B_BF16, "v_mfma_f32_32x32x4_2b_bf16", MF, 32, 32, 4, 2, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_F32_16X16X4_4B_BF16, "v_mfma_f32_16x16x4_4b_bf16", MF, 16, 16, 4, 4, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_F32_4X4X4_16B_BF16, "v_mfma_f32_4x4x4_16b_bf16", MF, 4, 4, 4, 16, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_F32_32X32X8_BF16, "v_mfma_f32_32x32x8_bf16", MF, 32, 32, 8, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_F32_16X16X16_BF16, "v_mfma_f32_16x16x16_bf16", MF, 16, 16, 16, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_I32_32X32X4_2B_I8, "v_mfma_i32_32x32x4_2b_i8", MF, 32, 32, 4, 2, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_I32_16X16X4_4B_I8, "v_mfma_i32_16x16x4_4b_i8", MF, 16, 16, 4, 4, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_I32_4X4X4_16B_I8, "v_mfma_i32_4x4x4_16b_i8", MF, 4, 4, 4, 16, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_I32_32X32X16_I8, "v_mfma_i32_32x32x16_i8", MF, 32, 32, 16, 1, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_I32_16X16X32_I8, "v_mfma_i32_16x16x32_i8", MF, 16, 16, 32, 1, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_F64_16X16X4_F64, "v_mfma_f64_16x16x4_f64", MF, 16, 16, 4, 1, E::F64, E::F64, E::F64},
    {FLY_EMU_MFMA_F64_4X4X4_4B_F64, "v_mfma_f64_4x4x4_4b_f64", MF, 4, 4, 4, 4, E::F64, E::F64, E::F64},
    {FLY_EMU_MFMA_F32_16X16X8_XF32, "v_mfma_f32_16x16x8_xf32", MF, 16, 16, 8, 1, E::XF32, E::XF32, E::F32},
    {FLY_EMU_MFMA_F32_32X32X4_XF32, "v_mfma_f32_32x32x4_xf32", MF, 32, 32, 4, 1, E::XF32, E::XF32, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_FP8_FP8, "v_mfma_f32_16x16x32_fp8_fp8", MF, 16, 16, 32, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_FP8_BF8, "v_mfma_f32_16x16x32_fp8_bf8", MF, 16, 16, 32, 1, E::FP8, E::BF8, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_BF8_FP8, "v_mfma_f32_16x16x32_bf8_fp8", MF, 16, 16, 32, 1, E::BF8, E::FP8, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_BF8_BF8, "v_mfma_f32_16x16x32_bf8_bf8", MF, 16, 16, 32, 1, E::BF8, E::BF8, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_FP8_FP8, "v_mfma_f32_32x32x16_fp8_fp8", MF, 32, 32, 16, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_FP8_BF8, "v_mfma_f32_32x32x16_fp8_bf8", MF, 32, 32, 16, 1, E::FP8, E::BF8, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_BF8_FP8, "v_mfma_f32_32x32x16_bf8_fp8", MF, 32, 32, 16, 1, E::BF8, E::FP8, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_BF8_BF8, "v_mfma_f32_32x32x16_bf8_bf8", MF, 32, 32, 16, 1, E::BF8, E::BF8, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_F16, "v_mfma_f32_16x16x32_f16", MF, 16, 16, 32, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_F16, "v_mfma_f32_32x32x16_f16", MF, 32, 32, 16, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_MFMA_F32_16X16X32_BF16, "v_mfma_f32_16x16x32_bf16", MF, 16, 16, 32, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_F32_32X32X16_BF16, "v_mfma_f32_32x32x16_bf16", MF, 32, 32, 16, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_MFMA_I32_16X16X64_I8, "v_mfma_i32_16x16x64_i8", MF, 16, 16, 64, 1, E::I8, E::I8, E::I32},
    {FLY_EMU_MFMA_I32_32X32X32_I8, "v_mfma_i32_32x32x32_i8", MF, 32, 32, 32, 1, E::I8, E::I8, E::I32},
    {FLY_EMU_WMMA11_F32_16X16X16_F16, "v_wmma_f32_16x16x16_f16 (gfx11)", W11, 16, 16, 16, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_WMMA11_F32_16X16X16_BF16, "v_wmma_f32_16x16x16_bf16 (gfx11)", W11, 16, 16, 16, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_WMMA11_F16_16X16X16_F16, "v_wmma_f16_16x16x16_f16 (gfx11)", W11, 16, 16, 16, 1, E::F16, E::F16, E::F16},
    {FLY_EMU_WMMA11_BF16_16X16X16_BF16, "v_wmma_bf16_16x16x16_bf16 (gfx11)", W11, 16, 16, 16, 1, E::BF16, E::BF16, E::BF16},
    {FLY_EMU_WMMA11_I32_16X16X16_IU8, "v_wmma_i32_16x16x16_iu8 (gfx11)", W11, 16, 16, 16, 1, E::IU8, E::IU8, E::I32},
    {FLY_EMU_WMMA11_I32_16X16X16_IU4, "v_wmma_i32_16x16x16_iu4 (gfx11)", W11, 16, 16, 16, 1, E::IU4, E::IU4, E::I32},
    {FLY_EMU_WMMA12_F32_16X16X16_F16, "v_wmma_f32_16x16x16_f16 (gfx12)", W12, 16, 16, 16, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_WMMA12_F32_16X16X16_BF16, "v_wmma_f32_16x16x16_bf16 (gfx12)", W12, 16, 16, 16, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_WMMA12_F16_16X16X16_F16, "v_wmma_f16_16x16x16_f16 (gfx12)", W12, 16, 16, 16, 1, E::F16, E::F16, E::F16},
    {FLY_EMU_WMMA12_BF16_16X16X16_BF16, "v_wmma_bf16_16x16x16_bf16 (gfx12)", W12, 16, 16, 16, 1, E::BF16, E::BF16, E::BF16},
    {FLY_EMU_WMMA12_I32_16X16X16_IU8, "v_wmma_i32_16x16x16_iu8 (gfx12)", W12, 16, 16, 16, 1, E::IU8, E::IU8, E::I32},
    {FLY_EMU_WMMA12_I32_16X16X16_IU4, "v_wmma_i32_16x16x16_iu4 (gfx12)", W12, 16, 16, 16, 1, E::IU4, E::IU4, E::I32},
    {FLY_EMU_WMMA12_I32_16X16X32_IU4, "v_wmma_i32_16x16x32_iu4 (gfx12)", W12, 16, 16, 32, 1, E::IU4, E::IU4, E::I32},
    {FLY_EMU_WMMA12_F32_16X16X16_FP8_FP8, "v_wmma_f32_16x16x16_fp8_fp8 (gfx12)", W12, 16, 16, 16, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_WMMA12_F32_16X16X16_FP8_BF8, "v_wmma_f32_16x16x16_fp8_bf8 (gfx12)", W12, 16, 16, 16, 1, E::FP8, E::BF8, E::F32},
    {FLY_EMU_WMMA12_F32_16X16X16_BF8_FP8, "v_wmma_f32_16x16x16_bf8_fp8 (gfx12)", W12, 16, 16, 16, 1, E::BF8, E::FP8, E::F32},
    {FLY_EMU_WMMA12_F32_16X16X16_BF8_BF8, "v_wmma_f32_16x16x16_bf8_bf8 (gfx12)", W12, 16, 16, 16, 1, E::BF8, E::BF8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X4_F32, "v_wmma_f32_16x16x4_f32 (gfx1250)", W1250, 16, 16, 4, 1, E::F32, E::F32, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X32_F16, "v_wmma_f32_16x16x32_f16 (gfx1250)", W1250, 16, 16, 32, 1, E::F16, E::F16, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X32_BF16, "v_wmma_f32_16x16x32_bf16 (gfx1250)", W1250, 16, 16, 32, 1, E::BF16, E::BF16, E::F32},
    {FLY_EMU_WMMA1250_F16_16X16X32_F16, "v_wmma_f16_16x16x32_f16 (gfx1250)", W1250, 16, 16, 32, 1, E::F16, E::F16, E::F16},
    {FLY_EMU_WMMA1250_BF16_16X16X32_BF16, "v_wmma_bf16_16x16x32_bf16 (gfx1250)", W1250, 16, 16, 32, 1, E::BF16, E::BF16, E::BF16},
    {FLY_EMU_WMMA1250_I32_16X16X64_IU8, "v_wmma_i32_16x16x64_iu8 (gfx1250)", W1250, 16, 16, 64, 1, E::IU8, E::IU8, E::I32},
    {FLY_EMU_WMMA1250_F32_16X16X64_FP8_FP8, "v_wmma_f32_16x16x64_fp8_fp8 (gfx1250)", W1250, 16, 16, 64, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X64_FP8_BF8, "v_wmma_f32_16x16x64_fp8_bf8 (gfx1250)", W1250, 16, 16, 64, 1, E::FP8, E::BF8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X64_BF8_FP8, "v_wmma_f32_16x16x64_bf8_fp8 (gfx1250)", W1250, 16, 16, 64, 1, E::BF8, E::FP8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X64_BF8_BF8, "v_wmma_f32_16x16x64_bf8_bf8 (gfx1250)", W1250, 16, 16, 64, 1, E::BF8, E::BF8, E::F32},
    {FLY_EMU_WMMA1250_F16_16X16X64_FP8_FP8, "v_wmma_f16_16x16x64_fp8_fp8 (gfx1250)", W1250, 16, 16, 64, 1, E::FP8, E::FP8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X64_FP8_BF8, "v_wmma_f16_16x16x64_fp8_bf8 (gfx1250)", W1250, 16, 16, 64, 1, E::FP8, E::BF8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X64_BF8_FP8, "v_wmma_f16_16x16x64_bf8_fp8 (gfx1250)", W1250, 16, 16, 64, 1, E::BF8, E::FP8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X64_BF8_BF8, "v_wmma_f16_16x16x64_bf8_bf8 (gfx1250)", W1250, 16, 16, 64, 1, E::BF8, E::BF8, E::F16},
    {FLY_EMU_WMMA1250_F32_16X16X128_FP8_FP8, "v_wmma_f32_16x16x128_fp8_fp8 (gfx1250)", W1250, 16, 16, 128, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X128_FP8_BF8, "v_wmma_f32_16x16x128_fp8_bf8 (gfx1250)", W1250, 16, 16, 128, 1, E::FP8, E::BF8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X128_BF8_FP8, "v_wmma_f32_16x16x128_bf8_fp8 (gfx1250)", W1250, 16, 16, 128, 1, E::BF8, E::FP8, E::F32},
    {FLY_EMU_WMMA1250_F32_16X16X128_BF8_BF8, "v_wmma_f32_16x16x128_bf8_bf8 (gfx1250)", W1250, 16, 16, 128, 1, E::BF8, E::BF8, E::F32},
    {FLY_EMU_WMMA1250_F16_16X16X128_FP8_FP8, "v_wmma_f16_16x16x128_fp8_fp8 (gfx1250)", W1250, 16, 16, 128, 1, E::FP8, E::FP8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X128_FP8_BF8, "v_wmma_f16_16x16x128_fp8_bf8 (gfx1250)", W1250, 16, 16, 128, 1, E::FP8, E::BF8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X128_BF8_FP8, "v_wmma_f16_16x16x128_bf8_fp8 (gfx1250)", W1250, 16, 16, 128, 1, E::BF8, E::FP8, E::F16},
    {FLY_EMU_WMMA1250_F16_16X16X128_BF8_BF8, "v_wmma_f16_16x16x128_bf8_bf8 (gfx1250)", W1250, 16, 16, 128, 1, E::BF8, E::BF8, E::F16},
    // gfx950's scaled MFMA: A's and B's formats come from cbsz / blgp.
    {FLY_EMU_MFMA_SCALE_F32_16X16X128_F8F6F4, "v_mfma_scale_f32_16x16x128_f8f6f4", MF, 16, 16, 128, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_MFMA_SCALE_F32_32X32X64_F8F6F4, "v_mfma_scale_f32_32x32x64_f8f6f4", MF, 32, 32, 64, 1, E::FP8, E::FP8, E::F32},
    // gfx1250's MX-scaled WMMA, likewise.
    {FLY_EMU_WMMA1250_SCALE_F32_16X16X128_F8F6F4, "v_wmma_scale_f32_16x16x128_f8f6f4", W1250, 16, 16, 128, 1, E::FP8, E::FP8, E::F32},
    {FLY_EMU_WMMA1250_SCALE16_F32_16X16X128_F8F6F4, "v_wmma_scale16_f32_16x16x128_f8f6f4", W1250, 16, 16, 128, 1, E::FP8, E::FP8, E::F32},
    // Its fp4-only form, with a 32-row A.
    {FLY_EMU_WMMA1250_SCALE_F32_32X16X128_F4, "v_wmma_scale_f32_32x16x128_f4", W1250, 32, 16, 128, 1, E::FP4, E::FP4, E::F32},
    {FLY_EMU_WMMA1250_SCALE16_F32_32X16X128_F4, "v_wmma_scale16_f32_32x16x128_f4", W1250, 32, 16, 128, 1, E::FP4, E::FP4, E::F32},
};

// The scaled WMMA (gfx1250): its scales are per block of K of a row (column)
// and come from one half of the wave, not each lane's own values.
bool isScaledWmma(uint32_t id) {
  return id == FLY_EMU_WMMA1250_SCALE_F32_16X16X128_F8F6F4 ||
         id == FLY_EMU_WMMA1250_SCALE16_F32_16X16X128_F8F6F4 ||
         id == FLY_EMU_WMMA1250_SCALE_F32_32X16X128_F4 ||
         id == FLY_EMU_WMMA1250_SCALE16_F32_32X16X128_F4;
}

// The scaled WMMA whose scales cover 16 values of K (64-bit scales).
bool isScale16Wmma(uint32_t id) {
  return id == FLY_EMU_WMMA1250_SCALE16_F32_16X16X128_F8F6F4 ||
         id == FLY_EMU_WMMA1250_SCALE16_F32_32X16X128_F4;
}

bool isScaled(uint32_t id) {
  return id == FLY_EMU_MFMA_SCALE_F32_16X16X128_F8F6F4 ||
         id == FLY_EMU_MFMA_SCALE_F32_32X32X64_F8F6F4 || isScaledWmma(id);
}

// The scaled MFMA's operand formats by their cbsz / blgp code
// (FlyEmuMatrixFormat).
constexpr Elem kScaledFormats[] = {Elem::FP8, Elem::BF8, Elem::FP6, Elem::BF6,
                                   Elem::FP4};
static_assert(FLY_EMU_FORMAT_FP8 == 0 && FLY_EMU_FORMAT_BF8 == 1 &&
                  FLY_EMU_FORMAT_FP6 == 2 && FLY_EMU_FORMAT_BF6 == 3 &&
                  FLY_EMU_FORMAT_FP4 == 4,
              "kScaledFormats is indexed by FlyEmuMatrixFormat");

const Info *lookup(uint32_t id) {
  for (const Info &info : kInstructions)
    if (info.id == id)
      return &info;
  return nullptr;
}

uint32_t bitsOf(Elem t) {
  switch (t) {
  case Elem::F64:
    return 64;
  case Elem::F32:
  case Elem::XF32:
  case Elem::I32:
    return 32;
  case Elem::F16:
  case Elem::BF16:
    return 16;
  case Elem::I8:
  case Elem::IU8:
  case Elem::FP8:
  case Elem::BF8:
    return 8;
  case Elem::IU4:
  case Elem::FP4:
    return 4;
  case Elem::FP6:
  case Elem::BF6:
    return 6;
  }
  return 32;
}

// ---- Layouts ----------------------------------------------------------------

// Where an element of a lane's registers sits in its operand.
struct Place {
  uint32_t block;
  uint32_t row; // A: i, B: k, C/D: i
  uint32_t col; // A: k, B: j, C/D: j
};

uint32_t waveSizeOf(const Info &info) {
  return info.family == Family::Mfma ? 64 : 32;
}

// Elements of A (`isB` false) or B per lane.
uint32_t inputsPerLane(const Info &info, bool isB) {
  switch (info.family) {
  case Family::Mfma:
    // The wave's 64 lanes are 64/M groups of M lanes; a group holds one
    // block's k-slice of K / (groups per block) consecutive elements.
    return info.k * info.blocks * info.m / 64;
  case Family::Wmma11:
    return info.k; // a whole row of A (column of B), replicated
  case Family::Wmma12:
  case Family::Wmma1250:
    // Half of it (the two lane halves split K) for each 16 rows (columns):
    // gfx1250's 32x16x128 f4 A holds two such halves.
    return (isB ? info.n : info.m) / 16 * (info.k / 2);
  }
  return 0;
}

// Elements of C (and D) per lane, as the LLVM vector counts them.
uint32_t accumulatorsPerLane(const Info &info) {
  uint32_t per = info.m * info.n * info.blocks / waveSizeOf(info);
  // gfx11 keeps a 16-bit accumulator in one half of each 32-bit register.
  if (info.family == Family::Wmma11 && bitsOf(info.c) == 16)
    per *= 2;
  return per;
}

// Element e of lane l of A (`isB` false: row i, column k) or B (`isB`:
// row k, column j), of element type `type`. The two are symmetric: a lane
// holds a row of A and the same-numbered column of B.
Place inputPlace(const Info &info, Elem type, uint32_t l, uint32_t e,
                 bool isB) {
  uint32_t mn = 0, k = 0, block = 0;
  switch (info.family) {
  case Family::Mfma: {
    // CDNA3: lane l holds row (column) l % M; its group g = l / M walks
    // the blocks first (l / M % blocks), then the k-slices of K.
    uint32_t per = inputsPerLane(info, isB);
    uint32_t g = l / info.m;
    mn = l % info.m;
    block = g % info.blocks;
    k = (g / info.blocks) * per + e;
    break;
  }
  case Family::Wmma11:
    // RDNA3 wave32: lanes 0-15 hold rows (columns) 0-15 with all K
    // elements; lanes 16-31 repeat them.
    mn = l % 16;
    k = e;
    break;
  case Family::Wmma12: {
    // RDNA4 wave32: lane half h = l / 16 holds half of K. 16-bit
    // elements go in runs of 4: k = 0-3 and 8-11 in lanes 0-15, 4-7 and
    // 12-15 in lanes 16-31; 8- and 4-bit elements in one run of K / 2.
    uint32_t h = l / 16;
    mn = l % 16;
    if (bitsOf(type) == 16)
      k = (e / 4) * 8 + h * 4 + e % 4;
    else
      k = h * (info.k / 2) + e;
    break;
  }
  case Family::Wmma1250: {
    // gfx1250 wave32 (its ISA's WMMA operand tables): 32-bit elements
    // (16x16x4) are K = 2 h + e; narrower ones come in runs of 8 of K,
    // lanes 0-15 holding the even runs (k = 0-7, 16-23, ...) and lanes
    // 16-31 the odd ones, whatever the element width.
    uint32_t h = l / 16;
    mn = l % 16;
    if (isScaledWmma(info.id)) {
      // The f8f6f4 operands of the scaled WMMA (its ISA's f8f6f4 tables):
      // runs of 128 bits of K (16 8-bit values, 32 4-bit ones; 6-bit ones
      // in runs of 32 as well), lanes 0-15 the even runs. A 32-row operand
      // (32x16x128 f4's A) is two 16-row ones, rows 16-31 after rows 0-15.
      uint32_t run = bitsOf(type) == 8 ? 16 : 32, half = info.k / 2;
      mn += 16 * (e / half);
      e %= half;
      k = (e / run) * 2 * run + h * run + e % run;
    } else if (bitsOf(type) == 32) {
      k = h * 2 + e;
    } else {
      k = (e / 8) * 16 + h * 8 + e % 8;
    }
    break;
  }
  }
  return isB ? Place{block, k, mn} : Place{block, mn, k};
}

// Element e of lane l of C (and D). Returns false for the halves of gfx11
// 16-bit registers that the instruction does not use (OPSEL selects).
bool accumulatorPlace(const Info &info, uint32_t l, uint32_t e, bool opsel,
                      Place &place) {
  switch (info.family) {
  case Family::Mfma: {
    // CDNA3: lane l holds column j = l % N; its group g = l / N (64 / N
    // groups) selects rows.
    uint32_t groups = 64 / info.n;
    uint32_t g = l / info.n;
    place.col = l % info.n;
    if (info.c == Elem::F64) {
      // f64: element e of group g is row g' + (groups / blocks) * e, where
      // the group walks the blocks first (g' = g / blocks).
      uint32_t rowGroups = groups / info.blocks;
      place.block = g % info.blocks;
      place.row = g / info.blocks + rowGroups * e;
      return true;
    }
    // 32-bit: runs of 4 consecutive rows per group. With G = min(groups,
    // M / 4) groups for the rows of a block (the others are blocks: the
    // 4x4 forms), element e's run e / 4 walks the M / (4 G) row tiles of
    // a block, then the blocks.
    uint32_t rowGroups = groups < info.m / 4 ? groups : info.m / 4;
    uint32_t tiles = info.m / (4 * rowGroups);
    uint32_t run = e / 4;
    place.row = (run % tiles) * (4 * rowGroups) + (g % rowGroups) * 4 + e % 4;
    place.block = (run / tiles) * (groups / rowGroups) + g / rowGroups;
    return true;
  }
  case Family::Wmma11: {
    // RDNA3 wave32: register v of lane l holds row 2 v + l / 16, column
    // l % 16; a 16-bit one in its low half, or its high half with OPSEL.
    uint32_t v = e;
    if (bitsOf(info.c) == 16) {
      v = e / 2;
      if ((e % 2 != 0) != opsel)
        return false;
    }
    place.block = 0;
    place.row = 2 * v + l / 16;
    place.col = l % 16;
    return true;
  }
  case Family::Wmma12:
  case Family::Wmma1250:
    // RDNA4 and gfx1250 wave32: element e of lane l holds row 8 (l / 16) + e, column
    // l % 16 (16-bit ones packed two to a register); gfx1250's 32 x 16 D
    // (32x16x128 f4) is two of those, rows 16-31 in elements 8-15.
    place.block = 0;
    place.row = 16 * (e / 8) + 8 * (l / 16) + e % 8;
    place.col = l % 16;
    return true;
  }
  return false;
}

// ---- Number formats -------------------------------------------------------------

float floatOfBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t bitsOfFloat(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// Element e of the registers as a T (elements packed at sizeof(T)).
template <typename T> T elementAt(const uint8_t *regs, uint32_t e) {
  T value;
  std::memcpy(&value, regs + sizeof(T) * e, sizeof(T));
  return value;
}

// Element e of `type` in `regs`; `sign` for IU8/IU4, `ocp` for FP8/BF8.
double readElem(const uint8_t *regs, Elem type, uint32_t e, bool sign,
                bool ocp) {
  switch (type) {
  case Elem::F32:
    return elementAt<float>(regs, e);
  case Elem::XF32: {
    // TF32: the 13 low mantissa bits dropped, i.e. rounded toward zero, as
    // CDNA3 hardware does (MMA-Sim's bit-accurate model, arXiv:2511.10909;
    // ROCm/rocm-libraries#9176), not rounded to nearest. NaNs stay NaNs.
    uint32_t bits = elementAt<uint32_t>(regs, e);
    if ((bits & 0x7F800000u) != 0x7F800000u)
      bits &= ~0x1FFFu;
    return floatOfBits(bits);
  }
  case Elem::F16:
    return double(elementAt<_Float16>(regs, e));
  case Elem::BF16:
    return floatOfBits(uint32_t(elementAt<uint16_t>(regs, e)) << 16);
  case Elem::I8:
    return int8_t(regs[e]);
  case Elem::IU8:
    return sign ? double(int8_t(regs[e])) : double(regs[e]);
  case Elem::IU4: {
    int nibble = (regs[e / 2] >> (4 * (e % 2))) & 0xF;
    return sign && nibble >= 8 ? nibble - 16 : nibble;
  }
  case Elem::F64:
    return elementAt<double>(regs, e);
  case Elem::I32:
    return elementAt<int32_t>(regs, e);
  case Elem::FP8:
  case Elem::BF8:
    return decodeFp8(regs[e], type == Elem::BF8, ocp);
  case Elem::FP6:
  case Elem::BF6:
  case Elem::FP4: {
    // Packed from bit 0: element e at bit e * width, maybe across bytes.
    const uint32_t width = bitsOf(type), at = width * e;
    uint32_t bits = regs[at / 8] >> (at % 8);
    if (at % 8 + width > 8)
      bits |= uint32_t(regs[at / 8 + 1]) << (8 - at % 8);
    bits &= (1u << width) - 1;
    return type == Elem::FP4 ? decodeFp4(uint8_t(bits))
                             : decodeFp6(uint8_t(bits), type == Elem::BF6);
  }
  }
  return 0;
}

// Rounds `value` to `type` (to nearest even) and stores it as element e.
void writeElem(uint8_t *regs, Elem type, uint32_t e, double value,
               bool clamp) {
  switch (type) {
  case Elem::F32: {
    float f = float(value);
    std::memcpy(regs + 4 * e, &f, 4);
    return;
  }
  case Elem::F16: {
    _Float16 h = _Float16(value);
    std::memcpy(regs + 2 * e, &h, 2);
    return;
  }
  case Elem::BF16: {
    uint32_t bits = bitsOfFloat(float(value));
    uint16_t h;
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
      h = uint16_t((bits >> 16) | 0x40); // a quiet NaN
    else
      h = uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1)) >> 16);
    std::memcpy(regs + 2 * e, &h, 2);
    return;
  }
  case Elem::F64:
    std::memcpy(regs + 8 * e, &value, 8);
    return;
  case Elem::I32: {
    // Exact: |value| < 2^53. Wraps to 32 bits, or saturates with clamp.
    int64_t wide = int64_t(value);
    int32_t i;
    if (clamp)
      i = wide > INT32_MAX ? INT32_MAX : wide < INT32_MIN ? INT32_MIN : int32_t(wide);
    else
      i = int32_t(uint32_t(uint64_t(wide)));
    std::memcpy(regs + 4 * e, &i, 4);
    return;
  }
  default:
    return; // not an accumulator type
  }
}

// ---- The wave's computation --------------------------------------------------

thread_local char message[256];

const char *fail(const char *format, const char *name, uint64_t x = 0,
                 uint64_t y = 0) {
  std::snprintf(message, sizeof message, format, name, (unsigned long long)x,
                (unsigned long long)y);
  return message;
}

// Why the wave cannot run its instruction, or null.
const char *check(const WaveLanes &w, const Info *info, uint32_t id,
                  uint32_t control) {
  const uint64_t all = w.size == 64 ? ~uint64_t(0) : (uint64_t(1) << w.size) - 1;
  uint64_t exec = w.exec;
  while (exec) {
    uint32_t lane = uint32_t(__builtin_ctzll(exec));
    exec &= exec - 1;
    auto *in = reinterpret_cast<const MatrixLane *>(w.in[lane]);
    if (in->op != id || in->control != control)
      return fail("lanes of a wave ran different matrix instructions or "
                  "modifiers (%s: op %llu, control 0x%llx in one lane)",
                  info ? info->name : "?", in->op, in->control);
  }
  if (!info)
    return fail("%sunknown matrix instruction %llu", "", id);
  if (w.size != waveSizeOf(*info))
    return fail("%s needs waves of %llu lanes; this launch's have %llu",
                info->name, waveSizeOf(*info), w.size);
  if (w.exec != all)
    return fail("%s with inactive lanes (EXEC = 0x%llx) is undefined on the "
                "hardware",
                info->name, w.exec);
  if (isScaled(id)) {
    if ((control & 0xFu) > FLY_EMU_FORMAT_FP4 ||
        ((control >> 8) & 0xFu) > FLY_EMU_FORMAT_FP4 || (control & 0xF0u))
      return fail("%s with cbsz 0x%llx / blgp 0x%llx: the formats are 0-4 "
                  "(fp8, bf8, fp6, bf6, fp4)",
                  info->name, control & 0xFFu, (control >> 8) & 0xFu);
    if (isScaledWmma(id) && (control & 0xA000u))
      return fail("%s with scale selectors %llu / %llu: each is 0 (lanes "
                  "0-15 hold the scales) or 1 (lanes 16-31)",
                  info->name, (control >> 12) & 3u, (control >> 14) & 3u);
    if (info->a == Elem::FP4 &&
        (control & 0xF0Fu) != (FLY_EMU_MATRIX_CBSZ(FLY_EMU_FORMAT_FP4) |
                               FLY_EMU_MATRIX_BLGP(FLY_EMU_FORMAT_FP4)))
      return fail("%s with formats %llu / %llu: A and B are fp4 (4)",
                  info->name, control & 0xFu, (control >> 8) & 0xFu);
    if (isScaledWmma(id) && info->m == 32 && (control & 0x3000u))
      return fail("%s with scale selector A %llu: A's 32 rows' scales fill "
                  "the wave (row i in lane i), so it is 0",
                  info->name, (control >> 12) & 3u);
  } else if (control & 0xFFFu)
    return fail("%s with cbsz/abid/blgp = 0x%llx: the broadcast and lane-"
                "group controls are not emulated",
                info->name, control & 0xFFFu);
  if ((control & FLY_EMU_MATRIX_OPSEL) &&
      !(info->family == Family::Wmma11 && bitsOf(info->c) == 16))
    return fail("%s has no OPSEL (only gfx11's 16-bit WMMA D does)",
                info->name);
  if (info->family == Family::Wmma11) {
    // The ISA requires A and B replicated in both halves of the wave.
    const uint32_t bytes = inputsPerLane(*info, false) * bitsOf(info->a) / 8;
    for (uint32_t l = 16; l < 32; ++l) {
      auto *hi = reinterpret_cast<const MatrixLane *>(w.in[l]);
      auto *lo = reinterpret_cast<const MatrixLane *>(w.in[l - 16]);
      if (std::memcmp(hi->a, lo->a, bytes) != 0 ||
          std::memcmp(hi->b, lo->b, bytes) != 0)
        return fail("%s: lane %llu's A or B registers differ from lane "
                    "%llu's (gfx11 needs them replicated in both halves)",
                    info->name, l, l - 16);
    }
  }
  return nullptr;
}

} // namespace

void computeMatrix(WaveLanes &w) {
  if (w.exec == 0)
    return;
  auto laneOf = [&](uint32_t l) {
    return reinterpret_cast<const MatrixLane *>(w.in[l]);
  };
  const MatrixLane *first = laneOf(uint32_t(__builtin_ctzll(w.exec)));
  const uint32_t id = first->op, control = first->control;
  const Info *info = lookup(id);
  if (const char *why = check(w, info, id, control)) {
    for (uint32_t l = 0; l < w.size; ++l)
      w.out[l] = reinterpret_cast<uintptr_t>(why);
    return;
  }
  const Info &in = *info;
  const bool scaled = isScaled(id);
  const bool ocp = (control & FLY_EMU_MATRIX_OCP_FP8) || in.family == Family::Wmma12 ||
                   in.family == Family::Wmma1250 || scaled;
  const Elem typeA = scaled ? kScaledFormats[control & 0xFu] : in.a;
  const Elem typeB = scaled ? kScaledFormats[(control >> 8) & 0xFu] : in.b;
  const uint32_t opselA = (control >> 12) & 3u, opselB = (control >> 14) & 3u;
  const bool signA = control & FLY_EMU_MATRIX_SIGN_A;
  const bool signB = control & FLY_EMU_MATRIX_SIGN_B;
  const bool clamp = control & FLY_EMU_MATRIX_CLAMP;
  const bool opsel = control & FLY_EMU_MATRIX_OPSEL;
  const uint32_t M = in.m, N = in.n, K = in.k, blocks = in.blocks;

  // The operands as matrices (thread-local: this runs on a fiber's small
  // stack), every element read once from the lane that holds it. (gfx11's
  // replicated halves write the same values twice.)
  static thread_local std::vector<double> a, b, c;
  a.assign(size_t(blocks) * M * K, 0);
  b.assign(size_t(blocks) * K * N, 0);
  c.assign(size_t(blocks) * M * N, 0);
  const uint32_t inputsA = inputsPerLane(in, false), inputsB = inputsPerLane(in, true);
  const uint32_t accs = accumulatorsPerLane(in);
  const bool scaledMfma = scaled && !isScaledWmma(id);
  for (uint32_t l = 0; l < w.size; ++l) {
    const MatrixLane *lane = laneOf(l);
    auto *ra = static_cast<const uint8_t *>(lane->a);
    auto *rb = static_cast<const uint8_t *>(lane->b);
    auto *rc = static_cast<const uint8_t *>(lane->c);
    // A scaled MFMA's lane scales its 32 values of K by its E8M0 byte.
    const double scaleA = scaledMfma ? decodeE8M0(uint8_t(lane->scaleA >> (8 * opselA))) : 1;
    const double scaleB = scaledMfma ? decodeE8M0(uint8_t(lane->scaleB >> (8 * opselB))) : 1;
    for (uint32_t e = 0; e < inputsA; ++e) {
      Place p = inputPlace(in, typeA, l, e, false);
      a[(size_t(p.block) * M + p.row) * K + p.col] = readElem(ra, typeA, e, signA, ocp) * scaleA;
    }
    for (uint32_t e = 0; e < inputsB; ++e) {
      Place p = inputPlace(in, typeB, l, e, true);
      b[(size_t(p.block) * K + p.row) * N + p.col] = readElem(rb, typeB, e, signB, ocp) * scaleB;
    }
    for (uint32_t e = 0; e < accs; ++e) {
      Place p;
      if (accumulatorPlace(in, l, e, opsel, p))
        c[(size_t(p.block) * M + p.row) * N + p.col] = readElem(rc, in.c, e, false, ocp);
    }
  }

  // A scaled WMMA's value of row (column) i in K block j is times byte j
  // of the scale lane 16 opsel + i holds (blocks of 32 values; of 16 for
  // SCALE16, whose scales are 64 bits); 32 rows (the f4 form's A) take
  // the whole wave, row i in lane i.
  if (isScaledWmma(id)) {
    const uint32_t block = isScale16Wmma(id) ? 16 : 32;
    for (uint32_t i = 0; i < M; ++i) {
      const uint64_t word = laneOf(M == 32 ? i : 16 * opselA + i)->scaleA;
      for (uint32_t k = 0; k < K; ++k)
        a[i * K + k] *= decodeE8M0(uint8_t(word >> 8 * (k / block)));
    }
    for (uint32_t j = 0; j < N; ++j) {
      const uint64_t word = laneOf(16 * opselB + j)->scaleB;
      for (uint32_t k = 0; k < K; ++k)
        b[k * N + j] *= decodeE8M0(uint8_t(word >> 8 * (k / block)));
    }
  }

  // D = A * B + C per block, formed as if exactly and rounded once to D's
  // type when stored. The products are exact in double for every input type
  // but f64, and integer sums are exact; what double's additions (and f64
  // products) round off, TwoSum (and an FMA) recover into a second
  // accumulator, which makes the sum as accurate as one formed in twice
  // double's precision (Ogita, Rump and Oishi's Dot2). Infinities and NaNs
  // take the plain sum, which IEEE arithmetic gets right, and so do exact
  // sums (keeping the sign of a zero).
  static thread_local std::vector<double> d;
  d.assign(c.size(), 0);
  for (uint32_t blk = 0; blk < blocks; ++blk)
    for (uint32_t i = 0; i < M; ++i)
      for (uint32_t j = 0; j < N; ++j) {
        size_t at = (size_t(blk) * M + i) * N + j;
        double sum = c[at], error = 0;
        for (uint32_t k = 0; k < K; ++k) {
          double x = a[(size_t(blk) * M + i) * K + k];
          double y = b[(size_t(blk) * K + k) * N + j];
          double product = x * y;
          double next = sum + product;
          double back = next - sum;
          error += std::fma(x, y, -product) +
                   ((sum - (next - back)) + (product - back));
          sum = next;
        }
        d[at] = std::isfinite(sum) && error != 0 ? sum + error : sum;
      }

  // Scatter D. The unused halves of gfx11 16-bit registers keep C's bits.
  const uint32_t accBytes = accs * bitsOf(in.c) / 8;
  for (uint32_t l = 0; l < w.size; ++l) {
    const MatrixLane *lane = laneOf(l);
    auto *rd = static_cast<uint8_t *>(lane->d);
    if (lane->d != lane->c)
      std::memcpy(rd, lane->c, accBytes);
    for (uint32_t e = 0; e < accs; ++e) {
      Place p;
      if (accumulatorPlace(in, l, e, opsel, p))
        writeElem(rd, in.c, e, d[(size_t(p.block) * M + p.row) * N + p.col], clamp);
    }
    w.out[l] = 0;
  }
}

} // namespace fly::emu

// ---- The C ABI --------------------------------------------------------------

extern "C" void fly_emu_matrix(FlyEmuContext *ctx, uint32_t op,
                               uint32_t control, const void *a, const void *b,
                               const void *c, void *d) {
  using namespace fly::emu;
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  // In this frame, which stays put while the lane is parked.
  MatrixLane lane{op, control, a, b, c, d};
  uint64_t result = f.runner->collective(
      f, WaveOp::Matrix, reinterpret_cast<uintptr_t>(&lane), 0);
  if (result != 0)
    fly_emu_trap(ctx, reinterpret_cast<const char *>(result));
}

extern "C" void fly_emu_matrix_scale(FlyEmuContext *ctx, uint32_t op,
                                     uint32_t control, const void *a,
                                     const void *b, const void *c, void *d,
                                     uint64_t scale_a, uint64_t scale_b) {
  using namespace fly::emu;
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  MatrixLane lane{op, control, a, b, c, d, scale_a, scale_b};
  uint64_t result = f.runner->collective(
      f, WaveOp::Matrix, reinterpret_cast<uintptr_t>(&lane), 0);
  if (result != 0)
    fly_emu_trap(ctx, reinterpret_cast<const char *>(result));
}
