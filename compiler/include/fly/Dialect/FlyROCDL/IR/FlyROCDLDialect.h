//===- FlyROCDLDialect.h - The fly_rocdl dialect ----------------*- C++ -*-===//
//
// The dialect and its operation types (FlyROCDLDialect.td). A family's
// implementation files include this header and fly/Dialect/Fly/IR/FlyAtoms.h
// for the helpers the lowerings share.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_H
#define FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_H

#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Dialect.h"

#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLAttrs.h.inc"

namespace mlir::fly_rocdl {
/// Whether `type` is a fly pointer in buffer memory (#fly_rocdl.buffer_desc).
bool isBufferPointer(Type type);
} // namespace mlir::fly_rocdl

#define GET_OP_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLOps.h.inc"

#endif // FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_H
