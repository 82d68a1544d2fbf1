//===- ROCDLToEmu.cpp - ROCDL kernels to host code for the emulator -------===//
//
// convert-rocdl-to-emu (Passes.td says what each construct becomes). The
// pass first checks the whole gpu.module and reports every construct it
// cannot lower, before it changes anything (inline asm, rewritten into the
// ROCDL and LLVM ops of its instructions first, is checked there: see
// InlineAsmToEmu.cpp); then it
//   1. lays out the LDS globals (address space 3) in one block,
//   2. moves every pointer type to address space 0 (one AttrTypeReplacer
//      sweep over values, block arguments and attributes),
//   3. gives each kernel the context argument, rewrites the ROCDL ops and
//      LDS addresses of its body in place, and builds its entry wrapper,
//   4. and, with check-alignment, precedes each of the kernel's accesses
//      to flat, global, constant and LDS memory (found before step 2, while
//      address spaces tell them apart) with a test of its alignment;
//   5. with check=bounds, precedes each such access with a call of the
//      runtime's bounds check, given a constant site (kernel, source line,
//      access kind, memory, and the kernel argument the address derives
//      from, traced through GEPs and casts), and each register-vector
//      element at a run-time index and each access through a pointer
//      traced to one alloca with a test against the vector's length or
//      the alloca's bytes (insertPrivateChecks); with check=init, each LDS
//      access marks or tests an inline shadow of the LDS; with check=race,
//      each LDS access calls the runtime's race check; with check=barrier,
//      barriers become fly_emu_barrier_checked with their site.
// The rewrites are local one-op replacements in known positions (no
// legality question, no type conversion across op boundaries left after
// the sweep), so they are done with a builder rather than a pattern driver.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/ROCDLToEmu/Passes.h"
#include "fly/runtime/Emu.h"

#include "InlineAsmToEmu.h"
#include "NumericIntrinsics.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <cstddef>
#include <functional>

namespace mlir::fly {
#define GEN_PASS_DEF_CONVERTROCDLTOEMU
#include "fly/Conversion/ROCDLToEmu/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

// The generated code runs on the host that compiles it and reads the
// FlyEmuContext of the emulator's C ABI (runtime/include/fly/runtime/Emu.h)
// with plain loads: u32 ids as i32 (align 4), pointers as `!llvm.ptr`
// (align 8); it builds FlyEmuBufferResource as the LLVM struct
// {ptr, i64, i32, i32} with natural alignment.
static_assert(sizeof(void *) == 8 && alignof(void *) == 8,
              "the emulator's code is generated for an LP64 host");
static_assert(sizeof(FlyEmuContext::work_item_id[0]) == 4 &&
                  sizeof(FlyEmuContext::workgroup_id[0]) == 4 &&
                  sizeof(FlyEmuContext::workgroup_size[0]) == 4 &&
                  sizeof(FlyEmuContext::grid_size[0]) == 4 &&
                  sizeof(FlyEmuContext::lane_id) == 4 &&
                  sizeof(FlyEmuContext::wave_id) == 4 &&
                  sizeof(FlyEmuContext::wave_size) == 4,
              "context ids are loaded as i32");
static_assert(offsetof(FlyEmuBufferResource, base) == 0 &&
                  offsetof(FlyEmuBufferResource, num_records) == 8 &&
                  offsetof(FlyEmuBufferResource, stride) == 16 &&
                  offsetof(FlyEmuBufferResource, flags) == 20 &&
                  sizeof(FlyEmuBufferResource) == 24,
              "lowerMakeBuffer builds the resource as {ptr, i64, i32, i32}");

/// FlyEmuContext byte offsets.
constexpr int32_t kCtxLaneIdOffset = offsetof(FlyEmuContext, lane_id);
constexpr int32_t kCtxLdsOffset = offsetof(FlyEmuContext, lds);
constexpr int32_t kCtxDispatchPacketOffset =
    offsetof(FlyEmuContext, dispatch_packet);
constexpr StringLiteral kDispatchPtr = "llvm.amdgcn.dispatch.ptr";
/// gfx1250's wave index in the workgroup: the context's wave id.
constexpr StringLiteral kWaveId = "llvm.amdgcn.wave.id";
constexpr int32_t kCtxWaveIdOffset = offsetof(FlyEmuContext, wave_id);
/// AMDGPU intrinsics called through llvm.call_intrinsic that the kernel
/// lowering rewrites like the ROCDL ops of their kind (classify), and
/// v_perm_b32, which needs no context (lowerPerm).
constexpr StringLiteral kUpdateDpp = "llvm.amdgcn.update.dpp";
constexpr StringLiteral kScalarBufferLoad = "llvm.amdgcn.s.buffer.load";
constexpr StringLiteral kPerm = "llvm.amdgcn.perm";
constexpr unsigned kSharedAddressSpace = 3;

/// The byte offset of element `dim` of a u32[3] field of FlyEmuContext.
constexpr int32_t ctxDim(size_t field, int32_t dim) {
  return int32_t(field) + dim * int32_t(sizeof(uint32_t));
}

constexpr StringLiteral kKernelAttr = "rocdl.kernel";
constexpr StringLiteral kEmuKernelAttr = "fly.emu.kernel";
constexpr StringLiteral kStaticLdsAttr = "fly.emu.static_lds_bytes";
constexpr StringLiteral kBarrierFn = "fly_emu_barrier";

/// What becomes of one ROCDL op.
enum class Lowering {
  CtxField,      // a load from the context
  Barrier,       // fly_emu_barrier
  Erase,         // nothing (waits, scheduling hints)
  Mbcnt,         // inline, from the context's lane id
  WaveCall,      // a wave collective of the runtime, per dword
  MakeBuffer,    // a FlyEmuBufferResource in the frame
  BufferAccess,  // fly_emu_buffer_load/store
  BufferAtomic,  // an atomic at fly_emu_buffer_atomic_address
  Matrix,        // fly_emu_matrix (MFMA, WMMA)
  LdsLoad,       // LDS DMA and transposing LDS reads (see lowerLdsLoad)
  Tensor,        // fly_emu_tensor (the gfx1250 tensor data mover)
  Convert,       // fly_emu_convert (the packed fp8 / fp4 conversions)
  Unsupported
};

struct Plan {
  Lowering kind;
  int32_t offset = 0; // CtxField: byte offset of the u32 in FlyEmuContext.
};

/// The barrier id of `rocdl.s.barrier.signal` / `.wait`: -1 is the
/// workgroup barrier, anything else a named barrier.
bool isWorkgroupBarrierId(Operation *op) {
  auto id = op->getAttrOfType<IntegerAttr>("id");
  return id && id.getValue().isAllOnes();
}

bool isBufferAtomic(Operation *op) {
  return isa<ROCDL::RawPtrBufferAtomicFaddOp, ROCDL::RawPtrBufferAtomicFmaxOp,
             ROCDL::RawPtrBufferAtomicSmaxOp, ROCDL::RawPtrBufferAtomicUminOp,
             ROCDL::RawPtrBufferAtomicCmpSwap>(op);
}

/// The matrix instructions the emulator runs: an op name and the byte sizes
/// of its A (= B) and C (= D) operands, which tell the wave32 forms of
/// gfx11 and gfx12 apart (same op names, different register counts) and
/// leave the wave64 WMMA forms out.
struct MatrixForm {
  StringLiteral name;
  FlyEmuMatrixOp id;
  uint32_t aBytes, cBytes;
  bool fp8 = false; // MFMA fp8/bf8: the format depends on the chip
  /// The scaled forms: A's and B's sizes vary with their formats, given
  /// as constant operands (gfx950's MFMA) or attributes (gfx1250's WMMA);
  /// gfx1250's f4 form has the one format fp4 and no format attributes.
  enum Scaled : uint8_t { NotScaled, ScaledMfma, ScaledWmma, ScaledWmmaF4 }
  scaled = NotScaled;
};

const MatrixForm kMatrixForms[] = {
    // CDNA3 MFMA (gfx942, gfx950), wave64.
    {"rocdl.mfma.f32.32x32x1f32", FLY_EMU_MFMA_F32_32X32X1_2B_F32, 4, 128},
    {"rocdl.mfma.f32.16x16x1f32", FLY_EMU_MFMA_F32_16X16X1_4B_F32, 4, 64},
    {"rocdl.mfma.f32.4x4x1f32", FLY_EMU_MFMA_F32_4X4X1_16B_F32, 4, 16},
    {"rocdl.mfma.f32.32x32x2f32", FLY_EMU_MFMA_F32_32X32X2_F32, 4, 64},
    {"rocdl.mfma.f32.16x16x4f32", FLY_EMU_MFMA_F32_16X16X4_F32, 4, 16},
    {"rocdl.mfma.f32.32x32x4f16", FLY_EMU_MFMA_F32_32X32X4_2B_F16, 8, 128},
    {"rocdl.mfma.f32.16x16x4f16", FLY_EMU_MFMA_F32_16X16X4_4B_F16, 8, 64},
    {"rocdl.mfma.f32.4x4x4f16", FLY_EMU_MFMA_F32_4X4X4_16B_F16, 8, 16},
    {"rocdl.mfma.f32.32x32x8f16", FLY_EMU_MFMA_F32_32X32X8_F16, 8, 64},
    {"rocdl.mfma.f32.16x16x16f16", FLY_EMU_MFMA_F32_16X16X16_F16, 8, 16},
    {"rocdl.mfma.f32.32x32x4bf16.1k", FLY_EMU_MFMA_F32_32X32X4_2B_BF16, 8, 128},
    {"rocdl.mfma.f32.16x16x4bf16.1k", FLY_EMU_MFMA_F32_16X16X4_4B_BF16, 8, 64},
    {"rocdl.mfma.f32.4x4x4bf16.1k", FLY_EMU_MFMA_F32_4X4X4_16B_BF16, 8, 16},
    {"rocdl.mfma.f32.32x32x8bf16.1k", FLY_EMU_MFMA_F32_32X32X8_BF16, 8, 64},
    {"rocdl.mfma.f32.16x16x16bf16.1k", FLY_EMU_MFMA_F32_16X16X16_BF16, 8, 16},
    {"rocdl.mfma.i32.32x32x4i8", FLY_EMU_MFMA_I32_32X32X4_2B_I8, 4, 128},
    {"rocdl.mfma.i32.16x16x4i8", FLY_EMU_MFMA_I32_16X16X4_4B_I8, 4, 64},
    {"rocdl.mfma.i32.4x4x4i8", FLY_EMU_MFMA_I32_4X4X4_16B_I8, 4, 16},
    {"rocdl.mfma.i32.32x32x16.i8", FLY_EMU_MFMA_I32_32X32X16_I8, 8, 64},
    {"rocdl.mfma.i32.16x16x32.i8", FLY_EMU_MFMA_I32_16X16X32_I8, 8, 16},
    {"rocdl.mfma.f64.16x16x4f64", FLY_EMU_MFMA_F64_16X16X4_F64, 8, 32},
    {"rocdl.mfma.f64.4x4x4f64", FLY_EMU_MFMA_F64_4X4X4_4B_F64, 8, 8},
    {"rocdl.mfma.f32.16x16x8.xf32", FLY_EMU_MFMA_F32_16X16X8_XF32, 8, 16},
    {"rocdl.mfma.f32.32x32x4.xf32", FLY_EMU_MFMA_F32_32X32X4_XF32, 8, 64},
    {"rocdl.mfma.f32.16x16x32.fp8.fp8", FLY_EMU_MFMA_F32_16X16X32_FP8_FP8, 8, 16, true},
    {"rocdl.mfma.f32.16x16x32.fp8.bf8", FLY_EMU_MFMA_F32_16X16X32_FP8_BF8, 8, 16, true},
    {"rocdl.mfma.f32.16x16x32.bf8.fp8", FLY_EMU_MFMA_F32_16X16X32_BF8_FP8, 8, 16, true},
    {"rocdl.mfma.f32.16x16x32.bf8.bf8", FLY_EMU_MFMA_F32_16X16X32_BF8_BF8, 8, 16, true},
    {"rocdl.mfma.f32.32x32x16.fp8.fp8", FLY_EMU_MFMA_F32_32X32X16_FP8_FP8, 8, 64, true},
    {"rocdl.mfma.f32.32x32x16.fp8.bf8", FLY_EMU_MFMA_F32_32X32X16_FP8_BF8, 8, 64, true},
    {"rocdl.mfma.f32.32x32x16.bf8.fp8", FLY_EMU_MFMA_F32_32X32X16_BF8_FP8, 8, 64, true},
    {"rocdl.mfma.f32.32x32x16.bf8.bf8", FLY_EMU_MFMA_F32_32X32X16_BF8_BF8, 8, 64, true},
    // CDNA4 (gfx950) only.
    {"rocdl.mfma.f32.16x16x32.f16", FLY_EMU_MFMA_F32_16X16X32_F16, 16, 16},
    {"rocdl.mfma.f32.32x32x16.f16", FLY_EMU_MFMA_F32_32X32X16_F16, 16, 64},
    {"rocdl.mfma.f32.16x16x32.bf16", FLY_EMU_MFMA_F32_16X16X32_BF16, 16, 16},
    {"rocdl.mfma.f32.32x32x16.bf16", FLY_EMU_MFMA_F32_32X32X16_BF16, 16, 64},
    {"rocdl.mfma.i32.16x16x64.i8", FLY_EMU_MFMA_I32_16X16X64_I8, 16, 16},
    {"rocdl.mfma.i32.32x32x32.i8", FLY_EMU_MFMA_I32_32X32X32_I8, 16, 64},
    // RDNA3 (gfx11) WMMA, wave32: A and B hold 16 elements.
    {"rocdl.wmma.f32.16x16x16.f16", FLY_EMU_WMMA11_F32_16X16X16_F16, 32, 32},
    {"rocdl.wmma.f32.16x16x16.bf16", FLY_EMU_WMMA11_F32_16X16X16_BF16, 32, 32},
    {"rocdl.wmma.f16.16x16x16.f16", FLY_EMU_WMMA11_F16_16X16X16_F16, 32, 32},
    {"rocdl.wmma.bf16.16x16x16.bf16", FLY_EMU_WMMA11_BF16_16X16X16_BF16, 32, 32},
    {"rocdl.wmma.i32.16x16x16.iu8", FLY_EMU_WMMA11_I32_16X16X16_IU8, 16, 32},
    {"rocdl.wmma.i32.16x16x16.iu4", FLY_EMU_WMMA11_I32_16X16X16_IU4, 8, 32},
    // RDNA4 (gfx12) WMMA, wave32: A and B hold K / 2 elements.
    {"rocdl.wmma.f32.16x16x16.f16", FLY_EMU_WMMA12_F32_16X16X16_F16, 16, 32},
    {"rocdl.wmma.f32.16x16x16.bf16", FLY_EMU_WMMA12_F32_16X16X16_BF16, 16, 32},
    {"rocdl.wmma.f16.16x16x16.f16", FLY_EMU_WMMA12_F16_16X16X16_F16, 16, 16},
    {"rocdl.wmma.bf16.16x16x16.bf16", FLY_EMU_WMMA12_BF16_16X16X16_BF16, 16, 16},
    {"rocdl.wmma.i32.16x16x16.iu8", FLY_EMU_WMMA12_I32_16X16X16_IU8, 8, 32},
    {"rocdl.wmma.i32.16x16x16.iu4", FLY_EMU_WMMA12_I32_16X16X16_IU4, 4, 32},
    {"rocdl.wmma.i32.16x16x32.iu4", FLY_EMU_WMMA12_I32_16X16X32_IU4, 8, 32},
    {"rocdl.wmma.f32.16x16x16.fp8_fp8", FLY_EMU_WMMA12_F32_16X16X16_FP8_FP8, 8, 32},
    {"rocdl.wmma.f32.16x16x16.fp8_bf8", FLY_EMU_WMMA12_F32_16X16X16_FP8_BF8, 8, 32},
    {"rocdl.wmma.f32.16x16x16.bf8_fp8", FLY_EMU_WMMA12_F32_16X16X16_BF8_FP8, 8, 32},
    {"rocdl.wmma.f32.16x16x16.bf8_bf8", FLY_EMU_WMMA12_F32_16X16X16_BF8_BF8, 8, 32},
    // gfx1250 WMMA, wave32: A and B hold K / 2 elements.
    {"rocdl.wmma.f32.16x16x4.f32", FLY_EMU_WMMA1250_F32_16X16X4_F32, 8, 32},
    {"rocdl.wmma.f32.16x16x32.f16", FLY_EMU_WMMA1250_F32_16X16X32_F16, 32, 32},
    {"rocdl.wmma.f32.16x16x32.bf16", FLY_EMU_WMMA1250_F32_16X16X32_BF16, 32, 32},
    {"rocdl.wmma.f16.16x16x32.f16", FLY_EMU_WMMA1250_F16_16X16X32_F16, 32, 16},
    {"rocdl.wmma.bf16.16x16x32.bf16", FLY_EMU_WMMA1250_BF16_16X16X32_BF16, 32, 16},
    {"rocdl.wmma.i32.16x16x64.iu8", FLY_EMU_WMMA1250_I32_16X16X64_IU8, 32, 32},
    {"rocdl.wmma.f32.16x16x64.fp8_fp8", FLY_EMU_WMMA1250_F32_16X16X64_FP8_FP8, 32, 32},
    {"rocdl.wmma.f32.16x16x64.fp8_bf8", FLY_EMU_WMMA1250_F32_16X16X64_FP8_BF8, 32, 32},
    {"rocdl.wmma.f32.16x16x64.bf8_fp8", FLY_EMU_WMMA1250_F32_16X16X64_BF8_FP8, 32, 32},
    {"rocdl.wmma.f32.16x16x64.bf8_bf8", FLY_EMU_WMMA1250_F32_16X16X64_BF8_BF8, 32, 32},
    {"rocdl.wmma.f16.16x16x64.fp8_fp8", FLY_EMU_WMMA1250_F16_16X16X64_FP8_FP8, 32, 16},
    {"rocdl.wmma.f16.16x16x64.fp8_bf8", FLY_EMU_WMMA1250_F16_16X16X64_FP8_BF8, 32, 16},
    {"rocdl.wmma.f16.16x16x64.bf8_fp8", FLY_EMU_WMMA1250_F16_16X16X64_BF8_FP8, 32, 16},
    {"rocdl.wmma.f16.16x16x64.bf8_bf8", FLY_EMU_WMMA1250_F16_16X16X64_BF8_BF8, 32, 16},
    {"rocdl.wmma.f32.16x16x128.fp8_fp8", FLY_EMU_WMMA1250_F32_16X16X128_FP8_FP8, 64, 32},
    {"rocdl.wmma.f32.16x16x128.fp8_bf8", FLY_EMU_WMMA1250_F32_16X16X128_FP8_BF8, 64, 32},
    {"rocdl.wmma.f32.16x16x128.bf8_fp8", FLY_EMU_WMMA1250_F32_16X16X128_BF8_FP8, 64, 32},
    {"rocdl.wmma.f32.16x16x128.bf8_bf8", FLY_EMU_WMMA1250_F32_16X16X128_BF8_BF8, 64, 32},
    {"rocdl.wmma.f16.16x16x128.fp8_fp8", FLY_EMU_WMMA1250_F16_16X16X128_FP8_FP8, 64, 16},
    {"rocdl.wmma.f16.16x16x128.fp8_bf8", FLY_EMU_WMMA1250_F16_16X16X128_FP8_BF8, 64, 16},
    {"rocdl.wmma.f16.16x16x128.bf8_fp8", FLY_EMU_WMMA1250_F16_16X16X128_BF8_FP8, 64, 16},
    {"rocdl.wmma.f16.16x16x128.bf8_bf8", FLY_EMU_WMMA1250_F16_16X16X128_BF8_BF8, 64, 16},
    // gfx950's scaled MFMA (fly_emu_matrix_scale): A and B are 32 values a
    // lane of the formats cbsz / blgp name, so their sizes vary.
    {"rocdl.mfma.scale.f32.16x16x128.f8f6f4", FLY_EMU_MFMA_SCALE_F32_16X16X128_F8F6F4, 0, 16, false,
     MatrixForm::ScaledMfma},
    {"rocdl.mfma.scale.f32.32x32x64.f8f6f4", FLY_EMU_MFMA_SCALE_F32_32X32X64_F8F6F4, 0, 64, false,
     MatrixForm::ScaledMfma},
    // gfx1250's MX-scaled WMMA: 64 values a lane of the formats fmtA / fmtB
    // name; E8M0 scales of 32 (scale16: 64) bits.
    {"rocdl.wmma.scale.f32.16x16x128.f8f6f4", FLY_EMU_WMMA1250_SCALE_F32_16X16X128_F8F6F4, 0, 32, false,
     MatrixForm::ScaledWmma},
    {"rocdl.wmma.scale16.f32.16x16x128.f8f6f4", FLY_EMU_WMMA1250_SCALE16_F32_16X16X128_F8F6F4, 0, 32, false,
     MatrixForm::ScaledWmma},
    // Its f4 form: A 128 fp4 values a lane (32 rows), B 64.
    {"rocdl.wmma.scale.f32.32x16x128.f4", FLY_EMU_WMMA1250_SCALE_F32_32X16X128_F4, 0, 64, false,
     MatrixForm::ScaledWmmaF4},
    {"rocdl.wmma.scale16.f32.32x16x128.f4", FLY_EMU_WMMA1250_SCALE16_F32_32X16X128_F4, 0, 64, false,
     MatrixForm::ScaledWmmaF4},
};

/// fp4's format code (cbsz / blgp, fmtA / fmtB).
constexpr int64_t kFormatFp4 = FLY_EMU_FORMAT_FP4;

/// The bytes of a scaled MMA's A or B in the format `code` (cbsz / blgp,
/// fmtA / fmtB: a FlyEmuMatrixFormat), `values` of them a lane; 0 for no
/// format.
uint64_t scaledOperandBytes(int64_t code, uint64_t values) {
  switch (code) {
  case FLY_EMU_FORMAT_FP8:
  case FLY_EMU_FORMAT_BF8:
    return values;
  case FLY_EMU_FORMAT_FP6:
  case FLY_EMU_FORMAT_BF6:
    return values * 6 / 8;
  case FLY_EMU_FORMAT_FP4:
    return values / 2;
  default:
    return 0;
  }
}

/// An integer attribute of an op (the scaled WMMA's formats and
/// modifiers), 0 when absent.
int64_t intAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getValue().getZExtValue() : 0;
}

/// A packed conversion the emulator runs: its FlyEmuConvertOp, the
/// attribute holding its selector, and whether its result depends on the
/// chip's fp8 encoding (FNUZ on gfx942, OCP on gfx950).
struct ConvertForm {
  StringLiteral name;
  FlyEmuConvertOp id;
  StringLiteral selector;
  bool fp8;
};
constexpr ConvertForm kConvertForms[] = {
    {"rocdl.cvt.f32.fp8", FLY_EMU_CVT_F32_FP8, "byteSel", true},
    {"rocdl.cvt.f32.bf8", FLY_EMU_CVT_F32_BF8, "byteSel", true},
    {"rocdl.cvt.pk.f32.fp8", FLY_EMU_CVT_PK_F32_FP8, "wordSel", true},
    {"rocdl.cvt.pk.f32.bf8", FLY_EMU_CVT_PK_F32_BF8, "wordSel", true},
    {"rocdl.cvt.pk.fp8.f32", FLY_EMU_CVT_PK_FP8_F32, "wordSel", true},
    {"rocdl.cvt.pk.bf8.f32", FLY_EMU_CVT_PK_BF8_F32, "wordSel", true},
    {"rocdl.cvt.scalef32.pk.f32.fp4", FLY_EMU_CVT_SCALEF32_PK_F32_FP4, "srcSelIndex", false},
    {"rocdl.cvt.scalef32.pk.bf16.fp4", FLY_EMU_CVT_SCALEF32_PK_BF16_FP4, "srcSelIndex", false},
    {"rocdl.cvt.scalef32.pk.fp4.f32", FLY_EMU_CVT_SCALEF32_PK_FP4_F32, "dstSelIndex", false},
};
const ConvertForm *convertForm(Operation *op) {
  for (const ConvertForm &form : kConvertForms)
    if (op->getName().getStringRef() == form.name)
      return &form;
  return nullptr;
}

bool isMatrixOp(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return llvm::any_of(kMatrixForms,
                      [&](const MatrixForm &f) { return f.name == name; });
}

bool isMfma(Operation *op) {
  return op->getName().getStringRef().starts_with("rocdl.mfma.");
}

/// The form of a matrix op its operand sizes select, or null.
const MatrixForm *matrixForm(Operation *op, const DataLayout &layout) {
  if (op->getNumOperands() < 3 || op->getNumResults() != 1)
    return nullptr;
  StringRef name = op->getName().getStringRef();
  uint64_t a = layout.getTypeSize(op->getOperand(0).getType());
  uint64_t b = layout.getTypeSize(op->getOperand(1).getType());
  uint64_t c = layout.getTypeSize(op->getOperand(2).getType());
  uint64_t d = layout.getTypeSize(op->getResult(0).getType());
  for (const MatrixForm &f : kMatrixForms)
    if (f.name == name && (f.scaled || (f.aBytes == a && f.aBytes == b)) &&
        f.cBytes == c && f.cBytes == d)
      return &f;
  return nullptr;
}

/// A constant i32 operand (MFMA's cbsz, abid, blgp), or -1.
int64_t constantOperand(Operation *op, unsigned index) {
  APInt value;
  if (index < op->getNumOperands() &&
      matchPattern(op->getOperand(index), m_ConstantInt(&value)))
    return value.getZExtValue();
  return -1;
}

/// A unit flag of a WMMA op (`opsel`, `signA`, `signB`, `clamp`).
bool flagAttr(Operation *op, StringRef name) {
  Attribute attr = op->getAttr(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return !i.getValue().isZero();
  return false;
}

/// The chip a gpu.module's kernels run on, when the pass is told: its
/// `chip` option, else the module's #rocdl.target. MFMA fp8/bf8 formats and
/// inline asm need it.
std::string moduleChip(gpu::GPUModuleOp module, StringRef option) {
  if (!option.empty())
    return option.str();
  if (ArrayAttr targets = module ? module.getTargetsAttr() : ArrayAttr())
    for (Attribute target : targets)
      if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(target))
        return rocdl.getChip().str();
  return "";
}

/// The chip a matrix op runs on (moduleChip).
std::string matrixChip(Operation *op, StringRef option) {
  return moduleChip(op->getParentOfType<gpu::GPUModuleOp>(), option);
}

/// The loads that write LDS without registers (the LDS DMA) and the
/// transposing LDS reads of gfx950.
bool isLdsDma(Operation *op) {
  return isa<ROCDL::RawPtrBufferLoadLdsOp, ROCDL::GlobalLoadLDSOp>(op);
}

/// The element bits and the bytes per lane of a transposing LDS read, or
/// {0, 0} for another op.
std::pair<uint32_t, uint32_t> ldsTransposeForm(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "rocdl.ds.read.tr16.b64")
    return {16, 8};
  if (name == "rocdl.ds.read.tr8.b64")
    return {8, 8};
  if (name == "rocdl.ds.read.tr4.b64")
    return {4, 8};
  if (name == "rocdl.ds.read.tr6.b96")
    return {6, 12};
  return {0, 0};
}

bool isLdsLoad(Operation *op) {
  return isLdsDma(op) || ldsTransposeForm(op).first != 0;
}

/// An LDS DMA's bytes per lane and its offset field: constant operands of
/// the buffer form, attributes of the global one; -1 when not constant.
std::pair<int64_t, int64_t> ldsDmaSizeAndOffset(Operation *op) {
  auto attr = [&](StringRef name) -> int64_t {
    auto value = dyn_cast_or_null<IntegerAttr>(op->getAttr(name));
    return value ? value.getInt() : -1;
  };
  if (isa<ROCDL::GlobalLoadLDSOp>(op))
    return {attr("size"), attr("offset")};
  APInt size, offset;
  return {matchPattern(op->getOperand(2), m_ConstantInt(&size))
              ? size.getSExtValue()
              : -1,
          matchPattern(op->getOperand(5), m_ConstantInt(&offset))
              ? offset.getSExtValue()
              : -1};
}

/// Whether `op` calls the intrinsic `base` (with or without its type
/// suffix: llvm.amdgcn.update.dpp.i32).
bool callsIntrinsic(Operation *op, StringRef base) {
  auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op);
  if (!intr)
    return false;
  StringRef name = intr.getIntrin();
  return name.consume_front(base) && (name.empty() || name.starts_with("."));
}

Plan classify(Operation *op) {
  if (isa<LLVM::CallIntrinsicOp>(op)) {
    if (callsIntrinsic(op, kUpdateDpp))
      return {Lowering::WaveCall};
    if (callsIntrinsic(op, kScalarBufferLoad))
      return {Lowering::BufferAccess};
    return {Lowering::Unsupported};
  }
  static const llvm::StringMap<int32_t> fields = {
      {"rocdl.workitem.id.x", ctxDim(offsetof(FlyEmuContext, work_item_id), 0)},
      {"rocdl.workitem.id.y", ctxDim(offsetof(FlyEmuContext, work_item_id), 1)},
      {"rocdl.workitem.id.z", ctxDim(offsetof(FlyEmuContext, work_item_id), 2)},
      {"rocdl.workgroup.id.x", ctxDim(offsetof(FlyEmuContext, workgroup_id), 0)},
      {"rocdl.workgroup.id.y", ctxDim(offsetof(FlyEmuContext, workgroup_id), 1)},
      {"rocdl.workgroup.id.z", ctxDim(offsetof(FlyEmuContext, workgroup_id), 2)},
      {"rocdl.workgroup.dim.x",
       ctxDim(offsetof(FlyEmuContext, workgroup_size), 0)},
      {"rocdl.workgroup.dim.y",
       ctxDim(offsetof(FlyEmuContext, workgroup_size), 1)},
      {"rocdl.workgroup.dim.z",
       ctxDim(offsetof(FlyEmuContext, workgroup_size), 2)},
      {"rocdl.grid.dim.x", ctxDim(offsetof(FlyEmuContext, grid_size), 0)},
      {"rocdl.grid.dim.y", ctxDim(offsetof(FlyEmuContext, grid_size), 1)},
      {"rocdl.grid.dim.z", ctxDim(offsetof(FlyEmuContext, grid_size), 2)},
      {"rocdl.wavefrontsize", offsetof(FlyEmuContext, wave_size)},
  };
  StringRef name = op->getName().getStringRef();
  if (auto it = fields.find(name); it != fields.end())
    return {Lowering::CtxField, it->second};
  if (name == "rocdl.barrier" || name == "rocdl.s.barrier")
    return {Lowering::Barrier};
  if (name == "rocdl.s.barrier.wait")
    return {isWorkgroupBarrierId(op) ? Lowering::Barrier
                                     : Lowering::Unsupported};
  if (name == "rocdl.s.barrier.signal")
    return {isWorkgroupBarrierId(op) ? Lowering::Erase
                                     : Lowering::Unsupported};
  if (llvm::is_contained(
          {"rocdl.s.waitcnt", "rocdl.s.wait.dscnt", "rocdl.s.wait.loadcnt",
           "rocdl.s.wait.storecnt", "rocdl.s.wait.expcnt",
           "rocdl.sched.barrier", "rocdl.s.setprio", "rocdl.s.sleep",
           "rocdl.s.nop",
           // Scheduling groups and the gfx1250 async wait: ordering only.
           "rocdl.sched.group.barrier", "rocdl.iglp.opt",
           "rocdl.s.wait.asynccnt",
           // The emulator's tensor copies complete at once.
           "rocdl.s.wait.tensorcnt"},
          name))
    return {Lowering::Erase};
  if (isa<ROCDL::MbcntLoOp, ROCDL::MbcntHiOp>(op))
    return {Lowering::Mbcnt};
  if (isa<ROCDL::DsBpermuteOp, ROCDL::DsSwizzleOp, ROCDL::ReadlaneOp,
          ROCDL::ReadfirstlaneOp, ROCDL::BallotOp, ROCDL::DPPUpdateOp,
          ROCDL::PermlaneX16Op, ROCDL::Permlane16SwapOp,
          ROCDL::Permlane32SwapOp>(op))
    return {Lowering::WaveCall};
  if (isa<ROCDL::MakeBufferRsrcOp>(op))
    return {Lowering::MakeBuffer};
  if (isa<ROCDL::RawPtrBufferLoadOp, ROCDL::RawPtrBufferStoreOp>(op))
    return {Lowering::BufferAccess};
  if (isBufferAtomic(op))
    return {Lowering::BufferAtomic};
  if (isMatrixOp(op))
    return {Lowering::Matrix};
  if (isLdsLoad(op))
    return {Lowering::LdsLoad};
  if (isa<ROCDL::TensorLoadToLDSOp, ROCDL::TensorStoreFromLDSOp,
          ROCDL::TensorLoadToLDSD2Op, ROCDL::TensorStoreFromLDSD2Op>(op))
    return {Lowering::Tensor};
  if (convertForm(op))
    return {Lowering::Convert};
  return {Lowering::Unsupported};
}

/// Bits of a value that travels through 32-bit lane exchanges (integers,
/// floats, pointers, vectors of them); 0 when it cannot.
unsigned laneValueBits(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 64;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  if (auto vector = dyn_cast<VectorType>(type))
    if (vector.getRank() == 1 && !vector.isScalable() &&
        vector.getElementType().isIntOrFloat())
      return vector.getNumElements() *
             vector.getElementType().getIntOrFloatBitWidth();
  return 0;
}

/// Why a call of update.dpp or s.buffer.load (classify's intrinsics)
/// cannot be lowered, or "".
std::string unsupportedIntrinsicForm(LLVM::CallIntrinsicOp op,
                                     const DataLayout &layout) {
  if (op.getNumResults() != 1)
    return "has no result";
  Type type = op.getResult(0).getType();
  if (callsIntrinsic(op, kUpdateDpp)) {
    if (op.getNumOperands() != 6)
      return "does not have update.dpp's operands (old, src, dpp_ctrl, "
             "row_mask, bank_mask, bound_ctrl)";
    if (laneValueBits(type) != 32 || op.getOperand(0).getType() != type ||
        op.getOperand(1).getType() != type)
      return "moves a value that is not 32 bits (or old, src and the result "
             "differ in type)";
    for (unsigned i = 2; i < 6; ++i)
      if (constantOperand(op, i) < 0)
        return "has a dpp_ctrl, row_mask, bank_mask or bound_ctrl that is not "
               "a constant";
    if (constantOperand(op, 2) > 0x1ff || constantOperand(op, 3) > 0xf ||
        constantOperand(op, 4) > 0xf)
      return "has a dpp_ctrl past 9 bits or a row_mask or bank_mask past 4 "
             "bits";
    return "";
  }
  if (op.getNumOperands() != 3)
    return "does not have s.buffer.load's operands (rsrc, offset, "
           "cachepolicy)";
  Type rsrc = op.getOperand(0).getType();
  auto words = dyn_cast<VectorType>(rsrc);
  if (!isa<LLVM::LLVMPointerType>(rsrc) &&
      !(words && words.getRank() == 1 && words.getNumElements() == 4 &&
        words.getElementType().isInteger(32)))
    return "has a resource that is neither vector<4xi32> nor a buffer "
           "resource pointer";
  uint64_t bytes = layout.getTypeSize(type);
  if (bytes == 0 || bytes % 4 != 0 || bytes > 64)
    return "loads a value that is not 1 to 16 dwords";
  return "";
}

/// Why a ROCDL op the pass knows still cannot be lowered, or "".
/// `chip`: the pass's chip option.
std::string unsupportedForm(Operation *op, const DataLayout &layout,
                            StringRef chip) {
  if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op))
    return unsupportedIntrinsicForm(intr, layout);
  if (isMatrixOp(op)) {
    const MatrixForm *form = matrixForm(op, layout);
    if (!form)
      return "has operand types of no form the emulator runs (MFMA: CDNA3's; "
             "WMMA: the wave32 forms of gfx11, gfx12 and gfx1250)";
    // The registers' bytes (vector<6xi32> has 24; its data-layout size is
    // a power of two).
    auto registerBytes = [](Type type) -> uint64_t {
      auto vector = dyn_cast<VectorType>(type);
      return vector && vector.getElementType().isInteger(32)
                 ? 4 * vector.getNumElements()
                 : 0;
    };
    auto sizesFit = [&](int64_t formatA, int64_t formatB, uint64_t valuesA,
                        uint64_t valuesB) {
      return scaledOperandBytes(formatA, valuesA) ==
                 registerBytes(op->getOperand(0).getType()) &&
             scaledOperandBytes(formatB, valuesB) ==
                 registerBytes(op->getOperand(1).getType());
    };
    if (form->scaled == MatrixForm::ScaledMfma) {
      for (unsigned i : {3u, 4u, 5u, 7u})
        if (constantOperand(op, i) < 0)
          return "has a format (cbsz, blgp) or opsel operand that is not a "
                 "constant";
      if (!sizesFit(constantOperand(op, 3), constantOperand(op, 4), 32, 32))
        return "has A or B registers of a size its formats (cbsz, blgp) do "
               "not take: 32 bytes for fp8/bf8, 24 for fp6/bf6, 16 for fp4";
    } else if (form->scaled == MatrixForm::ScaledWmma ||
               form->scaled == MatrixForm::ScaledWmmaF4) {
      if (form->scaled == MatrixForm::ScaledWmma &&
          !sizesFit(intAttr(op, "fmtA"), intAttr(op, "fmtB"), 64, 64))
        return "has A or B registers of a size its formats (fmtA, fmtB) do "
               "not take: 64 bytes for fp8/bf8, 48 for fp6/bf6, 32 for fp4";
      if (form->scaled == MatrixForm::ScaledWmmaF4 &&
          !sizesFit(kFormatFp4, kFormatFp4, 128, 64))
        return "has A or B registers of a size it does not take: 64 bytes "
               "of A (128 fp4 values), 32 of B (64)";
      if (intAttr(op, "fmtScaleA") != 0 || intAttr(op, "fmtScaleB") != 0)
        return "has scales of a format the emulator does not run (fmtScaleA, "
               "fmtScaleB: only 0, E8M0)";
      if (intAttr(op, "modC") != 0)
        return "has a C modifier (modC), which the emulator does not run";
      if (intAttr(op, "scaleAType") > 1 || intAttr(op, "scaleBType") > 1)
        return "has a scale selector (scaleAType, scaleBType) other than 0 "
               "(lanes 0-15) or 1 (lanes 16-31)";
      if (form->scaled == MatrixForm::ScaledWmmaF4 &&
          intAttr(op, "scaleAType") != 0)
        return "has scaleAType 1: the scales of A's 32 rows fill the wave "
               "(row i in lane i), so it is 0";
    } else if (isMfma(op))
      for (unsigned i = 3; i < 6; ++i)
        if (constantOperand(op, i) < 0)
          return "has a cbsz, abid or blgp operand that is not a constant";
    if (form->fp8 && matrixChip(op, chip).empty())
      return "needs the chip to pick its fp8/bf8 formats (gfx942: FNUZ, "
             "gfx950: OCP): give the pass chip=... or the gpu.module a "
             "#rocdl.target";
    return "";
  }
  if (const ConvertForm *form = convertForm(op))
    if (form->fp8 && matrixChip(op, chip).empty())
      return "needs the chip to pick its fp8/bf8 formats (gfx942: FNUZ, "
             "gfx950: OCP): give the pass chip=... or the gpu.module a "
             "#rocdl.target";
  if (isa<ROCDL::ReadlaneOp, ROCDL::ReadfirstlaneOp>(op)) {
    unsigned bits = laneValueBits(op->getResult(0).getType());
    if (bits == 0 || (bits > 32 && bits % 32 != 0))
      return "exchanges a value that is neither 32 bits or less nor a whole "
             "number of 32-bit words";
  }
  if (isa<ROCDL::DPPUpdateOp, ROCDL::PermlaneX16Op>(op) &&
      laneValueBits(op->getResult(0).getType()) != 32)
    return "moves a value that is not 32 bits";
  if (isLdsDma(op)) {
    auto [size, offset] = ldsDmaSizeAndOffset(op);
    if (!llvm::is_contained({1, 2, 4, 12, 16}, size))
      return "moves a size per lane that is not a constant 1, 2, 4, 12 or 16 "
             "bytes";
    if (offset < 0)
      return "has an offset that is not a constant";
  }
  auto accessBytes = [&](Type type) { return layout.getTypeSize(type); };
  if (auto load = dyn_cast<ROCDL::RawPtrBufferLoadOp>(op))
    if (uint64_t bytes = accessBytes(load.getRes().getType());
        bytes == 0 || bytes > 16)
      return "loads a value that is not 1 to 16 bytes";
  if (auto store = dyn_cast<ROCDL::RawPtrBufferStoreOp>(op))
    if (uint64_t bytes = accessBytes(store.getVdata().getType());
        bytes == 0 || bytes > 16)
      return "stores a value that is not 1 to 16 bytes";
  if (auto cas = dyn_cast<ROCDL::RawPtrBufferAtomicCmpSwap>(op)) {
    Type type = cas.getRes().getType();
    if (!isa<IntegerType>(type) || accessBytes(type) > 8)
      return "compares and swaps a value that is not an integer of at most "
             "64 bits";
  } else if (isBufferAtomic(op)) {
    Type type = op->getOperand(0).getType();
    bool floatOp = isa<ROCDL::RawPtrBufferAtomicFaddOp,
                       ROCDL::RawPtrBufferAtomicFmaxOp>(op);
    if (floatOp ? !isa<FloatType>(type) : !isa<IntegerType>(type))
      return floatOp ? "is a float atomic on a value that is not a scalar "
                       "float"
                     : "is an integer atomic on a value that is not an "
                       "integer";
  }
  return "";
}

bool isRocdlOp(Operation *op) {
  return op->getName().getDialectNamespace() == "rocdl";
}

bool isKernel(LLVM::LLVMFuncOp func) {
  return func->hasAttr(kKernelAttr) && !func.isExternal();
}

bool isShared(LLVM::GlobalOp global) {
  return global.getAddrSpace() == kSharedAddressSpace;
}

/// Buffer fat pointers (address space 7) and strided buffer pointers (9)
/// have no host equivalent yet; buffer resources (8) become pointers to a
/// FlyEmuBufferResource.
bool hasBufferPointer(Type type) {
  bool found = false;
  type.walk([&](LLVM::LLVMPointerType ptr) {
    unsigned as = ptr.getAddressSpace();
    found |= as == 7 || as == 9;
  });
  return found;
}

/// AMDGPU intrinsics called through llvm.call_intrinsic that have a host
/// equivalent (the front end's fx.math uses them; the numeric ones are
/// NumericIntrinsics.cpp's).
bool isEmulatedIntrinsic(LLVM::CallIntrinsicOp op) {
  if (op.getIntrin() == "llvm.amdgcn.cvt.sr.bf16.f32")
    return op.getNumOperands() == 4 && op.getNumResults() == 1;
  if (op.getIntrin() == kPerm)
    return op.getNumOperands() == 3 && op.getNumResults() == 1 &&
           llvm::all_of(op->getOperandTypes(),
                        [](Type t) { return t.isInteger(32); }) &&
           op.getResult(0).getType().isInteger(32);
  return fly::isNumericInstruction(op);
}

/// A device function the host cannot link. The device library's printf
/// ABI (what gpu.printf becomes) the emulator's launch table provides.
bool isDeviceOnlyCallee(StringRef callee) {
  if (llvm::is_contained({"__ockl_printf_begin", "__ockl_printf_append_args",
                          "__ockl_printf_append_string_n"},
                         callee))
    return false;
  return callee.starts_with("llvm.amdgcn.") ||
         callee.starts_with("__ockl_") || callee.starts_with("__ocml_");
}

/// LDS is uninitialised: only undef or poison initialisers are meaningful.
bool hasRealInitializer(LLVM::GlobalOp global) {
  if (global.getValueAttr())
    return true;
  Block *init = global.getInitializerBlock();
  if (!init)
    return false;
  return !llvm::all_of(*init, [](Operation &op) {
    return isa<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ReturnOp>(op);
  });
}

/// A kernel's load, store or atomic in flat, global, constant or LDS
/// memory, with the alignment its code declares: the `align` the backend
/// chose the instruction by (the type's ABI alignment when none is given).
/// An address that breaks it is undefined behaviour in LLVM IR, and on the
/// GPU a wrong result or a fault, while the host tolerates it: the
/// emulator checks it.
struct AlignedAccess {
  Operation *op; // its address is memoryAccess(op)->address
  uint64_t align;
  std::string what; // "global load of 16 bytes at <file:line:col>"
};

/// The first file:line:col in `loc` (through fused and call-site
/// locations), or "".
std::string sourceLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// The alignment LLVM gives an access of `type` that declares none: the
/// ABI alignment of the AMDGPU data layout, which for scalars, pointers and
/// vectors (up to 256 bytes) is their size rounded up to a power of two.
/// (MLIR's default data layout, which the gpu.module's llvm.data_layout
/// string does not feed, would say 4 for an i64.)
uint64_t implicitAlignment(Type type, const DataLayout &layout) {
  if (isa<IntegerType, FloatType, VectorType, LLVM::LLVMPointerType>(type))
    return std::min<uint64_t>(
        llvm::PowerOf2Ceil(layout.getTypeSize(type).getFixedValue()), 256);
  return layout.getTypeABIAlignment(type);
}

/// A memory operation's address, the type it moves and its declared
/// alignment.
struct MemoryAccess {
  Value address;
  Type type;
  std::optional<uint64_t> align;
  StringRef kind;
};

std::optional<MemoryAccess> memoryAccess(Operation *op) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return MemoryAccess{load.getAddr(), load.getType(), load.getAlignment(),
                        "load"};
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return MemoryAccess{store.getAddr(), store.getValue().getType(),
                        store.getAlignment(), "store"};
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    return MemoryAccess{rmw.getPtr(), rmw.getVal().getType(),
                        rmw.getAlignment(), "atomic"};
  if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    return MemoryAccess{cas.getPtr(), cas.getVal().getType(),
                        cas.getAlignment(), "compare-and-swap"};
  return std::nullopt;
}

/// Makes memoryAccess's operation `op` access `address` instead.
void setAccessAddress(Operation *op, Value address) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    load.getAddrMutable().assign(address);
  else if (auto store = dyn_cast<LLVM::StoreOp>(op))
    store.getAddrMutable().assign(address);
  else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    rmw.getPtrMutable().assign(address);
  else
    cast<LLVM::AtomicCmpXchgOp>(op).getPtrMutable().assign(address);
}

/// The accesses of `kernel` that need an alignment check; address spaces
/// must still be those of the kernel (private memory, 5, is the host's own
/// frame and is not checked).
SmallVector<AlignedAccess> alignedAccesses(LLVM::LLVMFuncOp kernel,
                                           const DataLayout &layout) {
  SmallVector<AlignedAccess> accesses;
  kernel.walk([&](Operation *op) {
    std::optional<MemoryAccess> access = memoryAccess(op);
    if (!access)
      return;
    auto ptr = dyn_cast<LLVM::LLVMPointerType>(access->address.getType());
    if (!ptr)
      return;
    StringRef space;
    switch (ptr.getAddressSpace()) {
    case 0: space = "flat"; break;
    case 1: space = "global"; break;
    case 3: space = "LDS"; break;
    case 4: space = "constant"; break;
    default: return;
    }
    uint64_t need = access->align && *access->align
                        ? *access->align
                        : implicitAlignment(access->type, layout);
    if (need <= 1)
      return;
    std::string what =
        (space + " " + access->kind + " of " +
         Twine(layout.getTypeSize(access->type).getFixedValue()) + " bytes")
            .str();
    if (std::string where = sourceLocation(op->getLoc()); !where.empty())
      what += " at " + where;
    accesses.push_back({op, need, std::move(what)});
  });
  return accesses;
}

/// The first file:line in `loc`, or "": where a check report points.
std::string sourceLine(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine())).str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// Where a pointer comes from, as far as GEPs, casts, selects and block
/// arguments show it.
struct PointerRoot {
  enum Kind { Unknown, Argument, Lds, OtherGlobal, Private } kind = Unknown;
  int32_t argument = -1;
  StringAttr global; // the LDS global, for kind Lds
  // The alloca, for kind Private (null: one of several).
  Operation *alloca = nullptr;
  bool operator==(const PointerRoot &o) const {
    return kind == o.kind && argument == o.argument && global == o.global &&
           alloca == o.alloca;
  }
};

class Provenance {
public:
  Provenance(LLVM::LLVMFuncOp kernel, SymbolTable &symbols)
      : entry(&kernel.getBody().front()), symbols(symbols) {}

  PointerRoot of(Value v) {
    std::optional<PointerRoot> root = walk(v, 0);
    return root ? *root : PointerRoot{};
  }

private:
  // nullopt: no information (a cycle through a block argument).
  std::optional<PointerRoot> walk(Value v, unsigned depth) {
    if (depth > 64)
      return PointerRoot{};
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    if (!visiting.insert(v).second)
      return std::nullopt;
    std::optional<PointerRoot> root = compute(v, depth);
    visiting.erase(v);
    if (root)
      cache[v] = *root;
    return root;
  }

  static std::optional<PointerRoot> meet(std::optional<PointerRoot> a,
                                         std::optional<PointerRoot> b) {
    if (!a)
      return b;
    if (!b)
      return a;
    if (a->kind == PointerRoot::Private && b->kind == PointerRoot::Private &&
        a->alloca != b->alloca)
      return PointerRoot{PointerRoot::Private};
    return *a == *b ? a : std::optional<PointerRoot>(PointerRoot{});
  }

  std::optional<PointerRoot> compute(Value v, unsigned depth) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *block = arg.getOwner();
      if (block == entry)
        return PointerRoot{PointerRoot::Argument, int32_t(arg.getArgNumber())};
      std::optional<PointerRoot> root;
      for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
        auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
        if (!branch)
          return PointerRoot{};
        for (unsigned i = 0; i < branch->getNumSuccessors(); ++i) {
          if (branch->getSuccessor(i) != block)
            continue;
          Value in = branch.getSuccessorOperands(i)[arg.getArgNumber()];
          if (!in)
            return PointerRoot{};
          root = meet(root, walk(in, depth + 1));
        }
      }
      return root;
    }
    Operation *op = v.getDefiningOp();
    if (auto gep = dyn_cast<LLVM::GEPOp>(op))
      return walk(gep.getBase(), depth + 1);
    if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op))
      return walk(cast.getArg(), depth + 1);
    if (auto cast = dyn_cast<LLVM::BitcastOp>(op))
      return walk(cast.getArg(), depth + 1);
    if (auto select = dyn_cast<LLVM::SelectOp>(op))
      return meet(walk(select.getTrueValue(), depth + 1),
                  walk(select.getFalseValue(), depth + 1));
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          symbols.lookup(addr.getGlobalName()));
      if (global && isShared(global))
        return PointerRoot{PointerRoot::Lds, -1, global.getSymNameAttr()};
      return PointerRoot{PointerRoot::OtherGlobal};
    }
    if (isa<LLVM::AllocaOp>(op))
      return PointerRoot{PointerRoot::Private, -1, {}, op};
    return PointerRoot{};
  }

  Block *entry;
  SymbolTable &symbols;
  llvm::DenseMap<Value, PointerRoot> cache;
  llvm::DenseSet<Value> visiting;
};

/// The bytes an access of `type` touches: a vector's elements (a
/// vector<3xf32> is 12 bytes, though the data layout rounds its size up to
/// 16).
uint64_t accessBytes(Type type, const DataLayout &layout) {
  if (auto vector = dyn_cast<VectorType>(type))
    if (!vector.isScalable())
      return (uint64_t(vector.getNumElements()) *
                  layout.getTypeSizeInBits(vector.getElementType())
                      .getFixedValue() +
              7) /
             8;
  return layout.getTypeSize(type).getFixedValue();
}

/// An access the bounds check precedes.
struct CheckedAccess {
  Operation *op;
  uint32_t kind;  // FlyEmuAccessKind
  uint32_t space; // FLY_EMU_SPACE_*
  int32_t argument;
  uint64_t bytes;
  StringAttr allocation; // the LDS global an LDS access derives from, or null
};

/// The accesses of `kernel` (address spaces still the kernel's) that the
/// bounds check covers: global, flat, constant and LDS ones, but those
/// whose address is a private alloca's or a module global's (not LDS).
SmallVector<CheckedAccess> checkedAccesses(LLVM::LLVMFuncOp kernel,
                                           const DataLayout &layout,
                                           SymbolTable &symbols) {
  SmallVector<CheckedAccess> accesses;
  Provenance provenance(kernel, symbols);
  kernel.walk([&](Operation *op) {
    std::optional<MemoryAccess> access = memoryAccess(op);
    if (!access)
      return;
    auto ptr = dyn_cast<LLVM::LLVMPointerType>(access->address.getType());
    if (!ptr)
      return;
    unsigned space = ptr.getAddressSpace();
    if (space != 0 && space != 1 && space != 3 && space != 4)
      return;
    PointerRoot root = provenance.of(access->address);
    if (root.kind == PointerRoot::OtherGlobal ||
        root.kind == PointerRoot::Private)
      return;
    uint32_t kind = isa<LLVM::LoadOp>(op)    ? FLY_EMU_ACCESS_LOAD
                    : isa<LLVM::StoreOp>(op) ? FLY_EMU_ACCESS_STORE
                                             : FLY_EMU_ACCESS_ATOMIC;
    bool lds = root.kind == PointerRoot::Lds ||
               (root.kind == PointerRoot::Unknown && space == 3);
    int32_t argument = -1;
    if (root.kind == PointerRoot::Argument &&
        isa<LLVM::LLVMPointerType>(
            kernel.getArgument(root.argument).getType()))
      argument = root.argument;
    accesses.push_back({op, kind, lds ? FLY_EMU_SPACE_LDS : FLY_EMU_SPACE_GLOBAL,
                        argument, accessBytes(access->type, layout),
                        root.kind == PointerRoot::Lds ? root.global
                                                      : StringAttr()});
  });
  return accesses;
}

/// What the bounds check of a work-item's own memory precedes: an element
/// of a register vector taken or replaced at an index that is not a
/// constant in range, or a load, store or atomic through a pointer derived
/// from one alloca of static size and not at a constant offset inside it.
struct PrivateAccess {
  Operation *op;
  uint32_t kind; // FlyEmuAccessKind (FLY_EMU_ACCESS_FRAGMENT_*: a vector)
  // A vector: its length; an access: the bytes it touches.
  uint64_t bytes;
  bool outside = false; // a constant index or offset out of range
  // An access: the alloca, its bytes and its name in reports.
  Operation *alloca = nullptr;
  uint64_t extent = 0;
  std::string allocation;
};

/// The constant byte offset of `v` from `base` along GEPs (constant
/// indices through arrays) and casts, or nullopt.
std::optional<int64_t> constantOffset(Value v, Value base,
                                      const DataLayout &layout) {
  int64_t offset = 0;
  for (unsigned depth = 0; v != base; ++depth) {
    Operation *op = v.getDefiningOp();
    if (!op || depth > 64)
      return std::nullopt;
    if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      v = cast.getArg();
      continue;
    }
    if (auto cast = dyn_cast<LLVM::BitcastOp>(op)) {
      v = cast.getArg();
      continue;
    }
    auto gep = dyn_cast<LLVM::GEPOp>(op);
    if (!gep)
      return std::nullopt;
    Type type = gep.getElemType();
    bool first = true;
    for (auto index : gep.getIndices()) {
      int64_t i;
      if (auto attr = dyn_cast<IntegerAttr>(index)) {
        i = attr.getValue().getSExtValue();
      } else {
        APInt value;
        if (!matchPattern(cast<Value>(index), m_ConstantInt(&value)) ||
            value.getSignificantBits() > 64)
          return std::nullopt;
        i = value.getSExtValue();
      }
      if (!first) {
        auto array = dyn_cast<LLVM::LLVMArrayType>(type);
        if (!array)
          return std::nullopt; // a struct field, a vector lane
        type = array.getElementType();
      }
      first = false;
      int64_t step;
      if (llvm::MulOverflow(i, int64_t(layout.getTypeSize(type).getFixedValue()),
                            step) ||
          llvm::AddOverflow(offset, step, offset))
        return std::nullopt;
    }
    v = gep.getBase();
  }
  return offset;
}

/// The register-vector indices and alloca accesses of `kernel` that the
/// bounds check covers (PrivateAccess). An alloca is named in reports by
/// its order in the kernel and its line: "alloca #2 at k.py:7".
SmallVector<PrivateAccess> privateAccesses(LLVM::LLVMFuncOp kernel,
                                           const DataLayout &layout,
                                           SymbolTable &symbols) {
  SmallVector<PrivateAccess> accesses;
  // Each alloca's bytes (0: not a static size the check can hold) and name.
  llvm::DenseMap<Operation *, std::pair<uint64_t, std::string>> allocas;
  kernel.walk([&](LLVM::AllocaOp alloca) {
    std::string name = "alloca #" + std::to_string(allocas.size() + 1);
    if (std::string line = sourceLine(alloca.getLoc()); !line.empty())
      name += " at " + line;
    APInt count;
    uint64_t bytes = 0;
    if (matchPattern(alloca.getArraySize(), m_ConstantInt(&count)) &&
        count.getActiveBits() <= 32) {
      uint64_t total = count.getZExtValue() *
                       layout.getTypeSize(alloca.getElemType()).getFixedValue();
      if (total < UINT32_MAX)
        bytes = total;
    }
    allocas[alloca] = {bytes, std::move(name)};
  });
  Provenance provenance(kernel, symbols);
  kernel.walk([&](Operation *op) {
    if (isa<LLVM::ExtractElementOp, LLVM::InsertElementOp>(op)) {
      auto extract = dyn_cast<LLVM::ExtractElementOp>(op);
      auto insert = dyn_cast<LLVM::InsertElementOp>(op);
      auto vector = dyn_cast<VectorType>(extract ? extract.getVector().getType()
                                                 : insert.getVector().getType());
      Value index = extract ? extract.getPosition() : insert.getPosition();
      auto indexType = dyn_cast<IntegerType>(index.getType());
      if (!vector || vector.isScalable() || vector.getRank() != 1 || !indexType)
        return;
      const uint64_t length = uint64_t(vector.getNumElements());
      // An index type too narrow to reach the length is always in range.
      if (indexType.getWidth() < 64 &&
          length >= (uint64_t(1) << indexType.getWidth()))
        return;
      APInt value;
      bool constant = matchPattern(index, m_ConstantInt(&value));
      if (constant && value.ult(length))
        return;
      accesses.push_back({op,
                          extract ? uint32_t(FLY_EMU_ACCESS_FRAGMENT_READ)
                                  : uint32_t(FLY_EMU_ACCESS_FRAGMENT_WRITE),
                          length, constant});
      return;
    }
    std::optional<MemoryAccess> access = memoryAccess(op);
    if (!access || !isa<LLVM::LLVMPointerType>(access->address.getType()))
      return;
    PointerRoot root = provenance.of(access->address);
    if (root.kind != PointerRoot::Private || !root.alloca)
      return;
    auto it = allocas.find(root.alloca);
    if (it == allocas.end() || it->second.first == 0)
      return;
    const uint64_t extent = it->second.first;
    const uint64_t bytes = accessBytes(access->type, layout);
    std::optional<int64_t> offset =
        constantOffset(access->address, root.alloca->getResult(0), layout);
    if (offset && *offset >= 0 && uint64_t(*offset) <= extent &&
        bytes <= extent - uint64_t(*offset))
      return;
    uint32_t kind = isa<LLVM::LoadOp>(op)    ? FLY_EMU_ACCESS_LOAD
                    : isa<LLVM::StoreOp>(op) ? FLY_EMU_ACCESS_STORE
                                             : FLY_EMU_ACCESS_ATOMIC;
    accesses.push_back({op, kind, bytes, offset.has_value() || bytes > extent,
                        root.alloca, extent, it->second.second});
  });
  return accesses;
}

struct ConvertROCDLToEmu
    : public mlir::fly::impl::ConvertROCDLToEmuBase<ConvertROCDLToEmu> {
  using ConvertROCDLToEmuBase::ConvertROCDLToEmuBase;
  void runOnOperation() override;

private:
  LogicalResult check(gpu::GPUModuleOp module);
  void rewriteKernel(LLVM::LLVMFuncOp kernel,
                     const llvm::DenseMap<StringAttr, int64_t> &ldsOffsets);
  void insertAlignmentChecks(Value ctx, ArrayRef<AlignedAccess> accesses);
  void insertBoundsChecks(Value ctx, StringRef kernel,
                          ArrayRef<CheckedAccess> accesses);
  void insertInitChecks(Value ctx, StringRef kernel,
                        ArrayRef<CheckedAccess> accesses);
  void insertPrivateChecks(Value ctx, StringRef kernel,
                           ArrayRef<PrivateAccess> accesses);
  LLVM::LLVMFuncOp getOrDeclare(StringRef name, LLVM::LLVMFunctionType type);
  // fly_emu_check_access(ctx, address, bytes, site) -> address (Emu.h).
  LLVM::LLVMFuncOp checkAccessFunction();
  // {first, one past the last} byte (i64) of what kernel argument
  // `argument` points into, or of the workgroup's LDS for -1, from
  // fly_emu_check_extent, emitted at `b`.
  std::pair<Value, Value> loadExtent(OpBuilder &b, Location loc, Value ctx,
                                     int32_t argument);
  // The address of the constant FlyEmuSite of an access (one per distinct
  // site of the module); `allocation` names an LDS global, or with
  // `privateBytes` an alloca of that size.
  Value siteAddress(OpBuilder &b, Location loc, StringRef kernel,
                    uint32_t kind, uint32_t space, int32_t argument,
                    StringAttr allocation = {}, StringRef note = "",
                    uint32_t privateBytes = 0);
  LLVM::GlobalOp stringConstant(StringRef text);
  std::string freshName(StringRef stem);

  gpu::GPUModuleOp module;
  uint32_t checks = 0; // FLY_EMU_CHECK_* of the `check` option
  // Per kernel: the kernel argument each LDS DMA's global source derives
  // from (rocdl.global.load.lds; traced while address spaces are intact).
  llvm::DenseMap<Operation *, llvm::DenseMap<Operation *, int32_t>> dmaSources;
  // The kernels' integer-to-LDS-pointer casts (found while address spaces
  // tell them apart), which become LDS addresses (ldsAddressFromInteger).
  llvm::DenseSet<Operation *> ldsIntToPtr;
  llvm::StringMap<LLVM::GlobalOp> sites, strings;
  // The LDS globals' places: byte offset in the workgroup's LDS and size
  // (UINT32_MAX for the dynamic LDS: to the end of the launch's LDS).
  llvm::DenseMap<StringAttr, std::pair<uint32_t, uint32_t>> ldsExtents;
  unsigned nextName = 0;
};

//===----------------------------------------------------------------------===//
// Checks: every construct the pass cannot lower, before any change
//===----------------------------------------------------------------------===//

LogicalResult ConvertROCDLToEmu::check(gpu::GPUModuleOp module) {
  SymbolTable symbols(module);
  DataLayout layout = DataLayout::closest(module);
  bool ok = true;
  auto fail = [&](Operation *op) {
    ok = false;
    return op->emitOpError();
  };

  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (isShared(global) && hasRealInitializer(global))
      fail(global) << "is an LDS global with an initializer; the emulator, "
                      "like the hardware, leaves LDS uninitialised";

  module.walk([&](Operation *op) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    bool inKernel = func && isKernel(func);

    for (Type type : op->getResultTypes())
      if (hasBufferPointer(type)) {
        fail(op) << "has a buffer pointer result (address space 7 or 9), "
                    "which convert-rocdl-to-emu does not handle yet";
        return;
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (hasBufferPointer(arg.getType())) {
            fail(op) << "has a buffer pointer argument (address space 7 or "
                        "9), which convert-rocdl-to-emu does not handle yet";
            return;
          }

    if (fly::isNumericInstruction(op)) {
      if (std::string why = fly::unsupportedNumericForm(op); !why.empty())
        fail(op) << why;
      return;
    }
    if (isRocdlOp(op)) {
      Plan plan = classify(op);
      if (plan.kind == Lowering::Unsupported) {
        fail(op) << "has no emulator lowering in convert-rocdl-to-emu yet";
        return;
      }
      if (std::string why = unsupportedForm(op, layout, chip); !why.empty()) {
        fail(op) << why << ", which convert-rocdl-to-emu does not handle";
        return;
      }
      if (plan.kind != Lowering::Erase && !inKernel)
        fail(op) << "outside a kernel needs the emulator context, which "
                    "convert-rocdl-to-emu only threads into kernels yet";
      return;
    }
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      if (auto callee = call.getCallee(); callee && isDeviceOnlyCallee(*callee))
        fail(op) << "calls the device-only function @" << *callee
                 << ", which convert-rocdl-to-emu does not handle";
      return;
    }
    if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      bool kernelIntrinsic = classify(op).kind != Lowering::Unsupported;
      if (kernelIntrinsic) {
        if (std::string why = unsupportedForm(op, layout, chip); !why.empty()) {
          fail(op) << "calls " << intr.getIntrin() << ", which " << why
                   << ": convert-rocdl-to-emu does not handle it";
          return;
        }
      }
      if (intr.getIntrin() == kDispatchPtr || intr.getIntrin() == kWaveId ||
          kernelIntrinsic) {
        if (!inKernel)
          fail(op) << "outside a kernel needs the emulator context, which "
                      "convert-rocdl-to-emu only threads into kernels yet";
        return;
      }
      if (intr.getIntrin().starts_with("llvm.amdgcn.") &&
          !isEmulatedIntrinsic(intr))
        fail(op) << "calls the AMDGPU intrinsic " << intr.getIntrin()
                 << ", which convert-rocdl-to-emu does not handle";
      return;
    }
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          symbols.lookup(addr.getGlobalName()));
      if (global && isShared(global) && !inKernel)
        fail(op) << "takes the address of the LDS global @"
                 << addr.getGlobalName()
                 << " outside a kernel, which convert-rocdl-to-emu does not "
                    "handle yet";
    }
  });
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

LLVM::LLVMFuncOp ConvertROCDLToEmu::getOrDeclare(StringRef name,
                                                 LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// The u32 (or pointer) at `offset` in the work-item's FlyEmuContext.
Value loadCtx(OpBuilder &b, Location loc, Value ctx, int32_t offset,
              Type type) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = ctx;
  if (offset != 0)
    addr = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), ctx,
                               ArrayRef<LLVM::GEPArg>{offset},
                               LLVM::GEPNoWrapFlags::inbounds);
  unsigned align = isa<LLVM::LLVMPointerType>(type) ? 8 : 4;
  return LLVM::LoadOp::create(b, loc, type, addr, align);
}

/// The per-op rewrites of a kernel body that need more than one load:
/// wave collectives, mbcnt and buffer resources. `declare` gives the
/// runtime function of a name and type.
class BodyLowering {
public:
  using Declare = llvm::function_ref<LLVM::LLVMFuncOp(
      StringRef, LLVM::LLVMFunctionType)>;

  BodyLowering(LLVM::LLVMFuncOp body, Value ctx, Declare declare,
               StringRef chip)
      : body(body), ctx(ctx), declare(declare), chip(chip),
        ptrType(LLVM::LLVMPointerType::get(body.getContext())),
        i32(IntegerType::get(body.getContext(), 32)),
        i64(IntegerType::get(body.getContext(), 64)),
        layout(DataLayout::closest(body)) {}

  void lower(Operation *op, Lowering kind);

  /// With the bounds check: the site of an access the lowering itself
  /// makes (kind, memory), for fly_emu_check_access.
  /// (kind, memory, the kernel argument the address derives from or -1).
  using Site =
      std::function<Value(OpBuilder &, Location, uint32_t, uint32_t, int32_t)>;
  void checkBounds(Site site) { boundsSite = std::move(site); }
  /// With the bounds or the race check: the site of a tensor data mover
  /// op, for fly_emu_tensor_checked.
  void checkTensors(Site site) { tensorSite = std::move(site); }
  /// The kernel argument the global source of an LDS DMA derives from
  /// (traced before the rewrite), for its bounds check's site.
  void dmaSources(llvm::DenseMap<Operation *, int32_t> sources) {
    dmaArguments = std::move(sources);
  }
  /// With the init check: the LDS writes the lowering itself makes (LDS
  /// DMA) mark their bytes written, with fly_emu_check_lds_written.
  void checkInit() { initCheck = true; }

private:
  Value call(OpBuilder &b, Location loc, StringRef name, Type result,
             ValueRange args);
  /// A call of the buffer access `name` (fly_emu_buffer_*), with the
  /// bounds check its _checked form with the site of `kind` appended.
  Value bufferCall(OpBuilder &b, Location loc, StringRef name, Type result,
                   ValueRange args, uint32_t kind);
  /// `address` as the bounds check gives it back, when checking bounds.
  Value checked(OpBuilder &b, Location loc, Value address, int64_t bytes,
                uint32_t kind, uint32_t space, int32_t argument = -1);
  Value constI32(OpBuilder &b, Location loc, int64_t value) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(value));
  }
  /// An alloca of `type` at the top of the body (once per use site, so a
  /// loop reuses its slot).
  Value frameSlot(Type type);
  /// `exchange` applied to each 32-bit word of `value` (narrower values
  /// zero-extended), the result reassembled into `value`'s type.
  Value perDword(OpBuilder &b, Location loc, Value value,
                 llvm::function_ref<Value(Value)> exchange);
  Value updateDpp(OpBuilder &b, Location loc, Value old, Value src,
                  uint32_t dppCtrl, uint32_t rowMask, uint32_t bankMask,
                  bool boundCtrl);
  /// The FlyEmuBufferResource an s.buffer.load's resource operand stands
  /// for (see lowerScalarBufferLoad).
  Value scalarLoadResource(OpBuilder &b, Location loc, Value rsrc);
  void lowerScalarBufferLoad(Operation *op);
  void lowerMbcnt(Operation *op);
  void lowerWaveCall(Operation *op);
  void lowerMakeBuffer(ROCDL::MakeBufferRsrcOp op);
  void lowerBufferAccess(Operation *op);
  void lowerBufferAtomic(Operation *op);
  void lowerMatrix(Operation *op);
  void lowerLdsLoad(Operation *op);
  void lowerTensor(Operation *op);
  void lowerConvert(Operation *op);

  LLVM::LLVMFuncOp body;
  Value ctx;
  Declare declare;
  StringRef chip;
  Type ptrType, i32, i64;
  DataLayout layout;
  Site boundsSite, tensorSite;
  llvm::DenseMap<Operation *, int32_t> dmaArguments;
  bool initCheck = false;
};

Value BodyLowering::checked(OpBuilder &b, Location loc, Value address,
                            int64_t bytes, uint32_t kind, uint32_t space,
                            int32_t argument) {
  if (!boundsSite)
    return address;
  Value site = boundsSite(b, loc, kind, space, argument);
  return call(b, loc, "fly_emu_check_access", ptrType,
              {ctx, address, LLVM::ConstantOp::create(b, loc, i64, bytes), site});
}

Value BodyLowering::bufferCall(OpBuilder &b, Location loc, StringRef name,
                               Type result, ValueRange args, uint32_t kind) {
  if (!boundsSite)
    return call(b, loc, name, result, args);
  SmallVector<Value> withSite(args);
  withSite.push_back(boundsSite(b, loc, kind, FLY_EMU_SPACE_BUFFER, -1));
  return call(b, loc, (name + "_checked").str(), result, withSite);
}

Value BodyLowering::call(OpBuilder &b, Location loc, StringRef name,
                         Type result, ValueRange args) {
  MLIRContext *context = b.getContext();
  Type resultType = result ? result : LLVM::LLVMVoidType::get(context);
  SmallVector<Type> argTypes(args.getTypes());
  LLVM::LLVMFuncOp callee =
      declare(name, LLVM::LLVMFunctionType::get(resultType, argTypes));
  auto op = LLVM::CallOp::create(b, loc, callee, args);
  return result ? op.getResult() : Value();
}

Value BodyLowering::frameSlot(Type type) {
  OpBuilder top = OpBuilder::atBlockBegin(&body.getBody().front());
  Location loc = body.getLoc();
  Value one = LLVM::ConstantOp::create(top, loc, i64, top.getI64IntegerAttr(1));
  unsigned align = std::max<unsigned>(8, layout.getTypeABIAlignment(type));
  return LLVM::AllocaOp::create(top, loc, ptrType, type, one, align);
}

Value BodyLowering::perDword(OpBuilder &b, Location loc, Value value,
                             llvm::function_ref<Value(Value)> exchange) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value bits = LLVM::PtrToIntOp::create(b, loc, i64, value);
    Value out = perDword(b, loc, bits, exchange);
    return LLVM::IntToPtrOp::create(b, loc, type, out);
  }
  unsigned bits = laneValueBits(type);
  Type intType = b.getIntegerType(bits);
  Value raw = type == intType ? value
                              : LLVM::BitcastOp::create(b, loc, intType, value)
                                    .getResult();
  Value result;
  if (bits <= 32) {
    Value word = bits == 32 ? raw : LLVM::ZExtOp::create(b, loc, i32, raw);
    Value out = exchange(word);
    result = bits == 32 ? out : LLVM::TruncOp::create(b, loc, intType, out);
  } else {
    auto words = VectorType::get({int64_t(bits / 32)}, i32);
    Value in = LLVM::BitcastOp::create(b, loc, words, raw);
    Value out = LLVM::PoisonOp::create(b, loc, words);
    for (int64_t i = 0; i < words.getNumElements(); ++i) {
      Value index = constI32(b, loc, i);
      Value word = LLVM::ExtractElementOp::create(b, loc, in, index);
      out = LLVM::InsertElementOp::create(b, loc, out, exchange(word), index);
    }
    result = LLVM::BitcastOp::create(b, loc, intType, out);
  }
  return type == intType ? result
                         : LLVM::BitcastOp::create(b, loc, type, result)
                               .getResult();
}

/// v_mbcnt_lo/hi_u32_b32: base + the number of set bits of the mask among
/// the lanes below this one, the lo form counting lanes 0..31, the hi form
/// lanes 32..63 (mask bit i stands for lane 32 + i).
void BodyLowering::lowerMbcnt(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  bool lo = isa<ROCDL::MbcntLoOp>(op);
  Value mask = op->getOperand(0), base = op->getOperand(1);
  Value lane = loadCtx(b, loc, ctx, kCtxLaneIdOffset, i32);
  Value c32 = constI32(b, loc, 32);
  Value below = lo ? LLVM::UMinOp::create(b, loc, lane, c32).getResult()
                   : LLVM::USubSat::create(b, loc, lane, c32).getResult();
  Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  Value lanes = LLVM::SubOp::create(
      b, loc, LLVM::ShlOp::create(b, loc, one,
                                  LLVM::ZExtOp::create(b, loc, i64, below)),
      one);
  Value bits = LLVM::AndOp::create(
      b, loc, LLVM::ZExtOp::create(b, loc, i64, mask), lanes);
  Value count = LLVM::TruncOp::create(
      b, loc, i32, LLVM::CtPopOp::create(b, loc, i64, bits));
  op->getResult(0).replaceAllUsesWith(LLVM::AddOp::create(b, loc, base, count));
  op->erase();
}

/// V_MOV_B32 with DPP on a 32-bit value: fly_emu_update_dpp with the
/// controls packed into one word.
Value BodyLowering::updateDpp(OpBuilder &b, Location loc, Value old,
                              Value src, uint32_t dppCtrl, uint32_t rowMask,
                              uint32_t bankMask, bool boundCtrl) {
  uint32_t control = FLY_EMU_DPP_CTRL(dppCtrl) | FLY_EMU_DPP_ROW_MASK(rowMask) |
                     FLY_EMU_DPP_BANK_MASK(bankMask) |
                     (boundCtrl ? FLY_EMU_DPP_BOUND_CTRL : 0u);
  Type type = old.getType();
  auto asWord = [&](Value v) -> Value {
    return type == i32 ? v : LLVM::BitcastOp::create(b, loc, i32, v);
  };
  Value word = call(b, loc, "fly_emu_update_dpp", i32,
                    {ctx, asWord(old), asWord(src), constI32(b, loc, control)});
  return type == i32 ? word : LLVM::BitcastOp::create(b, loc, type, word);
}

void BodyLowering::lowerWaveCall(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value result;
  if (auto permute = dyn_cast<ROCDL::DsBpermuteOp>(op)) {
    result = call(b, loc, "fly_emu_ds_bpermute", i32,
                  {ctx, permute.getIndex(), permute.getSrc()});
  } else if (auto swizzle = dyn_cast<ROCDL::DsSwizzleOp>(op)) {
    result = call(b, loc, "fly_emu_ds_swizzle", i32,
                  {ctx, swizzle.getSrc(), swizzle.getOffset()});
  } else if (auto read = dyn_cast<ROCDL::ReadlaneOp>(op)) {
    result = perDword(b, loc, read.getSrc0(), [&](Value word) {
      return call(b, loc, "fly_emu_readlane", i32, {ctx, word, read.getSrc1()});
    });
  } else if (auto dpp = dyn_cast<ROCDL::DPPUpdateOp>(op)) {
    result = updateDpp(b, loc, dpp.getOld(), dpp.getSrc(), dpp.getDppCtrl(),
                       dpp.getRowMask(), dpp.getBankMask(),
                       dpp.getBoundCtrl());
  } else if (isa<LLVM::CallIntrinsicOp>(op)) {
    // llvm.amdgcn.update.dpp(old, src, dpp_ctrl, row_mask, bank_mask,
    // bound_ctrl), its controls constants (checked).
    result = updateDpp(b, loc, op->getOperand(0), op->getOperand(1),
                       constantOperand(op, 2), constantOperand(op, 3),
                       constantOperand(op, 4), constantOperand(op, 5) != 0);
  } else if (auto x16 = dyn_cast<ROCDL::PermlaneX16Op>(op)) {
    uint32_t flags = (x16.getFi() ? FLY_EMU_PERMLANE_FI : 0u) |
                     (x16.getBoundControl() ? FLY_EMU_PERMLANE_BOUND_CTRL : 0u);
    Type type = x16.getRes().getType();
    auto asWord = [&](Value v) -> Value {
      return v.getType() == i32 ? v : LLVM::BitcastOp::create(b, loc, i32, v);
    };
    result = call(b, loc, "fly_emu_permlanex16", i32,
                  {ctx, asWord(x16.getOld()), asWord(x16.getSrc0()),
                   asWord(x16.getSrc1()), asWord(x16.getSrc2()),
                   constI32(b, loc, flags)});
    if (type != i32)
      result = LLVM::BitcastOp::create(b, loc, type, result);
  } else if (isa<ROCDL::Permlane16SwapOp, ROCDL::Permlane32SwapOp>(op)) {
    // The runtime returns the new destination in the low word, the new
    // source high.
    uint32_t flags =
        (flagAttr(op, "fi") ? FLY_EMU_PERMLANE_FI : 0u) |
        (flagAttr(op, "boundControl") ? FLY_EMU_PERMLANE_BOUND_CTRL : 0u) |
        (isa<ROCDL::Permlane32SwapOp>(op) ? FLY_EMU_PERMLANE_SWAP_32 : 0u);
    Value both = call(b, loc, "fly_emu_permlane_swap", i64,
                      {ctx, op->getOperand(0), op->getOperand(1),
                       constI32(b, loc, flags)});
    Value lo = LLVM::TruncOp::create(b, loc, i32, both);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32,
        LLVM::LShrOp::create(
            b, loc, both,
            LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32))));
    Type pair = op->getResult(0).getType();
    result = LLVM::UndefOp::create(b, loc, pair);
    result = LLVM::InsertValueOp::create(b, loc, result, lo, ArrayRef<int64_t>{0});
    result = LLVM::InsertValueOp::create(b, loc, result, hi, ArrayRef<int64_t>{1});
  } else if (auto first = dyn_cast<ROCDL::ReadfirstlaneOp>(op)) {
    result = perDword(b, loc, first.getSrc(), [&](Value word) {
      return call(b, loc, "fly_emu_readfirstlane", i32, {ctx, word});
    });
  } else {
    auto ballot = cast<ROCDL::BallotOp>(op);
    Value predicate = LLVM::ZExtOp::create(b, loc, i32, ballot.getPred());
    result = call(b, loc, "fly_emu_ballot", i64, {ctx, predicate});
    if (ballot.getRes().getType() != i64)
      result = LLVM::TruncOp::create(b, loc, ballot.getRes().getType(), result);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// The descriptor {base, num_records, stride, flags} (FlyEmuBufferResource)
/// in a frame slot; the resource is its address.
void BodyLowering::lowerMakeBuffer(ROCDL::MakeBufferRsrcOp op) {
  MLIRContext *context = op.getContext();
  auto descriptor = LLVM::LLVMStructType::getLiteral(
      context, {ptrType, i64, i32, i32});
  Value slot = frameSlot(descriptor);
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto field = [&](int32_t index, Value value) {
    Value at = LLVM::GEPOp::create(b, loc, ptrType, descriptor, slot,
                                   ArrayRef<LLVM::GEPArg>{0, index},
                                   LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, value, at);
  };
  field(0, op.getBase());
  field(1, op.getNumRecords());
  field(2, LLVM::ZExtOp::create(b, loc, i32, op.getStride()));
  field(3, op.getFlags());
  op.getRes().replaceAllUsesWith(slot);
  op.erase();
}

/// An s.buffer.load's resource: a buffer resource pointer as it is; the
/// vector<4xi32> bits of one (bitcast of ptrtoint, how kernels pass a
/// `ptr addrspace(8)` to the intrinsic), that pointer; else the four words
/// of a hardware V# (gfx9: base [47:0], stride [61:48], num_records,
/// flags), unpacked into a descriptor of the frame.
Value BodyLowering::scalarLoadResource(OpBuilder &b, Location loc,
                                       Value rsrc) {
  if (isa<LLVM::LLVMPointerType>(rsrc.getType()))
    return rsrc;
  Value bits = rsrc;
  if (auto cast = bits.getDefiningOp<LLVM::BitcastOp>())
    bits = cast.getArg();
  if (auto toInt = bits.getDefiningOp<LLVM::PtrToIntOp>())
    return toInt.getArg();
  auto word = [&](int64_t i) -> Value {
    return LLVM::ExtractElementOp::create(b, loc, rsrc, constI32(b, loc, i));
  };
  auto wide = [&](Value v) -> Value {
    return LLVM::ZExtOp::create(b, loc, i64, v);
  };
  Value w1 = word(1);
  Value baseHi = LLVM::ShlOp::create(
      b, loc, wide(LLVM::AndOp::create(b, loc, w1, constI32(b, loc, 0xffff))),
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32)));
  Value base = LLVM::IntToPtrOp::create(
      b, loc, ptrType,
      LLVM::OrOp::create(b, loc, wide(word(0)), baseHi).getResult());
  Value stride = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, w1, constI32(b, loc, 16)),
      constI32(b, loc, 0x3fff));
  auto descriptor = LLVM::LLVMStructType::getLiteral(
      b.getContext(), {ptrType, i64, i32, i32});
  Value slot = frameSlot(descriptor);
  Value fields[] = {base, wide(word(2)), stride, word(3)};
  for (auto [index, value] : llvm::enumerate(fields)) {
    Value at = LLVM::GEPOp::create(
        b, loc, ptrType, descriptor, slot,
        ArrayRef<LLVM::GEPArg>{0, int32_t(index)},
        LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, value, at);
  }
  return slot;
}

/// llvm.amdgcn.s.buffer.load (S_BUFFER_LOAD_DWORD*, a scalar load through
/// a buffer resource): the byte offset with its two low bits dropped
/// (scalar memory reads whole dwords), each dword range-checked on its
/// own against num_records, 0 when out of range, as a vector load is;
/// read in fly_emu_buffer_load's pieces of up to 16 bytes.
void BodyLowering::lowerScalarBufferLoad(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value rsrc = scalarLoadResource(b, loc, op->getOperand(0));
  Value offset =
      LLVM::AndOp::create(b, loc, op->getOperand(1), constI32(b, loc, ~3));
  Type type = op->getResult(0).getType();
  Value slot = frameSlot(type);
  int64_t bytes = layout.getTypeSize(type);
  for (int64_t at = 0; at < bytes; at += 16) {
    Value dst = at == 0 ? slot
                        : LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(),
                                              slot, ArrayRef<LLVM::GEPArg>{
                                                        int32_t(at)},
                                              LLVM::GEPNoWrapFlags::inbounds)
                              .getResult();
    bufferCall(b, loc, "fly_emu_buffer_load", nullptr,
               {ctx, rsrc, offset, constI32(b, loc, at),
                constI32(b, loc, std::min<int64_t>(16, bytes - at)), dst},
               FLY_EMU_ACCESS_LOAD);
  }
  op->getResult(0).replaceAllUsesWith(
      LLVM::LoadOp::create(b, loc, type, slot).getResult());
  op->erase();
}

void BodyLowering::lowerBufferAccess(Operation *op) {
  if (isa<LLVM::CallIntrinsicOp>(op))
    return lowerScalarBufferLoad(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto load = dyn_cast<ROCDL::RawPtrBufferLoadOp>(op)) {
    Type type = load.getRes().getType();
    Value slot = frameSlot(type);
    Value bytes = constI32(b, loc, layout.getTypeSize(type));
    bufferCall(b, loc, "fly_emu_buffer_load", nullptr,
               {ctx, load.getRsrc(), load.getOffset(), load.getSoffset(),
                bytes, slot},
               FLY_EMU_ACCESS_LOAD);
    load.getRes().replaceAllUsesWith(
        LLVM::LoadOp::create(b, loc, type, slot).getResult());
  } else {
    auto store = cast<ROCDL::RawPtrBufferStoreOp>(op);
    Type type = store.getVdata().getType();
    Value slot = frameSlot(type);
    LLVM::StoreOp::create(b, loc, store.getVdata(), slot);
    Value bytes = constI32(b, loc, layout.getTypeSize(type));
    bufferCall(b, loc, "fly_emu_buffer_store", nullptr,
               {ctx, store.getRsrc(), store.getOffset(), store.getSoffset(),
                bytes, slot},
               FLY_EMU_ACCESS_STORE);
  }
  op->erase();
}

/// A device-scope buffer atomic: the host atomic at the address the runtime
/// range-checks (a zeroed sink when out of range).
void BodyLowering::lowerBufferAtomic(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  // Operands: (value[, compare], rsrc, voffset, soffset, aux).
  bool cas = isa<ROCDL::RawPtrBufferAtomicCmpSwap>(op);
  unsigned rsrcIndex = cas ? 2 : 1;
  Value value = op->getOperand(0);
  Value bytes = constI32(b, loc, layout.getTypeSize(value.getType()));
  Value address = bufferCall(b, loc, "fly_emu_buffer_atomic_address", ptrType,
                             {ctx, op->getOperand(rsrcIndex),
                              op->getOperand(rsrcIndex + 1),
                              op->getOperand(rsrcIndex + 2), bytes},
                             FLY_EMU_ACCESS_ATOMIC);
  auto ordering = LLVM::AtomicOrdering::monotonic;
  if (cas) {
    Value swapped = LLVM::AtomicCmpXchgOp::create(
        b, loc, address, op->getOperand(1), value, ordering, ordering);
    op->getResult(0).replaceAllUsesWith(
        LLVM::ExtractValueOp::create(b, loc, swapped, 0).getResult());
  } else {
    LLVM::AtomicBinOp kind =
        isa<ROCDL::RawPtrBufferAtomicFaddOp>(op)   ? LLVM::AtomicBinOp::fadd
        : isa<ROCDL::RawPtrBufferAtomicFmaxOp>(op) ? LLVM::AtomicBinOp::fmax
        : isa<ROCDL::RawPtrBufferAtomicSmaxOp>(op) ? LLVM::AtomicBinOp::max
                                                   : LLVM::AtomicBinOp::umin;
    LLVM::AtomicRMWOp::create(b, loc, kind, address, value, ordering);
  }
  op->erase();
}

/// An MFMA or WMMA: A, B and C spilled to frame slots, fly_emu_matrix with
/// the instruction's FlyEmuMatrixOp and modifiers, D loaded from its slot.
void BodyLowering::lowerMatrix(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  const MatrixForm *form = matrixForm(op, layout);
  uint32_t control = 0;
  // A scaled MFMA whose scales are both the constant 0 is the unscaled
  // instruction: the code generator selects v_mfma_f32_*_f8f6f4 for it (and
  // MLIR writes the unscaled MFMA so), not E8M0 scales of 2^-127.
  bool unscaled = form->scaled == MatrixForm::ScaledMfma &&
                  matchPattern(op->getOperand(6), m_Zero()) &&
                  matchPattern(op->getOperand(8), m_Zero());
  if (form->scaled == MatrixForm::ScaledMfma) {
    // The formats as cbsz and blgp, the scale bytes as opsel.
    control = FLY_EMU_MATRIX_CBSZ(constantOperand(op, 3)) |
              FLY_EMU_MATRIX_BLGP(constantOperand(op, 4));
    if (!unscaled)
      control |= FLY_EMU_MATRIX_OPSEL_A(constantOperand(op, 5)) |
                 FLY_EMU_MATRIX_OPSEL_B(constantOperand(op, 7));
  } else if (form->scaled == MatrixForm::ScaledWmma ||
             form->scaled == MatrixForm::ScaledWmmaF4) {
    // Likewise from the attributes (the f4 form's formats are fp4); the
    // scale selectors as opsel.
    bool f4 = form->scaled == MatrixForm::ScaledWmmaF4;
    control = FLY_EMU_MATRIX_CBSZ(f4 ? kFormatFp4 : intAttr(op, "fmtA")) |
              FLY_EMU_MATRIX_BLGP(f4 ? kFormatFp4 : intAttr(op, "fmtB")) |
              FLY_EMU_MATRIX_OPSEL_A(intAttr(op, "scaleAType")) |
              FLY_EMU_MATRIX_OPSEL_B(intAttr(op, "scaleBType"));
  } else if (isMfma(op)) {
    // cbsz (4 bits), abid (4 bits), blgp (3 bits); a value too wide for
    // its field stays nonzero, which the runtime rejects anyway.
    auto field = [&](unsigned index) {
      return std::min<uint64_t>(constantOperand(op, index), 15);
    };
    control = FLY_EMU_MATRIX_CBSZ(field(3)) | FLY_EMU_MATRIX_ABID(field(4)) |
              FLY_EMU_MATRIX_BLGP(field(5));
    if (form->fp8 && StringRef(matrixChip(op, chip)).starts_with("gfx95"))
      control |= FLY_EMU_MATRIX_OCP_FP8;
  } else {
    if (flagAttr(op, "opsel"))
      control |= FLY_EMU_MATRIX_OPSEL;
    if (flagAttr(op, "signA"))
      control |= FLY_EMU_MATRIX_SIGN_A;
    if (flagAttr(op, "signB"))
      control |= FLY_EMU_MATRIX_SIGN_B;
    if (flagAttr(op, "clamp"))
      control |= FLY_EMU_MATRIX_CLAMP;
  }
  SmallVector<Value> slots;
  for (unsigned i = 0; i < 3; ++i) {
    Value operand = op->getOperand(i);
    Value slot = frameSlot(operand.getType());
    LLVM::StoreOp::create(b, loc, operand, slot);
    slots.push_back(slot);
  }
  Type type = op->getResult(0).getType();
  Value dSlot = frameSlot(type);
  SmallVector<Value> args = {ctx, constI32(b, loc, form->id),
                             constI32(b, loc, control), slots[0], slots[1],
                             slots[2], dSlot};
  if (form->scaled) {
    // The scales (operands 6 and 8 of the MFMA, 3 and 4 of the WMMA), as
    // 64-bit words.
    bool mfma = form->scaled == MatrixForm::ScaledMfma;
    for (unsigned i : {mfma ? 6u : 3u, mfma ? 8u : 4u}) {
      Value scale = op->getOperand(i);
      if (unscaled) // E8M0 127: 2^0
        scale = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                         b.getI64IntegerAttr(127));
      else if (!scale.getType().isInteger(64))
        scale = LLVM::ZExtOp::create(b, loc, b.getI64Type(), scale);
      args.push_back(scale);
    }
    call(b, loc, "fly_emu_matrix_scale", nullptr, args);
  } else {
    call(b, loc, "fly_emu_matrix", nullptr, args);
  }
  op->getResult(0).replaceAllUsesWith(
      LLVM::LoadOp::create(b, loc, type, dSlot).getResult());
  op->erase();
}

/// A packed conversion: fly_emu_convert of the operands' bits (each
/// zero-extended to 64), the selector and the chip's fp8 encoding; the
/// result's bits back in its type.
void BodyLowering::lowerConvert(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  const ConvertForm *form = convertForm(op);
  uint32_t control = 0;
  if (auto sel = op->getAttrOfType<IntegerAttr>(form->selector))
    control = FLY_EMU_CVT_SEL(sel.getValue().getZExtValue());
  if (form->fp8 && StringRef(matrixChip(op, chip)).starts_with("gfx95"))
    control |= FLY_EMU_CVT_OCP;
  auto bitsOf = [&](Type type) {
    return IntegerType::get(b.getContext(), layout.getTypeSizeInBits(type));
  };
  SmallVector<Value> args = {constI32(b, loc, form->id),
                             constI32(b, loc, control)};
  auto cast = [&](Type type, Value value) -> Value {
    return value.getType() == type
               ? value
               : LLVM::BitcastOp::create(b, loc, type, value).getResult();
  };
  for (Value operand : op->getOperands()) {
    Value bits = cast(bitsOf(operand.getType()), operand);
    if (bits.getType() != i64)
      bits = LLVM::ZExtOp::create(b, loc, i64, bits);
    args.push_back(bits);
  }
  if (args.size() < 6) {
    Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
    args.resize(6, zero);
  }
  Value result = call(b, loc, "fly_emu_convert", i64, args);
  Type type = op->getResult(0).getType();
  IntegerType resultBits = bitsOf(type);
  if (resultBits != i64)
    result = LLVM::TruncOp::create(b, loc, resultBits, result);
  op->getResult(0).replaceAllUsesWith(cast(type, result));
  op->erase();
}

/// A tensor load or store: the descriptor groups stored to a frame slot of
/// FLY_EMU_TENSOR_GROUP_DWORDS (groups 2 and 3 zero for the .d2 forms), then
/// fly_emu_tensor.
void BodyLowering::lowerTensor(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  bool store =
      isa<ROCDL::TensorStoreFromLDSOp, ROCDL::TensorStoreFromLDSD2Op>(op);
  bool d2 = isa<ROCDL::TensorLoadToLDSD2Op, ROCDL::TensorStoreFromLDSD2Op>(op);
  Value slot =
      frameSlot(LLVM::LLVMArrayType::get(i32, FLY_EMU_TENSOR_GROUP_DWORDS));
  auto zeros = VectorType::get({4}, i32);
  SmallVector<Value> groups(op->getOperands().take_front(d2 ? 2 : 4));
  if (d2)
    groups.append(2, LLVM::ZeroOp::create(b, loc, zeros));
  int32_t at = 0; // dwords
  for (Value group : groups) {
    Value address = LLVM::GEPOp::create(b, loc, ptrType, i32, slot,
                                        ArrayRef<LLVM::GEPArg>{at},
                                        LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, group, address, 4);
    at += int32_t(cast<VectorType>(group.getType()).getNumElements());
  }
  uint32_t flags =
      (store ? FLY_EMU_TENSOR_STORE : 0u) | (d2 ? FLY_EMU_TENSOR_D2 : 0u);
  if (tensorSite)
    // The site's access is the LDS side's: a load to LDS stores there.
    call(b, loc, "fly_emu_tensor_checked", nullptr,
         {ctx, constI32(b, loc, flags), slot,
          tensorSite(b, loc, store ? FLY_EMU_ACCESS_LOAD : FLY_EMU_ACCESS_STORE,
                     FLY_EMU_SPACE_LDS, -1)});
  else
    call(b, loc, "fly_emu_tensor", nullptr,
         {ctx, constI32(b, loc, flags), slot});
  op->erase();
}

//===----------------------------------------------------------------------===//
// LDS loads
//===----------------------------------------------------------------------===//

/// The LDS DMA (rocdl.raw.ptr.buffer.load.lds, rocdl.global.load.lds): the
/// lane writes `size` bytes to LDS at M0 + offset + lane_id * size, where M0
/// is the LDS pointer of the wave's first active lane (a readfirstlane),
/// read from buffer memory at voffset + offset (+ soffset; range-checked, a
/// dword out of range writes 0) or from the global pointer + offset.
/// A transposing LDS read (rocdl.ds.read.tr*) is the runtime's wave
/// collective fly_emu_ds_read_tr on the lane's address, its result in a
/// frame slot.
void BodyLowering::lowerLdsLoad(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto [elementBits, bytes] = ldsTransposeForm(op); elementBits != 0) {
    Type type = op->getResult(0).getType();
    Value slot = frameSlot(type);
    Value address = checked(b, loc, op->getOperand(0), bytes,
                            FLY_EMU_ACCESS_LOAD, FLY_EMU_SPACE_LDS);
    call(b, loc, "fly_emu_ds_read_tr", nullptr,
         {ctx, address, constI32(b, loc, elementBits),
          constI32(b, loc, bytes), slot});
    op->getResult(0).replaceAllUsesWith(
        LLVM::LoadOp::create(b, loc, type, slot).getResult());
    op->erase();
    return;
  }
  auto [size, offset] = ldsDmaSizeAndOffset(op);
  Value lds = op->getOperand(1);
  Value m0 = perDword(b, loc, lds, [&](Value word) {
    return call(b, loc, "fly_emu_readfirstlane", i32, {ctx, word});
  });
  Value lane = loadCtx(b, loc, ctx, kCtxLaneIdOffset, i32);
  Value at = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, lane, constI32(b, loc, size)),
      constI32(b, loc, offset));
  Value target = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), m0,
                                     ArrayRef<LLVM::GEPArg>{at});
  target = checked(b, loc, target, size, FLY_EMU_ACCESS_STORE, FLY_EMU_SPACE_LDS);
  if (auto buffer = dyn_cast<ROCDL::RawPtrBufferLoadLdsOp>(op)) {
    Value voffset = LLVM::AddOp::create(b, loc, buffer.getVoffset(),
                                        constI32(b, loc, offset));
    bufferCall(b, loc, "fly_emu_buffer_load", nullptr,
               {ctx, buffer.getRsrc(), voffset, buffer.getSoffset(),
                constI32(b, loc, size), target},
               FLY_EMU_ACCESS_LOAD);
  } else {
    Value source = LLVM::GEPOp::create(
        b, loc, ptrType, b.getI8Type(), op->getOperand(0),
        ArrayRef<LLVM::GEPArg>{int32_t(offset)});
    auto traced = dmaArguments.find(op);
    source = checked(b, loc, source, size, FLY_EMU_ACCESS_LOAD,
                     FLY_EMU_SPACE_GLOBAL,
                     traced == dmaArguments.end() ? -1 : traced->second);
    LLVM::MemcpyOp::create(b, loc, target, source, constI32(b, loc, size),
                           /*isVolatile=*/false);
  }
  if (initCheck)
    call(b, loc, "fly_emu_check_lds_written", nullptr,
         {ctx, target, LLVM::ConstantOp::create(b, loc, i64, int64_t(size))});
  op->erase();
}

void BodyLowering::lower(Operation *op, Lowering kind) {
  switch (kind) {
  case Lowering::Mbcnt:
    return lowerMbcnt(op);
  case Lowering::WaveCall:
    return lowerWaveCall(op);
  case Lowering::MakeBuffer:
    return lowerMakeBuffer(cast<ROCDL::MakeBufferRsrcOp>(op));
  case Lowering::BufferAccess:
    return lowerBufferAccess(op);
  case Lowering::BufferAtomic:
    return lowerBufferAtomic(op);
  case Lowering::Matrix:
    return lowerMatrix(op);
  case Lowering::LdsLoad:
    return lowerLdsLoad(op);
  case Lowering::Tensor:
    return lowerTensor(op);
  case Lowering::Convert:
    return lowerConvert(op);
  default:
    llvm_unreachable("lowered by rewriteKernel");
  }
}

/// llvm.amdgcn.cvt.sr.bf16.f32(old, x, rand, word_sel) (gfx950's
/// V_CVT_SR_BF16_F32, stochastic rounding): the low 16 bits of rand added
/// to x's bit pattern, the high half kept (no saturation: the carry can
/// reach infinity); a NaN becomes its quieted high half. The bf16 goes
/// into element word_sel of old.
void lowerCvtSrBf16(LLVM::CallIntrinsicOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i16 = b.getIntegerType(16), i32 = b.getI32Type();
  auto c32 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  Value old = op.getOperand(0), x = op.getOperand(1);
  Value rand = op.getOperand(2), wordSel = op.getOperand(3);
  Value bits = LLVM::BitcastOp::create(b, loc, i32, x);
  Value sum = LLVM::AddOp::create(
      b, loc, bits, LLVM::AndOp::create(b, loc, rand, c32(0xffff)));
  Value rounded = LLVM::LShrOp::create(b, loc, sum, c32(16));
  Value quiet = LLVM::OrOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, bits, c32(16)), c32(0x40));
  Value isNan = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
  Value half = LLVM::TruncOp::create(
      b, loc, i16, LLVM::SelectOp::create(b, loc, isNan, quiet, rounded));
  Type elem = cast<VectorType>(old.getType()).getElementType();
  Value bf = LLVM::BitcastOp::create(b, loc, elem, half);
  Value index = LLVM::ZExtOp::create(b, loc, i32, wordSel);
  op.getResult(0).replaceAllUsesWith(
      LLVM::InsertElementOp::create(b, loc, old, bf, index).getResult());
  op.erase();
}

/// llvm.amdgcn.perm(src0, src1, sel) (V_PERM_B32): byte k of the result is
/// picked by byte k of sel from the eight bytes of src0:src1 (src1 the low
/// word): a selector 0-7 is that byte, 8-11 the sign of byte 1, 3, 5 or 7
/// spread over the byte (0x00 or 0xff), 12 is 0x00, 13 and up 0xff. As
/// inline code: a 16-byte table of those values, indexed by min(sel, 13).
void lowerPerm(LLVM::CallIntrinsicOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i32 = b.getI32Type(), i64 = b.getI64Type(), i128 = b.getIntegerType(128);
  auto constant = [&](Type type, uint64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };
  auto lshr = [&](Value v, uint64_t n) -> Value {
    return LLVM::LShrOp::create(b, loc, v, constant(v.getType(), n));
  };
  auto shl = [&](Value v, uint64_t n) -> Value {
    return LLVM::ShlOp::create(b, loc, v, constant(v.getType(), n));
  };
  auto bitOr = [&](Value x, Value y) -> Value {
    return LLVM::OrOp::create(b, loc, x, y);
  };
  auto low = [&](Value v, uint64_t mask) -> Value {
    return LLVM::AndOp::create(b, loc, v, constant(v.getType(), mask));
  };
  Value data = bitOr(shl(LLVM::ZExtOp::create(b, loc, i64, op.getOperand(0)), 32),
                     LLVM::ZExtOp::create(b, loc, i64, op.getOperand(1)));
  // Bytes 8-11: the sign bit of byte 2j+1 (data bit 16j + 15) times 0xff.
  Value signs = constant(i64, 0);
  for (uint64_t j = 0; j < 4; ++j) {
    Value bit = low(lshr(data, 16 * j + 15), 1);
    Value spread = LLVM::MulOp::create(b, loc, bit, constant(i64, 0xff));
    signs = bitOr(signs, shl(spread, 8 * j));
  }
  // Byte 12 is 0x00, bytes 13-15 0xff.
  Value high = bitOr(signs, constant(i64, 0xffffff0000000000ull));
  Value table = bitOr(LLVM::ZExtOp::create(b, loc, i128, data),
                      shl(LLVM::ZExtOp::create(b, loc, i128, high), 64));
  Value sel = op.getOperand(2), result = constant(i32, 0);
  for (uint64_t k = 0; k < 4; ++k) {
    Value index = LLVM::UMinOp::create(b, loc, low(lshr(sel, 8 * k), 0xff),
                                       constant(i32, 13));
    Value bits = shl(LLVM::ZExtOp::create(b, loc, i128, index), 3);
    Value byte = low(LLVM::TruncOp::create(
                         b, loc, i32, LLVM::LShrOp::create(b, loc, table, bits)),
                     0xff);
    result = bitOr(result, shl(byte, 8 * k));
  }
  op.getResult(0).replaceAllUsesWith(result);
  op.erase();
}

/// Before each access (of the kernel whose context is `ctx`): a branch to a
/// block that calls
/// fly_emu_trap_misaligned(ctx, what, address, align) when the address is
/// not a multiple of the declared alignment.
void ConvertROCDLToEmu::insertAlignmentChecks(
    Value ctx, ArrayRef<AlignedAccess> accesses) {
  if (accesses.empty())
    return;
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto trapType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), {ptrType, ptrType, ptrType, i64});
  LLVM::LLVMFuncOp trap = getOrDeclare("fly_emu_trap_misaligned", trapType);
  SymbolTable symbols(module);
  llvm::StringMap<LLVM::GlobalOp> messages;
  for (const AlignedAccess &access : accesses) {
    Location loc = access.op->getLoc();
    LLVM::GlobalOp &message = messages[access.what];
    if (!message) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      std::string text = access.what + '\0';
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(context, 8),
                                           text.size());
      message = LLVM::GlobalOp::create(top, loc, type, /*isConstant=*/true,
                                       LLVM::Linkage::Internal,
                                       "__fly_emu_access", top.getStringAttr(text));
      symbols.insert(message); // renames it if the name is taken
    }
    Block *before = access.op->getBlock();
    Block *after = before->splitBlock(access.op);
    auto *failure = new Block();
    failure->insertBefore(after);

    OpBuilder b = OpBuilder::atBlockEnd(before);
    Value address = memoryAccess(access.op)->address;
    Value bits = LLVM::PtrToIntOp::create(b, loc, i64, address);
    Value mask = LLVM::ConstantOp::create(b, loc, i64, access.align - 1);
    Value low = LLVM::AndOp::create(b, loc, bits, mask);
    Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
    Value misaligned =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, low, zero);
    LLVM::CondBrOp::create(b, loc, misaligned, failure, after);

    b.setInsertionPointToStart(failure);
    Value what = LLVM::AddressOfOp::create(b, loc, message);
    Value align = LLVM::ConstantOp::create(b, loc, i64, access.align);
    LLVM::CallOp::create(b, loc, trap,
                         ValueRange{ctx, what, address, align});
    LLVM::UnreachableOp::create(b, loc);
  }
}

std::string ConvertROCDLToEmu::freshName(StringRef stem) {
  std::string name;
  do
    name = (stem + "_" + Twine(nextName++)).str();
  while (module.lookupSymbol(name));
  return name;
}

LLVM::LLVMFuncOp ConvertROCDLToEmu::checkAccessFunction() {
  auto ptrType = LLVM::LLVMPointerType::get(&getContext());
  return getOrDeclare("fly_emu_check_access",
                      LLVM::LLVMFunctionType::get(
                          ptrType, {ptrType, ptrType,
                                    IntegerType::get(&getContext(), 64),
                                    ptrType}));
}

LLVM::GlobalOp ConvertROCDLToEmu::stringConstant(StringRef text) {
  LLVM::GlobalOp &global = strings[text];
  if (global)
    return global;
  OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
  std::string bytes = text.str() + '\0';
  auto type = LLVM::LLVMArrayType::get(top.getI8Type(), bytes.size());
  global = LLVM::GlobalOp::create(top, module.getLoc(), type,
                                  /*isConstant=*/true, LLVM::Linkage::Internal,
                                  freshName("__fly_emu_text"),
                                  top.getStringAttr(bytes));
  return global;
}

Value ConvertROCDLToEmu::siteAddress(OpBuilder &b, Location loc,
                                     StringRef kernel, uint32_t kind,
                                     uint32_t space, int32_t argument,
                                     StringAttr allocation, StringRef note,
                                     uint32_t privateBytes) {
  std::string where = sourceLine(loc);
  if (!note.empty())
    where += (" (" + note + ")").str();
  std::pair<uint32_t, uint32_t> extent = {0, 0};
  if (space == FLY_EMU_SPACE_PRIVATE)
    extent = {0, privateBytes};
  else if (allocation)
    extent = ldsExtents.lookup(allocation);
  std::string key = (kernel + "\n" + where + "\n" + Twine(kind) + "\n" +
                     Twine(space) + "\n" + Twine(argument) + "\n" +
                     (allocation ? allocation.getValue() : StringRef()) +
                     "\n" + Twine(extent.second))
                        .str();
  LLVM::GlobalOp &site = sites[key];
  if (!site) {
    MLIRContext *context = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i32 = IntegerType::get(context, 32);
    // FlyEmuSite (Emu.h): kernel, location, kind, space, argument, 0,
    // the LDS allocation (its name or null, offset, bytes).
    auto type = LLVM::LLVMStructType::getLiteral(
        context, {ptrType, ptrType, i32, i32, i32, i32, ptrType, i32, i32});
    LLVM::GlobalOp kernelName = stringConstant(kernel);
    LLVM::GlobalOp location = stringConstant(where);
    LLVM::GlobalOp allocationName =
        allocation ? stringConstant(allocation.getValue()) : LLVM::GlobalOp();
    OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
    site = LLVM::GlobalOp::create(top, loc, type, /*isConstant=*/true,
                                  LLVM::Linkage::Internal,
                                  freshName("__fly_emu_site"), Attribute());
    Block *init = top.createBlock(&site.getInitializerRegion());
    top.setInsertionPointToStart(init);
    Value value = LLVM::UndefOp::create(top, loc, type);
    Value fields[] = {
        LLVM::AddressOfOp::create(top, loc, kernelName),
        LLVM::AddressOfOp::create(top, loc, location),
        LLVM::ConstantOp::create(top, loc, i32, int64_t(kind)),
        LLVM::ConstantOp::create(top, loc, i32, int64_t(space)),
        LLVM::ConstantOp::create(top, loc, i32, int64_t(argument)),
        LLVM::ConstantOp::create(top, loc, i32, int64_t(0)),
        allocationName
            ? Value(LLVM::AddressOfOp::create(top, loc, allocationName))
            : Value(LLVM::ZeroOp::create(top, loc, ptrType)),
        LLVM::ConstantOp::create(top, loc, i32, int64_t(int32_t(extent.first))),
        LLVM::ConstantOp::create(top, loc, i32,
                                 int64_t(int32_t(extent.second)))};
    for (auto [i, field] : llvm::enumerate(fields))
      value = LLVM::InsertValueOp::create(top, loc, value, field,
                                          ArrayRef<int64_t>{int64_t(i)});
    LLVM::ReturnOp::create(top, loc, value);
  }
  return LLVM::AddressOfOp::create(b, loc, site);
}

std::pair<Value, Value> ConvertROCDLToEmu::loadExtent(OpBuilder &b,
                                                       Location loc, Value ctx,
                                                       int32_t argument) {
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto i32 = IntegerType::get(context, 32);
  auto extentType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), {ptrType, i32, ptrType});
  Value one = LLVM::ConstantOp::create(b, loc, i32, int64_t(1));
  auto pair = LLVM::LLVMArrayType::get(i64, 2);
  Value slot = LLVM::AllocaOp::create(b, loc, ptrType, pair, one, 8);
  LLVM::CallOp::create(
      b, loc, getOrDeclare("fly_emu_check_extent", extentType),
      ValueRange{ctx, LLVM::ConstantOp::create(b, loc, i32, int64_t(argument)),
                 slot});
  Value end = LLVM::GEPOp::create(b, loc, ptrType, i64, slot,
                                  ArrayRef<LLVM::GEPArg>{1});
  return {LLVM::LoadOp::create(b, loc, i64, slot, 8),
          LLVM::LoadOp::create(b, loc, i64, end, 8)};
}

/// Before each access: a test of its bytes against the extent of the
/// tensor its kernel argument points into (or of the workgroup's LDS),
/// loaded once at the top of the body with fly_emu_check_extent, and only
/// when the test fails, address = fly_emu_check_access(ctx, address, bytes,
/// site) in a block of its own; the access is then made at the address the
/// check gave. An access whose address derives from no argument calls the
/// check every time (it looks for the tensor the address is in).
void ConvertROCDLToEmu::insertBoundsChecks(Value ctx, StringRef kernel,
                                           ArrayRef<CheckedAccess> accesses) {
  if (accesses.empty())
    return;
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  LLVM::LLVMFuncOp check = checkAccessFunction();
  Block *entry = cast<BlockArgument>(ctx).getOwner();

  // The extents: per argument (-1: LDS), {first, one past the last} as i64.
  llvm::DenseMap<int32_t, std::pair<Value, Value>> extents;
  auto extentOf = [&](int32_t argument) -> std::pair<Value, Value> {
    auto &extent = extents[argument];
    if (extent.first)
      return extent;
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    extent = loadExtent(b, entry->getParentOp()->getLoc(), ctx, argument);
    return extent;
  };

  // An LDS global's extent: the LDS's first byte + its offset, to + its
  // size (the dynamic LDS: to the end of the LDS).
  llvm::DenseMap<StringAttr, std::pair<Value, Value>> allocations;
  auto allocationExtent = [&](StringAttr symbol) -> std::pair<Value, Value> {
    auto &extent = allocations[symbol];
    if (extent.first)
      return extent;
    auto [lds, ldsEnd] = extentOf(-1);
    auto [offset, bytes] = ldsExtents.lookup(symbol);
    OpBuilder b(context);
    b.setInsertionPointAfterValue(ldsEnd);
    Location loc = entry->getParentOp()->getLoc();
    Value first =
        offset == 0
            ? lds
            : Value(LLVM::AddOp::create(
                  b, loc, lds,
                  LLVM::ConstantOp::create(b, loc, i64, int64_t(offset))));
    Value end = bytes == UINT32_MAX
                    ? ldsEnd
                    : Value(LLVM::AddOp::create(
                          b, loc, first,
                          LLVM::ConstantOp::create(b, loc, i64, int64_t(bytes))));
    extent = {first, end};
    return extent;
  };

  const bool bounds = checks & FLY_EMU_CHECK_BOUNDS;
  for (const CheckedAccess &access : accesses) {
    // Without the bounds check, only the accesses whose memory the compiler
    // could not tell call the runtime (for the init check, in case they
    // are in LDS).
    const bool untraced =
        access.argument < 0 && access.space != FLY_EMU_SPACE_LDS;
    if (!bounds && !untraced)
      continue;
    Operation *op = access.op;
    Location loc = op->getLoc();
    Value address = memoryAccess(op)->address;
    Value checked;
    if (untraced) {
      OpBuilder b(op);
      Value site = siteAddress(b, loc, kernel, access.kind, access.space,
                               access.argument);
      Value bytes = LLVM::ConstantOp::create(b, loc, i64, int64_t(access.bytes));
      checked = LLVM::CallOp::create(b, loc, check,
                                     ValueRange{ctx, address, bytes, site})
                    .getResult();
    } else {
      auto [low, high] =
          access.allocation
              ? allocationExtent(access.allocation)
              : extentOf(access.space == FLY_EMU_SPACE_LDS ? -1
                                                           : access.argument);
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op);
      checked = after->addArgument(ptrType, loc);
      auto *slow = new Block();
      slow->insertBefore(after);

      OpBuilder b = OpBuilder::atBlockEnd(before);
      Value bits = LLVM::PtrToIntOp::create(b, loc, i64, address);
      Value end = LLVM::AddOp::create(
          b, loc, bits,
          LLVM::ConstantOp::create(b, loc, i64, int64_t(access.bytes)));
      Value below =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, bits, low);
      Value above =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, end, high);
      Value outside = LLVM::OrOp::create(b, loc, below, above);
      LLVM::CondBrOp::create(b, loc, outside, slow, ValueRange{}, after,
                             ValueRange{address});

      b.setInsertionPointToStart(slow);
      Value site = siteAddress(b, loc, kernel, access.kind, access.space,
                               access.argument, access.allocation);
      Value bytes = LLVM::ConstantOp::create(b, loc, i64, int64_t(access.bytes));
      Value redirected = LLVM::CallOp::create(
                             b, loc, check, ValueRange{ctx, address, bytes, site})
                             .getResult();
      LLVM::BrOp::create(b, loc, ValueRange{redirected}, after);
    }
    setAccessAddress(op, checked);
  }
}

/// With the init check, around each LDS access (at the address the bounds
/// check gave, when it is on): a test that its bytes are in the
/// workgroup's LDS, and if so, on the shadow of those bytes (one byte per
/// LDS byte, from fly_emu_check_shadow at the top of the body; 0xFF once
/// written): a store or atomic sets it; a load of 1, 2, 4, 8 or 16 bytes
/// loads it as one integer and calls fly_emu_check_uninit only when that
/// is not all ones; a store or load of any other size calls
/// fly_emu_check_lds_written or fly_emu_check_uninit. With the race check,
/// the in-LDS branch first calls fly_emu_check_race(ctx, address, bytes,
/// site) for every LDS access (the runtime keeps the per-word shadow).
void ConvertROCDLToEmu::insertInitChecks(Value ctx, StringRef kernel,
                                         ArrayRef<CheckedAccess> accesses) {
  if (!(checks & (FLY_EMU_CHECK_INIT | FLY_EMU_CHECK_RACE)))
    return;
  const bool init = checks & FLY_EMU_CHECK_INIT;
  const bool race = checks & FLY_EMU_CHECK_RACE;
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);
  auto i64 = IntegerType::get(context, 64);
  Block *entry = cast<BlockArgument>(ctx).getOwner();
  Value low, high, shadow;
  auto prepare = [&] {
    if (low)
      return;
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    Location loc = entry->getParentOp()->getLoc();
    std::tie(low, high) = loadExtent(b, loc, ctx, -1);
    if (init)
      shadow = LLVM::CallOp::create(
                 b, loc,
                 getOrDeclare("fly_emu_check_shadow",
                              LLVM::LLVMFunctionType::get(ptrType, {ptrType})),
                 ValueRange{ctx})
                 .getResult();
  };
  auto uninit = getOrDeclare(
      "fly_emu_check_uninit",
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType, i64, ptrType}));
  auto written = getOrDeclare(
      "fly_emu_check_lds_written",
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType, i64}));
  auto raceCheck = getOrDeclare(
      "fly_emu_check_race",
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType, i64, ptrType}));

  for (const CheckedAccess &access : accesses) {
    if (access.space != FLY_EMU_SPACE_LDS)
      continue;
    prepare();
    Operation *op = access.op;
    Location loc = op->getLoc();
    Value address = memoryAccess(op)->address;
    const uint64_t n = access.bytes;
    const bool inlineSize = n == 1 || n == 2 || n == 4 || n == 8 || n == 16;

    Block *before = op->getBlock();
    Block *after = before->splitBlock(op);
    auto *inLds = new Block();
    inLds->insertBefore(after);
    OpBuilder b = OpBuilder::atBlockEnd(before);
    Value bits = LLVM::PtrToIntOp::create(b, loc, i64, address);
    Value end = LLVM::AddOp::create(
        b, loc, bits, LLVM::ConstantOp::create(b, loc, i64, int64_t(n)));
    Value atOrAbove =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, bits, low);
    Value notPast =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ule, end, high);
    LLVM::CondBrOp::create(b, loc, LLVM::AndOp::create(b, loc, atOrAbove, notPast),
                           inLds, ValueRange{}, after, ValueRange{});

    b.setInsertionPointToStart(inLds);
    Value bytes = LLVM::ConstantOp::create(b, loc, i64, int64_t(n));
    if (race) {
      Value site = siteAddress(b, loc, kernel, access.kind, access.space, -1);
      LLVM::CallOp::create(b, loc, raceCheck,
                           ValueRange{ctx, address, bytes, site});
    }
    if (!init) {
      LLVM::BrOp::create(b, loc, ValueRange{}, after);
      continue;
    }
    Value offset = LLVM::SubOp::create(b, loc, bits, low);
    Value at = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), shadow,
                                   ArrayRef<LLVM::GEPArg>{offset});
    if (access.kind != FLY_EMU_ACCESS_LOAD) {
      if (inlineSize) {
        auto type = IntegerType::get(context, unsigned(8 * n));
        LLVM::StoreOp::create(
            b, loc,
            LLVM::ConstantOp::create(
                b, loc, type,
                b.getIntegerAttr(type, APInt::getAllOnes(unsigned(8 * n)))),
            at, 1);
      } else {
        LLVM::CallOp::create(b, loc, written, ValueRange{ctx, address, bytes});
      }
      LLVM::BrOp::create(b, loc, ValueRange{}, after);
      continue;
    }
    Value site = siteAddress(b, loc, kernel, access.kind, access.space, -1);
    if (!inlineSize) {
      LLVM::CallOp::create(b, loc, uninit, ValueRange{ctx, address, bytes, site});
      LLVM::BrOp::create(b, loc, ValueRange{}, after);
      continue;
    }
    auto type = IntegerType::get(context, unsigned(8 * n));
    Value seen = LLVM::LoadOp::create(b, loc, type, at, 1);
    Value all = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::eq, seen,
        LLVM::ConstantOp::create(
            b, loc, type,
            b.getIntegerAttr(type, APInt::getAllOnes(unsigned(8 * n)))));
    auto *report = new Block();
    report->insertBefore(after);
    LLVM::CondBrOp::create(b, loc, all, after, ValueRange{}, report,
                           ValueRange{});
    b.setInsertionPointToStart(report);
    LLVM::CallOp::create(b, loc, uninit, ValueRange{ctx, address, bytes, site});
    LLVM::BrOp::create(b, loc, ValueRange{}, after);
  }
}

/// With the bounds check, a work-item's own memory:
///  - an element of a register vector at a run-time index (a FlyDSL
///    fragment indexed by a value): `index uge length` branches to a block
///    that calls fly_emu_check_access(ctx, index as a pointer, length,
///    site) and gives 0 (a read) or the vector unchanged (a write); else
///    the extractelement or insertelement runs, in a block of its own;
///  - an access through a pointer derived from one alloca: its byte
///    offset from the alloca's first byte (ptrtoint of the alloca, once,
///    after it) `ugt` the alloca's bytes minus the access's branches to a
///    block that calls fly_emu_check_access(ctx, offset as a pointer,
///    bytes, site) (which reports it and gives a scratch address); the
///    access is made at the address the branch gives.
/// The branches weigh the report as rare (LLVM then lays the in-range path
/// out straight). A constant index or offset out of range calls the check
/// unconditionally (reported when the work-item gets there, as on the GPU
/// it is undefined behaviour only when it runs).
void ConvertROCDLToEmu::insertPrivateChecks(Value ctx, StringRef kernel,
                                            ArrayRef<PrivateAccess> accesses) {
  if (accesses.empty())
    return;
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  LLVM::LLVMFuncOp check = checkAccessFunction();
  // Each alloca's address as an i64, right after it.
  llvm::DenseMap<Operation *, Value> bases;
  auto baseOf = [&](Operation *alloca) {
    Value &base = bases[alloca];
    if (!base) {
      OpBuilder b(context);
      b.setInsertionPointAfter(alloca);
      base = LLVM::PtrToIntOp::create(b, alloca->getLoc(), i64,
                                      alloca->getResult(0));
    }
    return base;
  };

  for (const PrivateAccess &access : accesses) {
    Operation *op = access.op;
    Location loc = op->getLoc();
    const bool fragment = access.kind == FLY_EMU_ACCESS_FRAGMENT_READ ||
                          access.kind == FLY_EMU_ACCESS_FRAGMENT_WRITE;
    if (fragment) {
      const bool read = access.kind == FLY_EMU_ACCESS_FRAGMENT_READ;
      Value vector = read ? cast<LLVM::ExtractElementOp>(op).getVector()
                          : cast<LLVM::InsertElementOp>(op).getVector();
      Value index = read ? cast<LLVM::ExtractElementOp>(op).getPosition()
                         : cast<LLVM::InsertElementOp>(op).getPosition();
      auto indexType = cast<IntegerType>(index.getType());
      Value result = op->getResult(0);
      // The report, in the block `b` is at: the fallback value.
      auto report = [&](OpBuilder &b) -> Value {
        Value site = siteAddress(b, loc, kernel, access.kind,
                                 FLY_EMU_SPACE_PRIVATE, -1);
        Value wide = index;
        if (indexType.getWidth() < 64)
          wide = LLVM::SExtOp::create(b, loc, i64, index);
        else if (indexType.getWidth() > 64)
          wide = LLVM::TruncOp::create(b, loc, i64, index);
        Value length =
            LLVM::ConstantOp::create(b, loc, i64, int64_t(access.bytes));
        LLVM::CallOp::create(
            b, loc, check,
            ValueRange{ctx, LLVM::IntToPtrOp::create(b, loc, ptrType, wide),
                       length, site});
        return read ? Value(LLVM::ZeroOp::create(b, loc, result.getType()))
                    : vector;
      };
      if (access.outside) {
        OpBuilder b(op);
        result.replaceAllUsesWith(report(b));
        op->erase();
        continue;
      }
      Block *before = op->getBlock();
      Block *inside = before->splitBlock(op);
      Block *after = inside->splitBlock(std::next(Block::iterator(op)));
      Value merged = after->addArgument(result.getType(), loc);
      OpBuilder b = OpBuilder::atBlockEnd(inside);
      auto through = LLVM::BrOp::create(b, loc, ValueRange{result}, after);
      result.replaceAllUsesExcept(merged, through);
      auto *slow = new Block();
      slow->insertBefore(after);
      b.setInsertionPointToEnd(before);
      Value length = LLVM::ConstantOp::create(
          b, loc, indexType, int64_t(access.bytes));
      Value outside = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge,
                                           index, length);
      LLVM::CondBrOp::create(b, loc, outside, slow, ValueRange{}, inside,
                             ValueRange{})
          .setBranchWeightsAttr(b.getDenseI32ArrayAttr({1, 1 << 20}));
      b.setInsertionPointToStart(slow);
      Value fallback = report(b);
      LLVM::BrOp::create(b, loc, ValueRange{fallback}, after);
      continue;
    }

    Value address = memoryAccess(op)->address;
    auto call = [&](OpBuilder &b, Value offset) -> Value {
      Value site = siteAddress(
          b, loc, kernel, access.kind, FLY_EMU_SPACE_PRIVATE, -1,
          StringAttr::get(context, access.allocation), "",
          uint32_t(access.extent));
      Value bytes = LLVM::ConstantOp::create(b, loc, i64, int64_t(access.bytes));
      return LLVM::CallOp::create(
                 b, loc, check,
                 ValueRange{ctx, LLVM::IntToPtrOp::create(b, loc, ptrType, offset),
                            bytes, site})
          .getResult();
    };
    Value checked;
    if (access.outside) {
      OpBuilder b(op);
      Value offset = LLVM::SubOp::create(
          b, loc, LLVM::PtrToIntOp::create(b, loc, i64, address),
          baseOf(access.alloca));
      checked = call(b, offset);
    } else {
      Value base = baseOf(access.alloca);
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op);
      checked = after->addArgument(ptrType, loc);
      auto *slow = new Block();
      slow->insertBefore(after);
      OpBuilder b = OpBuilder::atBlockEnd(before);
      Value offset = LLVM::SubOp::create(
          b, loc, LLVM::PtrToIntOp::create(b, loc, i64, address), base);
      Value limit = LLVM::ConstantOp::create(
          b, loc, i64, int64_t(access.extent - access.bytes));
      Value outside =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, offset, limit);
      LLVM::CondBrOp::create(b, loc, outside, slow, ValueRange{}, after,
                             ValueRange{address})
          .setBranchWeightsAttr(b.getDenseI32ArrayAttr({1, 1 << 20}));
      b.setInsertionPointToStart(slow);
      LLVM::BrOp::create(b, loc, ValueRange{call(b, offset)}, after);
    }
    setAccessAddress(op, checked);
  }
}

void ConvertROCDLToEmu::rewriteKernel(
    LLVM::LLVMFuncOp kernel,
    const llvm::DenseMap<StringAttr, int64_t> &ldsOffsets) {
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);
  Location loc = kernel.getLoc();
  SymbolTable symbols(module);

  // The body: the kernel, renamed, with the context as argument 0.
  std::string entryName = kernel.getSymName().str();
  std::string bodyName = entryName + "_body";
  for (unsigned i = 0; symbols.lookup(bodyName); ++i)
    bodyName = entryName + "_body" + std::to_string(i);
  SmallVector<Type> argTypes(kernel.getFunctionType().getParams());
  // (LLVMFuncOp's insertArgument leaves the function type alone: by hand.)
  SmallVector<Type> bodyArgTypes = {ptrType};
  llvm::append_range(bodyArgTypes, argTypes);
  kernel.setFunctionType(LLVM::LLVMFunctionType::get(
      kernel.getFunctionType().getReturnType(), bodyArgTypes,
      kernel.getFunctionType().isVarArg()));
  kernel.getBody().front().insertArgument(0u, ptrType, loc);
  if (ArrayAttr argAttrs = kernel.getArgAttrsAttr()) {
    SmallVector<Attribute> shifted = {DictionaryAttr::get(context)};
    llvm::append_range(shifted, argAttrs);
    kernel.setArgAttrsAttr(ArrayAttr::get(context, shifted));
  }
  symbols.setSymbolName(kernel, bodyName);
  kernel.setLinkage(LLVM::Linkage::Internal);
  SmallVector<NamedAttribute> entryAttrs;
  for (NamedAttribute attr : kernel->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.starts_with("fly."))
      entryAttrs.push_back(attr);
  }
  for (NamedAttribute attr : llvm::to_vector(kernel->getDiscardableAttrs())) {
    StringRef name = attr.getName().getValue();
    if (name.starts_with("fly.") || name.starts_with("rocdl.") ||
        name.starts_with("gpu."))
      kernel->removeAttr(attr.getName());
  }
  Value ctx = kernel.getBody().front().getArgument(0);

  // The ROCDL ops and LDS addresses of the body.
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op);
    if (isRocdlOp(op) || isa<LLVM::AddressOfOp>(op) ||
        ldsIntToPtr.contains(op) ||
        (intr && (intr.getIntrin() == kDispatchPtr ||
                  intr.getIntrin() == kWaveId ||
                  classify(op).kind != Lowering::Unsupported)))
      ops.push_back(op);
  });
  auto barrierType = LLVM::LLVMFunctionType::get(voidType, {ptrType});
  Value lds; // ctx->lds, loaded once at the top of the body.
  auto ldsBase = [&] {
    if (!lds) {
      OpBuilder top = OpBuilder::atBlockBegin(&kernel.getBody().front());
      lds = loadCtx(top, loc, ctx, kCtxLdsOffset, ptrType);
    }
    return lds;
  };
  auto declare = [&](StringRef name, LLVM::LLVMFunctionType type) {
    return getOrDeclare(name, type);
  };
  BodyLowering lowering(kernel, ctx, declare, chip);
  if (checks & FLY_EMU_CHECK_BOUNDS) {
    lowering.checkBounds([&, entryName](OpBuilder &b, Location at,
                                        uint32_t kind, uint32_t space,
                                        int32_t argument) {
      return siteAddress(b, at, entryName, kind, space, argument);
    });
    lowering.dmaSources(dmaSources.lookup(kernel));
  }
  if (checks & (FLY_EMU_CHECK_BOUNDS | FLY_EMU_CHECK_RACE))
    lowering.checkTensors([&, entryName](OpBuilder &b, Location at,
                                         uint32_t kind, uint32_t space,
                                         int32_t argument) {
      return siteAddress(b, at, entryName, kind, space, argument);
    });
  if (checks & FLY_EMU_CHECK_INIT)
    lowering.checkInit();
  // Barriers that share a source line (a helper's barrier called twice, two
  // on one line) are told apart by their order in the kernel: each its own
  // site, "file:line (barrier #k of n on that line)".
  llvm::StringMap<unsigned> barriersOfLine, barriersSeen;
  if (checks & FLY_EMU_CHECK_BARRIER)
    for (Operation *op : ops)
      if (!isa<LLVM::CallIntrinsicOp, LLVM::AddressOfOp>(op) &&
          classify(op).kind == Lowering::Barrier)
        ++barriersOfLine[sourceLine(op->getLoc())];
  for (Operation *op : ops) {
    OpBuilder b(op);
    if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op);
        intr && (intr.getIntrin() == kDispatchPtr ||
                 intr.getIntrin() == kWaveId)) {
      bool waveId = intr.getIntrin() == kWaveId; // else the dispatch ptr
      op->getResult(0).replaceAllUsesWith(loadCtx(
          b, op->getLoc(), ctx,
          waveId ? kCtxWaveIdOffset : kCtxDispatchPacketOffset,
          waveId ? Type(b.getI32Type()) : Type(ptrType)));
      op->erase();
      continue;
    }
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto it = ldsOffsets.find(addr.getGlobalNameAttr().getAttr());
      if (it == ldsOffsets.end())
        continue;
      Value replacement = ldsBase();
      if (it->second != 0)
        replacement = LLVM::GEPOp::create(
            b, op->getLoc(), ptrType, b.getI8Type(), lds,
            ArrayRef<LLVM::GEPArg>{int32_t(it->second)},
            LLVM::GEPNoWrapFlags::inbounds);
      addr.replaceAllUsesWith(replacement);
      addr.erase();
      continue;
    }
    if (auto cast = dyn_cast<LLVM::IntToPtrOp>(op)) {
      cast.replaceAllUsesWith(fly::ldsAddressFromInteger(
          b, op->getLoc(), cast.getArg(), ldsBase()));
      cast.erase();
      continue;
    }
    Plan plan = classify(op);
    switch (plan.kind) {
    case Lowering::CtxField: {
      Type type = op->getResult(0).getType();
      Value value = loadCtx(b, op->getLoc(), ctx, plan.offset, b.getI32Type());
      if (type != value.getType())
        value = LLVM::ZExtOp::create(b, op->getLoc(), type, value);
      op->getResult(0).replaceAllUsesWith(value);
      op->erase();
      break;
    }
    case Lowering::Barrier:
      if (checks & FLY_EMU_CHECK_BARRIER) {
        std::string line = sourceLine(op->getLoc()), note;
        if (unsigned n = barriersOfLine.lookup(line); n > 1 && !line.empty())
          note = ("barrier #" + Twine(++barriersSeen[line]) + " of " +
                  Twine(n) + " on that line")
                     .str();
        Value site = siteAddress(b, op->getLoc(), entryName,
                                 FLY_EMU_ACCESS_BARRIER, FLY_EMU_SPACE_LDS, -1,
                                 {}, note);
        auto checkedType =
            LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType});
        LLVM::CallOp::create(b, op->getLoc(),
                             getOrDeclare("fly_emu_barrier_checked", checkedType),
                             ValueRange{ctx, site});
      } else {
        LLVM::CallOp::create(b, op->getLoc(),
                             getOrDeclare(kBarrierFn, barrierType),
                             ValueRange{ctx});
      }
      op->erase();
      break;
    case Lowering::Erase:
      op->erase();
      break;
    case Lowering::Mbcnt:
    case Lowering::WaveCall:
    case Lowering::MakeBuffer:
    case Lowering::BufferAccess:
    case Lowering::BufferAtomic:
    case Lowering::LdsLoad:
    case Lowering::Matrix:
    case Lowering::Tensor:
    case Lowering::Convert:
      lowering.lower(op, plan.kind);
      break;
    case Lowering::Unsupported:
      llvm_unreachable("rejected by check()");
    }
  }

  // The entry: void k(FlyEmuContext *ctx, void **params).
  OpBuilder b(context);
  b.setInsertionPointAfter(kernel);
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, entryName,
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType}));
  for (NamedAttribute attr : entryAttrs)
    entry->setAttr(attr.getName(), attr.getValue());
  entry->setAttr(kEmuKernelAttr, b.getUnitAttr());
  entry->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  SmallVector<Value> callArgs = {block->getArgument(0)};
  Value params = block->getArgument(1);
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    Value slot = params;
    if (i != 0)
      slot = LLVM::GEPOp::create(b, loc, ptrType, ptrType, params,
                                 ArrayRef<LLVM::GEPArg>{int32_t(i)},
                                 LLVM::GEPNoWrapFlags::inbounds);
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrType, slot, 8);
    callArgs.push_back(LLVM::LoadOp::create(b, loc, type, valuePtr));
  }
  LLVM::CallOp::create(b, loc, kernel, callArgs);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

void ConvertROCDLToEmu::runOnOperation() {
  module = getOperation();
  MLIRContext *context = &getContext();
  checks = 0;
  sites.clear();
  strings.clear();
  nextName = 0;
  if (!emuCheck.empty()) {
    SmallVector<StringRef> names;
    StringRef(emuCheck).split(names, ',', -1, /*KeepEmpty=*/false);
    for (StringRef name : names) {
      name = name.trim();
      if (name == "all")
        checks |= FLY_EMU_CHECK_BOUNDS | FLY_EMU_CHECK_RACE |
                  FLY_EMU_CHECK_INIT | FLY_EMU_CHECK_BARRIER;
      else if (name == "bounds")
        checks |= FLY_EMU_CHECK_BOUNDS;
      else if (name == "bounds=strict")
        checks |= FLY_EMU_CHECK_BOUNDS | FLY_EMU_CHECK_BOUNDS_STRICT;
      else if (name == "init")
        checks |= FLY_EMU_CHECK_INIT;
      else if (name == "barrier")
        checks |= FLY_EMU_CHECK_BARRIER;
      else if (name == "race")
        checks |= FLY_EMU_CHECK_RACE;
      else {
        module.emitError() << "convert-rocdl-to-emu: unknown check '" << name
                           << "' in check=" << emuCheck
                           << " (checks: bounds, bounds=strict, race, init, "
                              "barrier, all)";
        return signalPassFailure();
      }
    }
  }
  // Inline asm becomes the ROCDL and LLVM ops of its instructions first,
  // so that everything below (checks, lowering) treats them as any other.
  if (failed(fly::lowerInlineAsmForEmulator(module, moduleChip(module, chip))))
    return signalPassFailure();
  if (failed(check(module)))
    return signalPassFailure();

  // 1. The LDS globals, before their address space is gone.
  SmallVector<LLVM::GlobalOp> staticLds, dynamicLds;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!isShared(global))
      continue;
    // Dynamic LDS is an external declaration of no size (`extern
    // __shared__ T x[]`: [0 x T]); a sized one is laid out like the others.
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getType());
    bool dynamic = global.getLinkage() == LLVM::Linkage::External &&
                   !global.getValueAttr() && !global.getInitializerBlock() &&
                   array && array.getNumElements() == 0;
    (dynamic ? dynamicLds : staticLds).push_back(global);
  }

  // The accesses to check for alignment, while address spaces tell memory
  // kinds apart.
  llvm::DenseMap<Operation *, SmallVector<AlignedAccess>> accesses;
  if (checkAlignment) {
    DataLayout layout = DataLayout::closest(module);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (isKernel(func))
        accesses[func] = alignedAccesses(func, layout);
  }
  llvm::DenseMap<Operation *, SmallVector<CheckedAccess>> bounded;
  llvm::DenseMap<Operation *, SmallVector<PrivateAccess>> privates;
  if (checks & (FLY_EMU_CHECK_BOUNDS | FLY_EMU_CHECK_INIT | FLY_EMU_CHECK_RACE)) {
    DataLayout layout = DataLayout::closest(module);
    SymbolTable symbols(module);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (isKernel(func)) {
        bounded[func] = checkedAccesses(func, layout, symbols);
        if (checks & FLY_EMU_CHECK_BOUNDS)
          privates[func] = privateAccesses(func, layout, symbols);
      }
  }
  ldsIntToPtr.clear();
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (isKernel(func))
      func.walk([&](LLVM::IntToPtrOp cast) {
        auto ptr = dyn_cast<LLVM::LLVMPointerType>(cast.getType());
        if (ptr && ptr.getAddressSpace() == kSharedAddressSpace)
          ldsIntToPtr.insert(cast);
      });
  dmaSources.clear();
  if (checks & FLY_EMU_CHECK_BOUNDS) {
    SymbolTable symbols(module);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!isKernel(func))
        continue;
      Provenance provenance(func, symbols);
      func.walk([&](ROCDL::GlobalLoadLDSOp op) {
        PointerRoot root = provenance.of(op->getOperand(0));
        if (root.kind == PointerRoot::Argument &&
            isa<LLVM::LLVMPointerType>(
                func.getArgument(root.argument).getType()))
          dmaSources[func][op] = root.argument;
      });
    }
  }

  // 2. One address space.
  auto flatPtr = LLVM::LLVMPointerType::get(context);
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](LLVM::LLVMPointerType ptr) -> std::optional<Type> {
        if (ptr.getAddressSpace() == 0)
          return std::nullopt;
        return flatPtr;
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  for (auto global : module.getOps<LLVM::GlobalOp>())
    global.setAddrSpace(0);
  module.walk([](LLVM::AddrSpaceCastOp cast) {
    cast.replaceAllUsesWith(cast.getArg());
    cast.erase();
  });

  // The LDS layout: static globals, then the dynamic part.
  DataLayout layout = DataLayout::closest(module);
  llvm::DenseMap<StringAttr, int64_t> ldsOffsets;
  uint64_t offset = 0;
  for (LLVM::GlobalOp global : staticLds) {
    uint64_t align = global.getAlignment().value_or(0);
    if (align == 0)
      align = layout.getTypeABIAlignment(global.getGlobalType());
    offset = llvm::alignTo(offset, align);
    ldsOffsets[global.getSymNameAttr()] = offset;
    offset += layout.getTypeSize(global.getGlobalType());
  }
  uint64_t dynamicAlign = 1;
  for (LLVM::GlobalOp global : dynamicLds)
    dynamicAlign = std::max<uint64_t>(
        dynamicAlign, global.getAlignment().value_or(0) > 0
                          ? *global.getAlignment()
                          : layout.getTypeABIAlignment(global.getGlobalType()));
  uint64_t staticBytes = llvm::alignTo(offset, dynamicAlign);
  for (LLVM::GlobalOp global : dynamicLds)
    ldsOffsets[global.getSymNameAttr()] = staticBytes;
  ldsExtents.clear();
  for (LLVM::GlobalOp global : staticLds)
    ldsExtents[global.getSymNameAttr()] = {
        uint32_t(ldsOffsets[global.getSymNameAttr()]),
        uint32_t(layout.getTypeSize(global.getGlobalType()))};
  for (LLVM::GlobalOp global : dynamicLds)
    ldsExtents[global.getSymNameAttr()] = {uint32_t(staticBytes), UINT32_MAX};

  // 3. AMDGPU intrinsics with host equivalents, intrinsics whose host
  // implementation differs from the GPU's, then the kernels.
  fly::lowerNumericInstructions(module);
  module.walk([](LLVM::CallIntrinsicOp op) {
    if (op.getIntrin() == "llvm.amdgcn.cvt.sr.bf16.f32")
      lowerCvtSrBf16(op);
    else if (op.getIntrin() == kPerm)
      lowerPerm(op);
  });
  for (auto func : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
    if (isKernel(func)) {
      std::string name = func.getSymName().str();
      rewriteKernel(func, ldsOffsets);
      insertAlignmentChecks(func.getBody().front().getArgument(0),
                            accesses[func]);
      insertBoundsChecks(func.getBody().front().getArgument(0), name,
                         bounded[func]);
      insertInitChecks(func.getBody().front().getArgument(0), name,
                       bounded[func]);
      insertPrivateChecks(func.getBody().front().getArgument(0), name,
                          privates[func]);
    } else
      for (NamedAttribute attr : llvm::to_vector(func->getDiscardableAttrs()))
        if (attr.getName().getValue().starts_with("rocdl."))
          func->removeAttr(attr.getName());
  }
  for (LLVM::GlobalOp global : staticLds)
    global.erase();
  for (LLVM::GlobalOp global : dynamicLds)
    global.erase();

  module->removeAttr("llvm.data_layout");
  module->removeAttr("llvm.target_triple");
  module->setAttr(kStaticLdsAttr, IntegerAttr::get(IntegerType::get(context, 32),
                                                   staticBytes));
  // The checks the launch turns on (Emu.h); none in unchecked code.
  if (checks) {
    OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
    auto i32 = IntegerType::get(context, 32);
    LLVM::GlobalOp::create(top, module.getLoc(), i32, /*isConstant=*/true,
                           LLVM::Linkage::External, FLY_EMU_CHECKS_GLOBAL,
                           top.getI32IntegerAttr(int32_t(checks)));
  }
}

} // namespace
