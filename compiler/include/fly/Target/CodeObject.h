//===- CodeObject.h - What an AMDGPU code object says -----------*- C++ -*-===//
//
// Reading a linked AMDGPU code object (HSACO, an ELF shared object): the
// per-kernel resource usage from its AMDGPU metadata note, and its machine
// code as ISA text. Only LLVM (Object, MC, MsgPack) is needed, no MLIR, so a
// code object loaded from the disk cache can be inspected without compiling.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_TARGET_CODEOBJECT_H
#define FLY_TARGET_CODEOBJECT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fly::target {

/// Resource usage of one kernel, as the `amdhsa.kernels` metadata states it.
struct KernelResources {
  std::string name;            // .name
  unsigned vgprs = 0;          // .vgpr_count
  unsigned sgprs = 0;          // .sgpr_count
  unsigned agprs = 0;          // .agpr_count (0 where the chip has none)
  unsigned vgprSpills = 0;     // .vgpr_spill_count
  unsigned sgprSpills = 0;     // .sgpr_spill_count
  uint64_t ldsBytes = 0;       // .group_segment_fixed_size (static LDS)
  uint64_t scratchBytes = 0;   // .private_segment_fixed_size, per lane
  unsigned waveSize = 0;       // .wavefront_size
  unsigned maxFlatWorkgroupSize = 0; // .max_flat_workgroup_size
  uint64_t codeBytes = 0;      // the size of the kernel's function symbol
};

/// The kernels of a code object in the order of its metadata. An error when
/// `elf` is not an AMDGPU ELF or has no readable `amdhsa.kernels` metadata.
llvm::Expected<std::vector<KernelResources>>
readKernelResources(llvm::StringRef elf);

/// The processor the code object was built for ("gfx942"), from its ELF
/// header flags.
llvm::Expected<std::string> readCodeObjectChip(llvm::StringRef elf);

/// Disassembles the code of every function symbol of the code object's
/// `.text` section: a `name:` line, then one instruction per line.
llvm::Expected<std::string> disassembleCodeObject(llvm::StringRef elf);

/// Prints `kernels` as a table with one row per kernel and a header line.
void printResourceTable(llvm::raw_ostream &os,
                        llvm::ArrayRef<KernelResources> kernels);

} // namespace fly::target

#endif // FLY_TARGET_CODEOBJECT_H
