// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// Copy and MMA operations, atoms and tiled atoms (SPEC §2.2, §4): the
// printed text is the canonical one and parses back to the same type.

// universal_fma prints its short form when the four element types agree.
// CHECK-LABEL: func.func private @operations
// CHECK-SAME:    !fly.universal_copy<8>
// CHECK-SAME:    !fly.universal_copy<16>
// CHECK-SAME:    !fly.universal_copy<32>
// CHECK-SAME:    !fly.universal_copy<64>
// CHECK-SAME:    !fly.universal_copy<128>
// CHECK-SAME:    !fly.universal_fma<f32>
// CHECK-SAME:    !fly.universal_fma<f32, f16, f16, f32>
// CHECK-SAME:    !fly.universal_fma<f64>
// CHECK-SAME:    !fly.universal_atomic<add, f32>
// CHECK-SAME:    !fly.universal_atomic<max, i32>
// CHECK-SAME:    !fly.universal_atomic<min, i64>
func.func private @operations(
    !fly.universal_copy<8>, !fly.universal_copy<16>, !fly.universal_copy<32>,
    !fly.universal_copy<64>, !fly.universal_copy<128>,
    !fly.universal_fma<f32>, !fly.universal_fma<f32, f16, f16, f32>,
    !fly.universal_fma<f64, f64, f64, f64>,
    !fly.universal_atomic<add, f32>, !fly.universal_atomic<max, i32>,
    !fly.universal_atomic<min, i64>)

// A 128-bit copy moves 4 f32, 8 f16 or 16 i8 values; an atomic one value
// of its type.
// CHECK-LABEL: func.func private @atoms
// CHECK-SAME:    !fly.copy_atom<!fly.universal_copy<128>, 32>
// CHECK-SAME:    !fly.copy_atom<!fly.universal_copy<128>, 16>
// CHECK-SAME:    !fly.copy_atom<!fly.universal_copy<128>, 8>
// CHECK-SAME:    !fly.copy_atom<!fly.universal_copy<32>, 32>
// CHECK-SAME:    !fly.copy_atom<!fly.universal_atomic<add, f32>, 32>
// CHECK-SAME:    !fly.mma_atom<!fly.universal_fma<f32>>
// CHECK-SAME:    !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
func.func private @atoms(
    !fly.copy_atom<!fly.universal_copy<128>, 32>,
    !fly.copy_atom<!fly.universal_copy<128>, 16>,
    !fly.copy_atom<!fly.universal_copy<128>, 8>,
    !fly.copy_atom<!fly.universal_copy<32>, 32>,
    !fly.copy_atom<!fly.universal_atomic<add, f32>, 32>,
    !fly.mma_atom<!fly.universal_fma<f32>>,
    !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>)

// The tiled copy of make_tiled_copy_tv(thr (16,16):(16,1), val (1,4):(4,1))
// on f32 with a 128-bit atom; tiled MMAs with and without a permutation.
// CHECK-LABEL: func.func private @tiled
// CHECK-SAME:    !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
// CHECK-SAME:    !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, (32,4):(4,1), [(4,32):(32,1)]>
// CHECK-SAME:    !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
// CHECK-SAME:    !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16):(1,16), [32|*|*]>
func.func private @tiled(
    !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>,
                    ((16,16),4):((64,1),16), [16|64]>,
    !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>,
                    (32,4):(4,1), [(4,32):(32,1)]>,
    !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>,
    !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16):(1,16),
                   [32|*|*]>)

// All are static values.
// CHECK-LABEL: func.func @materialised
// CHECK:         fly.static : !fly.copy_atom<!fly.universal_copy<64>, 16>
// CHECK:         fly.static : !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (2,2,1):(1,2,0)>
// CHECK:         fly.static : !fly.universal_atomic<add, f16>
// The sync scope is printed unless it is the system's (empty).
// CHECK:         fly.static : !fly.universal_atomic<max, i32, "wavefront">
// CHECK:         fly.static : !fly.universal_atomic<add, f32>{{$}}
func.func @materialised() {
  %0 = fly.static : !fly.copy_atom<!fly.universal_copy<64>, 16>
  %1 = fly.static : !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (2,2,1):(1,2,0)>
  %2 = fly.static : !fly.universal_atomic<add, f16>
  %3 = fly.static : !fly.universal_atomic<max, i32, "wavefront">
  %4 = fly.static : !fly.universal_atomic<add, f32, "">
  return
}
