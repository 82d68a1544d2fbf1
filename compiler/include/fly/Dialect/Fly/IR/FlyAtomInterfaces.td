//===- FlyAtomInterfaces.td - What every copy and MMA operation is --------===//
//
// The type interfaces of the copy and MMA operations an atom wraps: the
// target-neutral ones of the fly dialect (universal_copy, universal_atomic,
// universal_fma) and the ROCm ones of fly_rocdl (buffer copies, MFMA, WMMA,
// ...) implement the same interfaces, once per operation. Everything that
// depends on the operation goes through them: the algebra's thread-value
// records (the atom, tiled and partitioning types), which chips have it,
// the names errors use, and the lowering of one atom call.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYATOMINTERFACES_TD
#define FLY_DIALECT_FLY_IR_FLYATOMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Fly_CopyOpTypeInterface : TypeInterface<"CopyOpTypeInterface"> {
  let cppNamespace = "::mlir::fly";
  let description = [{
    A copy operation: what one call moves (its traits: the threads and,
    per thread, the bits it reads and writes), the chips that have it, and
    its lowering. A call reads its source values and writes them (the two
    halves are also the SSA forms of a call); an operation that moves data
    without registers (a buffer load into LDS) lowers a whole call instead.
  }];
  let methods = [
    InterfaceMethod<[{The thread-value bit layouts of one call (reported
      through `ar` when the operation's parameters make none).}],
      "::fly::algebra::CopyTraits", "getCopyTraits",
      (ins "::fly::algebra::Arith &":$ar)>,
    InterfaceMethod<[{The operation's name in the Python API (for errors:
      "UniversalCopy128b", "BufferCopy128b").}],
      "std::string", "getApiName", (ins)>,
    InterfaceMethod<"Whether `chip` has the instructions of this operation.",
      "bool", "isAvailableOn", (ins "const ::fly::arch::ChipInfo &":$chip),
      [{}], [{ return true; }]>,
    InterfaceMethod<[{The run-time fields of the operation (set with
      atom.set_value), with their types.}],
      "::llvm::SmallVector<std::pair<::llvm::StringRef, ::mlir::Type>>",
      "getFields", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<[{Whether a call combines its values into the
      destination (an atomic: no call has a value result).}],
      "bool", "isAtomic", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{Whether a call uses its memory operands for their
      addresses only (an LDS DMA moves its own width from the source's
      address to the destination's): their element types then need not
      have the atom's value width.}],
      "bool", "isUntyped", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{Whether a call moves a whole tile (a descriptor-driven
      DMA such as gfx1250's tensor data mover): `fly.copy` is then one
      call on the whole source and destination, whatever their shapes, and
      a call's operands are checked by checkTile instead of the traits'
      value counts.}],
      "bool", "isWholeTile", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{For a whole-tile operation: whether one call may copy
      `src` to `dst` (fly memref types): empty, or what is wrong.}],
      "std::string", "checkTile", (ins "::mlir::Type":$src,
                                       "::mlir::Type":$dst),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{Whether a call may read from a memref of this fly
      type (a fly MemTensorType: the address spaces and element types the
      instructions take): empty, or what is wrong. The memref operands of
      the hooks below are fly memref types too.}],
      "std::string", "checkSource", (ins "::mlir::Type":$src),
      [{}], [{ return {}; }]>,
    InterfaceMethod<"The same for the destination of a call.",
      "std::string", "checkDestination",
      (ins "::mlir::Type":$dst), [{}], [{ return {}; }]>,
    InterfaceMethod<[{The source values of one call (`count` of them, as a
      vector of the source's element type) from `src`, the converted
      (LLVM-level) source operand of type `srcType`; `atom` is the atom
      value (its run-time fields). Null when the operation lowers whole
      calls only.}],
      "::mlir::Value", "emitRead",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$atom, "::mlir::Value":$src,
           "::mlir::Type":$srcType, "int64_t":$count)>,
    InterfaceMethod<[{Writes `values` (a vector) to `dst`, the converted
      destination operand of type `dstType`.}],
      "::mlir::LogicalResult", "emitWrite",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$atom, "::mlir::Value":$values,
           "::mlir::Value":$dst, "::mlir::Type":$dstType)>,
    InterfaceMethod<[{One whole call from `src` to `dst` (`count` source
      values): by default its read, then its write.}],
      "::mlir::LogicalResult", "emitCopy",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$atom, "::mlir::Value":$src,
           "::mlir::Type":$srcType, "::mlir::Value":$dst,
           "::mlir::Type":$dstType, "int64_t":$count),
      [{}], [{
        ::mlir::Value values =
            $_type.emitRead(b, loc, atom, src, srcType, count);
        if (!values)
          return ::mlir::failure();
        return $_type.emitWrite(b, loc, atom, values, dst, dstType);
      }]>,
  ];
}

def Fly_MmaOpTypeInterface : TypeInterface<"MmaOpTypeInterface"> {
  let cppNamespace = "::mlir::fly";
  let description = [{
    A matrix operation D = A * B + C: its thread-value layouts (the
    algebra's MmaAtom: the tile M x N x K, the threads, and per thread the
    elements of A, B and C it holds), the element types of its operands, the
    chips that have it, and its lowering on register values.
  }];
  let methods = [
    InterfaceMethod<"The algebra's record of the operation.",
      "::fly::algebra::MmaAtom", "getMmaTraits",
      (ins "::fly::algebra::Arith &":$ar)>,
    InterfaceMethod<"The element types of d, a, b and c.",
      "std::array<::mlir::Type, 4>", "getElementTypes", (ins)>,
    InterfaceMethod<"The operation's name in the Python API (for errors).",
      "std::string", "getApiName", (ins)>,
    InterfaceMethod<"Whether `chip` has the instruction.",
      "bool", "isAvailableOn", (ins "const ::fly::arch::ChipInfo &":$chip),
      [{}], [{ return true; }]>,
    InterfaceMethod<[{The run-time fields of the operation (set with
      atom.set_value), with their types.}],
      "::llvm::SmallVector<std::pair<::llvm::StringRef, ::mlir::Type>>",
      "getFields", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<[{The run-time field that auxiliary operand `index`
      (0 for the first one after the operand) of the A or B group of a
      gemm or atom call (`[a, scale_a]`) sets for that call, or empty when
      the operation takes no such operand. The operand holds one value per
      thread and call, of the field's type or, for an integer field, a
      narrower integer (zero-extended); a group without it leaves the
      field as the atom has it.}],
      "::llvm::StringRef", "getAuxiliaryField",
      (ins "::fly::algebra::MmaOperand":$operand, "unsigned":$index),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{d of one call from a, b and c: vectors of the values
      each thread holds (as many as the traits' layouts give it, of the
      element types); `atom` is the atom value (its run-time fields).}],
      "::mlir::Value", "emitMma",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$atom, "::mlir::Value":$a, "::mlir::Value":$bv,
           "::mlir::Value":$c)>,
  ];
}

#endif // FLY_DIALECT_FLY_IR_FLYATOMINTERFACES_TD
