//===- fly-opt.cpp - The FlyDSL optimizer driver --------------------------===//
//
// mlir-opt with the fly dialect and the Fly passes (SPEC §8).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fly::registerFlyPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::fly::FlyDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "FlyDSL optimizer driver\n", registry));
}
