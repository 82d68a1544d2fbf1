// Reference kernel 2, examples/tiled_copy_lds.mlir, through the whole
// pipeline for every chip: one 128-bit global load and LDS store per
// thread, the barrier (split into signal and wait on gfx12), one 128-bit
// LDS load and global store; the swizzle's xor is in the address
// arithmetic; no scratch. The tile is dynamic LDS, so the static LDS is 0.
//
// After stage A: the LDS side of each copy is a 16-byte aligned
// vector<4xf32> access of address space 3 at the swizzled offset.
// RUN: fly-compile %S/../../../examples/tiled_copy_lds.mlir --chip=gfx942 --to=pre_binary \
// RUN:   | FileCheck %s --check-prefix=IR --implicit-check-not="= fly." --implicit-check-not="  fly." --implicit-check-not=llvm.alloca
// IR-LABEL:  llvm.func @tiled_copy
// IR:          llvm.xor
// IR:          %[[IN:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// IR:          llvm.store %[[IN]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// IR:          rocdl.barrier
// IR:          llvm.xor
// IR:          %[[OUT:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// IR:          llvm.store %[[OUT]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-compile %S/../../../examples/tiled_copy_lds.mlir --chip=%{chip} -o %t.%{chip}.hsaco --print-resources
// DEFINE: %{check} = llvm-objdump -d %t.%{chip}.hsaco | FileCheck %s --check-prefix

// REDEFINE: %{chip} = gfx942
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W64
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx950
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W64
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx1100
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1101
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1102
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1200
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1201
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1250
// RUN: %{compile} | FileCheck %s --check-prefix=RES-W32
// RUN: %{check}=GFX12

// Columns: wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg.
// RES-W64: tiled_copy 64 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}
// RES-W32: tiled_copy 32 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}

// GFX9-LABEL: <tiled_copy>:
// GFX9-DAG:   global_load_dwordx4
// GFX9-DAG:   {{v_xor_b32|v_bitop3}}
// GFX9:       ds_write_b128
// GFX9:       s_barrier
// GFX9:       ds_read_b128
// GFX9:       global_store_dwordx4
// GFX9-NOT:   {{scratch_|buffer_}}
// GFX9:       s_endpgm
// GFX11-LABEL: <tiled_copy>:
// GFX11-DAG:   global_load_b128
// GFX11-DAG:   {{v_xor_b32|v_bitop3}}
// GFX11:       ds_store_b128
// GFX11:       s_barrier
// GFX11:       ds_load_b128
// GFX11:       global_store_b128
// GFX11-NOT:   {{scratch_|buffer_}}
// GFX11:       s_endpgm
// GFX12-LABEL: <tiled_copy>:
// GFX12-DAG:   global_load_b128
// GFX12-DAG:   {{v_xor_b32|v_bitop3}}
// GFX12:       ds_store_b128
// GFX12:       s_barrier_signal
// GFX12:       s_barrier_wait
// GFX12:       ds_load_b128
// GFX12:       global_store_b128
// GFX12-NOT:   {{scratch_|buffer_}}
// GFX12:       s_endpgm
