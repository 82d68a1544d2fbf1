//===- CDNA3/LdsDma.h - Loads that write LDS without registers --*- C++ -*-===//
//
// What the buffer-to-LDS DMA of CDNA3 (cdna3.buffer_copy_lds) and the
// asynchronous loads of CDNA4 (cdna4.buffer_load_async_lds,
// cdna4.global_load_async_lds) share: the checks of their sides and widths
// and their lowering to rocdl.raw.ptr.buffer.load.lds / rocdl.global.load.lds.
// The LDS pointer of a call becomes the instruction's M0 (LLVM reads the
// first active lane's), so only a wave's first lane's destination counts.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_LDSDMA_H
#define FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_LDSDMA_H

#include "fly/Arch/Chip.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace mlir::fly_rocdl::ldsdma {

/// Where a DMA reads from.
enum class Source { Buffer, Global };

/// Whether `bits` is one of `allowed` (a list for the message), else the
/// error `<api>: ... not <bits>`.
LogicalResult verifyWidth(function_ref<InFlightDiagnostic()> emitError,
                          StringRef api, int32_t bits,
                          ArrayRef<int32_t> allowed);

/// The checks of the two sides (fly memref types): the source in buffer or
/// global memory, the destination in LDS.
std::string checkSource(Type src, Source from);
std::string checkDestination(Type dst);

/// The whole call: the DMA of `bits` bits per lane from `src` (a converted
/// buffer pointer or global pointer) to the LDS pointer `dst`. `api` names
/// the operation in errors (a run-time imm_offset is one).
LogicalResult emit(OpBuilder &b, Location loc, StringRef api, Source from,
                   int32_t bits, Value atom, Value src, Type srcType,
                   Value dst);

/// The chip check of a width: the table's LDS DMA widths.
inline bool chipHas(const ::fly::arch::ChipInfo &chip, int32_t bits) {
  return chip.hasLdsDma(unsigned(bits));
}

} // namespace mlir::fly_rocdl::ldsdma

#endif // FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_LDSDMA_H
