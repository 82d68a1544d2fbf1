//===- HostAbi.h - A host function's argument block, described --*- C++ -*-===//
//
// What a caller of a compiled host function needs to fill its argument
// block (the ABI of fly/HostEntry.h), as data: the function's parameters as
// they were traced (`fly.original_type`: a tensor's element type, layout
// leaves and alignment; a scalar's type), and every value of the block
// (offset, scalar type, which parameter and, for a tensor, which of its
// dynamic leaves). The compiler makes it once per compile
// (fly::HostFunctionInfo); the front end's native packer and its
// explaining slow path are both built from it, so the rule that says which
// leaves a tensor passes exists only in the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_HOSTABI_H
#define FLY_HOSTABI_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Type;
} // namespace llvm
namespace mlir {
class Type;
} // namespace mlir

namespace fly {

/// The type of one value of an argument block, in its natural size and
/// alignment (HostEntry.h): a pointer is 8 bytes; i1 one byte 0/1; f16 and
/// bf16 their 16 bits.
enum class AbiScalar : uint8_t { Ptr, I1, I8, I16, I32, I64, F16, BF16, F32, F64 };

/// "ptr", "i1", "i8", ..., "bf16", "f32", "f64".
llvm::StringRef abiScalarName(AbiScalar type);
std::optional<AbiScalar> parseAbiScalar(llvm::StringRef name);
/// Its bytes in the block.
unsigned abiScalarBytes(AbiScalar type);
/// The block type of an integer of `bits` bits (1, 8, 16, 32 or 64), if it
/// has one.
std::optional<AbiScalar> abiIntegerScalar(unsigned bits);

/// One leaf of a tensor parameter's layout.
struct AbiLeaf {
  /// Of the strides (else of the shape).
  bool stride = false;
  /// Which extent or stride: the leaf's index, depth-first, among the
  /// shape's (or the strides') leaves.
  unsigned dim = 0;
  /// A static leaf's value; nullopt for a dynamic one, which a call passes.
  std::optional<int64_t> value;
  /// A dynamic leaf: the divisor the code assumes, and whether it is 64-bit
  /// (else it must fit an i32).
  int64_t divisibility = 1;
  bool wide = false;
};

/// One parameter of a host function as traced.
struct AbiParameter {
  enum class Kind : uint8_t {
    /// `!fly.memref`: a data pointer and a plain layout.
    Tensor,
    /// `!fly.ptr`: an address.
    Pointer,
    /// An integer, index or float.
    Scalar,
    /// `!llvm.ptr`: an opaque handle (a stream).
    Handle,
    /// Anything else (a memref of a composed layout): passed by the caller's
    /// own protocol, not described further.
    Other,
  };
  Kind kind = Kind::Other;
  /// The traced type, as MLIR prints it.
  std::string type;
  /// Tensor and Pointer: the element type as MLIR prints it, and the
  /// address's alignment in bytes.
  std::string element;
  uint64_t alignment = 1;
  /// Tensor: the number of shape leaves (the rank), then every leaf: the
  /// shape's, then the strides', depth-first (the dialect's leaf order).
  unsigned rank = 0;
  std::vector<AbiLeaf> leaves;
  /// Scalar: its type in the block (an `index` is I64).
  AbiScalar scalar = AbiScalar::I64;
};

/// One value of an argument block.
struct AbiSlot {
  uint64_t offset = 0;
  AbiScalar type = AbiScalar::Ptr;
  /// The host function parameter it comes from.
  unsigned parameter = 0;
  /// -1: the parameter itself (a scalar, a handle) or its data pointer;
  /// else the index in AbiParameter::leaves of the dynamic leaf it holds.
  int leaf = -1;
};

/// One argument of a host function in its packed argument block (the ABI of
/// fly/HostEntry.h), as fly-rewrite-func-signature left it.
struct HostArgument {
  /// "ptr:I", "leaves:I" or "value:I" (`fly.abi`).
  std::string abi;
  /// The LLVM type, e.g. `ptr addrspace(1)`, `{ i32, i32, i32 }`, `i64`.
  std::string type;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// A host function (the traced `@flyc.jit` body, after
/// fly-rewrite-func-signature) in Artifact::hostModule.
struct HostFunctionInfo {
  std::string name;
  std::vector<HostArgument> arguments;
  /// The size of the argument block (the padding after the last argument
  /// included).
  uint64_t blockSize = 0;
  /// The function's signature before the rewrite (`fly.original_type`).
  std::string originalType;
  /// Its parameters as traced, one per input of originalType.
  std::vector<AbiParameter> parameters;
  /// Every value of the argument block, in offset order; the bytes no slot
  /// covers are padding.
  std::vector<AbiSlot> slots;
};

/// The block type of an LLVM argument type (a pointer, an integer of 1, 8,
/// 16, 32 or 64 bits, a half, bfloat, float or double), if it is one.
std::optional<AbiScalar> abiScalarOf(llvm::Type *type);

/// The parameter of traced type `type`.
AbiParameter describeHostParameter(mlir::Type type);

} // namespace fly

#endif // FLY_HOSTABI_H
