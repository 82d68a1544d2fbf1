//===- FlyDialect.td - The fly dialect ---------------------*- tablegen -*-===//
//
// `fly`: the target-neutral layout algebra of FlyDSL (SPEC §2).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYDIALECT_TD
#define FLY_DIALECT_FLY_IR_FLYDIALECT_TD

include "mlir/IR/OpBase.td"

def Fly_Dialect : Dialect {
  let name = "fly";
  let cppNamespace = "::mlir::fly";
  let summary = "CuTe-style layout algebra, tensors and atoms";
  let description = [{
    Integer tuples, layouts, swizzles and tilers as types whose parameters are
    the objects of the layout algebra (`fly::algebra`). Ops that the algebra
    determines infer their result types, so a static algebra result can be
    stated as a type in IR.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // fly.make_ptr and fly.ptr.to_llvm speak of LLVM pointers.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  // Inherent attributes live in the attribute dictionary, which keeps the one
  // shared custom op parser simple.
  let usePropertiesForAttributes = 0;
  let extraClassDeclaration = [{
    /// Adds the types (FlyTypes.cpp, where their storage is defined).
    void registerTypes();
    /// Adds the attributes (FlyMemoryTypes.cpp).
    void registerAttributes();

    /// The algebra's records of the atom and tiled-atom types, each built
    /// once (FlyAtoms.h): a type is immutable and its record a function of
    /// it alone, while the verifiers, type inference and the lowering ask
    /// for it at every op that uses the atom.
    struct AtomRecords;
    AtomRecords &getAtomRecords() const { return *atomRecords; }

  private:
    std::unique_ptr<AtomRecords> atomRecords;

  public:
  }];
}

#endif // FLY_DIALECT_FLY_IR_FLYDIALECT_TD
