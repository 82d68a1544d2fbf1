// Reference kernel 1 (Fly IR): C = A + B on M x N row-major f32 matrices,
// with 128-bit universal copies and a bounds predicate from an identity
// tensor. M is any size, N a multiple of 4; the pointers are 16-byte
// aligned. The Python front end reproduces this kernel.
//
// A block of 256 threads takes a 16 x 64 tile (blockIdx.y, blockIdx.x);
// thread t copies the 4 elements (t / 16, 4 * (t % 16) .. +3) of it with one
// 128-bit load per operand and one 128-bit store: the tiled copy of
// make_layout_tv(thr = (16,16):(16,1), val = (1,4):(4,1)), whose tile is
// [16|64] and thread-value layout ((16,16),4):((64,1),16). The predicate of
// each copy is elem_less(coordinate, (M, N)) of the thread's first
// coordinate in the tile, taken from the identity tensor partitioned the
// same way.
//
// Compile: fly-compile examples/vector_add.mlir --chip=gfx942 -o va.hsaco

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!tc = !fly.tiled_copy<!atom, ((16,16),4):((64,1),16), [16|64]>
!mat = !fly.memref<f32, global, (?,?{div=4}):(?{div=4},1), align<16>>
!tile = !fly.memref<f32, global, (16,64):(?{div=4},1), align<16>>
!part = !fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>
!frag = !fly.memref<f32, register, ((4,1),1,1):((1,0),0,0)>
!pred = !fly.memref<i1, register, (1,1):(0,0)>
!ids = !fly.coord_tensor<(0,0), (?,?{div=4}):(1E0,1E1)>
!idtile = !fly.coord_tensor<(?{div=16},?{div=64}), (16,64):(1E0,1E1)>
!div = !fly.memref<f32, global, ((16,64),(?,?)):((?{div=4},1),(?{div=64},64)), align<16>>
!iddiv = !fly.coord_tensor<(0,0), ((16,64),(?,?)):((1E0,1E1),(16E0,64E1))>
!idone = !fly.coord_tensor<(?,?{div=4}), ():()>
!idpart = !fly.coord_tensor<(?,?{div=4}), ((4,1),1,1):((1E1,0),0,0)>

module attributes {gpu.container_module} {
  gpu.module @vector_add_module {
    gpu.func @vector_add(%A: !mat, %B: !mat, %C: !mat) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tc = fly.static : !tc
      %tiler = fly.static : !fly.tile<[16|64]>
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %t = arith.index_cast %tx : index to i32
      %bxi = arith.index_cast %bx : index to i32
      %byi = arith.index_cast %by : index to i32
      %blk = fly.make_int_tuple(%byi, %bxi) : (i32, i32) -> !fly.int_tuple<((*,*),(?,?))>

      // This block's tiles and this thread's part of them.
      %dA = fly.zipped_divide(%A, %tiler) : (!mat, !fly.tile<[16|64]>)
      %dB = fly.zipped_divide(%B, %tiler) : (!mat, !fly.tile<[16|64]>)
      %dC = fly.zipped_divide(%C, %tiler) : (!mat, !fly.tile<[16|64]>)
      %gA = fly.slice(%dA, %blk) : (!div, !fly.int_tuple<((*,*),(?,?))>) -> !tile
      %gB = fly.slice(%dB, %blk) : (!div, !fly.int_tuple<((*,*),(?,?))>) -> !tile
      %gC = fly.slice(%dC, %blk) : (!div, !fly.int_tuple<((*,*),(?,?))>) -> !tile
      %tA = fly.tiled_copy.partition_src(%tc, %gA, %t) : (!tc, !tile, i32) -> !part
      %tB = fly.tiled_copy.partition_src(%tc, %gB, %t) : (!tc, !tile, i32) -> !part
      %tC = fly.tiled_copy.partition_dst(%tc, %gC, %t) : (!tc, !tile, i32) -> !part

      // The bounds predicate: the thread's first coordinate inside (M, N).
      %lA = fly.get_layout(%A) : (!mat) -> !fly.layout<(?,?{div=4}):(?{div=4},1)>
      %shape = fly.get_shape(%lA) : (!fly.layout<(?,?{div=4}):(?{div=4},1)>) -> !fly.int_tuple<(?,?{div=4})>
      %zero = fly.static : !fly.int_tuple<(0,0)>
      %idl = fly.make_identity_layout(%shape) : (!fly.int_tuple<(?,?{div=4})>)
      %ids = fly.make_view(%zero, %idl) : (!fly.int_tuple<(0,0)>, !fly.layout<(?,?{div=4}):(1E0,1E1)>) -> !ids
      %dI = fly.zipped_divide(%ids, %tiler) : (!ids, !fly.tile<[16|64]>)
      %gI = fly.slice(%dI, %blk) : (!iddiv, !fly.int_tuple<((*,*),(?,?))>) -> !idtile
      %tI = fly.tiled_copy.partition_src(%tc, %gI, %t) : (!tc, !idtile, i32) -> !idpart
      %first = fly.static : !fly.int_tuple<(0,0,0)>
      %cI = fly.slice(%tI, %first) : (!idpart, !fly.int_tuple<(0,0,0)>)
      %crd = fly.get_iter(%cI) : (!idone) -> !fly.int_tuple<(?,?{div=4})>
      %inside = fly.elem_less(%crd, %shape) : (!fly.int_tuple<(?,?{div=4})>, !fly.int_tuple<(?,?{div=4})>)
      %flag = fly.get_scalar(%inside) : (!fly.int_tuple<?>) -> i32
      %ok = arith.trunci %flag : i32 to i1
      %pred = fly.memref.alloca : !pred
      %c0 = arith.constant 0 : i32
      fly.memref.store(%ok, %pred, %c0) : (i1, !pred, i32)

      // Load A and B, add, store C.
      %fA = fly.make_fragment_like(%tA) : (!part) -> !frag
      %fB = fly.make_fragment_like(%tB) : (!part) -> !frag
      %fC = fly.make_fragment_like(%tC) : (!part) -> !frag
      fly.copy(%tc, %tA, %fA, %pred) : (!tc, !part, !frag, !pred)
      fly.copy(%tc, %tB, %fB, %pred) : (!tc, !part, !frag, !pred)
      %a = fly.memref.load_vec(%fA) : (!frag) -> vector<4xf32>
      %b = fly.memref.load_vec(%fB) : (!frag) -> vector<4xf32>
      %c = arith.addf %a, %b : vector<4xf32>
      fly.memref.store_vec(%c, %fC) : (vector<4xf32>, !frag)
      fly.copy(%tc, %fC, %tC, %pred) : (!tc, !frag, !part, !pred)
      gpu.return
    }
  }

  // The host side: the launch that fly-rewrite-func-signature rewrites with
  // the kernel (a 2-D grid of 16 x 64 tiles).
  func.func @launch(%A: !mat, %B: !mat, %C: !mat, %gx: index, %gy: index) {
    %one = arith.constant 1 : index
    %threads = arith.constant 256 : index
    gpu.launch_func @vector_add_module::@vector_add
        blocks in (%gx, %gy, %one) threads in (%threads, %one, %one)
        args(%A : !mat, %B : !mat, %C : !mat)
    return
  }
}
