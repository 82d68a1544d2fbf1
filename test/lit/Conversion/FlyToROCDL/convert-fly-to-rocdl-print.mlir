// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl | FileCheck %s

// fly.print becomes gpu.printf: scalars keep their conversions (an index
// goes as i64), a static fly value's text replaces its %s, `%%` stays.

// CHECK-LABEL: gpu.func @prints
// CHECK-SAME: (%[[X:.*]]: f32, %[[I:.*]]: index)
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: gpu.printf "x=%5.2f layout=(4,8):(1,4) shape=(2,(3,4)) i=%lld 100%%\0A", %[[X]], %[[I64]] : f32, i64
// CHECK-NOT: fly.
gpu.module @m {
  gpu.func @prints(%x: f32, %i: index) kernel {
    %l = fly.static : !fly.layout<(4,8):(1,4)>
    %t = fly.static : !fly.int_tuple<(2,(3,4))>
    fly.print(%x, %l, %t, %i) {format = "x=%5.2f layout=%s shape=%s i=%lld 100%%\n"} : (f32, !fly.layout<(4,8):(1,4)>, !fly.int_tuple<(2,(3,4))>, index) -> ()
    gpu.return
  }
}
