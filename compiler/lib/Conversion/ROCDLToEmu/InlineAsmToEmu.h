//===- InlineAsmToEmu.h - AMDGPU inline asm for the emulator ----*- C++ -*-===//
//
// The part of convert-rocdl-to-emu that runs `llvm.inline_asm` (Passes.td,
// "Inline assembly").
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_INLINEASMTOEMU_H
#define FLY_CONVERSION_ROCDLTOEMU_INLINEASMTOEMU_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fly {

/// Replaces every `llvm.inline_asm` of `module` by the operations its
/// instructions are, as LLVM's AMDGPU assembler reads them for `chip`:
/// ROCDL ops where the emulator has the instruction (s_barrier, MFMA, LDS
/// DMA, transposing LDS reads, wave exchanges), LLVM loads and stores for
/// memory accesses (so the alignment and FLYDSL_EMU_CHECK checks see them),
/// LLVM arithmetic for the rest. The rest of the pass then lowers them like
/// any others. Each asm it cannot run is an error at the op's location
/// naming the instruction and the chip; fails if there was any.
LogicalResult lowerInlineAsmForEmulator(gpu::GPUModuleOp module,
                                        StringRef chip);

/// The emulated LDS address of the integer LDS address `address` (an
/// `llvm.inttoptr` to address space 3, or M0): the emulator's LDS
/// addresses are host addresses, so an integer one holds the low 32 bits
/// of one (what `ptrtoint` of an LDS pointer gives) and stands for the
/// byte at that offset from `ldsBase`'s low 32 bits (the tensor data
/// mover reads its LDS address field the same way).
Value ldsAddressFromInteger(OpBuilder &b, Location loc, Value address,
                            Value ldsBase);

} // namespace mlir::fly

#endif // FLY_CONVERSION_ROCDLTOEMU_INLINEASMTOEMU_H
