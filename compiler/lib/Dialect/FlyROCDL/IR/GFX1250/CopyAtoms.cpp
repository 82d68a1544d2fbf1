//===- GFX1250/CopyAtoms.cpp - The tensor data mover ----------------------===//
//
// gfx1250.tdm: a whole-tile copy between global memory and LDS by
// tensor_load_to_lds / tensor_store_from_lds. A call builds the
// instruction's descriptor (D#, four groups of dwords) from the global
// operand's type (the tile's shape and static strides, the element size),
// its pointer, the LDS operand's pointer and the atom's fields:
//
//   group 0  [1:0] predicate (1), [63:32] LDS byte address,
//            [120:64] global byte address, [127:126] type (2)
//   group 1  [15:0] multicast mask, [17:16] log2(element bytes),
//            [18] atomic barrier, [20] pad enable, [21] early timeout,
//            [24:22] log2(pad interval in dwords) - 1,
//            [31:25] pad amount in dwords - 1, [79:48] tensor_dim0,
//            [111:80] tensor_dim1, [127:112] tile_dim0, [143:128]
//            tile_dim1, [159:144] tile_dim2, [207:160] dim1 stride,
//            [255:208] dim2 stride
//   group 2  [31:0] tensor_dim2, [63:32] tensor_dim3, [111:64] dim3
//            stride, [127:112] tile_dim3
//   group 3  [47:0] dim4 stride, [79:48] tensor_dim4, [95:80] tile_dim4
//
// Descriptor dimension 0 is the innermost (contiguous) mode, so dimension
// j is the tile's mode rank-1-j; strides are in elements, tensor dims are
// the extents (from the tile's origin) past which elements are out of
// range. Ranks 1 and 2 use the two-group forms (.d2). The emulator decodes
// the same descriptor from the ISA's definition (runtime/emu/Tensor.cpp).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
namespace flyd = ::mlir::fly;

namespace {

constexpr int32_t kMaxRank = 5;
/// The largest tile_dim (16 bits).
constexpr int64_t kMaxTileDim = 0xFFFF;
/// An extent that limits nothing (the default of the extent_i fields).
constexpr int32_t kNoLimit = 0x7FFFFFFF;
/// The value FlyDSL's make_tdm_atom gives a stride_i field it leaves
/// unset: the global operand's static stride is used instead.
constexpr int64_t kStrideUnset = -0x80000000LL;

std::optional<flyd::AddressSpace> spaceOf(Type memref) {
  return cast<flyd::MemTensorType>(memref).getPointer().getKnownAddressSpace();
}

bool isGlobal(Type memref) {
  return spaceOf(memref) == flyd::AddressSpace::Global;
}

bool isShared(Type memref) {
  return spaceOf(memref) == flyd::AddressSpace::Shared;
}

std::string text(llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::string s;
  llvm::raw_string_ostream os(s);
  write(os);
  return s;
}

/// The plain layout of a memref, if it has one.
std::optional<algebra::Layout> plainLayout(Type memref) {
  return flyd::getAlgebraValueAs<algebra::Layout>(
      cast<flyd::MemTensorType>(memref).getLayout());
}

/// The waves along each mode of a tile shared by `waves` waves: powers of
/// two given to the outer modes first, as long as a mode has at least two
/// elements per wave; what is left goes to the innermost mode.
SmallVector<int64_t> wavesPerMode(ArrayRef<int64_t> tile, int64_t waves) {
  SmallVector<int64_t> split(tile.size(), 1);
  for (size_t i = 0; i < tile.size() && waves > 1; ++i)
    while (waves > 1 && split[i] * 2 <= tile[i]) {
      split[i] *= 2;
      waves /= 2;
    }
  if (waves > 1)
    split.back() *= waves;
  return split;
}

/// The tile of a call: the global operand's flat static shape and its
/// strides (static or dynamic leaves).
struct Tile {
  SmallVector<int64_t> shape;
  SmallVector<algebra::Int> stride;
  SmallVector<int64_t> perWave; // the block of one wave
  SmallVector<int64_t> waves;   // waves along each mode
  int64_t elementBytes = 0;
};

/// Fills `tile` from the global operand `global`; empty, or what is wrong.
std::string readTile(TensorDataMoverGFX1250Type op, Type global, Tile &tile) {
  auto memref = cast<flyd::MemTensorType>(global);
  std::optional<algebra::Layout> layout = plainLayout(global);
  if (!layout)
    return text([&](llvm::raw_ostream &os) {
      os << "TDM: the global tile " << global
         << " must have a plain layout (no swizzle)";
    });
  int32_t rank = op.getRank();
  if (int32_t(layout->rank()) != rank)
    return text([&](llvm::raw_ostream &os) {
      os << "TDM: the atom is of rank " << rank << " but the global tile "
         << global << " has " << layout->rank() << " modes";
    });
  tile.shape.clear();
  tile.stride.clear();
  for (int32_t i = 0; i < rank; ++i) {
    algebra::Layout mode = (*layout)[i];
    if (!mode.shape.isLeaf() || !mode.shape.leaf().isStatic())
      return text([&](llvm::raw_ostream &os) {
        os << "TDM: mode " << i << " of the global tile " << global
           << " must be a single static extent (the tile's shape is "
              "compile-time)";
      });
    tile.shape.push_back(mode.shape.leaf().value());
    tile.stride.push_back(mode.stride.leaf());
  }
  if (tile.shape.back() > 1 && !tile.stride.back().isStaticValue(1))
    return text([&](llvm::raw_ostream &os) {
      os << "TDM: the innermost mode of the global tile " << global
         << " must have stride 1 (the tensor data mover reads it "
            "contiguously)";
    });
  std::optional<int64_t> bytes = flyd::getElementByteSize(memref.getElementType());
  if (!bytes || !memref.getElementType().isIntOrFloat() ||
      !llvm::is_contained({1, 2, 4, 8}, *bytes))
    return text([&](llvm::raw_ostream &os) {
      os << "TDM: elements of 1, 2, 4 or 8 bytes only, not "
         << memref.getElementType();
    });
  tile.elementBytes = *bytes;
  tile.waves = wavesPerMode(tile.shape, op.getNumWarps());
  tile.perWave.clear();
  for (int32_t i = 0; i < rank; ++i) {
    if (tile.shape[i] % tile.waves[i] != 0)
      return text([&](llvm::raw_ostream &os) {
        os << "TDM: the " << op.getNumWarps() << " waves split mode " << i
           << " of the tile (" << tile.shape[i] << ") " << tile.waves[i]
           << " ways, which does not divide it";
      });
    tile.perWave.push_back(tile.shape[i] / tile.waves[i]);
    if (tile.perWave.back() > kMaxTileDim)
      return text([&](llvm::raw_ostream &os) {
        os << "TDM: mode " << i << " of one wave's tile has "
           << tile.perWave.back() << " elements, more than the "
           << kMaxTileDim << " a descriptor holds";
      });
  }
  return {};
}

/// The LDS strides of a tile: packed, innermost mode first, with the
/// padding after every `interval` elements folded into the stride of the
/// mode whose inner modes fill one interval. nullopt when the padding does
/// not fall on such a mode boundary.
std::optional<SmallVector<int64_t>> ldsStrides(ArrayRef<int64_t> shape,
                                               int64_t interval,
                                               int64_t amount) {
  size_t rank = shape.size();
  SmallVector<int64_t> stride(rank, 1);
  int64_t packed = 1;
  bool padded = interval == 0;
  for (size_t i = rank; i-- > 0;) {
    if (i + 1 < rank) {
      packed *= shape[i + 1];
      stride[i] = stride[i + 1] * shape[i + 1];
      if (!padded && packed == interval) {
        stride[i] = interval + amount;
        padded = true;
      }
    }
  }
  if (!padded)
    return std::nullopt;
  return stride;
}

/// An i32 constant of the low 32 bits of `value`.
Value constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, int32_t(uint32_t(value)), 32);
}

Value constI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}

/// An integer field value as `type` (sign-extended or truncated).
Value asInteger(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, type, value);
  if (value.getType().getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, type, value);
  return arith::TruncIOp::create(b, loc, type, value);
}

/// llvm.amdgcn.wave.id (gfx1250): the wave's index in its workgroup (MLIR
/// has no ROCDL op for it).
Value createWaveId(OpBuilder &b, Location loc) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getI32Type(),
                                       b.getStringAttr("llvm.amdgcn.wave.id"),
                                       ValueRange{})
      .getResult(0);
}

/// A vector<N x i32> of `words`.
Value dwords(OpBuilder &b, Location loc, ArrayRef<Value> words) {
  auto type = VectorType::get({int64_t(words.size())}, b.getI32Type());
  Value vector = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, word] : llvm::enumerate(words))
    vector = LLVM::InsertElementOp::create(b, loc, vector, word,
                                           constI32(b, loc, int64_t(i)));
  return vector;
}

} // namespace

//===----------------------------------------------------------------------===//
// gfx1250.tdm
//===----------------------------------------------------------------------===//

LogicalResult TensorDataMoverGFX1250Type::verify(
    function_ref<InFlightDiagnostic()> emitError, int32_t rank,
    int32_t numWarps, int32_t padInterval, int32_t padAmount,
    int32_t cacheModifier, bool, bool) {
  if (rank < 1 || rank > kMaxRank)
    return emitError() << "gfx1250.tdm: the rank is 1 to " << kMaxRank
                       << ", not " << rank;
  if (numWarps < 1 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps))
    return emitError() << "gfx1250.tdm: the number of waves sharing a tile "
                          "is a power of two from 1 to 32, not "
                       << numWarps;
  if (padInterval < 0 || padAmount < 0 ||
      (padInterval == 0) != (padAmount == 0))
    return emitError() << "gfx1250.tdm: the padding (interval " << padInterval
                       << ", amount " << padAmount
                       << ") is two positive numbers of elements, or none";
  if (padInterval != 0 && !llvm::isPowerOf2_32(padInterval))
    return emitError() << "gfx1250.tdm: the padding interval is a power of "
                          "two number of elements, not "
                       << padInterval;
  if (cacheModifier < 0 || cacheModifier > 31)
    return emitError() << "gfx1250.tdm: the cache policy is the "
                          "instruction's 5 bits (0..31), not "
                       << cacheModifier;
  return success();
}

algebra::CopyTraits
TensorDataMoverGFX1250Type::getCopyTraits(algebra::Arith &ar) const {
  // A whole-tile operation has no per-thread values; one thread of 64
  // bits (which every element width of TDM divides) stands for a call.
  return algebra::universalCopyTraits(ar, 64);
}

std::string TensorDataMoverGFX1250Type::getApiName() const { return "TDM"; }

bool TensorDataMoverGFX1250Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return chip.hasTensorDataMover();
}

bool TensorDataMoverGFX1250Type::isWholeTile() const { return true; }

SmallVector<std::pair<StringRef, Type>>
TensorDataMoverGFX1250Type::getFields() const {
  static constexpr StringLiteral kExtents[] = {"extent_0", "extent_1",
                                               "extent_2", "extent_3",
                                               "extent_4"};
  static constexpr StringLiteral kStrides[] = {"stride_0", "stride_1",
                                               "stride_2", "stride_3"};
  Type i32 = IntegerType::get(getContext(), 32);
  Type i64 = IntegerType::get(getContext(), 64);
  SmallVector<std::pair<StringRef, Type>> fields;
  for (int32_t i = 0; i < getRank(); ++i)
    fields.push_back({kExtents[i], i32});
  for (int32_t i = 0; i + 1 < getRank(); ++i)
    fields.push_back({kStrides[i], i64});
  fields.push_back({"imm_offset", i64});
  fields.push_back({"workgroup_mask", i32});
  return fields;
}

static std::string checkTdmSide(Type memref) {
  if (isGlobal(memref) || isShared(memref))
    return {};
  return text([&](llvm::raw_ostream &os) {
    os << "TDM copies between global memory and LDS (shared memory), not "
       << cast<flyd::MemTensorType>(memref).getAddressSpace() << " memory";
  });
}

std::string TensorDataMoverGFX1250Type::checkSource(Type src) const {
  return checkTdmSide(src);
}

std::string TensorDataMoverGFX1250Type::checkDestination(Type dst) const {
  return checkTdmSide(dst);
}

std::string TensorDataMoverGFX1250Type::checkTile(Type src, Type dst) const {
  bool load = isGlobal(src) && isShared(dst);
  if (!load && !(isShared(src) && isGlobal(dst)))
    return "TDM copies global memory to LDS (tensor_load_to_lds) or LDS to "
           "global memory (tensor_store_from_lds): one side global, the "
           "other shared";
  Type global = load ? src : dst, lds = load ? dst : src;
  if (cast<flyd::MemTensorType>(src).getElementType() !=
      cast<flyd::MemTensorType>(dst).getElementType())
    return "TDM: the source and destination have different element types";
  Tile tile;
  if (std::string problem = readTile(*this, global, tile); !problem.empty())
    return problem;
  int64_t bits = tile.elementBytes * 8;
  int64_t interval = getPadInterval(), amount = getPadAmount();
  if (interval) {
    int64_t intervalBits = interval * bits, amountBits = amount * bits;
    if (intervalBits % 32 || amountBits % 32 || intervalBits / 32 < 2 ||
        intervalBits / 32 > 256 || amountBits / 32 > 128)
      return text([&](llvm::raw_ostream &os) {
        os << "TDM: the padding (interval " << interval << ", amount "
           << amount << " elements of " << bits
           << " bits) does not fit the descriptor: the interval is 2 to "
              "256 dwords, the amount 1 to 128 dwords";
      });
    int64_t perWave = 1;
    for (int64_t n : tile.perWave)
      perWave *= n;
    if (perWave % interval)
      return text([&](llvm::raw_ostream &os) {
        os << "TDM: one wave's part of the tile (" << perWave
           << " elements) is not a multiple of the padding interval ("
           << interval << ")";
      });
  }
  std::optional<SmallVector<int64_t>> want =
      ldsStrides(tile.shape, interval, amount);
  if (!want)
    return text([&](llvm::raw_ostream &os) {
      os << "TDM: the padding interval (" << interval
         << " elements) must be the size of the tile's innermost modes "
            "(a row, a plane, ...)";
    });
  std::optional<algebra::Layout> layout = plainLayout(lds);
  auto expected = [&](llvm::raw_ostream &os) {
    os << "TDM: the LDS tile " << lds << " must have the global tile's shape "
       << "with the strides (";
    llvm::interleaveComma(*want, os);
    os << "): packed, innermost mode first"
       << (interval ? ", with the atom's padding" : "");
  };
  if (!layout || int32_t(layout->rank()) != getRank())
    return text(expected);
  for (int32_t i = 0; i < getRank(); ++i) {
    algebra::Layout mode = (*layout)[i];
    if (!mode.shape.isLeaf() || !mode.shape.leaf().isStaticValue(tile.shape[i]))
      return text(expected);
    if (tile.shape[i] > 1 && !mode.stride.leaf().isStaticValue((*want)[i]))
      return text(expected);
  }
  return {};
}

Value TensorDataMoverGFX1250Type::emitRead(OpBuilder &, Location, Value,
                                           Value, Type, int64_t) const {
  return {}; // no register side: whole calls only
}

LogicalResult TensorDataMoverGFX1250Type::emitWrite(OpBuilder &, Location,
                                                    Value, Value, Value,
                                                    Type) const {
  return failure();
}

LogicalResult TensorDataMoverGFX1250Type::emitCopy(
    OpBuilder &b, Location loc, Value atom, Value src, Type srcType,
    Value dst, Type dstType, int64_t) const {
  if (std::string problem = checkTile(srcType, dstType); !problem.empty())
    return emitError(loc) << problem;
  bool load = isGlobal(srcType);
  Type globalType = load ? srcType : dstType;
  Value globalPtr = load ? src : dst, ldsPtr = load ? dst : src;
  Tile tile;
  (void)readTile(*this, globalType, tile);
  int32_t rank = getRank();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();

  auto field = [&](StringRef name) {
    return flyd::getAtomFieldValue(atom, name);
  };
  // Strides (elements, i64): a set field, else the layout's static stride.
  SmallVector<Value> stride(rank);
  for (int32_t i = 0; i + 1 < rank; ++i) {
    Value set = field(("stride_" + Twine(i)).str());
    APInt constant;
    bool unset = !set || (matchPattern(set, m_ConstantInt(&constant)) &&
                          constant.getSExtValue() == kStrideUnset);
    if (!unset) {
      stride[i] = asInteger(b, loc, set, i64);
      continue;
    }
    if (!tile.stride[i].isStatic()) {
      if (tile.shape[i] == 1) {
        stride[i] = constI64(b, loc, 0);
        continue;
      }
      return emitError(loc)
             << "TDM: the stride of mode " << i << " of the global tile "
             << globalType
             << " is not static; give it to make_tdm_atom (strides=...)";
    }
    stride[i] = constI64(b, loc, tile.stride[i].value());
  }
  stride[rank - 1] = constI64(b, loc, 1);
  SmallVector<Value> extent(rank);
  for (int32_t i = 0; i < rank; ++i) {
    Value set = field(("extent_" + Twine(i)).str());
    extent[i] = set ? asInteger(b, loc, set, i32) : constI32(b, loc, kNoLimit);
  }
  Value immOffset = field("imm_offset");
  Value mask = field("workgroup_mask");

  // This wave's block: its coordinates along each split mode, mode 0
  // varying fastest with the wave id.
  SmallVector<Value> start(rank, constI32(b, loc, 0));
  Value globalAddress = LLVM::PtrToIntOp::create(b, loc, i64, globalPtr);
  if (immOffset)
    globalAddress = arith::AddIOp::create(b, loc, globalAddress,
                                          asInteger(b, loc, immOffset, i64));
  Value ldsAddress = LLVM::PtrToIntOp::create(b, loc, i32, ldsPtr);
  if (getNumWarps() > 1) {
    Value rest = createWaveId(b, loc);
    Value globalOffset = constI64(b, loc, 0), packedOffset = constI32(b, loc, 0);
    int64_t packed = 1;
    SmallVector<int64_t> packedStride(rank);
    for (int32_t i = rank; i-- > 0;) {
      packedStride[i] = packed;
      packed *= tile.shape[i];
    }
    for (int32_t i = 0; i < rank; ++i) {
      if (tile.waves[i] == 1)
        continue;
      Value n = constI32(b, loc, tile.waves[i]);
      Value coord = arith::RemUIOp::create(b, loc, rest, n);
      rest = arith::DivUIOp::create(b, loc, rest, n);
      start[i] = arith::MulIOp::create(b, loc, coord,
                                       constI32(b, loc, tile.perWave[i]));
      Value wide = arith::ExtUIOp::create(b, loc, i64, start[i]);
      globalOffset = arith::AddIOp::create(
          b, loc, globalOffset, arith::MulIOp::create(b, loc, wide, stride[i]));
      packedOffset = arith::AddIOp::create(
          b, loc, packedOffset,
          arith::MulIOp::create(b, loc, start[i],
                                constI32(b, loc, packedStride[i])));
    }
    globalAddress = arith::AddIOp::create(
        b, loc, globalAddress,
        arith::MulIOp::create(b, loc, globalOffset,
                              constI64(b, loc, tile.elementBytes)));
    // The block starts at a whole number of padding intervals (checkTile).
    Value padded = packedOffset;
    if (getPadInterval())
      padded = arith::AddIOp::create(
          b, loc, packedOffset,
          arith::MulIOp::create(
              b, loc,
              arith::DivUIOp::create(b, loc, packedOffset,
                                     constI32(b, loc, getPadInterval())),
              constI32(b, loc, getPadAmount())));
    ldsAddress = arith::AddIOp::create(
        b, loc, ldsAddress,
        arith::MulIOp::create(b, loc, padded,
                              constI32(b, loc, tile.elementBytes)));
  }

  // Descriptor dimension j is mode rank-1-j.
  Value zero = constI32(b, loc, 0);
  auto tensorDim = [&](int32_t j) -> Value {
    if (j >= rank)
      return zero;
    int32_t mode = rank - 1 - j;
    return arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, extent[mode], start[mode]), zero);
  };
  auto tileDim = [&](int32_t j) -> int64_t {
    return j < rank ? tile.perWave[rank - 1 - j] : 0;
  };
  // The 48-bit stride of descriptor dimension j (1..4): low 32 bits, high 16.
  auto strideLo = [&](int32_t j) -> Value {
    if (j >= rank)
      return zero;
    return arith::TruncIOp::create(b, loc, i32, stride[rank - 1 - j]);
  };
  auto strideHi = [&](int32_t j) -> Value {
    if (j >= rank)
      return zero;
    Value high = arith::ShRUIOp::create(b, loc, stride[rank - 1 - j],
                                        constI64(b, loc, 32));
    return arith::AndIOp::create(b, loc,
                                 arith::TruncIOp::create(b, loc, i32, high),
                                 constI32(b, loc, 0xFFFF));
  };
  Value c16 = constI32(b, loc, 16);
  auto low16 = [&](Value v) {
    return arith::AndIOp::create(b, loc, v, constI32(b, loc, 0xFFFF));
  };
  auto high16 = [&](Value v) { return arith::ShRUIOp::create(b, loc, v, c16); };
  auto shl16 = [&](Value v) { return arith::ShLIOp::create(b, loc, v, c16); };
  auto orr = [&](Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); };

  // Group 0.
  Value globalLo = arith::TruncIOp::create(b, loc, i32, globalAddress);
  Value globalHi = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(b, loc, globalAddress, constI64(b, loc, 32)));
  globalHi = orr(arith::AndIOp::create(b, loc, globalHi,
                                       constI32(b, loc, 0x01FFFFFF)),
                 constI32(b, loc, int64_t(2) << 30));
  Value group0 =
      dwords(b, loc, {constI32(b, loc, 1), ldsAddress, globalLo, globalHi});

  // Group 1.
  uint32_t config = uint32_t(llvm::Log2_64(tile.elementBytes)) << 16;
  if (getAtomicBarrier())
    config |= 1u << 18;
  if (getEarlyTimeout())
    config |= 1u << 21;
  if (getPadInterval()) {
    int64_t bits = tile.elementBytes * 8;
    uint32_t intervalDwords = uint32_t(getPadInterval() * bits / 32);
    uint32_t amountDwords = uint32_t(getPadAmount() * bits / 32);
    config |= 1u << 20;
    config |= (llvm::Log2_32(intervalDwords) - 1) << 22;
    config |= (amountDwords - 1) << 25;
  }
  Value word0 = constI32(b, loc, config);
  if (mask)
    word0 = orr(word0, low16(asInteger(b, loc, mask, i32)));
  Value dim0 = tensorDim(0), dim1 = tensorDim(1);
  Value word3 = orr(high16(dim1), constI32(b, loc, tileDim(0) << 16));
  Value word4 = constI32(b, loc, tileDim(1) | (tileDim(2) << 16));
  Value group1 = dwords(
      b, loc,
      {word0, shl16(dim0), orr(high16(dim0), shl16(dim1)), word3, word4,
       strideLo(1), orr(strideHi(1), shl16(strideLo(2))),
       orr(high16(strideLo(2)), shl16(strideHi(2)))});

  auto cachePolicy = b.getI32IntegerAttr(getCacheModifier());
  OperationState state(loc, rank <= 2 ? (load ? "rocdl.tensor.load.to.lds.d2"
                                              : "rocdl.tensor.store.from.lds.d2")
                                      : (load ? "rocdl.tensor.load.to.lds"
                                              : "rocdl.tensor.store.from.lds"));
  state.addOperands({group0, group1});
  if (rank > 2) {
    // Groups 2 and 3.
    Value group2 = dwords(
        b, loc,
        {tensorDim(2), tensorDim(3), strideLo(3),
         orr(strideHi(3), constI32(b, loc, tileDim(3) << 16))});
    Value dim4 = tensorDim(4);
    Value group3 = dwords(
        b, loc,
        {strideLo(4), orr(strideHi(4), shl16(dim4)),
         orr(high16(dim4), constI32(b, loc, tileDim(4) << 16)),
         zero});
    state.addOperands({group2, group3});
  }
  state.addAttribute("cachePolicy", cachePolicy);
  b.create(state);
  return success();
}
