//===- CDNA3/BufferOffsets.h - Offsets of a buffer access -------*- C++ -*-===//
//
// A raw buffer instruction adds three offsets to the resource's base: a
// VGPR (voffset), an SGPR (soffset) and an immediate. The element offset
// of a buffer pointer is one i32 sum; left whole in voffset, every
// wave-uniform term of it (the block's tile, a value's stride multiple in
// a per-thread fragment) is added in VGPRs, once per access. The hardware
// range-checks voffset + immediate only (the soffset operand is "excluded
// from bounds checking", IntrinsicsAMDGPU.td), so those terms may move to
// soffset only where the check cannot matter: a resource of 4 GiB - 1
// bytes, make_buffer_tensor's max_size. There the uniform terms of the sum
// go to soffset when every term is known non-negative (the instruction adds
// its unsigned offsets without wrapping, the i32 sum wraps).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_BUFFEROFFSETS_H
#define FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_BUFFEROFFSETS_H

#include "mlir/IR/Builders.h"

namespace mlir::fly_rocdl {

/// The element offset of an access through the LLVM-level buffer pointer
/// `pointer` (BufferPointer.h) as its lane-varying part and its
/// wave-uniform part, both i32; the uniform part is null when the offset
/// stays whole (the resource's range checks matter, a term may be negative,
/// or the pointer's origin is not visible).
struct BufferOffsetSplit {
  Value varying;
  Value uniform;
};
BufferOffsetSplit splitBufferElementOffset(OpBuilder &b, Location loc,
                                           Value pointer);

} // namespace mlir::fly_rocdl

#endif // FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_BUFFEROFFSETS_H
