// The reference kernel of the Fly memory path: C = A + B on an M x N
// row-major f32 matrix (dynamic M and N, N a multiple of 4, 16-byte aligned
// pointers), written in Fly IR. The kernel arguments are already LLVM
// pointers and i32 sizes (what fly-rewrite-func-signature produces); the
// tensors are built inside with make_ptr / make_int_tuple / make_layout /
// make_view. Each thread takes the (1,4) tile (row, q) of
// zipped_divide(A, [1|4]) (row = 4*by + ty, q = 16*bx + tx), loads it with
// memref.load_vec (its layout (1,4):(N,1) coalesces to 4:1: one vector
// load), adds, stores the sum into a (1,4) register fragment
// (make_fragment_like) and from there to C. The bounds check is a plain
// scf.if on the coordinates.
//
// This is the memory path without atoms (the reference kernel with
// universal copies and a predicate is examples/vector_add.mlir): the
// fragment stays an alloca here, as only part of stage A runs
// (fly-canonicalize, fly-layout-lowering, fly-int-swizzle-simplify,
// canonicalize, convert-fly-to-rocdl, canonicalize and the gpu.module
// tail), and LLVM's SROA promotes it. Then binary_prep and binary, for
// every chip: one 128-bit global load per operand, one 128-bit store, no
// scratch, no LDS.
//
// The IR after convert-fly-to-rocdl: no fly op left, 16-byte aligned vector
// loads and store on the global pointers, the fragment an entry-block
// alloca in address space 5.
// RUN: fly-opt %s --pass-pipeline="builtin.module(fly-canonicalize,fly-layout-lowering,fly-int-swizzle-simplify,canonicalize,convert-fly-to-rocdl,canonicalize)" | FileCheck %s --check-prefix=IR
// IR-LABEL:  gpu.func @vector_add
// IR-SAME:     (%[[A:.*]]: !llvm.ptr<1>, %[[B:.*]]: !llvm.ptr<1>, %[[C:.*]]: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32)
// IR:          %[[F:.*]] = llvm.alloca %{{.*}} x f32 {alignment = 4 : i64} : (i32) -> !llvm.ptr<5>
// IR:          scf.if
// IR:            %[[PA:.*]] = llvm.getelementptr inbounds %[[A]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// IR:            %[[PB:.*]] = llvm.getelementptr inbounds %[[B]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// IR:            %[[PC:.*]] = llvm.getelementptr inbounds %[[C]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// IR:            %[[VA:.*]] = llvm.load %[[PA]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// IR:            %[[VB:.*]] = llvm.load %[[PB]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// IR:            %[[VC:.*]] = arith.addf %[[VA]], %[[VB]] : vector<4xf32>
// IR:            llvm.store %[[VC]], %[[F]] {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr<5>
// IR:            %[[OUT:.*]] = llvm.load %[[F]] {alignment = 4 : i64} : !llvm.ptr<5> -> vector<4xf32>
// IR:            llvm.store %[[OUT]], %[[PC]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// IR-NOT:      fly.

// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-opt %s --pass-pipeline="builtin.module(fly-canonicalize,fly-layout-lowering,fly-int-swizzle-simplify,canonicalize,convert-fly-to-rocdl,canonicalize,gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=%{chip} index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=%{chip} --from=binary_prep -o %t.%{chip}.hsaco --print-resources
// DEFINE: %{check} = llvm-objdump -d %t.%{chip}.hsaco | FileCheck %s --check-prefix

// REDEFINE: %{chip} = gfx942
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64 -DCHIP=%{chip}
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx950
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W64 -DCHIP=%{chip}
// RUN: %{check}=GFX9
// REDEFINE: %{chip} = gfx1100
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1101
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1102
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX11
// REDEFINE: %{chip} = gfx1200
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1201
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12
// REDEFINE: %{chip} = gfx1250
// RUN: %{compile} | FileCheck %s --check-prefixes=RES,RES-W32 -DCHIP=%{chip}
// RUN: %{check}=GFX12

// Columns: wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg.
// RES:          // gpu.module @vector_add_module: [[CHIP]], {{[0-9]+}} bytes
// RES-NEXT:     kernel wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg
// RES-W64-NEXT: vector_add 64 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 64{{$}}
// RES-W32-NEXT: vector_add 32 {{[1-9][0-9]*}} 0 {{[1-9][0-9]*}} 0 0 0 0 64{{$}}

// GFX9-LABEL:   <vector_add>:
// GFX9-COUNT-2: global_load_dwordx4
// GFX9-NOT:     global_load
// GFX9:         global_store_dwordx4
// GFX9-NOT:     {{global_store|scratch_|buffer_}}
// GFX9:         s_endpgm
// GFX11-LABEL:   <vector_add>:
// GFX11-COUNT-2: global_load_b128
// GFX11-NOT:     global_load
// GFX11:         global_store_b128
// GFX11-NOT:     {{global_store|scratch_|buffer_}}
// GFX11:         s_endpgm
// GFX12-LABEL:   <vector_add>:
// GFX12-COUNT-2: global_load_b128
// GFX12-NOT:     global_load
// GFX12:         global_store_b128
// GFX12-NOT:     {{global_store|scratch_|buffer_}}
// GFX12:         s_endpgm

module attributes {gpu.container_module} {
  gpu.module @vector_add_module {
    gpu.func @vector_add(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>,
                         %m: i32, %n: i32) kernel
        attributes {known_block_size = array<i32: 16, 4, 1>} {
      %pa = fly.make_ptr(%a) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
      %pb = fly.make_ptr(%b) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
      %pc = fly.make_ptr(%c) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
      %shape = fly.make_int_tuple(%m, %n) : (i32, i32) -> !fly.int_tuple<(?,?{div=4})>
      %stride = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(?{div=4},1)>
      %layout = fly.make_layout(%shape, %stride) : (!fly.int_tuple<(?,?{div=4})>, !fly.int_tuple<(?{div=4},1)>)
      %ga = fly.make_view(%pa, %layout) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(?,?{div=4}):(?{div=4},1)>)
      %gb = fly.make_view(%pb, %layout) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(?,?{div=4}):(?{div=4},1)>)
      %gc = fly.make_view(%pc, %layout) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(?,?{div=4}):(?{div=4},1)>)
      %tile = fly.static : !fly.tile<[1|4]>
      %ta = fly.zipped_divide(%ga, %tile) : (!fly.memref<f32, global, (?,?{div=4}):(?{div=4},1), align<16>>, !fly.tile<[1|4]>)
      %tb = fly.zipped_divide(%gb, %tile) : (!fly.memref<f32, global, (?,?{div=4}):(?{div=4},1), align<16>>, !fly.tile<[1|4]>)
      %tc = fly.zipped_divide(%gc, %tile) : (!fly.memref<f32, global, (?,?{div=4}):(?{div=4},1), align<16>>, !fly.tile<[1|4]>)
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
      %bq = arith.muli %bxi, %c16 : i32
      %q = arith.addi %bq, %txi : i32
      %col = arith.muli %q, %c4 : i32
      %br = arith.muli %byi, %c4 : i32
      %row = arith.addi %br, %tyi : i32
      %row_ok = arith.cmpi slt, %row, %m : i32
      %col_ok = arith.cmpi slt, %col, %n : i32
      %ok = arith.andi %row_ok, %col_ok : i1
      scf.if %ok {
        %crd = fly.make_int_tuple(%row, %q) : (i32, i32) -> !fly.int_tuple<((*,*),(?,?))>
        %sa = fly.slice(%ta, %crd) : (!fly.memref<f32, global, ((1,4),(?,?)):((?{div=4},1),(?{div=4},4)), align<16>>, !fly.int_tuple<((*,*),(?,?))>)
        %sb = fly.slice(%tb, %crd) : (!fly.memref<f32, global, ((1,4),(?,?)):((?{div=4},1),(?{div=4},4)), align<16>>, !fly.int_tuple<((*,*),(?,?))>)
        %sc = fly.slice(%tc, %crd) : (!fly.memref<f32, global, ((1,4),(?,?)):((?{div=4},1),(?{div=4},4)), align<16>>, !fly.int_tuple<((*,*),(?,?))>)
        %va = fly.memref.load_vec(%sa) : (!fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
        %vb = fly.memref.load_vec(%sb) : (!fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
        %vc = arith.addf %va, %vb : vector<4xf32>
        %fc = fly.make_fragment_like(%sc) : (!fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
        fly.memref.store_vec(%vc, %fc) : (vector<4xf32>, !fly.memref<f32, register, (1,4):(0,1)>)
        %out = fly.memref.load_vec(%fc) : (!fly.memref<f32, register, (1,4):(0,1)>)
        fly.memref.store_vec(%out, %sc) : (vector<4xf32>, !fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
      }
      gpu.return
    }
  }
}
