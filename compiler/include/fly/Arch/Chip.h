//===- Chip.h - The AMD GPUs FlyDSL compiles for ---------------*- C++ -*-===//
//
// One table of the supported chips and what the compiler knows about each:
// family, wave size, LDS per workgroup, workgroup size limit, the matrix
// instructions and fp8 formats it has, the widths of its buffer-to-LDS
// loads, and the LLVM target features to compile with. Every other place
// that depends on the chip asks this table (by name) instead of comparing
// chip names. It sits below the dialects: LLVM Support only, so the
// dialects, the passes, the code-object tools and the runtimes all use it.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ARCH_CHIP_H
#define FLY_ARCH_CHIP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fly::arch {

/// Architecture families, named like the per-family folders of the atoms
/// (compiler/lib/Dialect/FlyROCDL/IR/<family>/).
enum class ChipFamily {
  CDNA3,   // gfx942
  CDNA4,   // gfx950
  GFX11,   // RDNA3: gfx1100, gfx1101, gfx1102
  GFX12,   // RDNA4: gfx1200, gfx1201 (the atoms' GFX120X)
  GFX1250, // gfx1250
};

/// The matrix instructions of a chip: which generation of MFMA or WMMA.
enum class MatrixUnit {
  CDNA3MFMA,   // v_mfma_*, wave64
  CDNA4MFMA,   // CDNA3's and the gfx950 additions (f8f6f4, scaled)
  GFX11WMMA,   // v_wmma_* of RDNA3, wave32, operands replicated across halves
  GFX12WMMA,   // v_wmma_* of RDNA4, wave32
  GFX1250WMMA, // v_wmma_* of gfx1250 (and the scaled forms)
};

/// How a chip's 8-bit floats are encoded: the "FNUZ" formats (one NaN,
/// no negative zero, bias one more: float8_e4m3fnuz / e5m2fnuz) or the OCP
/// ones (float8_e4m3fn / e5m2).
enum class Fp8Format { FNUZ, OCP };

/// The bits of ChipInfo::ldsDmaWidths, one per width of a buffer load to
/// LDS.
enum LdsDma : unsigned {
  LdsDma8 = 1,
  LdsDma16 = 2,
  LdsDma32 = 4,
  LdsDma96 = 8,
  LdsDma128 = 16,
};

/// What the compiler knows about one chip.
/// A counter's bits in S_WAITCNT's 16-bit immediate: `width` bits at
/// `shift`, and the rest of the counter's bits (high ones) at `highShift`
/// (gfx9's vmcnt is split so).
struct WaitcntField {
  unsigned shift = 0, width = 0, highShift = 0, highWidth = 0;
};

/// The S_WAITCNT immediate of a chip family (AMD's ISA documents).
struct WaitcntEncoding {
  WaitcntField vmcnt, lgkmcnt, expcnt;
};

struct ChipInfo {
  llvm::StringRef name;        // "gfx942": the LLVM processor name
  ChipFamily family;
  unsigned waveSize;           // lanes per wavefront (the chip's default)
  uint64_t ldsBytesPerWorkgroup;
  unsigned maxWorkgroupSize;   // threads (max flat workgroup size)
  bool hasAGPRs;               // AGPRs, sharing one file with the VGPRs
  MatrixUnit matrix;           // its v_mfma_* or v_wmma_* generation
  Fp8Format fp8;               // the encoding of its 8-bit floats
  /// The widths a buffer load may write straight to LDS
  /// (`buffer_load_* ... lds`), LdsDma bits; 0: none.
  unsigned ldsDmaWidths;
  bool hasClusters;            // workgroup clusters (cluster launch)
  llvm::StringRef features;    // LLVM target features; empty: the defaults
  // A product built on the chip, as the emulated GPU describes itself
  // (torch.cuda.get_device_properties under flydsl.testing.emulated_gpu).
  llvm::StringRef product;
  unsigned computeUnits;       // of that product
  uint64_t l2Bytes;            // its L2 cache (per XCD on CDNA)

  bool hasMFMA() const {
    return matrix == MatrixUnit::CDNA3MFMA || matrix == MatrixUnit::CDNA4MFMA;
  }
  bool hasWMMA() const { return !hasMFMA(); }
  /// Whether the chip has the tensor data mover (tensor_load_to_lds,
  /// tensor_store_from_lds): gfx1250's family only.
  bool hasTensorDataMover() const { return family == ChipFamily::GFX1250; }
  /// Whether a buffer load of `bits` bits (8, 16, 32, 96 or 128) can write
  /// to LDS directly.
  bool hasLdsDma(unsigned bits) const;
  /// The 4th dword of the raw buffer resources fx.rocdl's buffer pointers
  /// make (stride 0): CDNA and RDNA lay it out differently (Chip.cpp).
  uint32_t rawBufferWord3() const;
  /// The S_WAITCNT counters' encoding: gfx9 (CDNA3, CDNA4) and gfx11/gfx12
  /// (RDNA3, RDNA4; gfx12 splits the counters into separate s_wait_*
  /// instructions, which LLVM forms from the same immediate); none on
  /// gfx1250.
  std::optional<WaitcntEncoding> waitcnt() const;
};

/// Every supported chip, in a fixed order (CDNA first, then by number).
llvm::ArrayRef<ChipInfo> supportedChips();

/// The supported chip names, comma-separated, for diagnostics and --help.
std::string supportedChipList();

/// The names of the chips for which `has` holds, comma-separated ("none"
/// when none does): what an error says has an instruction.
std::string chipsWhere(llvm::function_ref<bool(const ChipInfo &)> has);

/// The entry of `name`, or nullptr when the chip is not supported.
const ChipInfo *lookupChip(llvm::StringRef name);

/// The entry of `name`, or an error naming it and listing the supported
/// chips.
llvm::Expected<const ChipInfo &> getChip(llvm::StringRef name);

/// "CDNA3", "CDNA4", "RDNA3", "RDNA4" or "GFX1250".
llvm::StringRef familyName(ChipFamily family);

} // namespace fly::arch

#endif // FLY_ARCH_CHIP_H
