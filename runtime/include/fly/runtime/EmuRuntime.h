/*===- EmuRuntime.h - The CPU emulator as a launch table ---------*- C -*-===*
 *
 * The launch table (Launch.h) that runs kernels compiled for the emulator
 * (fly::CompileOptions::emulator): modules are host LLVM bitcode, JIT-
 * compiled at load; launches run synchronously on the emulator
 * (fly_emu_launch). Needs LLVM (ORC), not MLIR.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FLY_RUNTIME_EMURUNTIME_H
#define FLY_RUNTIME_EMURUNTIME_H

#include "fly/runtime/Launch.h"

#ifdef __cplusplus
extern "C" {
#endif

const FlyLaunchTable *fly_runtime_emu_table(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FLY_RUNTIME_EMURUNTIME_H */
