//===- Chip.cpp - The table of supported AMD GPUs ------------------------===//
//
// LDS sizes are the largest allocation one workgroup may make, as LLVM's
// AMDGPU backend enforces it (64 KiB, 160 KiB on gfx950, 320 KiB on
// gfx1250). Wave sizes are the chips' defaults: wave64 on CDNA, wave32 on
// gfx11 and later. Workgroup clusters exist on gfx1250 only. No chip needs
// extra target features yet.
//
//===----------------------------------------------------------------------===//

#include "fly/Target/Chip.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace fly::target;

namespace {

constexpr uint64_t KiB = 1024;

// constexpr, so that it is initialized before any file's static
// initializers read it (option help texts list the chips).
constexpr ChipInfo kChips[] = {
    // clang-format off
    // name      family           wave  LDS/workgroup  maxWG  AGPRs  MFMA   WMMA   clusters features
    {"gfx942",  ChipFamily::CDNA3,   64, 64 * KiB,  1024, true,  true,  false, false, ""},
    {"gfx950",  ChipFamily::CDNA4,   64, 160 * KiB, 1024, true,  true,  false, false, ""},
    {"gfx1100", ChipFamily::GFX11,   32, 64 * KiB,  1024, false, false, true,  false, ""},
    {"gfx1101", ChipFamily::GFX11,   32, 64 * KiB,  1024, false, false, true,  false, ""},
    {"gfx1102", ChipFamily::GFX11,   32, 64 * KiB,  1024, false, false, true,  false, ""},
    {"gfx1200", ChipFamily::GFX12,   32, 64 * KiB,  1024, false, false, true,  false, ""},
    {"gfx1201", ChipFamily::GFX12,   32, 64 * KiB,  1024, false, false, true,  false, ""},
    {"gfx1250", ChipFamily::GFX1250, 32, 320 * KiB, 1024, false, false, true,  true,  ""},
    // clang-format on
};

} // namespace

llvm::ArrayRef<ChipInfo> fly::target::supportedChips() { return kChips; }

std::string fly::target::supportedChipList() {
  return llvm::join(llvm::map_range(kChips,
                                    [](const ChipInfo &c) { return c.name; }),
                    ", ");
}

const ChipInfo *fly::target::lookupChip(llvm::StringRef name) {
  const ChipInfo *it = llvm::find_if(
      kChips, [&](const ChipInfo &c) { return c.name == name; });
  return it == std::end(kChips) ? nullptr : it;
}

llvm::Expected<const ChipInfo &> fly::target::getChip(llvm::StringRef name) {
  if (const ChipInfo *chip = lookupChip(name))
    return *chip;
  return llvm::createStringError("unknown chip '" + name +
                                 "'; supported chips: " + supportedChipList());
}

llvm::StringRef fly::target::familyName(ChipFamily family) {
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
