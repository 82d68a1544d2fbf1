// A 32x32 f32 transpose through the dynamic shared memory, in Fly IR: the
// tile is fly.get_dyn_shared viewed through the swizzled layout
// S<5,0,5> o (32,32):(32,1) (element (r,c) at r*32 + (c xor r): the
// columns of a row land in different banks), written with memref.store at
// (r, tx), read back transposed with memref.load at (tx, r) after
// gpu.barrier. fly-layout-lowering turns the accesses into pointer
// arithmetic with the swizzle's xor chain, convert-fly-to-rocdl the
// pointers into LDS addresses of the external zero-sized global. On every
// chip the LDS accesses are ds_* instructions, the xor is there (v_bitop3 on gfx950), the
// barrier too (gfx12 splits it into s_barrier_signal / s_barrier_wait), no
// scratch; the static LDS is 0 (the tile is dynamic shared memory).
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-opt %s --pass-pipeline="builtin.module(fly-canonicalize,fly-layout-lowering,fly-int-swizzle-simplify,canonicalize,convert-fly-to-rocdl,canonicalize,gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=%{chip} index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=%{chip} --from=binary_prep -o %t.%{chip}.hsaco --print-resources
// DEFINE: %{check} = llvm-objdump -d %t.%{chip}.hsaco | FileCheck %s --check-prefix

// REDEFINE: %{chip} = gfx942
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx950
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx1100
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1101
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1102
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1200
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1201
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1250
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32
// RUN: %{check}=GFX12

// Columns: wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg.
// RES:          kernel wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg
// RES-W64-NEXT: transpose_swizzled 64 {{[0-9]+}} 0 {{[0-9]+}} 0 0 0 0 256{{$}}
// RES-W32-NEXT: transpose_swizzled 32 {{[0-9]+}} 0 {{[0-9]+}} 0 0 0 0 256{{$}}

// GFX9-LABEL: <transpose_swizzled>:
// GFX9:       {{v_xor_b32|v_xor3_b32|v_bitop3_b32}}
// GFX9:       ds_write_b32
// GFX9:       s_barrier
// GFX9:       ds_read_b32
// GFX9-NOT:   scratch_
// GFX9:       s_endpgm
// GFX11-LABEL: <transpose_swizzled>:
// GFX11:       {{v_xor_b32|v_xor3_b32|v_bitop3_b32}}
// GFX11:       ds_store_b32
// GFX11:       s_barrier
// GFX11:       ds_load_b32
// GFX11-NOT:   scratch_
// GFX11:       s_endpgm
// GFX12-LABEL: <transpose_swizzled>:
// GFX12:       {{v_xor_b32|v_xor3_b32|v_bitop3_b32}}
// GFX12:       ds_store_b32
// GFX12:       s_barrier_signal
// GFX12-NEXT:  s_barrier_wait
// GFX12:       ds_load_b32
// GFX12-NOT:   scratch_
// GFX12:       s_endpgm

module attributes {gpu.container_module} {
  gpu.module @lds_swizzle_module {
    gpu.func @transpose_swizzled(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 32, 8, 1>} {
      %pin = fly.make_ptr(%in) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
      %pout = fly.make_ptr(%out) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
      %rowmajor = fly.static : !fly.layout<(32,32):(32,1)>
      %gin = fly.make_view(%pin, %rowmajor) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(32,32):(32,1)>)
      %gout = fly.make_view(%pout, %rowmajor) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(32,32):(32,1)>)
      %smem = fly.get_dyn_shared : !fly.ptr<f32, shared, align<16>>
      %swizzled = fly.static : !fly.composed_layout<S<5,0,5> o 0 o (32,32):(32,1)>
      %tile = fly.make_view(%smem, %swizzled) : (!fly.ptr<f32, shared, align<16>>, !fly.composed_layout<S<5,0,5> o 0 o (32,32):(32,1)>)
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %txi = arith.index_cast %tx : index to i32
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %ri = arith.index_cast %r : index to i32
        %crd = fly.make_int_tuple(%ri, %txi) : (i32, i32) -> !fly.int_tuple<(?,?)>
        %x = fly.memref.load(%gin, %crd) : (!fly.memref<f32, global, (32,32):(32,1), align<16>>, !fly.int_tuple<(?,?)>)
        fly.memref.store(%x, %tile, %crd) : (f32, !fly.memref<f32, shared, S<5,0,5> o 0 o (32,32):(32,1), align<16>>, !fly.int_tuple<(?,?)>)
      }
      gpu.barrier
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %ri = arith.index_cast %r : index to i32
        %crd = fly.make_int_tuple(%ri, %txi) : (i32, i32) -> !fly.int_tuple<(?,?)>
        %tcrd = fly.make_int_tuple(%txi, %ri) : (i32, i32) -> !fly.int_tuple<(?,?)>
        %x = fly.memref.load(%tile, %tcrd) : (!fly.memref<f32, shared, S<5,0,5> o 0 o (32,32):(32,1), align<16>>, !fly.int_tuple<(?,?)>)
        fly.memref.store(%x, %gout, %crd) : (f32, !fly.memref<f32, global, (32,32):(32,1), align<16>>, !fly.int_tuple<(?,?)>)
      }
      gpu.return
    }
  }
}
