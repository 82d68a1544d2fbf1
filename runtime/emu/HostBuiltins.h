//===- HostBuiltins.h - Compiler-runtime helpers the host JIT needs -*- C++ -*-===//
//
// See HostBuiltins.cpp. The launch table maps __truncsfbf2, __truncdfbf2
// and __truncdfhf2 to these for the JIT-compiled kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_HOSTBUILTINS_H
#define FLY_RUNTIME_EMU_HOSTBUILTINS_H

extern "C" {
_Float16 fly_emu_truncsfbf2(float value);
_Float16 fly_emu_truncdfbf2(double value);
_Float16 fly_emu_truncdfhf2(double value);
}

#endif // FLY_RUNTIME_EMU_HOSTBUILTINS_H
