// RUN: fly-opt %s -split-input-file -fly-layout-lowering -canonicalize | FileCheck %s

// Partitions with a dynamic thread index lower through the algebra like
// every other op: the thread's offset becomes arith on the index, the
// view's pointer moves by it, and accesses to the view add their own
// offsets.

!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
!g = !fly.memref<f32, global, (16,64):(64,1), align<16>>

// Thread t copies from 4*(t%16) + 64*(t/16); value 2 is 2 further.
// CHECK-LABEL: func.func @copy_partition
// CHECK-SAME:    (%[[G:.*]]: !fly.memref<f32, global, (16,64):(64,1), align<16>>, %[[T:.*]]: i32)
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : i32
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG:     %[[BASE:.*]] = fly.get_iter(%[[G]])
// CHECK:         %[[N:.*]] = arith.remsi %[[T]], %[[C16]] : i32
// CHECK:         %[[N4:.*]] = arith.muli %[[N]], %[[C4]] : i32
// CHECK:         %[[M:.*]] = arith.divsi %[[T]], %[[C16]] : i32
// CHECK:         %[[M64:.*]] = arith.muli %[[M]], %[[C64]] : i32
// CHECK:         %[[OFF:.*]] = arith.addi %[[N4]], %[[M64]] : i32
// CHECK:         %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]]) : (i32) -> !fly.int_tuple<?{div=4}>
// CHECK:         %[[P:.*]] = fly.add_offset(%[[BASE]], %[[OFFT]]) {{.*}} -> !fly.ptr<f32, global, align<16>>
// CHECK:         %[[V:.*]] = fly.add_offset(%[[P]], %{{.*}})
// CHECK:         fly.ptr.load(%[[V]])
func.func @copy_partition(%g: !g, %tid: i32) -> f32 {
  %tc = fly.static : !tc
  %s = fly.tiled_copy.partition_src(%tc, %g, %tid) : (!tc, !g, i32)
  %i = arith.constant 2 : i32
  %x = fly.memref.load(%s, %i)
      : (!fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>, i32)
  return %x : f32
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!c = !fly.memref<f32, global, (128,128):(1,128)>

// Thread t owns C from (t%16) + 128*((t/16)%16); element 9 of its
// (1,8,8):(0,16,2048) view is (0,1,1): 16 + 2048 = 2064 further.
// CHECK-LABEL: func.func @mma_partition
// CHECK-SAME:    (%[[C:.*]]: !fly.memref<f32, global, (128,128):(1,128)>, %[[T:.*]]: i32)
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : i32
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[C2064:.*]] = arith.constant 2064 : i32
// CHECK-DAG:     %[[BASE:.*]] = fly.get_iter(%[[C]])
// CHECK:         %[[M:.*]] = arith.remsi %[[T]], %[[C16]] : i32
// CHECK:         %[[Q:.*]] = arith.divsi %[[T]], %[[C16]] : i32
// CHECK:         %[[N:.*]] = arith.remsi %[[Q]], %[[C16]] : i32
// CHECK:         %[[N128:.*]] = arith.muli %[[N]], %[[C128]] : i32
// CHECK:         %[[OFF:.*]] = arith.addi %[[M]], %[[N128]] : i32
// CHECK:         %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]])
// CHECK:         %[[P:.*]] = fly.add_offset(%[[BASE]], %[[OFFT]])
// CHECK:         %[[E:.*]] = fly.make_int_tuple(%[[C2064]])
// CHECK:         %[[V:.*]] = fly.add_offset(%[[P]], %[[E]])
// CHECK:         fly.ptr.load(%[[V]])
func.func @mma_partition(%c: !c, %tid: i32) -> f32 {
  %tm = fly.static : !tm
  %pc = fly.tiled_mma.partition(%tm, %c, %tid) {operand = "C"} : (!tm, !c, i32)
  %j = arith.constant 9 : i32
  %y = fly.memref.load(%pc, %j) : (!fly.memref<f32, global, (1,8,8):(0,16,2048)>, i32)
  return %y : f32
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!ctile = !fly.memref<f32, global, (128,128):(1,128)>

// A fragment (of the whole C tile) is a register allocation of its inferred type; its accesses
// lower like those of any register memref.
// CHECK-LABEL: func.func @fragment
// CHECK:         %[[F:.*]] = fly.memref.alloca : !fly.memref<f32, register, (1,8,8):(0,1,8)>
// CHECK:         %[[P:.*]] = fly.get_iter(%[[F]])
// CHECK:         fly.ptr.store(%{{.*}}, %{{.*}})
// CHECK-NOT:     fly.mma.make_fragment
func.func @fragment(%c: !ctile, %v: f32) {
  %tm = fly.static : !tm
  %fc = fly.mma.make_fragment(%tm, %c) {operand = "C"} : (!tm, !ctile)
  %j = arith.constant 9 : i32
  fly.memref.store(%v, %fc, %j) : (f32, !fly.memref<f32, register, (1,8,8):(0,1,8)>, i32)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!c = !fly.memref<f32, global, (128,128):(1,128)>

// A static thread index gives a static offset: thread 17 is (m, n) = (1, 1)
// of the 16x16 atom layout and owns C from 1 + 128*1 = 129.
// CHECK-LABEL: func.func @mma_static_thread
// CHECK:         %[[OFF:.*]] = fly.static : !fly.int_tuple<129>
// CHECK:         fly.add_offset(%{{.*}}, %[[OFF]])
func.func @mma_static_thread(%c: !c) -> f32 {
  %tm = fly.static : !tm
  %t = fly.static : !fly.int_tuple<17>
  %pc = fly.tiled_mma.partition(%tm, %c, %t) {operand = "C"} : (!tm, !c, !fly.int_tuple<17>)
  %j = arith.constant 9 : i32
  %y = fly.memref.load(%pc, %j) : (!fly.memref<f32, global, (1,8,8):(0,16,2048)>, i32)
  return %y : f32
}
