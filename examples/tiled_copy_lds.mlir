// Reference kernel 2 (Fly IR): B = A for M x N row-major f32 matrices
// (M a multiple of 16, N of 64), through LDS with a swizzled layout and a
// barrier. The Python front end reproduces this kernel.
//
// A block of 256 threads moves one 16 x 64 tile. Into LDS it copies with
// the tiled copy of make_layout_tv((16,16):(16,1), (1,4):(4,1)) (thread t
// takes row t / 16, columns 4 * (t % 16) .. +3, one 128-bit access per
// side); after the barrier it copies out with the threads laid column-major,
// make_layout_tv((16,16):(1,16), (1,4):(4,1)) (thread t takes row t % 16,
// columns 4 * (t / 16) .. +3), so each thread reads what other threads
// wrote. The LDS tile is S<3,2,4> o 0 o (16,64):(64,1): bits 6-8 of an
// element's index (the row's low three bits) are xored into bits 2-4, which
// moves whole 4-element (16-byte) runs, so every access stays one 128-bit
// LDS access. The tile lives in the dynamic LDS (4096 bytes per block).
//
// Compile: fly-compile examples/tiled_copy_lds.mlir --chip=gfx942 -o tc.hsaco

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!rows = !fly.tiled_copy<!atom, ((16,16),4):((64,1),16), [16|64]>
!cols = !fly.tiled_copy<!atom, ((16,16),4):((1,64),16), [16|64]>
!mat = !fly.memref<f32, global, (?{div=16},?{div=64}):(?{div=4},1), align<16>>
!div = !fly.memref<f32, global, ((16,64),(?,?)):((?{div=4},1),(?{div=64},64)), align<16>>
!tile = !fly.memref<f32, global, (16,64):(?{div=4},1), align<16>>
!stile = !fly.memref<f32, shared, S<3,2,4> o 0 o (16,64):(64,1), align<16>>
!gpart = !fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>
!spart = !fly.memref<f32, shared, S<3,2,4> o ?{div=4} o ((4,1),1,1):((1,0),0,0), align<16>>
!blk = !fly.int_tuple<((*,*),(?,?))>

module attributes {gpu.container_module} {
  gpu.module @tiled_copy_module {
    gpu.func @tiled_copy(%A: !mat, %B: !mat) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %rows = fly.static : !rows
      %cols = fly.static : !cols
      %tiler = fly.static : !fly.tile<[16|64]>
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %t = arith.index_cast %tx : index to i32
      %bxi = arith.index_cast %bx : index to i32
      %byi = arith.index_cast %by : index to i32
      %blk = fly.make_int_tuple(%byi, %bxi) : (i32, i32) -> !blk
      %dA = fly.zipped_divide(%A, %tiler) : (!mat, !fly.tile<[16|64]>) -> !div
      %dB = fly.zipped_divide(%B, %tiler) : (!mat, !fly.tile<[16|64]>) -> !div
      %gA = fly.slice(%dA, %blk) : (!div, !blk) -> !tile
      %gB = fly.slice(%dB, %blk) : (!div, !blk) -> !tile

      // The swizzled LDS tile.
      %lds = fly.get_dyn_shared : !fly.ptr<f32, shared, align<16>>
      %swz = fly.static : !fly.composed_layout<S<3,2,4> o 0 o (16,64):(64,1)>
      %sT = fly.make_view(%lds, %swz) : (!fly.ptr<f32, shared, align<16>>, !fly.composed_layout<S<3,2,4> o 0 o (16,64):(64,1)>) -> !stile

      // Global -> LDS, by rows.
      %src = fly.tiled_copy.partition_src(%rows, %gA, %t) : (!rows, !tile, i32) -> !gpart
      %dst = fly.tiled_copy.partition_dst(%rows, %sT, %t) : (!rows, !stile, i32) -> !spart
      fly.copy(%rows, %src, %dst) : (!rows, !gpart, !spart)

      gpu.barrier

      // LDS -> global, by columns.
      %src2 = fly.tiled_copy.partition_src(%cols, %sT, %t) : (!cols, !stile, i32) -> !spart
      %dst2 = fly.tiled_copy.partition_dst(%cols, %gB, %t) : (!cols, !tile, i32) -> !gpart
      fly.copy(%cols, %src2, %dst2) : (!cols, !spart, !gpart)
      gpu.return
    }
  }

  func.func @launch(%A: !mat, %B: !mat, %gx: index, %gy: index) {
    %one = arith.constant 1 : index
    %threads = arith.constant 256 : index
    %smem = arith.constant 4096 : i32
    gpu.launch_func @tiled_copy_module::@tiled_copy
        blocks in (%gx, %gy, %one) threads in (%threads, %one, %one)
        dynamic_shared_memory_size %smem
        args(%A : !mat, %B : !mat)
    return
  }
}
