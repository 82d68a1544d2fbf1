// Reference kernel 3, examples/fma_gemm.mlir, through the whole pipeline
// for every chip: the (1,8,8) accumulator fragment, whose elements the FMAs
// read and write one by one, is 64 one-element values carried by the K loop
// (no stack memory, no spills, no scratch), each
// iteration loads 8 + 8 elements of A and B with 32-bit global loads and
// runs 64 FMAs; after the loop, 64 32-bit stores.
//
// After stage A: the loop's block carries the accumulator as 64 values and
// its body has the 64 fma intrinsics; no alloca.
// RUN: fly-compile %S/../../../examples/fma_gemm.mlir --chip=gfx942 --to=pre_binary \
// RUN:   | FileCheck %s --check-prefix=IR --implicit-check-not="= fly." --implicit-check-not="  fly." --implicit-check-not=llvm.alloca
// IR-LABEL:    llvm.func @fma_gemm
// IR:          llvm.br ^[[HEAD:bb[0-9]+]](%{{.*}} : i32{{(, vector<1xf32>){64} ?}})
// IR:          ^[[HEAD]](%{{.*}}: i32{{(, %[0-9]+: vector<1xf32>){64} ?}}):
// IR:          llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// IR:          ^[[BODY]]:
// IR-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<1xf32>
// IR-COUNT-64: llvm.intr.fma
// IR:          llvm.br ^[[HEAD]](%{{.*}} : i32{{(, vector<1xf32>){64} ?}})
// IR:          ^[[EXIT]]:
// IR-COUNT-64: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-compile %S/../../../examples/fma_gemm.mlir --chip=%{chip} -o %t.%{chip}.hsaco --print-resources
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
// RES-W64: fma_gemm 64 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}
// RES-W32: fma_gemm 32 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 256{{$}}

// The loop body: 16 loads and 64 FMAs (gfx11/12 pair some into v_dual_fmac).
// GFX9-LABEL:     <fma_gemm>:
// GFX9-COUNT-16:  global_load_dword
// GFX9-COUNT-64:  v_{{(pk_)?}}fma{{c?}}_f32
// GFX9:           s_cbranch_scc
// GFX9-COUNT-64:  global_store_dword
// GFX9-NOT:       {{scratch_|buffer_}}
// GFX9:           s_endpgm
// GFX11-LABEL:    <fma_gemm>:
// GFX11-COUNT-16: global_load_b32
// GFX11:          {{v_dual_fmac_f32|v_fmac_f32}}
// GFX11:          s_cbranch_scc
// GFX11-COUNT-64: global_store_b32
// GFX11-NOT:      {{scratch_|buffer_}}
// GFX11:          s_endpgm
// GFX12-LABEL:    <fma_gemm>:
// GFX12-COUNT-16: global_load_b32
// GFX12:          {{v_dual_fmac_f32|v_fmac_f32}}
// GFX12:          s_cbranch_scc
// GFX12-COUNT-64: global_store_b32
// GFX12-NOT:      {{scratch_|buffer_}}
// GFX12:          s_endpgm
