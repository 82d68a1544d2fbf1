//===- fly-opt.cpp - The FlyDSL optimizer driver --------------------------===//
//
// mlir-opt with the fly dialect, the Fly passes and the FlyDSL pipeline
// (SPEC §8): `fly-opt in.mlir --fly-pipeline="stage=all chip=gfx942"`.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/Compile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fly::registerFlyPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  // Before the upstream extensions: the first serializer attached to
  // #rocdl.target wins, and ours links with lld in-process (no ROCm).
  mlir::fly::registerFlyTargetInterfaces(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::fly::FlyDialect, mlir::fly_rocdl::FlyROCDLDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "FlyDSL optimizer driver\n", registry));
}
