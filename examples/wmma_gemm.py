"""C = A @ B.T with WMMA atoms (wave32: gfx1100, gfx1201, gfx1250).

What it shows
  * ``fx.rocdl.WMMA(16, 16, k, dtype, fx.Float32)``, one name for three
    instruction families: the compile target (``flyc.get_backend().target
    .arch``, ARCH= when set) decides which one it is and which K it has:
      - gfx11 (gfx1100): 16x16x16, A and B held twice (both halves of the
        wave hold the same 16 rows),
      - gfx12 (gfx1201): 16x16x16, the K values split between the halves,
      - gfx1250: 16x16x32 for f16 and bf16, and 16x16x4 for f32 (gfx11 and
        gfx12 have no f32 WMMA, so the f32 variant runs on gfx1250 only);
    the kernel is the same for all three: the atom's thread-value layouts
    carry the differences;
  * a TiledMma of 2 x 2 atoms (4 waves of 32) over a 32 x 32 piece of C;
    the block's 64 x 64 tile is 2 x 2 of those per thread;
  * a K loop over a run-time K (an scf.for) that copies each 64 x K-atom
    slab of A and B from global memory straight into the MMA's fragments
    with ``fx.make_tiled_copy_A/B`` (each copy as wide as a lane's run of
    consecutive K values: 128 bits on gfx11 and for gfx1250's 16-bit
    types, 64 on gfx12 and for f32), then ``fx.gemm``;
  * f32 accumulators, stored with ``fx.make_tiled_copy_C``.

A is M x K, B is N x K (row-major), C is M x N f32; M and N multiples of 64,
K a multiple of the atom's K. Checked against torch in float64.

    ARCH=gfx1100 python3 examples/wmma_gemm.py
    ARCH=gfx1201 python3 examples/wmma_gemm.py
    ARCH=gfx1250 python3 examples/wmma_gemm.py
    COMPILE_ONLY=1 ARCH=gfx1250 python3 examples/wmma_gemm.py   # resources and WMMA lines
"""

import sys

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE = 64          # the block's tile of C: TILE x TILE
THREADS = 128      # 4 waves of 32


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def wmma_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_mma: fx.TiledMma,
                     k_atom: fx.Constexpr[int], copy_bits: fx.Constexpr[int]):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N

    gA = fx.flat_divide(A, (TILE, k_atom))[None, None, bid_x, None]   # (TILE, k_atom, k)
    gB = fx.flat_divide(B, (TILE, k_atom))[None, None, bid_y, None]
    gC = fx.flat_divide(C, (TILE, TILE))[None, None, bid_x, bid_y]

    load = fx.make_copy_atom(fx.UniversalCopy(copy_bits), A.element_type)
    g2r_A = fx.make_tiled_copy_A(load, tiled_mma).get_slice(tid)
    g2r_B = fx.make_tiled_copy_B(load, tiled_mma).get_slice(tid)
    src_A, src_B = g2r_A.partition_S(gA), g2r_B.partition_S(gB)

    thr_mma = tiled_mma.thr_slice(tid)
    frag_A = thr_mma.make_fragment_A(gA[None, None, 0])
    frag_B = thr_mma.make_fragment_B(gB[None, None, 0])
    dst_A, dst_B = g2r_A.retile(frag_A), g2r_B.retile(frag_B)
    acc = thr_mma.make_fragment_C(gC)
    acc.fill(0.0)

    _, K = A.shape.unpack()
    for k in range(K // k_atom):
        fx.copy(load, src_A[None, None, None, k], dst_A)
        fx.copy(load, src_B[None, None, None, k], dst_B)
        fx.gemm(tiled_mma, acc, frag_A, frag_B, acc)

    store = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    r2g = fx.make_tiled_copy_C(store, tiled_mma).get_slice(tid)
    fx.copy(store, r2g.retile(acc), r2g.partition_D(gC))


def wmma_k(dtype, arch):
    """The K of the 16 x 16 WMMA this example uses for `dtype` on `arch`."""
    if arch == "gfx1250":
        return 4 if dtype.width == 32 else 32
    return 16


def run_bits(dtype, arch):
    """The bits of the longest run of consecutive K values one lane holds
    of A (or B), the widest copy that fills the fragments: gfx11 lanes hold
    a row's 16 values, gfx12's two runs of 4 (K 0-3 and 8-11 in the low
    half), gfx1250's f16/bf16 runs of 8 and its f32 runs of 2."""
    if dtype.width == 32:
        return 64
    return 64 if arch.startswith("gfx120") else 128


@flyc.jit
def wmma_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    dtype = A.element_type
    arch = flyc.get_backend().target.arch
    k_atom = wmma_k(dtype, arch)
    tiled_mma = fx.make_tiled_mma(fx.make_mma_atom(fx.rocdl.WMMA(16, 16, k_atom, dtype, fx.Float32)),
                                  fx.make_layout((2, 2, 1), (1, 2, 0)))
    copy_bits = run_bits(dtype, arch)
    M, N = C.shape.unpack()
    wmma_gemm_kernel(A, B, C, tiled_mma, k_atom, copy_bits).launch(
        grid=(M // TILE, N // TILE, 1), block=(THREADS, 1, 1), stream=stream)


def dtypes(arch):
    names = {"f16": torch.float16, "bf16": torch.bfloat16}
    if arch == "gfx1250":
        names["f32"] = torch.float32
    return names


def run(name, dtype, m, n, k):
    gen = torch.Generator().manual_seed(m + n + k)
    a = torch.randn(m, k, generator=gen).to(dtype)
    b = torch.randn(n, k, generator=gen).to(dtype)
    c = torch.zeros(m, n)
    wmma_gemm(a, b, c)
    want = a.double() @ b.double().T
    good = torch.allclose(c.double(), want, rtol=1e-4, atol=1e-4)
    err = (c.double() - want).abs().max().item()
    print(f"{name} {m} x {n} x {k}: {'ok' if good else 'WRONG'} (max error {err:.2e})")
    return good


def main():
    arch = flyc.get_backend().target.arch
    if flyc.Environment.current().compile_only:
        for name, dtype in dtypes(arch).items():
            a, b = torch.zeros(128, 64, dtype=dtype), torch.zeros(64, 64, dtype=dtype)
            compiled = flyc.compile(wmma_gemm, a, b, torch.zeros(128, 64))
            wmma = sorted({line.split()[0] for line in compiled.isa().splitlines() if "v_wmma" in line})
            for kernel, r in compiled.resources.items():
                print(f"{name}: {kernel}: {r} {' '.join(wmma)}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for name, dtype in dtypes(arch).items():
        for m, n, k in [(128, 64, 64), (64, 128, 96)]:
            ok &= run(name, dtype, m, n, k)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
