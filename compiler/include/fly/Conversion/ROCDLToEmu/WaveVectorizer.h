//===- WaveVectorizer.h - Kernels as SIMD wave functions --------*- C++ -*-===//
//
// The emulator's SIMD mode (SPEC §9, DESIGN-NOTES §3): beside each kernel
// entry that convert-rocdl-to-emu made (void k(FlyEmuContext *, void **),
// run once per work-item), a wave function k.wave (FlyEmuWaveFn, Emu.h) that
// runs one whole wave: a value that differs between lanes is a vector of
// wave-size lanes, `exec` a lane mask, values every lane agrees on stay
// scalar, and divergent branches and loops run under masks. It works on the
// LLVM IR of the emulator's host module, after translation.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZER_H
#define FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZER_H

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace fly::emu {

/// What became of one kernel.
struct WaveFunctionResult {
  std::string kernel;
  /// Empty when `kernel`.wave was made; else why the kernel runs as
  /// fibers, one per work-item (also kept in the module, see Emu.h's
  /// FLY_EMU_WAVE_FALLBACK_PREFIX, for the runtime to log).
  std::string fallback;
};

/// Adds the wave function of each kernel entry named in `kernels` to
/// `module` (waves of `waveSize` lanes, 32 or 64), or the reason it cannot.
std::vector<WaveFunctionResult>
addWaveFunctions(llvm::Module &module, llvm::ArrayRef<std::string> kernels,
                 unsigned waveSize);

} // namespace fly::emu

#endif // FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZER_H
