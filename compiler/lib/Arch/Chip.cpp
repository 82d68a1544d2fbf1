//===- Chip.cpp - The table of supported AMD GPUs ------------------------===//
//
// LDS sizes are the largest allocation one workgroup may make, as LLVM's
// AMDGPU backend enforces it (64 KiB, 160 KiB on gfx950, 320 KiB on
// gfx1250). Wave sizes are the chips' defaults: wave64 on CDNA, wave32 on
// gfx11 and later. Workgroup clusters exist on gfx1250 only. fp8 is FNUZ on
// gfx942 and OCP from gfx950 and gfx12 on (gfx11 has no fp8 matrix
// instructions; its entry says OCP, the format of its conversions). Buffer
// loads to LDS: 1, 2 or 4 bytes on CDNA3, also 12 and 16 on gfx950 (as
// LLVM's llvm.amdgcn.*.buffer.load.lds take them); RDNA has none (gfx1250
// moves data to LDS with its own async loads and the tensor data mover).
// No chip needs extra target features yet. The products are the largest
// part built on each chip (AMD's data sheets: CUs, L2 per XCD on CDNA);
// gfx1250 has no public part yet, so its entry describes a nominal one.
//
//===----------------------------------------------------------------------===//

#include "fly/Arch/Chip.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace fly::arch;

namespace {

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr unsigned kCdna3LdsDma = LdsDma8 | LdsDma16 | LdsDma32;
constexpr unsigned kCdna4LdsDma = kCdna3LdsDma | LdsDma96 | LdsDma128;

using F = ChipFamily;
using M = MatrixUnit;
using P = Fp8Format;

// constexpr, so that it is initialized before any file's static
// initializers read it (option help texts list the chips).
constexpr ChipInfo kChips[] = {
    // clang-format off
    // name      family      wave  LDS/workgroup  maxWG AGPRs  matrix          fp8     LDS DMA       clusters features  product  CUs  L2
    {"gfx942",  F::CDNA3,   64, 64 * KiB,  1024, true,  M::CDNA3MFMA,   P::FNUZ, kCdna3LdsDma, false, "", "AMD Instinct MI300X", 304, 4 * MiB},
    {"gfx950",  F::CDNA4,   64, 160 * KiB, 1024, true,  M::CDNA4MFMA,   P::OCP,  kCdna4LdsDma, false, "", "AMD Instinct MI355X", 256, 4 * MiB},
    {"gfx1100", F::GFX11,   32, 64 * KiB,  1024, false, M::GFX11WMMA,   P::OCP,  0,            false, "", "AMD Radeon RX 7900 XTX", 96, 6 * MiB},
    {"gfx1101", F::GFX11,   32, 64 * KiB,  1024, false, M::GFX11WMMA,   P::OCP,  0,            false, "", "AMD Radeon RX 7800 XT", 60, 4 * MiB},
    {"gfx1102", F::GFX11,   32, 64 * KiB,  1024, false, M::GFX11WMMA,   P::OCP,  0,            false, "", "AMD Radeon RX 7600", 32, 2 * MiB},
    {"gfx1200", F::GFX12,   32, 64 * KiB,  1024, false, M::GFX12WMMA,   P::OCP,  0,            false, "", "AMD Radeon RX 9060 XT", 32, 4 * MiB},
    {"gfx1201", F::GFX12,   32, 64 * KiB,  1024, false, M::GFX12WMMA,   P::OCP,  0,            false, "", "AMD Radeon RX 9070 XT", 64, 8 * MiB},
    {"gfx1250", F::GFX1250, 32, 320 * KiB, 1024, false, M::GFX1250WMMA, P::OCP,  0,            true,  "", "AMD gfx1250", 32, 4 * MiB},
    // clang-format on
};

} // namespace

bool ChipInfo::hasLdsDma(unsigned bits) const {
  unsigned bit = bits == 8     ? LdsDma8
                 : bits == 16  ? LdsDma16
                 : bits == 32  ? LdsDma32
                 : bits == 96  ? LdsDma96
                 : bits == 128 ? LdsDma128
                               : 0;
  return (ldsDmaWidths & bit) != 0;
}

// The 4th dword of a raw buffer resource. On CDNA (the gfx9 layout):
// NUM_FORMAT [14:12] = 7 (float) and DATA_FORMAT [18:15] = 4 (32 bits),
// which untyped buffer_load/store_dword* ignore but a zero DATA_FORMAT
// would make the resource invalid; no swizzle, no thread-id addend. On
// RDNA (gfx10 and later): FORMAT [18:12] (the same bits), bit 24 set (it
// must be 1 there) and OOB_SELECT [29:28] = 3, the raw-buffer range check
// (an access is out of range when offset + size > num_records); 2 would
// switch the check off.
uint32_t ChipInfo::rawBufferWord3() const {
  constexpr uint32_t kFormat = (7u << 12) | (4u << 15);
  switch (family) {
  case ChipFamily::CDNA3:
  case ChipFamily::CDNA4:
    return kFormat;
  default:
    return kFormat | (1u << 24) | (3u << 28);
  }
}

std::optional<WaitcntEncoding> ChipInfo::waitcnt() const {
  switch (family) {
  case ChipFamily::CDNA3:
  case ChipFamily::CDNA4:
    // vmcnt [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8].
    return WaitcntEncoding{{0, 4, 14, 2}, {8, 4}, {4, 3}};
  case ChipFamily::GFX11:
  case ChipFamily::GFX12:
    // expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10].
    return WaitcntEncoding{{10, 6}, {4, 6}, {0, 3}};
  default:
    return std::nullopt;
  }
}

llvm::ArrayRef<ChipInfo> fly::arch::supportedChips() { return kChips; }

std::string fly::arch::supportedChipList() {
  return chipsWhere([](const ChipInfo &) { return true; });
}

std::string
fly::arch::chipsWhere(llvm::function_ref<bool(const ChipInfo &)> has) {
  std::string names;
  for (const ChipInfo &chip : kChips)
    if (has(chip))
      names += (names.empty() ? "" : ", ") + chip.name.str();
  return names.empty() ? "none" : names;
}

const ChipInfo *fly::arch::lookupChip(llvm::StringRef name) {
  const ChipInfo *it = llvm::find_if(
      kChips, [&](const ChipInfo &c) { return c.name == name; });
  return it == std::end(kChips) ? nullptr : it;
}

llvm::Expected<const ChipInfo &> fly::arch::getChip(llvm::StringRef name) {
  if (const ChipInfo *chip = lookupChip(name))
    return *chip;
  return llvm::createStringError("unknown chip '" + name +
                                 "'; supported chips: " + supportedChipList());
}

llvm::StringRef fly::arch::familyName(ChipFamily family) {
  switch (family) {
  case ChipFamily::CDNA3:
    return "CDNA3";
  case ChipFamily::CDNA4:
    return "CDNA4";
  case ChipFamily::GFX11:
    return "RDNA3";
  case ChipFamily::GFX12:
    return "RDNA4";
  case ChipFamily::GFX1250:
    return "GFX1250";
  }
  llvm_unreachable("unknown chip family");
}
