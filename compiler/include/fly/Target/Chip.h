//===- Chip.h - The AMD GPUs FlyDSL compiles for ---------------*- C++ -*-===//
//
// One table of the supported chips and what the compiler needs to know about
// each: family, wave size, LDS per workgroup, workgroup size limit, which
// matrix instructions exist and the LLVM target features to compile with.
// Every other place that depends on the chip asks this table (by name)
// instead of comparing chip names. No MLIR dependency: the dialects, the
// pipeline and the code-object tools all use it.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_TARGET_CHIP_H
#define FLY_TARGET_CHIP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace fly::target {

/// Architecture families, named like the per-family folders of the atoms.
enum class ChipFamily {
  CDNA3,   // gfx942
  CDNA4,   // gfx950
  GFX11,   // RDNA3: gfx1100, gfx1101, gfx1102
  GFX12,   // RDNA4: gfx1200, gfx1201
  GFX1250, // gfx1250
};

/// What the compiler knows about one chip.
struct ChipInfo {
  llvm::StringRef name;        // "gfx942": the LLVM processor name
  ChipFamily family;
  unsigned waveSize;           // lanes per wavefront (the chip's default)
  uint64_t ldsBytesPerWorkgroup;
  unsigned maxWorkgroupSize;   // threads (max flat workgroup size)
  bool hasAGPRs;               // AGPRs, sharing one file with the VGPRs
  bool hasMFMA;                // v_mfma_* matrix instructions
  bool hasWMMA;                // v_wmma_* matrix instructions
  bool hasClusters;            // workgroup clusters (cluster launch)
  llvm::StringRef features;    // LLVM target features; empty: the defaults
};

/// Every supported chip, in a fixed order (CDNA first, then by number).
llvm::ArrayRef<ChipInfo> supportedChips();

/// The supported chip names, comma-separated, for diagnostics and --help.
std::string supportedChipList();

/// The entry of `name`, or nullptr when the chip is not supported.
const ChipInfo *lookupChip(llvm::StringRef name);

/// The entry of `name`, or an error naming it and listing the supported
/// chips.
llvm::Expected<const ChipInfo &> getChip(llvm::StringRef name);

/// "CDNA3", "CDNA4", "RDNA3", "RDNA4" or "GFX1250".
llvm::StringRef familyName(ChipFamily family);

} // namespace fly::target

#endif // FLY_TARGET_CHIP_H
