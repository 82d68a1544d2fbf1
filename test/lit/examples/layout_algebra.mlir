// The program of the main job, examples/layout_algebra.mlir, gives the
// results its comments state (checked against pycute).
//
// Folded: every static computation becomes a fly.static of CuTe's result.
// RUN: fly-opt %S/../../../examples/layout_algebra.mlir --fly-canonicalize \
// RUN:   | FileCheck %s --check-prefix=FOLD
//
// Lowered: @tile_offsets, now arith only, is run on the CPU by @main below.
// RUN: cat %S/../../../examples/layout_algebra.mlir %s \
// RUN:   | fly-opt --fly-canonicalize --fly-layout-lowering \
// RUN:       --symbol-privatize=exclude=main --symbol-dce \
// RUN:       --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:       --convert-func-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_c_runner_utils \
// RUN:   | FileCheck %s --check-prefix=OUT

// FOLD-LABEL: func.func @thread_value_layouts()
// FOLD-NEXT:    fly.static : !fly.layout<((2,16),(4,4)):((64,1),(128,16))>
// FOLD-NEXT:    fly.static : !fly.int_tuple<337>
// FOLD-NEXT:    fly.static : !fly.layout<((16,4),(2,4)):((2,128),(1,32))>
// FOLD-NEXT:    fly.static : !fly.layout<8:64>
// FOLD-NEXT:    fly.static : !fly.layout<512:1>
// FOLD-NEXT:    return
// FOLD-LABEL: func.func @tile_offsets(
// FOLD:         fly.zipped_divide({{.*}} -> !fly.layout<((32,16),(4,4)):((1,?),(32,?{div=16}))>
// FOLD:         fly.crd2idx({{.*}} -> !fly.int_tuple<?{div=16}>
// FOLD:         fly.composition({{.*}} -> !fly.layout<((16,4),(2,4)):((2,?{div=4}),(1,?))>
// FOLD:         fly.crd2idx({{.*}} -> !fly.int_tuple<?>

// Each call prints the start of tile (bm,bn) in A, then the offset of value 5
// of thread tid in that tile (pycute: zipped_divide(A, tiler)(((0,0),(bm,bn)))
// and composition(tile, tv)(tid, 5)).
func.func @print_offsets(%ld: i32, %bm: i32, %bn: i32, %tid: i32) {
  %start, %offset = func.call @tile_offsets(%ld, %bm, %bn, %tid)
      : (i32, i32, i32, i32) -> (i32, i32)
  vector.print %start : i32
  vector.print %offset : i32
  return
}

func.func @main() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c17 = arith.constant 17 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c130 = arith.constant 130 : i32
  %c1000 = arith.constant 1000 : i32
  // OUT:      32096
  // OUT-NEXT: 6003
  func.call @print_offsets(%c1000, %c3, %c2, %c17) : (i32, i32, i32, i32) -> ()
  // OUT-NEXT: 6272
  // OUT-NEXT: 1851
  func.call @print_offsets(%c130, %c1, %c3, %c63) : (i32, i32, i32, i32) -> ()
  // OUT-NEXT: 0
  // OUT-NEXT: 129
  func.call @print_offsets(%c64, %c0, %c0, %c0) : (i32, i32, i32, i32) -> ()
  return
}
