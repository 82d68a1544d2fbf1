// Reference kernel 3 (Fly IR): C = A * B^T in f32 with the universal FMA
// atom and a tiled MMA over 256 threads. A is M x K, B is N x K and C is
// M x N, all row-major; M and N are multiples of 128, K is any size. The
// Python front end reproduces this kernel.
//
// A block computes one 128 x 128 tile of C. The tiled MMA lays 16 x 16
// threads over it (atom layout (16,16,1):(1,16,256)), so thread t owns the
// 8 x 8 elements (t % 16 + 16 i, t / 16 + 16 j) and keeps them in a
// (1,8,8) register fragment. For each k the thread copies its 8 elements
// of column k of the A and B tiles into (1,8) fragments (32-bit universal
// copies) and runs fly.gemm, 64 FMAs: (V,M) x (V,N) => (V,M,N). The
// fragments are vectors once fly-promote-regmem-to-vectorssa has run, the
// accumulator a loop-carried value: nothing may spill to scratch.
//
// Compile: fly-compile examples/fma_gemm.mlir --chip=gfx942 -o gemm.hsaco

!copy = !fly.copy_atom<!fly.universal_copy<32>, 32>
!mma = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!a = !fly.memref<f32, global, (?{div=128},?):(?,1)>
!b = !fly.memref<f32, global, (?{div=128},?):(?,1)>
!c = !fly.memref<f32, global, (?{div=128},?{div=128}):(?,1)>
!adiv = !fly.memref<f32, global, ((128,?),?):((?,?{div=128}),1)>
!cdiv = !fly.memref<f32, global, ((128,128),(?,?)):((?,1),(?{div=128},128))>
!arows = !fly.memref<f32, global, (128,?):(?,1)>
!ctile = !fly.memref<f32, global, (128,128):(?,1)>
!apart = !fly.memref<f32, global, (1,8,?):(0,?{div=16},1)>
!acol = !fly.memref<f32, global, (1,8):(0,?{div=16})>
!cpart = !fly.memref<f32, global, (1,8,8):(0,?{div=16},16)>
!afrag = !fly.memref<f32, register, (1,8):(0,1)>
!cfrag = !fly.memref<f32, register, (1,8,8):(0,8,1)>

module attributes {gpu.container_module} {
  gpu.module @fma_gemm_module {
    gpu.func @fma_gemm(%A: !a, %B: !b, %C: !c) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %mma = fly.static : !mma
      %copy = fly.static : !copy
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %t = arith.index_cast %tx : index to i32
      %m = arith.index_cast %by : index to i32
      %n = arith.index_cast %bx : index to i32

      // The block's rows of A and B and its tile of C.
      %rowsTile = fly.static : !fly.tile<[128|*]>
      %cTile = fly.static : !fly.tile<[128|128]>
      %dA = fly.logical_divide(%A, %rowsTile) : (!a, !fly.tile<[128|*]>)
      %dB = fly.logical_divide(%B, %rowsTile) : (!b, !fly.tile<[128|*]>) -> !adiv
      %dC = fly.zipped_divide(%C, %cTile) : (!c, !fly.tile<[128|128]>)
      %rowA = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<((*,?),*)>
      %rowB = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<((*,?),*)>
      %blk = fly.make_int_tuple(%m, %n) : (i32, i32) -> !fly.int_tuple<((*,*),(?,?))>
      %gA = fly.slice(%dA, %rowA) : (!adiv, !fly.int_tuple<((*,?),*)>) -> !arows
      %gB = fly.slice(%dB, %rowB) : (!adiv, !fly.int_tuple<((*,?),*)>) -> !arows
      %gC = fly.slice(%dC, %blk) : (!cdiv, !fly.int_tuple<((*,*),(?,?))>) -> !ctile

      // This thread's elements and its register fragments.
      %tA = fly.tiled_mma.partition(%mma, %gA, %t) {operand = "A"} : (!mma, !arows, i32) -> !apart
      %tB = fly.tiled_mma.partition(%mma, %gB, %t) {operand = "B"} : (!mma, !arows, i32) -> !apart
      %tC = fly.tiled_mma.partition(%mma, %gC, %t) {operand = "C"} : (!mma, !ctile, i32) -> !cpart
      %fC = fly.mma.make_fragment(%mma, %gC) {operand = "C"} : (!mma, !ctile) -> !cfrag
      %zeros = arith.constant dense<0.0> : vector<64xf32>
      fly.memref.store_vec(%zeros, %fC) : (vector<64xf32>, !cfrag)

      // The K loop: column k of the A and B tiles into registers, 64 FMAs.
      %lA = fly.get_layout(%A) : (!a) -> !fly.layout<(?{div=128},?):(?,1)>
      %shA = fly.get_shape(%lA) : (!fly.layout<(?{div=128},?):(?,1)>) -> !fly.int_tuple<(?{div=128},?)>
      %kt = fly.get(%shA) {mode = array<i64: 1>} : (!fly.int_tuple<(?{div=128},?)>) -> !fly.int_tuple<?>
      %K = fly.get_scalar(%kt) : (!fly.int_tuple<?>) -> i32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %K step %c1 : i32 {
        %kc = fly.make_int_tuple(%k) : (i32) -> !fly.int_tuple<(*,*,?)>
        %tAk = fly.slice(%tA, %kc) : (!apart, !fly.int_tuple<(*,*,?)>) -> !acol
        %tBk = fly.slice(%tB, %kc) : (!apart, !fly.int_tuple<(*,*,?)>) -> !acol
        %fA = fly.make_fragment_like(%tAk) : (!acol) -> !afrag
        %fB = fly.make_fragment_like(%tBk) : (!acol) -> !afrag
        fly.copy(%copy, %tAk, %fA) : (!copy, !acol, !afrag)
        fly.copy(%copy, %tBk, %fB) : (!copy, !acol, !afrag)
        fly.gemm(%mma, %fC, %fA, %fB, %fC) : (!mma, !cfrag, !afrag, !afrag, !cfrag)
      }

      // The accumulators to C.
      fly.copy(%copy, %fC, %tC) : (!copy, !cfrag, !cpart)
      gpu.return
    }
  }

  func.func @launch(%A: !a, %B: !b, %C: !c, %gx: index, %gy: index) {
    %one = arith.constant 1 : index
    %threads = arith.constant 256 : index
    gpu.launch_func @fma_gemm_module::@fma_gemm
        blocks in (%gx, %gy, %one) threads in (%threads, %one, %one)
        args(%A : !a, %B : !b, %C : !c)
    return
  }
}
