//===- Dialect.cpp - The fly_rocdl dialect --------------------------------===//
//
// The dialect and the generated parts of its types; each family's types are
// implemented in its folder (CDNA3/, CDNA4/, GFX11/, GFX120X/, GFX1250/).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fly_rocdl;

#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.cpp.inc"

/// `custom<MNK>($m, $n, $k)` of the MMA types: `16x16x4`.
static ParseResult parseMNK(AsmParser &p, int32_t &m, int32_t &n,
                            int32_t &k) {
  SmallVector<int64_t, 3> dims;
  SMLoc loc = p.getCurrentLocation();
  if (p.parseDimensionList(dims, /*allowDynamic=*/false,
                           /*withTrailingX=*/false))
    return failure();
  if (dims.size() != 3)
    return p.emitError(loc, "expected an MxNxK shape");
  m = int32_t(dims[0]), n = int32_t(dims[1]), k = int32_t(dims[2]);
  return success();
}

static void printMNK(AsmPrinter &p, int32_t m, int32_t n, int32_t k) {
  p << m << 'x' << n << 'x' << k;
}

#define GET_TYPEDEF_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLTypes.cpp.inc"

void FlyROCDLDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLTypes.cpp.inc"
      >();
  registerBufferMemory(); // CDNA3/CopyAtoms.cpp
}
