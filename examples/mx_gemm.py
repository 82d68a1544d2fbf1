"""Low-precision C = A @ B.T with 8-bit float MFMAs and a K loop staged
through LDS: fp8 with per-tensor scales (gfx942, gfx950) and, on gfx950,
MX (microscaling) fp8 with E8M0 block scales.

What it shows
  * fp8 E4M3 operands straight from torch float8 tensors. The two chips
    speak different dialects of E4M3: gfx942's MFMAs take the FNUZ variant
    (``torch.float8_e4m3fnuz``, ``fx.Float8E4M3FNUZ``: no infinities, one
    NaN, largest value 240), gfx950's the OCP one (``torch.float8_e4m3fn``,
    ``fx.Float8E4M3FN``: largest 448). The element type of A picks the
    instruction, so the kernel is the same for both;
  * the per-tensor GEMM (``fp8_gemm``): ``fx.rocdl.MFMA(16, 16, 32, fp8)``
    (v_mfma_f32_16x16x32_fp8_fp8, the 16 x 16 fp8 MFMA both chips have),
    f32 accumulators, and the two per-tensor scales (float kernel
    arguments) applied once, to the accumulators, in the epilogue (gfx950
    could run it through the scaled MFMA below with every scale 127, 2^0,
    for four times the K per instruction);
  * the MX GEMM (``mx_gemm``, gfx950): ``fx.rocdl.cdna4.MFMA_Scale(16, 16,
    128, fx.Float8E4M3FN)`` (v_mfma_scale_f32_16x16x128_f8f6f4), which
    applies the scales inside the instruction: A[m, k] means
    A[m, k] * 2^(SA[m, k // 32] - 127), SA an M x K/32 tensor of E8M0
    exponents (uint8), and the same for B with SB (N x K/32). Every lane
    of this atom holds 32 consecutive values of K of one row, exactly one
    scale block, so one scale byte per lane and call. The scales go to
    ``fx.gemm`` as operand groups, ``fx.gemm(mma, acc, [frag_A, scales_A],
    [frag_B, scales_B], acc)``: register fragments (1, tiles of M, atoms of
    K) of one word per lane and call, sliced at each call's tile like the
    operand (each call's word overrides the atom's ``scale_a`` /
    ``scale_b`` field);
  * the scale bytes found with the layout algebra rather than index
    arithmetic: SA viewed as an M x K tensor whose K mode is (32, K/32)
    with strides (0, 1) (the 32 values of a block share one byte) has A's
    shape, so it is divided and partitioned exactly as A is, and the first
    value of a lane's piece of each atom is that lane's scale;
  * the K loop as in mfma_gemm.py, one 64 x BK slab of A and of B per step
    (BK = 128 bytes of K, a run-time number of steps, an scf.for):
      1. global -> LDS with a TiledCopy of 128-bit copies (32 x 8 threads:
         a row's 128 bytes from 8 neighbouring threads, twice),
      2. ``fx.gpu.barrier()``,
      3. LDS -> registers with ``fx.make_tiled_copy_A/B`` (64 bits a lane
         for the 16x16x32 atom, whose lanes hold 8 consecutive values of K
         per atom; 128 bits, twice, for the 16x16x128 one), and a second
         barrier: the fragments are full, the LDS may be overwritten;
      4. ``fx.gemm`` over the thread's 2 x 2 tiles of C (and the 4 atoms
         of K of a slab, for the 16x16x32 atom);
  * a TiledMma of 2 x 2 atoms on 4 waves of 64, 32 x 32 of C; the block's
    64 x 64 tile is 2 x 2 of those per thread.

A is M x K, B is N x K (row-major fp8), C is M x N f32; M and N multiples
of 64, K a multiple of 128. Checked against torch in float64 of the
dequantised operands (the products of 8-bit floats and powers of two are
exact in f32, so what differs is the rounding of the f32 sums).

    ARCH=gfx942 python3 examples/mx_gemm.py
    ARCH=gfx950 python3 examples/mx_gemm.py
    COMPILE_ONLY=1 ARCH=gfx950 python3 examples/mx_gemm.py   # resources and MFMA lines
"""

import sys

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE = 64          # the block's tile of C: TILE x TILE
BK = 128           # the K of a slab (bytes of fp8)
THREADS = 256      # 4 waves of 64
BLOCK = 32         # the MX scale block: 32 values of K share one E8M0 scale

# The chip's fp8 E4M3: (the fx element type, the torch dtype).
FP8 = {"gfx942": (fx.Float8E4M3FNUZ, torch.float8_e4m3fnuz),
       "gfx950": (fx.Float8E4M3FN, torch.float8_e4m3fn)}


def lds_staged_operands(A, B, tiled_mma, g2s, s2r_bits, tid, bid_x, bid_y):
    """This thread's A and B fragments of the block's TILE x BK slabs, and
    load_slab(k), which fills them with slab k (steps 1 to 3)."""
    dtype = A.element_type
    gA = fx.flat_divide(A, (TILE, BK))[None, None, bid_x, None]   # (TILE, BK, k)
    gB = fx.flat_divide(B, (TILE, BK))[None, None, bid_y, None]

    # LDS: the A slab and the B slab, each TILE x BK with K contiguous.
    sAB = fx.make_view(fx.get_dyn_shared(dtype), fx.make_ordered_layout((TILE, BK, 2), order=(1, 0, 2)))
    sA, sB = sAB[None, None, 0], sAB[None, None, 1]

    thr_g2s = g2s.get_slice(tid)
    g2s_atom = fx.make_copy_atom(fx.UniversalCopy128b(), dtype)
    gA_thr, gB_thr = thr_g2s.partition_S(gA), thr_g2s.partition_S(gB)
    sA_thr, sB_thr = thr_g2s.partition_D(sA), thr_g2s.partition_D(sB)

    s2r_atom = fx.make_copy_atom(fx.UniversalCopy(s2r_bits), dtype)
    s2r_A = fx.make_tiled_copy_A(s2r_atom, tiled_mma).get_slice(tid)
    s2r_B = fx.make_tiled_copy_B(s2r_atom, tiled_mma).get_slice(tid)
    thr_mma = tiled_mma.thr_slice(tid)
    frag_A, frag_B = thr_mma.make_fragment_A(sA), thr_mma.make_fragment_B(sB)
    sA_s2r, sB_s2r = s2r_A.partition_S(sA), s2r_B.partition_S(sB)
    rA_s2r, rB_s2r = s2r_A.retile(frag_A), s2r_B.retile(frag_B)

    def load_slab(k):
        fx.copy(g2s_atom, gA_thr[None, None, None, k], sA_thr)     # 1. global -> LDS
        fx.copy(g2s_atom, gB_thr[None, None, None, k], sB_thr)
        fx.gpu.barrier()                                           # 2. the slabs are in LDS
        fx.copy(s2r_atom, sA_s2r, rA_s2r)                          # 3. LDS -> registers
        fx.copy(s2r_atom, sB_s2r, rB_s2r)
        fx.gpu.barrier()                                           # everyone has read them

    return frag_A, frag_B, load_slab


def store_c(acc, gC, tiled_mma, tid):
    """The f32 accumulators to this block's tile of C."""
    r2g_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    r2g = fx.make_tiled_copy_C(r2g_atom, tiled_mma).get_slice(tid)
    fx.copy(r2g_atom, r2g.retile(acc), r2g.partition_D(gC))


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def fp8_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, scale_a: fx.Float32, scale_b: fx.Float32,
                    tiled_mma: fx.TiledMma, g2s: fx.TiledCopy, s2r_bits: fx.Constexpr[int]):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N
    frag_A, frag_B, load_slab = lds_staged_operands(A, B, tiled_mma, g2s, s2r_bits, tid, bid_x, bid_y)
    gC = fx.flat_divide(C, (TILE, TILE))[None, None, bid_x, bid_y]
    acc = tiled_mma.thr_slice(tid).make_fragment_C(gC)
    acc.fill(0.0)

    _, K = A.shape.unpack()
    for k in range(K // BK):
        load_slab(k)
        fx.gemm(tiled_mma, acc, frag_A, frag_B, acc)       # 4. 2 x 2 tiles x 4 atoms of K

    # Per-tensor scales commute with the sum over K: one multiply per value of C.
    acc.store(acc.load() * (scale_a * scale_b))
    store_c(acc, gC, tiled_mma, tid)


def scales_as_values(S):
    """S (rows x K/32 E8M0 bytes) as a rows x K tensor: value (r, k) is
    S[r, k // 32], the K mode (32, K/32) with strides (0, 1)."""
    rows, blocks = S.shape.unpack()
    row_stride, _ = S.stride.unpack()
    return fx.make_view(fx.get_iter(S), fx.make_layout((rows, (BLOCK, blocks)), (row_stride, (0, 1))))


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def mx_gemm_kernel(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor,
                   tiled_mma: fx.TiledMma, g2s: fx.TiledCopy, s2r_bits: fx.Constexpr[int]):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y
    frag_A, frag_B, load_slab = lds_staged_operands(A, B, tiled_mma, g2s, s2r_bits, tid, bid_x, bid_y)
    gC = fx.flat_divide(C, (TILE, TILE))[None, None, bid_x, bid_y]
    thr_mma = tiled_mma.thr_slice(tid)
    acc = thr_mma.make_fragment_C(gC)
    acc.fill(0.0)

    # The scales, divided and partitioned as A and B are: (values, tiles of M or N, atoms of K, k).
    gSA = fx.flat_divide(scales_as_values(SA), (TILE, BK))[None, None, bid_x, None]
    gSB = fx.flat_divide(scales_as_values(SB), (TILE, BK))[None, None, bid_y, None]
    tSA, tSB = thr_mma.partition_A(gSA), thr_mma.partition_B(gSB)
    _, tiles_m, atoms_k, _ = tSA.shape.unpack()
    _, tiles_n, _, _ = tSB.shape.unpack()

    # The scales of a slab as operand groups of fx.gemm: register fragments (1, tiles, atoms
    # of K), one word per lane and atom call, that the gemm slices at each call's tile.
    rSA = fx.make_rmem_tensor(fx.make_layout((1, tiles_m, atoms_k), (0, 1, tiles_m)), fx.Int32)
    rSB = fx.make_rmem_tensor(fx.make_layout((1, tiles_n, atoms_k), (0, 1, tiles_n)), fx.Int32)

    _, K = A.shape.unpack()
    for k in range(K // BK):
        load_slab(k)
        # A lane's scale for the atom at tile m (n) and atom kk of K: the byte of its first
        # value (all 32 of its values are one block). torch's uint8 arrives as a signless
        # 8-bit integer, so fx.Int32 sign-extends it; the instruction reads only byte 0 of
        # the 32-bit word (opsel 0), so that is harmless.
        for kk in fx.range_constexpr(atoms_k):
            for m in fx.range_constexpr(tiles_m):
                rSA[0, m, kk] = fx.Int32(tSA[0, m, kk, k])
            for n in fx.range_constexpr(tiles_n):
                rSB[0, n, kk] = fx.Int32(tSB[0, n, kk, k])
        fx.gemm(tiled_mma, acc, [frag_A, rSA], [frag_B, rSB], acc)

    store_c(acc, gC, tiled_mma, tid)


def make_g2s(dtype):
    """32 x 8 threads, each one 128-bit (16 byte) run of a row: 32 x BK per copy."""
    return fx.make_tiled_copy_tv(fx.make_copy_atom(fx.UniversalCopy128b(), dtype),
                                 fx.make_ordered_layout((32, 8), order=(1, 0)),
                                 fx.make_ordered_layout((1, 16), order=(0, 1)))


def tiled_2x2(atom):
    return fx.make_tiled_mma(fx.make_mma_atom(atom), fx.make_layout((2, 2, 1), (1, 2, 0)))


SMEM = 2 * TILE * BK      # bytes: the A slab and the B slab


@flyc.jit
def fp8_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, scale_a: fx.Float32, scale_b: fx.Float32,
             stream: fx.Stream = fx.Stream(None)):
    dtype = A.element_type
    # 16x16x32: each lane holds 8 consecutive values of K of a row per atom, one 64-bit read.
    tiled_mma = tiled_2x2(fx.rocdl.MFMA(16, 16, 32, dtype))
    M, N = C.shape.unpack()
    fp8_gemm_kernel(A, B, C, scale_a, scale_b, tiled_mma, make_g2s(dtype), 64).launch(
        grid=(M // TILE, N // TILE, 1), block=(THREADS, 1, 1), smem=SMEM, stream=stream)


@flyc.jit
def mx_gemm(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor,
            stream: fx.Stream = fx.Stream(None)):
    dtype = A.element_type
    # 16x16x128: lane l holds row l % 16 and K values 32 (l // 16) .. + 31, one scale block;
    # its 32 bytes come from LDS in two 128-bit reads.
    tiled_mma = tiled_2x2(fx.rocdl.cdna4.MFMA_Scale(16, 16, 128, dtype))
    M, N = C.shape.unpack()
    mx_gemm_kernel(A, B, SA, SB, C, tiled_mma, make_g2s(dtype), 128).launch(
        grid=(M // TILE, N // TILE, 1), block=(THREADS, 1, 1), smem=SMEM, stream=stream)


# -- the host side: quantising, the reference, the checks ---------------------------------------

def quantize_per_tensor(x, dtype):
    """fp8 values and the f32 scale s with x ~ values * s (amax to the largest fp8)."""
    scale = (x.abs().max() / torch.finfo(dtype).max).float()
    return (x / scale).to(dtype), scale.item()


def quantize_mx(x, dtype):
    """OCP MX quantisation of x (rows x K) along K: per block of 32, the E8M0
    exponent e = floor(log2(amax)) - emax(E4M3) + 127 (emax = 8) and the
    fp8 values x / 2^(e - 127), clamped to the largest E4M3."""
    blocks = x.reshape(x.shape[0], -1, BLOCK)
    amax = blocks.abs().amax(dim=2).clamp(min=2.0 ** -100)
    e = (torch.floor(torch.log2(amax)) - 8 + 127).clamp(0, 254)
    fmax = torch.finfo(dtype).max
    values = (blocks / torch.exp2(e - 127).unsqueeze(2)).clamp(-fmax, fmax)
    return values.reshape(x.shape).to(dtype), e.to(torch.uint8)


def dequantize_mx(values, e):
    return values.double() * torch.exp2(e.double() - 127).repeat_interleave(BLOCK, dim=1)


def check(name, c, a, b):
    """c against the float64 a @ b.T of the dequantised operands. The
    products (and the power-of-two block scales) are exact in f32; each of
    the K additions rounds by at most 2^-24 of a partial sum no larger than
    sum |a||b|, and the epilogue's multiply once more: 4 K 2^-24 sum |a||b|
    bounds it all with room to spare."""
    want = a @ b.T
    err = (c.double() - want).abs()
    bound = 4 * a.shape[1] * 2.0 ** -24 * (a.abs() @ b.abs().T) + 1e-30
    good = bool(torch.all(err <= bound)) and torch.count_nonzero(c) > c.numel() // 2
    print(f"{name}: {'ok' if good else 'WRONG'} (max error {err.max().item():.2e}, "
          f"max |C| {want.abs().max().item():.2e})")
    return good


def run_fp8(arch, m, n, k):
    _, dtype = FP8[arch]
    gen = torch.Generator().manual_seed(m + n + k)
    A, sa = quantize_per_tensor(torch.randn(m, k, generator=gen), dtype)
    B, sb = quantize_per_tensor(torch.randn(n, k, generator=gen) * 0.1, dtype)
    c = torch.zeros(m, n)
    fp8_gemm(A, B, c, sa, sb)
    return check(f"fp8 per-tensor scales, MFMA 16x16x32 {str(dtype).split('.')[-1]}, {m} x {n} x {k}", c,
                 A.double() * sa, B.double() * sb)


def run_mx(arch, m, n, k):
    _, dtype = FP8[arch]
    gen = torch.Generator().manual_seed(m + n + k + 1)
    # Blocks whose magnitudes differ by orders (2^-8 .. 2^12): one scale for the whole tensor
    # would flush the small ones to zero, one per block of 32 keeps them. E8M0 codes come out
    # from about 110 to 133, on both sides of 127 (2^0).
    def spread(rows):
        e = torch.randint(-8, 13, (rows, k // BLOCK), generator=gen).float()
        return torch.randn(rows, k, generator=gen) * torch.exp2(e).repeat_interleave(BLOCK, dim=1)
    x, y = spread(m), spread(n)
    A, SA = quantize_mx(x, dtype)
    B, SB = quantize_mx(y, dtype)
    c = torch.zeros(m, n)
    mx_gemm(A, B, SA, SB, c)
    return check(f"MX fp8, E8M0 scales per {BLOCK} of K, MFMA_Scale 16x16x128 {str(dtype).split('.')[-1]}, "
                 f"{m} x {n} x {k}", c,
                 dequantize_mx(A, SA), dequantize_mx(B, SB))


def main():
    arch = flyc.get_backend().target.arch
    if arch not in FP8:
        print(f"{arch}: this example is for gfx942 and gfx950 (CDNA3's and CDNA4's MFMAs)")
        return 1
    _, dtype = FP8[arch]
    if flyc.Environment.current().compile_only:
        a, b, c = torch.zeros(128, 256, dtype=dtype), torch.zeros(64, 256, dtype=dtype), torch.zeros(128, 64)
        builds = {"fp8": flyc.compile(fp8_gemm, a, b, c, 1.0, 1.0)}
        if arch == "gfx950":
            sa, sb = torch.zeros(128, 8, dtype=torch.uint8), torch.zeros(64, 8, dtype=torch.uint8)
            builds["mx"] = flyc.compile(mx_gemm, a, b, sa, sb, c)
        for name, compiled in builds.items():
            mfma = sorted({line.split()[0] for line in compiled.isa().splitlines() if "v_mfma" in line})
            for kernel, r in compiled.resources.items():
                print(f"{name}: {kernel}: {r} {' '.join(mfma)}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for m, n, k in [(64, 64, 256), (128, 64, 384)]:
        ok &= run_fp8(arch, m, n, k)
    if arch == "gfx950":
        for m, n, k in [(64, 64, 256), (64, 128, 384)]:
            ok &= run_mx(arch, m, n, k)
    else:
        print(f"MX fp8 (cdna4.MFMA_Scale): gfx950 only, not on {arch}")
    print("PASS" if ok else "FAIL: C differs from torch's float64 product of the dequantised operands")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
