// A vectorized 2-D add, C = A + B on an M x N row-major f32 matrix, at the
// level stage A hands over: pointers and i32 sizes as arguments, 16-byte
// vector loads/stores, a bounds check. The tail of stage A (upstream's
// convert-gpu-to-rocdl) runs first, then binary_prep and binary, for every
// supported chip: the memory accesses must be single 128-bit global
// loads/stores, the metadata must show the chip's wave size, no scratch, no
// LDS, and the 64-thread workgroup.
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-opt %s --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=%{chip} index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=%{chip} --from=binary_prep -o %t.%{chip}.hsaco --print-resources
// DEFINE: %{check} = llvm-objdump -d %t.%{chip}.hsaco | FileCheck %s --check-prefix
// DEFINE: %{notes} = llvm-readelf --notes %t.%{chip}.hsaco | FileCheck %s --check-prefix

// REDEFINE: %{chip} = gfx942
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64 -DCHIP=%{chip}
// RUN: %{check}=GFX9
// RUN: %{notes}=NOTE-W64
// REDEFINE: %{chip} = gfx950
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64 -DCHIP=%{chip}
// RUN: %{check}=GFX9
// RUN: %{notes}=NOTE-W64
// REDEFINE: %{chip} = gfx1100
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// RUN: %{notes}=NOTE-W32
// REDEFINE: %{chip} = gfx1101
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// RUN: %{notes}=NOTE-W32
// REDEFINE: %{chip} = gfx1102
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// RUN: %{notes}=NOTE-W32
// REDEFINE: %{chip} = gfx1200
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12
// RUN: %{notes}=NOTE-W32
// REDEFINE: %{chip} = gfx1201
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12
// RUN: %{notes}=NOTE-W32
// REDEFINE: %{chip} = gfx1250
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12
// RUN: %{notes}=NOTE-W32

// The resource table (our reader of the metadata note): wave size, no LDS,
// no scratch, no spills, 16x4 threads. Columns: wave vgpr agpr sgpr
// vgpr-spill sgpr-spill lds scratch max-wg.
// RES:          // gpu.module @add2d_module: [[CHIP]], {{[0-9]+}} bytes
// RES-NEXT:     kernel wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg
// RES-W64-NEXT: add2d 64 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 64{{$}}
// RES-W32-NEXT: add2d 32 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 64{{$}}

// The same from LLVM's own reader of the note.
// NOTE-W64: .max_flat_workgroup_size: 64
// NOTE-W64: .private_segment_fixed_size: 0
// NOTE-W64: .wavefront_size: 64
// NOTE-W32: .max_flat_workgroup_size: 64
// NOTE-W32: .private_segment_fixed_size: 0
// NOTE-W32: .wavefront_size: 32

// One 128-bit load per operand, one 128-bit store, nothing narrower.
// GFX9-LABEL: <add2d>:
// GFX9-COUNT-2: global_load_dwordx4
// GFX9-NOT:     global_load
// GFX9:         global_store_dwordx4
// GFX9-NOT:     global_store
// GFX9:         s_endpgm
// GFX11-LABEL: <add2d>:
// GFX11-COUNT-2: global_load_b128
// GFX11-NOT:     global_load
// GFX11:         global_store_b128
// GFX11-NOT:     global_store
// GFX11:         s_endpgm
// GFX12-LABEL: <add2d>:
// GFX12-COUNT-2: global_load_b128
// GFX12-NOT:     global_load
// GFX12:         global_store_b128
// GFX12-NOT:     global_store
// GFX12:         s_endpgm

module attributes {gpu.container_module} {
  gpu.module @add2d_module {
    gpu.func @add2d(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>,
                    %m: i32, %n: i32) kernel
        attributes {known_block_size = array<i32: 16, 4, 1>} {
      %c4 = arith.constant 4 : i32
      %c16 = arith.constant 16 : i32
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %txi = arith.index_cast %tx : index to i32
      %tyi = arith.index_cast %ty : index to i32
      %bxi = arith.index_cast %bx : index to i32
      %byi = arith.index_cast %by : index to i32
      // Thread (tx, ty) of block (bx, by) adds the 4 floats of row
      // 4*by + ty that start at column 4*(16*bx + tx).
      %bcol = arith.muli %bxi, %c16 : i32
      %tcol = arith.addi %bcol, %txi : i32
      %col = arith.muli %tcol, %c4 : i32
      %brow = arith.muli %byi, %c4 : i32
      %row = arith.addi %brow, %tyi : i32
      %row_ok = arith.cmpi slt, %row, %m : i32
      %col_ok = arith.cmpi slt, %col, %n : i32
      %ok = arith.andi %row_ok, %col_ok : i1
      scf.if %ok {
        %rowoff = arith.muli %row, %n : i32
        %off32 = arith.addi %rowoff, %col : i32
        %off = arith.extsi %off32 : i32 to i64
        %pa = llvm.getelementptr inbounds %a[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        %pb = llvm.getelementptr inbounds %b[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        %pc = llvm.getelementptr inbounds %c[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        %va = llvm.load %pa {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
        %vb = llvm.load %pb {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
        %vc = arith.addf %va, %vb : vector<4xf32>
        llvm.store %vc, %pc {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
      }
      gpu.return
    }
  }
}
