// The Fly layout algebra on one small, GEMM-like problem:
//
//   A is a 128x64 matrix, column-major, whose leading dimension `ld` is known
//   only at run time: its layout is (128,64):(1,ld).
//   A is cut into 32x16 tiles, and one tile is copied by the 64 threads of a
//   wave64, each thread holding a 2x4 block of values.
//
// Every result type is written out, and the verifier checks it against the
// type it infers: the types below are the algebra's answers (SPEC §2.3). The
// static ones agree with CuTe's reference implementation, pycute.
//
//   fly-opt examples/layout_algebra.mlir --fly-canonicalize
//       folds every op whose result is fully static to a `fly.static`;
//   fly-opt examples/layout_algebra.mlir --fly-canonicalize --fly-layout-lowering
//       also lowers what depends on `ld`, the tile index and the thread index
//       to `arith`.
// scripts/main.sh runs both (the second followed by --canonicalize).

// Thread and value layouts: all static, so this function folds to constants.
func.func @thread_value_layouts()
    -> (!fly.layout<((2,16),(4,4)):((64,1),(128,16))>, !fly.int_tuple<337>,
        !fly.layout<((16,4),(2,4)):((2,128),(1,32))>, !fly.layout<8:64>,
        !fly.layout<512:1>) {
  // 64 threads as a 16x4 grid, column-major: thread t sits at (t%16, t/16).
  %thr = fly.static : !fly.layout<(16,4):(1,16)>
  // The 2x4 values of one thread, column-major.
  %val = fly.static : !fly.layout<(2,4):(1,2)>

  // raked_product(thr, val) covers the whole 32x16 tile: it maps the tile
  // coordinate (m,n) to thr + 64*val, the thread that owns the element and
  // the value's index in that thread. Thread t owns rows 2*(t%16)+{0,1} and
  // columns 4*(t/16)+{0..3}. (This is how CuTe's make_layout_tv starts.)
  %mn_to_tv = fly.raked_product(%thr, %val)
      : (!fly.layout<(16,4):(1,16)>, !fly.layout<(2,4):(1,2)>)
      -> !fly.layout<((2,16),(4,4)):((64,1),(128,16))>

  // Element (3,6) of the tile: 337 = 17 + 64*5, value 5 of thread 17.
  %m3n6 = fly.static : !fly.int_tuple<(3,6)>
  %owner = fly.crd2idx(%m3n6, %mn_to_tv)
      : (!fly.int_tuple<(3,6)>, !fly.layout<((2,16),(4,4)):((64,1),(128,16))>)
      -> !fly.int_tuple<337>

  // The other direction, (thread, value) -> element of the tile. The right
  // inverse is a flat (16,4,2,4) layout; composing it with the compact
  // (64,8) layout regroups it into (thread, value) modes.
  %inverse = fly.right_inverse(%mn_to_tv)
      : (!fly.layout<((2,16),(4,4)):((64,1),(128,16))>)
      -> !fly.layout<(16,4,2,4):(2,128,1,32)>
  %thr_by_val = fly.static : !fly.layout<(64,8):(1,64)>
  %tv = fly.composition(%inverse, %thr_by_val)
      : (!fly.layout<(16,4,2,4):(2,128,1,32)>, !fly.layout<(64,8):(1,64)>)
      -> !fly.layout<((16,4),(2,4)):((2,128),(1,32))>

  // complement: what the 64-thread grid leaves uncovered of a 512-element
  // tile, i.e. 8 repetitions, 64 elements apart. logical_product and
  // raked_product build their second mode from it.
  %tile_size = fly.static : !fly.int_tuple<512>
  %repeats = fly.complement(%thr, %tile_size)
      : (!fly.layout<(16,4):(1,16)>, !fly.int_tuple<512>) -> !fly.layout<8:64>

  // coalesce: a 32x16 column-major tile whose leading dimension is 32 (a
  // tile in shared memory, say) is one contiguous run of 512 elements.
  %smem_tile = fly.static : !fly.layout<(32,16):(1,32)>
  %run = fly.coalesce(%smem_tile)
      : (!fly.layout<(32,16):(1,32)>) -> !fly.layout<512:1>

  return %mn_to_tv, %owner, %tv, %repeats, %run
      : !fly.layout<((2,16),(4,4)):((64,1),(128,16))>, !fly.int_tuple<337>,
        !fly.layout<((16,4),(2,4)):((2,128),(1,32))>, !fly.layout<8:64>,
        !fly.layout<512:1>
}

// The tiles of A, whose leading dimension %ld is dynamic: what depends on it
// stays an op after --fly-canonicalize and becomes arith in
// --fly-layout-lowering. Returns the offset in A of the first element of tile
// (%bm, %bn), and the offset in that tile of value 5 of thread %tid.
func.func @tile_offsets(%ld: i32, %bm: i32, %bn: i32, %tid: i32) -> (i32, i32) {
  // A = (128,64):(1,ld). make_int_tuple takes the dynamic leaves ('?') as
  // operands, in depth-first order; the static leaves are in the type.
  %shape = fly.static : !fly.int_tuple<(128,64)>
  %stride = fly.make_int_tuple(%ld) : (i32) -> !fly.int_tuple<(1,?)>
  %A = fly.make_layout(%shape, %stride)
      : (!fly.int_tuple<(128,64)>, !fly.int_tuple<(1,?)>)
      -> !fly.layout<(128,64):(1,?)>

  // The 32x16 tiler: mode 0 is cut by 32 (= 32:1), mode 1 by 16.
  %tiler = fly.static : !fly.tile<[32|16]>

  // logical_divide splits each mode into (inside a tile, across tiles):
  // rows (32,4):(1,32), columns (16,4):(ld,16*ld). 16*ld is a multiple of 16,
  // and the type says so.
  %divided = fly.logical_divide(%A, %tiler)
      : (!fly.layout<(128,64):(1,?)>, !fly.tile<[32|16]>)
      -> !fly.layout<((32,4),(16,4)):((1,32),(?,?{div=16}))>

  // zipped_divide gathers the same modes as ((tile), (tile index)): mode 0
  // is one 32x16 tile, mode 1 the 4x4 grid of tiles.
  %tiles = fly.zipped_divide(%A, %tiler)
      : (!fly.layout<(128,64):(1,?)>, !fly.tile<[32|16]>)
      -> !fly.layout<((32,16),(4,4)):((1,?),(32,?{div=16}))>

  // Element (0,0) of tile (bm,bn) is at 32*bm + 16*ld*bn.
  %tile_start = fly.make_int_tuple(%bm, %bn)
      : (i32, i32) -> !fly.int_tuple<((0,0),(?,?))>
  %start = fly.crd2idx(%tile_start, %tiles)
      : (!fly.int_tuple<((0,0),(?,?))>,
         !fly.layout<((32,16),(4,4)):((1,?),(32,?{div=16}))>)
      -> !fly.int_tuple<?{div=16}>
  %start_i32 = fly.get_scalar(%start) : (!fly.int_tuple<?{div=16}>) -> i32

  // Composing the tile's layout, (32,16):(1,ld), with the (thread, value)
  // layout of @thread_value_layouts gives, for each thread and value, the
  // element's offset inside the tile: ((16,4),(2,4)):((2,4*ld),(1,ld)).
  %tile_stride = fly.make_int_tuple(%ld) : (i32) -> !fly.int_tuple<(1,?)>
  %tile_shape = fly.static : !fly.int_tuple<(32,16)>
  %tile = fly.make_layout(%tile_shape, %tile_stride)
      : (!fly.int_tuple<(32,16)>, !fly.int_tuple<(1,?)>)
      -> !fly.layout<(32,16):(1,?)>
  %tv = fly.static : !fly.layout<((16,4),(2,4)):((2,128),(1,32))>
  %thread_offsets = fly.composition(%tile, %tv)
      : (!fly.layout<(32,16):(1,?)>, !fly.layout<((16,4),(2,4)):((2,128),(1,32))>)
      -> !fly.layout<((16,4),(2,4)):((2,?{div=4}),(1,?))>

  // Value 5 of thread %tid: for %tid = 17 that is element (3,6), at 3 + 6*ld.
  %thread_value = fly.make_int_tuple(%tid) : (i32) -> !fly.int_tuple<(?,5)>
  %offset = fly.crd2idx(%thread_value, %thread_offsets)
      : (!fly.int_tuple<(?,5)>, !fly.layout<((16,4),(2,4)):((2,?{div=4}),(1,?))>)
      -> !fly.int_tuple<?>
  %offset_i32 = fly.get_scalar(%offset) : (!fly.int_tuple<?>) -> i32

  return %start_i32, %offset_i32 : i32, i32
}
