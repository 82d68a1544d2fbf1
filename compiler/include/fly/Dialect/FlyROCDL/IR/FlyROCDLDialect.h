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

#endif // FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_H
