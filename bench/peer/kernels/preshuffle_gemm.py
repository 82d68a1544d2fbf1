"""C = A @ B.T in f16 (f32 accumulation) with B pre-shuffled, the shape of
FlyDSL's example 04: 128 x 128 x 64 block tiles on 256 threads (4 waves side
by side in N), MFMA 16x16x16 f16 with the K mode permuted so that each lane
holds 8 consecutive K values (128-bit loads);
  * A: buffer loads into registers, then a swizzled, double-buffered LDS
    tile, read back per 32-wide K step;
  * B: already in the MFMA's register order in memory (16-row groups, 8
    halves per lane), read straight into a double-buffered register
    fragment with 128-bit buffer loads;
  * the K loop (an scf.for, two stages per trip) moves to the next K slab
    with the buffer copies' soffset, prefetches slab k + 1 while slab k
    computes, and orders its MFMAs against the LDS and global traffic with
    sched_group_barrier hints;
  * the accumulators go out as f16 with 16-bit buffer stores."""

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

BM, BN, BK = 128, 128, 64
M, N, K = 1024, 1024, 1024
THREADS = 256


@flyc.kernel
def preshuffle_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_mma: fx.TiledMma,
                           a_loader: fx.TiledCopy):
    tid = fx.thread_idx.x
    bid_m, bid_n, _ = fx.block_idx
    A = fx.rocdl.make_buffer_tensor(A, max_size=False)
    B = fx.rocdl.make_buffer_tensor(B, max_size=False)
    C = fx.rocdl.make_buffer_tensor(C, max_size=False)

    a_slabs = fx.flat_divide(A, (BM, BK))[None, None, bid_m, None]     # (BM, BK, k)
    b_slabs = fx.flat_divide(B, (BN, BK))[None, None, bid_n, None]     # (BN, BK, k)
    c_tile = fx.flat_divide(C, (BM, BN))[None, None, bid_m, bid_n]

    wide = fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float16)
    narrow = fx.make_copy_atom(fx.rocdl.BufferCopy16b(), fx.Float16)
    lds_copy = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float16)

    # Two K slabs of A in LDS, swizzled (3, 3, 3): 8-half runs move as a whole.
    lds_layout = fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 3, 3)),
                                         fx.make_ordered_layout((BM, BK, 2), (1, 0, 2)))
    a_lds = fx.make_view(fx.get_dyn_shared(fx.Float16), lds_layout)

    load_a = a_loader.get_slice(tid)
    read_a = fx.make_tiled_copy_A(wide, tiled_mma).get_slice(tid)
    load_b = fx.make_tiled_copy_B(wide, tiled_mma).get_slice(tid)
    store_c = fx.make_tiled_copy_C(narrow, tiled_mma).get_slice(tid)
    thr_mma = tiled_mma.thr_slice(tid)

    a_src = load_a.partition_S(a_slabs)          # global, per K slab
    a_dst = load_a.partition_D(a_lds)            # LDS, per stage
    a_lds_src = read_a.partition_S(a_lds)        # LDS as the MMA reads it
    b_src = load_b.partition_S(b_slabs)
    c_dst = store_c.partition_S(c_tile)

    a_regs = fx.make_fragment_like(a_dst[None, None, None, 0])
    mma_a = thr_mma.make_fragment_A(a_lds[None, None, 0])
    mma_b = thr_mma.make_fragment_B(b_slabs, stages=2)
    acc = thr_mma.make_fragment_C(c_tile)
    mma_a_view = read_a.retile(mma_a)
    mma_b_view = load_b.retile(mma_b)

    a_step = fx.get_scalar(a_slabs.stride[2])   # elements from one K slab to the next
    b_step = fx.get_scalar(b_slabs.stride[2])

    def schedule():
        # Interleave: MFMAs between the LDS reads, then the global loads and
        # the LDS writes of the next slab between further MFMAs.
        fx.rocdl.sched_dsrd(2)
        fx.rocdl.sched_mfma(2)
        fx.rocdl.sched_dsrd(2)
        fx.rocdl.sched_mfma(3)
        for _ in fx.range_constexpr(8):
            fx.rocdl.sched_vmem(1)
            fx.rocdl.sched_mfma(4)
        for _ in fx.range_constexpr(4):
            fx.rocdl.sched_mfma(2)
            fx.rocdl.sched_dswr(1)
        fx.rocdl.sched_barrier(0)

    def stage(cur, next_k, prefetch=True):
        nxt = cur ^ 1
        if fx.const_expr(prefetch):
            k = fx.Int32(next_k)
            fx.copy(wide, a_src[None, None, None, 0], a_regs, soffset=k * a_step)
            fx.copy(wide, b_src[None, None, None, 0], mma_b_view[None, None, None, nxt], soffset=k * b_step)
        for kk in fx.range_constexpr(BK // 32):
            fx.copy(lds_copy, a_lds_src[None, None, kk, cur], mma_a_view[None, None, kk])
            fx.gemm(tiled_mma, acc, mma_a[None, None, (None, kk)], mma_b[None, None, (None, kk), cur], acc,
                    traversal_order=fx.GemmTraversalOrder.KNM)
        fx.copy(lds_copy, a_regs, a_dst[None, None, None, nxt])
        fx.gpu.barrier()
        schedule()

    # Prologue: slab 0 of A into LDS stage 0, slab 0 of B into register stage 0.
    fx.copy(wide, a_src[None, None, None, 0], a_regs)
    fx.copy(wide, b_src[None, None, None, 0], mma_b_view[None, None, None, 0])
    acc.fill(0)
    fx.copy(lds_copy, a_regs, a_dst[None, None, None, 0])
    fx.gpu.barrier()

    for k in range(0, K // BK - 2, 2):
        stage(0, k + 1)
        stage(1, k + 2)
    stage(0, K // BK - 1)
    stage(1, None, prefetch=False)

    out = fx.make_fragment_like(acc, fx.Float16)
    out.store(acc.load().to(fx.Float16))
    fx.copy(narrow, store_c.retile(out), c_dst)


@flyc.jit
def preshuffle_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    # B in memory: per 16-row group of N, its K in runs of 8 halves per row,
    # 16 rows' runs side by side, 4 runs per 32 K: ((n0, n1), (k0, k1, k2)).
    b_layout = fx.make_layout(((16, N // 16), (8, 4, K // 32)), ((8, 16 * K), (1, 128, 512)))
    B = fx.Tensor(fx.make_view(fx.get_iter(B), b_layout))

    halves = 8                            # 128 bits of f16 per thread
    cols = BK // halves                   # threads along a row of the slab
    rows = THREADS // cols
    a_loader = fx.make_tiled_copy(
        fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float16),
        fx.make_layout(((cols, rows), (1, halves)), ((rows * halves, 1), (1, rows))),
        fx.make_tile(rows, BK))
    tiled_mma = fx.make_tiled_mma(
        fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 16, fx.Float16)),
        fx.make_layout((1, 4, 1), (0, 1, 0)),
        fx.make_tile(None, None, fx.make_layout((4, 4, 2), (1, 8, 4))))
    preshuffle_gemm_kernel(A, B, C, tiled_mma, a_loader).launch(
        grid=(M // BM, N // BN, 1), block=(THREADS, 1, 1), smem=2 * BM * BK * 2, stream=stream)


JIT = preshuffle_gemm


def shuffle_b(b):
    """B (N x K, row-major) in the order b_layout reads it."""
    n, k = b.shape
    return b.view(n // 16, 16, k // 32, 4, 8).permute(0, 2, 3, 1, 4).contiguous().view(n, k)


def compile_args():
    a = flyc.from_dlpack(torch.zeros(M, K, dtype=torch.float16)).mark_layout_dynamic(leading_dim=1, divisibility=16)
    c = flyc.from_dlpack(torch.zeros(M, N, dtype=torch.float16)).mark_layout_dynamic(leading_dim=1, divisibility=16)
    return a, torch.zeros(N, K, dtype=torch.float16), c
