//===- Printf.h - The device printf of kernels on the emulator --*- C++ -*-===//
//
// The ROCm device library's printf ABI, implemented on the host (see
// Printf.cpp); the launch table defines __ockl_printf_begin,
// __ockl_printf_append_string_n and __ockl_printf_append_args as these.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_PRINTF_H
#define FLY_RUNTIME_EMU_PRINTF_H

#include <cstdint>

extern "C" {
uint64_t fly_emu_printf_begin(uint64_t version);
uint64_t fly_emu_printf_append_string_n(uint64_t desc, const char *text,
                                        uint64_t length, int32_t isLast);
uint64_t fly_emu_printf_append_args(uint64_t desc, uint32_t count, uint64_t a0,
                                    uint64_t a1, uint64_t a2, uint64_t a3,
                                    uint64_t a4, uint64_t a5, uint64_t a6,
                                    int32_t isLast);
}

#endif // FLY_RUNTIME_EMU_PRINTF_H
