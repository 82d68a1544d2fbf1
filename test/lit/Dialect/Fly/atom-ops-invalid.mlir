// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Atom and tiled-atom ops: located errors.

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>

// The tile must hold the image of the thread-value layout.
func.func @tiled_copy_tile_mismatch() {
  %atom = fly.make_copy_atom : !atom
  %tv = fly.static : !fly.layout<((16,16),4):((64,1),16)>
  %tile = fly.static : !fly.tile<[16|32]>
  // expected-error @+1 {{'fly.make_tiled_copy' op make_tiled_copy: the thread-value layout ((16,16),4):((64,1),16) (cosize 1024) does not fit the tile [16|32] (size 512)}}
  %tc = fly.make_tiled_copy(%atom, %tv, %tile)
      : (!atom, !fly.layout<((16,16),4):((64,1),16)>, !fly.tile<[16|32]>)
  return
}

// -----

// A written result type that is not the inferred one.
func.func @tiled_copy_written_type() {
  %atom = fly.static : !fly.copy_atom<!fly.universal_copy<128>, 32>
  %tv = fly.static : !fly.layout<((16,16),4):((64,1),16)>
  %tile = fly.static : !fly.tile<[16|64]>
  // expected-error @+2 {{'fly.make_tiled_copy' op inferred type(s)}}
  // expected-error @+1 {{'fly.make_tiled_copy' op failed to infer returned types}}
  %tc = fly.make_tiled_copy(%atom, %tv, %tile)
      : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.layout<((16,16),4):((64,1),16)>, !fly.tile<[16|64]>)
      -> !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<64>, 32>, ((16,16),4):((64,1),16), [16|64]>
  return
}

// -----

// An MMA atom where a copy atom belongs.
func.func @tiled_copy_wrong_atom() {
  %atom = fly.static : !fly.mma_atom<!fly.universal_fma<f32>>
  %tv = fly.static : !fly.layout<(16,1):(1,0)>
  %tile = fly.static : !fly.tile<[16]>
  // expected-error @+1 {{'fly.make_tiled_copy' op expected a copy_atom type}}
  %tc = fly.make_tiled_copy(%atom, %tv, %tile)
      : (!fly.mma_atom<!fly.universal_fma<f32>>, !fly.layout<(16,1):(1,0)>, !fly.tile<[16]>)
  return
}

// -----

func.func @make_copy_atom_type() {
  // expected-error @+1 {{'fly.make_copy_atom' op result #0 must be fly copy_atom, but got '!fly.mma_atom<!fly.universal_fma<f32>>'}}
  %a = fly.make_copy_atom : !fly.mma_atom<!fly.universal_fma<f32>>
  return
}

// -----

// make_layout_tv needs static index maps.
func.func @layout_tv_dynamic(%n: i32) {
  %s = fly.make_shape(%n) : (i32)
  %thr = fly.make_layout(%s) : (!fly.int_tuple<?>)
  %val = fly.static : !fly.layout<4:1>
  // expected-error @+1 {{'fly.make_layout_tv' op thread layout ?:1 must be static}}
  %a, %b = fly.make_layout_tv(%thr, %val) : (!fly.layout<?:1>, !fly.layout<4:1>)
  return
}

// -----

// A tiled MMA where the tiled copy belongs.
func.func @partition_wrong_tiled(%g: !fly.memref<f32, global, (16,64):(64,1)>, %t: i32) {
  %tm = fly.static : !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
  // expected-error @+1 {{'fly.tiled_copy.partition_src' op expected a tiled_copy type}}
  %s = fly.tiled_copy.partition_src(%tm, %g, %t)
      : (!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>, !fly.memref<f32, global, (16,64):(64,1)>, i32)
  return
}

// -----

!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
// A layout where the tensor belongs.
func.func @partition_layout_operand(%t: i32) {
  %tc = fly.static : !tc
  %l = fly.static : !fly.layout<(16,64):(64,1)>
  // expected-error @+1 {{'fly.tiled_copy.partition_dst' op does not accept operands (!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>, layout, int_tuple)}}
  %s = fly.tiled_copy.partition_dst(%tc, %l, %t) : (!tc, !fly.layout<(16,64):(64,1)>, i32)
  return
}

// -----

!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
// The thread index is one integer.
func.func @partition_tuple_index(%g: !fly.memref<f32, global, (16,64):(64,1)>) {
  %tc = fly.static : !tc
  %t = fly.static : !fly.int_tuple<(1,2)>
  // expected-error @+1 {{'fly.tiled_copy.partition_src' op the thread index must be one integer, got (1,2)}}
  %s = fly.tiled_copy.partition_src(%tc, %g, %t)
      : (!tc, !fly.memref<f32, global, (16,64):(64,1)>, !fly.int_tuple<(1,2)>)
  return
}

// -----

!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
// retile needs (V, X, Y) for a 2-mode tile.
func.func @retile_rank(%f: !fly.memref<f32, register, 4:1>) {
  %tc = fly.static : !tc
  // expected-error @+1 {{'fly.tiled_copy.retile' op retile: 4:1 needs a value mode and one mode per mode of the tiler [16|64]}}
  %r = fly.tiled_copy.retile(%tc, %f) : (!tc, !fly.memref<f32, register, 4:1>)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @mma_partition_no_operand(%a: !fly.memref<f32, shared, (128,8):(1,128)>, %t: i32) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.tiled_mma.partition' op requires a string attribute 'operand' ("A", "B" or "C")}}
  %p = fly.tiled_mma.partition(%tm, %a, %t) : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>, i32)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @mma_partition_bad_operand(%a: !fly.memref<f32, shared, (128,8):(1,128)>, %t: i32) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.tiled_mma.partition' op attribute 'operand' must be "A", "B" or "C", got "D"}}
  %p = fly.tiled_mma.partition(%tm, %a, %t) {operand = "D"} : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>, i32)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @make_fragment_no_operand(%a: !fly.memref<f32, shared, (128,8):(1,128)>) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.mma.make_fragment' op requires a string attribute 'operand' ("A", "B" or "C")}}
  %f = fly.mma.make_fragment(%tm, %a) : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

// A register fragment needs a tile of static shape (its strides may be
// dynamic: they only order the modes).
func.func @make_fragment_dynamic(%a: !fly.memref<f32, shared, (128,?):(1,128)>) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.mma.make_fragment' op a register fragment needs a tile of static shape, got (128,?):(1,128)}}
  %f = fly.mma.make_fragment(%tm, %a) {operand = "A"} : (!tm, !fly.memref<f32, shared, (128,?):(1,128)>)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @make_fragment_rank_one(%a: !fly.memref<f32, shared, 128:1>) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.mma.make_fragment' op make_fragment: the tile 128:1 needs at least two modes ((M,K), (N,K) or (M,N))}}
  %f = fly.mma.make_fragment(%tm, %a) {operand = "A"} : (!tm, !fly.memref<f32, shared, 128:1>)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @make_fragment_bad_stages(%a: !fly.memref<f32, shared, (128,8):(1,128)>) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.mma.make_fragment' op make_fragment: stages must be positive, got 0}}
  %f = fly.mma.make_fragment(%tm, %a) {operand = "A", stages = 0 : i64} : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>)
  return
}

// -----

!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>

func.func @make_fragment_stages_rank_one(%a: !fly.memref<f32, shared, 128:1>) {
  %tm = fly.static : !tm
  // expected-error @+1 {{'fly.mma.make_fragment' op make_fragment: the tile 128:1 needs at least two modes ((M,K), (N,K) or (M,N))}}
  %f = fly.mma.make_fragment(%tm, %a) {operand = "A", stages = 2 : i64} : (!tm, !fly.memref<f32, shared, 128:1>)
  return
}

// -----

// A tiled copy where the tiled MMA belongs.
func.func @make_fragment_wrong_tiled(%p: !fly.memref<f32, shared, (1,8,8):(0,16,128)>) {
  %tc = fly.static : !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, (16,1):(1,0), [16]>
  // expected-error @+1 {{'fly.mma.make_fragment' op expected a tiled_mma type}}
  %f = fly.mma.make_fragment(%tc, %p) {operand = "C"}
      : (!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, (16,1):(1,0), [16]>, !fly.memref<f32, shared, (1,8,8):(0,16,128)>)
  return
}

// -----

func.func @make_tiled_mma_bad_perm() {
  %atom = fly.static : !fly.mma_atom<!fly.universal_fma<f32>>
  %l = fly.static : !fly.layout<(2,2,1):(1,2,0)>
  %perm = fly.static : !fly.tile<[4|4|4|4]>
  // expected-error @+1 {{'fly.make_tiled_mma' op make_tiled_mma: the permutation [4|4|4|4] has more than three modes (M,N,K)}}
  %tm = fly.make_tiled_mma(%atom, %l, %perm)
      : (!fly.mma_atom<!fly.universal_fma<f32>>, !fly.layout<(2,2,1):(1,2,0)>, !fly.tile<[4|4|4|4]>)
  return
}

// -----

!mma = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!atom = !fly.copy_atom<!fly.universal_copy<32>, 32>
func.func @tiled_copy_for_operand() {
  %a = fly.static : !atom
  %m = fly.static : !mma
  // expected-error @+1 {{attribute 'operand' must be "A", "B" or "C", got "D"}}
  %c = fly.make_tiled_copy_for(%a, %m) {operand = "D"} : (!atom, !mma)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
func.func @set_value_type(%v: i32) {
  %m = fly.static : !mma
  // expected-error @+1 {{field 'accumulate' takes a value of type 'i1', not 'i32'}}
  %m2 = fly.atom.set_value(%m, %v) {field = "accumulate"} : (!mma, i32)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
func.func @set_value_field(%v: i1) {
  %m = fly.static : !mma
  // expected-error @+1 {{the atom has no field 'scale' (its fields: accumulate)}}
  %m2 = fly.atom.set_value(%m, %v) {field = "scale"} : (!mma, i1)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @set_value_none(%v: i1) {
  %a = fly.static : !atom
  // expected-error @+1 {{the atom '!fly.copy_atom<!fly.universal_copy<128>, 32>' has no run-time fields}}
  %a2 = fly.atom.set_value(%a, %v) {field = "accumulate"} : (!atom, i1)
  return
}
