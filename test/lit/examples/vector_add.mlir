// Reference kernel 1, examples/vector_add.mlir, through the whole pipeline
// (stages A, B and C by fly-compile) for every chip: each operand is one
// 128-bit global load, the sum one 128-bit store, all under the bounds
// predicate's branch; no scratch, no spills, no LDS.
//
// After stage A: the copies are aligned vector<4xf32> accesses, the
// predicate a branch, and nothing of Fly or of stack memory is left.
// RUN: fly-compile %S/../../../examples/vector_add.mlir --chip=gfx942 --to=pre_binary \
// RUN:   | FileCheck %s --check-prefix=IR --implicit-check-not="= fly." --implicit-check-not="  fly." --implicit-check-not=llvm.alloca
// IR-LABEL:  llvm.func @vector_add
// IR:          llvm.cond_br
// IR-COUNT-2:  llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// IR:          llvm.fadd %{{.*}}, %{{.*}} : vector<4xf32>
// IR:          llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-compile %S/../../../examples/vector_add.mlir --chip=%{chip} -o %t.%{chip}.hsaco --print-resources
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
// RES-W64: vector_add 64 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}
// RES-W32: vector_add 32 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}

// GFX9-LABEL:   <vector_add>:
// GFX9:         s_cbranch_execz
// GFX9-COUNT-2: global_load_dwordx4
// GFX9-NOT:     global_load
// GFX9:         global_store_dwordx4
// GFX9-NOT:     {{global_store|scratch_|buffer_}}
// GFX9:         s_endpgm
// GFX11-LABEL:   <vector_add>:
// GFX11:         s_cbranch_execz
// GFX11-COUNT-2: global_load_b128
// GFX11-NOT:     global_load
// GFX11:         global_store_b128
// GFX11-NOT:     {{global_store|scratch_|buffer_}}
// GFX11:         s_endpgm
// GFX12-LABEL:   <vector_add>:
// GFX12:         s_cbranch_execz
// GFX12-COUNT-2: global_load_b128
// GFX12-NOT:     global_load
// GFX12:         global_store_b128
// GFX12-NOT:     {{global_store|scratch_|buffer_}}
// GFX12:         s_endpgm
