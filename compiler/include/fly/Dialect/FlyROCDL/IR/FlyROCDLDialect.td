//===- FlyROCDLDialect.td - The fly_rocdl dialect ---------*- tablegen -*-===//
//
// The ROCm copy and MMA operations (buffer copies, LDS loads, MFMA, WMMA,
// the scaled forms, TDM) as types of the fly_rocdl dialect. Each implements
// the fly dialect's operation interfaces (fly/Dialect/Fly/IR/
// FlyAtomInterfaces.td), so the atoms, tiled atoms and partitioning of the
// fly dialect take them like the universal ones. One folder per arch family
// holds the operations that family brought (CDNA3/ also has the buffer
// instructions every chip has); an operation says itself which chips have
// it.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_TD
#define FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "fly/Dialect/Fly/IR/FlyAtomInterfaces.td"

def FlyROCDL_Dialect : Dialect {
  let name = "fly_rocdl";
  let cppNamespace = "::mlir::fly_rocdl";
  let summary = "The ROCm copy and MMA operations of fly atoms";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerBufferMemory();
  }];
  let dependentDialects = ["::mlir::fly::FlyDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

/// A copy operation of fly_rocdl: `!fly_rocdl.<mnemonic><...>`. `overrides`
/// lists the interface methods with defaults it implements itself.
class FlyROCDL_CopyOp<string name, string typeMnemonic,
                      list<string> overrides = []>
    : TypeDef<FlyROCDL_Dialect, name,
              [DeclareTypeInterfaceMethods<Fly_CopyOpTypeInterface,
                                           !listconcat(["isAvailableOn"],
                                                       overrides)>]> {
  let mnemonic = typeMnemonic;
  let genVerifyDecl = 1;
}

/// An MMA operation of fly_rocdl.
class FlyROCDL_MmaOp<string name, string typeMnemonic,
                     list<string> overrides = []>
    : TypeDef<FlyROCDL_Dialect, name,
              [DeclareTypeInterfaceMethods<Fly_MmaOpTypeInterface,
                                           !listconcat(["isAvailableOn"],
                                                       overrides)>]> {
  let mnemonic = typeMnemonic;
  let genVerifyDecl = 1;
}

#endif // FLY_DIALECT_FLYROCDL_IR_FLYROCDLDIALECT_TD
