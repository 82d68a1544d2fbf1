//===- BufferPointer.h - Buffer pointers at the LLVM level ------*- C++ -*-===//
//
// What a fly pointer in buffer memory (#fly_rocdl.buffer_desc) becomes in
// convert-fly-to-rocdl: `!llvm.struct<(ptr<8>, i32)>`, the buffer resource
// and an offset in elements. The conversion (pointers, add_offset,
// swizzles) and the buffer copy atoms (CDNA3/CopyAtoms.cpp) share these.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_BUFFERPOINTER_H
#define FLY_DIALECT_FLYROCDL_IR_BUFFERPOINTER_H

#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

namespace mlir::fly_rocdl {

/// `!llvm.struct<(ptr<8>, i32)>`.
LLVM::LLVMStructType getBufferPointerLLVMType(MLIRContext *ctx);

/// The LLVM-level buffer pointer of a resource and an i32 element offset.
Value packBufferPointer(OpBuilder &b, Location loc, Value rsrc, Value offset);
/// Its resource (`!llvm.ptr<8>`) and its offset in elements (i32).
Value getBufferRsrc(OpBuilder &b, Location loc, Value pointer);
Value getBufferElementOffset(OpBuilder &b, Location loc, Value pointer);
/// Its offset in bytes, for elements of `elementBytes` bytes.
Value getBufferByteOffset(OpBuilder &b, Location loc, Value pointer,
                          int64_t elementBytes);
/// The pointer with `delta` (any integer or index value) more elements.
Value addBufferOffset(OpBuilder &b, Location loc, Value pointer, Value delta);

} // namespace mlir::fly_rocdl

#endif // FLY_DIALECT_FLYROCDL_IR_BUFFERPOINTER_H
