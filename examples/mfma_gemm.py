"""C = A @ B.T with MFMA atoms and a K loop staged through LDS (CDNA: gfx942, gfx950).

What it shows
  * ``fx.rocdl.MFMA(16, 16, k, dtype)`` picked by chip and element type:
    f32 uses 16x16x4 on both chips; f16 and bf16 use 16x16x16 on gfx942 and
    gfx950's double-rate 16x16x32 (the jit function asks the compile target,
    ``flyc.get_backend().target.arch``: ARCH= when set, else the GPU's).
    A TiledMma of 2 x 2 atoms (4 waves of 64) covers 32 x 32 of C; the
    block's 64 x 64 tile is 2 x 2 of those per thread, which ``fx.gemm``
    walks;
  * the K loop (a run-time K: a Python ``for`` over ``range`` becomes an
    scf.for) in three steps per 64 x BK slab of A and of B:
      1. global -> LDS with one TiledCopy of 128-bit universal copies
         (64 x 4 threads, 128 bits each: BK = 32 halves or 16 floats),
      2. ``fx.gpu.barrier()``,
      3. LDS -> registers with ``fx.make_tiled_copy_A/B(atom, tiled_mma)``,
         whose copy atom is as wide as one atom's operand per lane (64 bits
         for 16x16x16 f16, 128 for 16x16x32, 32 for f32), then ``fx.gemm``
         and a second barrier before the next slab overwrites the LDS;
  * the LDS as FlyDSL's kernels take it: ``fx.get_dyn_shared(dtype)``
    viewed as (64, BK, 2) (the A and the B slab, K-contiguous rows) and
    sized by the launch's ``smem=``;
  * the f32 accumulators written to C with ``fx.make_tiled_copy_C``.

A is M x K, B is N x K (row-major, f16, bf16 or f32), C is M x N f32; M and
N multiples of 64, K a multiple of BK. Checked against torch in float64.

    ARCH=gfx942 python3 examples/mfma_gemm.py
    ARCH=gfx950 python3 examples/mfma_gemm.py
    COMPILE_ONLY=1 ARCH=gfx950 python3 examples/mfma_gemm.py   # resources and MFMA lines
"""

import sys

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE = 64          # the block's tile of C: TILE x TILE
THREADS = 256      # 4 waves of 64


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def mfma_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_mma: fx.TiledMma,
                     g2s: fx.TiledCopy, s2r_bits: fx.Constexpr[int]):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N
    dtype = A.element_type
    slab = g2s.tile_mn                                 # (TILE, BK)
    _, BK = slab.unpack()

    # This block's slabs of A and B, one per K step, and its tile of C.
    gA = fx.flat_divide(A, slab)[None, None, bid_x, None]   # (TILE, BK, k)
    gB = fx.flat_divide(B, slab)[None, None, bid_y, None]   # (TILE, BK, k)
    gC = fx.flat_divide(C, (TILE, TILE))[None, None, bid_x, bid_y]

    # LDS: the A slab and the B slab, each TILE x BK with K contiguous.
    sAB = fx.make_view(fx.get_dyn_shared(dtype), fx.make_ordered_layout((TILE, BK, 2), order=(1, 0, 2)))
    sA, sB = sAB[None, None, 0], sAB[None, None, 1]

    # 1. global -> LDS.
    thr_g2s = g2s.get_slice(tid)
    g2s_atom = fx.make_copy_atom(fx.UniversalCopy128b(), dtype)
    gA_thr, gB_thr = thr_g2s.partition_S(gA), thr_g2s.partition_S(gB)
    sA_thr, sB_thr = thr_g2s.partition_D(sA), thr_g2s.partition_D(sB)

    # 3. LDS -> registers, in the MMA's operand layouts.
    s2r_atom = fx.make_copy_atom(fx.UniversalCopy(s2r_bits), dtype)
    s2r_A = fx.make_tiled_copy_A(s2r_atom, tiled_mma).get_slice(tid)
    s2r_B = fx.make_tiled_copy_B(s2r_atom, tiled_mma).get_slice(tid)
    thr_mma = tiled_mma.thr_slice(tid)
    frag_A, frag_B = thr_mma.make_fragment_A(sA), thr_mma.make_fragment_B(sB)
    sA_s2r, sB_s2r = s2r_A.partition_S(sA), s2r_B.partition_S(sB)
    rA_s2r, rB_s2r = s2r_A.retile(frag_A), s2r_B.retile(frag_B)
    acc = thr_mma.make_fragment_C(gC)
    acc.fill(0.0)

    _, K = A.shape.unpack()
    for k in range(K // BK):
        fx.copy(g2s_atom, gA_thr[None, None, None, k], sA_thr)
        fx.copy(g2s_atom, gB_thr[None, None, None, k], sB_thr)
        fx.gpu.barrier()                                   # 2. the slabs are in LDS
        fx.copy(s2r_atom, sA_s2r, rA_s2r)
        fx.copy(s2r_atom, sB_s2r, rB_s2r)
        fx.gemm(tiled_mma, acc, frag_A, frag_B, acc)
        fx.gpu.barrier()                                   # everyone has read them

    r2g_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    r2g = fx.make_tiled_copy_C(r2g_atom, tiled_mma).get_slice(tid)
    fx.copy(r2g_atom, r2g.retile(acc), r2g.partition_D(gC))


def mfma_k(dtype, arch):
    """The K of the 16 x 16 MFMA this example uses for `dtype` on `arch`."""
    if dtype.width == 32:
        return 4
    return 32 if arch == "gfx950" else 16


@flyc.jit
def mfma_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    dtype = A.element_type
    k = mfma_k(dtype, flyc.get_backend().target.arch)
    tiled_mma = fx.make_tiled_mma(fx.make_mma_atom(fx.rocdl.MFMA(16, 16, k, dtype)),
                                  fx.make_layout((2, 2, 1), (1, 2, 0)))
    # 64 x 4 threads, each one 128-bit run of a row: a TILE x BK slab.
    vals = 128 // dtype.width
    g2s = fx.make_tiled_copy_tv(fx.make_copy_atom(fx.UniversalCopy128b(), dtype),
                                fx.make_ordered_layout((TILE, 4), order=(1, 0)),
                                fx.make_ordered_layout((1, vals), order=(0, 1)))
    s2r_bits = dtype.width * k // 4          # one atom's A (or B) values per lane
    M, N = C.shape.unpack()
    smem = 2 * TILE * 4 * vals * dtype.width // 8
    mfma_gemm_kernel(A, B, C, tiled_mma, g2s, s2r_bits).launch(
        grid=(M // TILE, N // TILE, 1), block=(THREADS, 1, 1), smem=smem, stream=stream)


DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def run(name, m, n, k):
    gen = torch.Generator().manual_seed(m + n + k)
    a = torch.randn(m, k, generator=gen).to(DTYPES[name])
    b = torch.randn(n, k, generator=gen).to(DTYPES[name])
    c = torch.zeros(m, n)
    mfma_gemm(a, b, c)
    want = a.double() @ b.double().T
    # Products of 16-bit floats are exact in f32 and f32's are nearly so:
    # what differs is the order and rounding of the f32 sums.
    good = torch.allclose(c.double(), want, rtol=1e-4, atol=1e-4)
    err = (c.double() - want).abs().max().item()
    print(f"{name} {m} x {n} x {k}: {'ok' if good else 'WRONG'} (max error {err:.2e})")
    return good


def main():
    if flyc.Environment.current().compile_only:
        for name, dtype in DTYPES.items():
            a, b = torch.zeros(128, 64, dtype=dtype), torch.zeros(64, 64, dtype=dtype)
            compiled = flyc.compile(mfma_gemm, a, b, torch.zeros(128, 64))
            mfma = sorted({line.split()[0] for line in compiled.isa().splitlines() if "v_mfma" in line})
            for kernel, r in compiled.resources.items():
                print(f"{name}: {kernel}: {r} {' '.join(mfma)}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for name in DTYPES:
        for m, n, k in [(128, 64, 64), (64, 128, 96)]:
            ok &= run(name, m, n, k)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
