//===- FlyOps.h - Ops of the fly dialect ------------------------*- C++ -*-===//
//
// Include this header to use the fly dialect: it brings the dialect, the
// types and the ops.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYOPS_H
#define FLY_DIALECT_FLY_IR_FLYOPS_H

#include "fly/Dialect/Fly/IR/FlyDialect.h"
#include "fly/Dialect/Fly/IR/FlyTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fly::detail {
/// One evaluation of an op by the algebra (lib/Dialect/Fly/IR).
class Evaluation;
} // namespace mlir::fly::detail

namespace mlir::OpTrait::fly {
/// An algebra op CuTe also defines on tensors: on a memref or coord_tensor
/// it applies to the layout and keeps the iterator (FlyAlgebraEval.cpp).
template <typename ConcreteType>
class OnTensorLayout
    : public ::mlir::OpTrait::TraitBase<ConcreteType, OnTensorLayout> {};
} // namespace mlir::OpTrait::fly

#define GET_OP_CLASSES
#include "fly/Dialect/Fly/IR/FlyOps.h.inc"

#endif // FLY_DIALECT_FLY_IR_FLYOPS_H
