// A 32x32 tile transpose through workgroup memory (LDS): each thread stores
// 4 values into a padded 32x33 f32 tile, the workgroup meets at a barrier,
// then each thread reads 4 transposed values. Static LDS must be the tile's
// 32*33*4 = 4224 bytes, the barrier must be in the code (gfx12 and later
// split it into s_barrier_signal / s_barrier_wait), and the LDS accesses
// must be ds_* instructions.
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-opt %s --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=%{chip} index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=%{chip} --from=binary_prep -o %t.%{chip}.hsaco --print-resources
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
// RES-W64-NEXT: transpose_tile 64 {{[0-9]+}} 0 {{[0-9]+}} 0 0 4224 0 256{{$}}
// RES-W32-NEXT: transpose_tile 32 {{[0-9]+}} 0 {{[0-9]+}} 0 0 4224 0 256{{$}}

// GFX9-LABEL: <transpose_tile>:
// GFX9:       ds_write_b32
// GFX9:       s_barrier
// GFX9:       ds_read
// GFX9:       s_endpgm
// GFX11-LABEL: <transpose_tile>:
// GFX11:       ds_store_b32
// GFX11:       s_barrier
// GFX11:       ds_load
// GFX11:       s_endpgm
// GFX12-LABEL: <transpose_tile>:
// GFX12:       ds_store_b32
// GFX12:       s_barrier_signal
// GFX12-NEXT:  s_barrier_wait
// GFX12:       ds_load
// GFX12:       s_endpgm

module attributes {gpu.container_module} {
  gpu.module @transpose_module {
    gpu.func @transpose_tile(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32)
        workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %n_idx = arith.index_cast %n : i32 to index
      %bcol = arith.muli %bx, %c32 : index
      %brow = arith.muli %by, %c32 : index
      // tile[r][tx] = in[32*by + r][32*bx + tx] for r = ty, ty+8, ...
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %row = arith.addi %brow, %r : index
        %col = arith.addi %bcol, %tx : index
        %rowoff = arith.muli %row, %n_idx : index
        %off_idx = arith.addi %rowoff, %col : index
        %off = arith.index_cast %off_idx : index to i64
        %p = llvm.getelementptr inbounds %in[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        %v = llvm.load %p : !llvm.ptr<1> -> f32
        memref.store %v, %tile[%r, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      // out[32*bx + r][32*by + tx] = tile[tx][r]
      scf.for %k = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %k : index
        %row = arith.addi %bcol, %r : index
        %col = arith.addi %brow, %tx : index
        %rowoff = arith.muli %row, %n_idx : index
        %off_idx = arith.addi %rowoff, %col : index
        %off = arith.index_cast %off_idx : index to i64
        %v = memref.load %tile[%tx, %r] : memref<32x33xf32, #gpu.address_space<workgroup>>
        %p = llvm.getelementptr inbounds %out[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %v, %p : f32, !llvm.ptr<1>
      }
      gpu.return
    }
  }
}
