//===- CheckLaunches.cpp - Static launch sizes against the chip ----------===//
//
// fly-check-launches (Passes.td): the constant grid, block and dynamic LDS
// sizes of each gpu.launch_func, and the static LDS of the kernel it
// launches, against the chip's table entry and the kernel's known block
// size. Stage A runs it first, so that every compile of the pipeline
// (fly-opt, fly-compile, libFlyCompiler, the Python package) rejects the
// same launches with the same messages, at the launch's location.
//
//===----------------------------------------------------------------------===//

#include "fly/Arch/Chip.h"
#include "fly/Pipeline/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYCHECKLAUNCHES
#include "fly/Pipeline/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

/// The LLVM address space of workgroup memory (LDS) on AMDGPU.
constexpr unsigned kLdsAddressSpace = 3;
constexpr int64_t kMaxLaunchDim = 4294967295; // 2^32 - 1

/// A launch size: its value when it is a constant.
using Static = std::optional<int64_t>;

Static constantOf(Value value) {
  llvm::APInt bits;
  if (!value || !matchPattern(value, m_ConstantInt(&bits)))
    return std::nullopt;
  return bits.getSExtValue();
}

/// "(64, ?, 1)": the dimensions, "?" for one that is not a constant.
std::string dimsText(llvm::ArrayRef<Static> dims) {
  std::string text = "(";
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? ", " : "") + (d ? std::to_string(*d) : std::string("?"));
  return text + ")";
}

/// The name the kernel's messages give it: its location's name when it
/// has one (a front end that renames kernels keeps the user's name there),
/// its symbol otherwise.
std::string kernelName(gpu::LaunchFuncOp launch, Operation *kernel) {
  if (kernel)
    if (auto name = dyn_cast<NameLoc>(kernel->getLoc()))
      return name.getName().str();
  return launch.getKernelName().str();
}

/// The known block size of `kernel`, if it declares one.
std::optional<llvm::SmallVector<int64_t, 3>> knownBlockSize(Operation *kernel) {
  DenseI32ArrayAttr attr;
  if (auto func = dyn_cast_or_null<gpu::GPUFuncOp>(kernel))
    attr = func.getKnownBlockSizeAttr();
  else if (kernel)
    attr = kernel->getAttrOfType<DenseI32ArrayAttr>(
        gpu::GPUDialect::KnownBlockSizeAttrHelper::getNameStr());
  if (!attr || attr.size() != 3)
    return std::nullopt;
  return llvm::SmallVector<int64_t, 3>(attr.asArrayRef());
}

/// Bytes of a static-shaped memref, or 0 when the shape is dynamic.
uint64_t memrefBytes(MemRefType type, const DataLayout &layout) {
  if (!type.hasStaticShape())
    return 0;
  return type.getNumElements() * layout.getTypeSize(type.getElementType());
}

/// Whether `type` is a memref in workgroup memory.
bool isWorkgroupMemref(MemRefType type) {
  return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// The static LDS of `kernel`: the workgroup globals it or a function it
/// calls refers to, and its workgroup attributions (no padding counted).
uint64_t staticLdsBytes(Operation *kernel) {
  uint64_t bytes = 0;
  llvm::SetVector<Operation *> functions, globals;
  functions.insert(kernel);
  for (size_t i = 0; i < functions.size(); ++i) {
    Operation *function = functions[i];
    if (auto func = dyn_cast<gpu::GPUFuncOp>(function)) {
      DataLayout layout = DataLayout::closest(func);
      for (BlockArgument attribution : func.getWorkgroupAttributions())
        if (auto type = dyn_cast<MemRefType>(attribution.getType());
            type && isWorkgroupMemref(type))
          bytes += memrefBytes(type, layout);
    }
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&function->getRegion(0));
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *symbol = SymbolTable::lookupNearestSymbolFrom(
          use.getUser(), use.getSymbolRef());
      if (!symbol)
        continue;
      if (auto global = dyn_cast<LLVM::GlobalOp>(symbol)) {
        if (global.getAddrSpace() == kLdsAddressSpace && globals.insert(global))
          bytes += DataLayout::closest(global).getTypeSize(global.getGlobalType());
      } else if (isa<FunctionOpInterface>(symbol) &&
                 symbol->getNumRegions() == 1 &&
                 !symbol->getRegion(0).empty()) {
        functions.insert(symbol);
      }
    }
  }
  return bytes;
}

struct FlyCheckLaunches
    : public mlir::fly::impl::FlyCheckLaunchesBase<FlyCheckLaunches> {
  using FlyCheckLaunchesBase::FlyCheckLaunchesBase;

  void runOnOperation() override {
    const ::fly::arch::ChipInfo *info = ::fly::arch::lookupChip(chip);
    if (!info) {
      getOperation().emitError()
          << "fly-check-launches: unknown chip '" << chip
          << "'; supported chips: " << ::fly::arch::supportedChipList();
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    bool failed = false;
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      if (mlir::failed(check(launch, *info, symbols)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }

  /// The first of the launch's checks that fails, as an error at it.
  LogicalResult check(gpu::LaunchFuncOp launch,
                      const ::fly::arch::ChipInfo &info,
                      SymbolTableCollection &symbols) {
    Operation *kernel =
        symbols.lookupNearestSymbolFrom(launch, launch.getKernelAttr());
    if (kernel && !isa<FunctionOpInterface>(kernel))
      kernel = nullptr; // e.g. a gpu.binary: nothing to read from it
    std::string name = kernelName(launch, kernel);
    auto fail = [&]() {
      return launch.emitError() << "launch of kernel " << name << ": ";
    };

    gpu::KernelDim3 g = launch.getGridSizeOperandValues();
    gpu::KernelDim3 b = launch.getBlockSizeOperandValues();
    llvm::SmallVector<Static, 3> grid = {constantOf(g.x), constantOf(g.y),
                                         constantOf(g.z)};
    llvm::SmallVector<Static, 3> block = {constantOf(b.x), constantOf(b.y),
                                          constantOf(b.z)};

    for (auto [what, dims] : {std::pair{"block", &block},
                              std::pair{"grid", &grid}}) {
      for (auto [axis, d] : llvm::zip(llvm::StringRef("xyz"), *dims)) {
        if (d && *d < 1)
          return fail() << what << "=" << dimsText(*dims) << ": dimension "
                        << axis << " is " << *d
                        << "; each dimension must be at least 1";
        if (d && *d > kMaxLaunchDim)
          return fail() << what << "=" << dimsText(*dims) << ": dimension "
                        << axis << " is " << *d
                        << ", beyond the launch's 32-bit limit of "
                        << kMaxLaunchDim;
      }
    }

    if (llvm::all_of(block, [](Static d) { return d.has_value(); })) {
      // Up to 96 bits: each dimension is below 2^32 here.
      llvm::APInt items(128, *block[0]);
      items *= llvm::APInt(128, *block[1]);
      items *= llvm::APInt(128, *block[2]);
      if (items.ugt(info.maxWorkgroupSize)) {
        llvm::SmallString<32> text;
        items.toStringUnsigned(text);
        return fail() << "block=" << dimsText(block) << " is a workgroup of "
                      << text << " work-items, over the limit of "
                      << info.maxWorkgroupSize << " work-items per workgroup";
      }
    }

    if (std::optional<llvm::SmallVector<int64_t, 3>> known =
            knownBlockSize(kernel)) {
      for (auto [d, k] : llvm::zip(block, *known))
        if (d && *d != k)
          return fail() << "block=" << dimsText(block)
                        << " contradicts the kernel's known_block_size=("
                        << (*known)[0] << ", " << (*known)[1] << ", "
                        << (*known)[2] << ")";
    }

    Value smemValue = launch.getDynamicSharedMemorySize();
    Static smem = smemValue ? constantOf(smemValue) : Static(0);
    if (smem && *smem < 0)
      return fail() << "smem=" << *smem
                    << ": the dynamic LDS size cannot be negative";

    uint64_t staticBytes = kernel ? staticLdsBytes(kernel) : 0;
    uint64_t limit = info.ldsBytesPerWorkgroup;
    uint64_t dynamicBytes = smem ? uint64_t(*smem) : 0;
    if (staticBytes + dynamicBytes > limit) {
      InFlightDiagnostic diag = fail();
      if (staticBytes == 0)
        diag << "smem=" << dynamicBytes << " bytes of dynamic LDS exceed";
      else if (dynamicBytes == 0)
        diag << "the kernel's " << staticBytes
             << " bytes of static LDS exceed";
      else
        diag << "the kernel's " << staticBytes << " bytes of static LDS and "
             << "smem=" << dynamicBytes << " bytes of dynamic LDS exceed";
      diag << " the " << limit << " bytes of LDS a workgroup can have on "
           << info.name;
      return diag;
    }
    return success();
  }
};

} // namespace
