//===- FlyDialect.cpp - The fly dialect -----------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::fly;

#include "fly/Dialect/Fly/IR/FlyDialect.cpp.inc"

void FlyDialect::initialize() {
  atomRecords = std::make_unique<AtomRecords>();
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "fly/Dialect/Fly/IR/FlyOps.cpp.inc"
      >();
}
