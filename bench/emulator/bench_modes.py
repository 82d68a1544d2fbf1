"""The emulator's two modes side by side, and numpy doing the same work, in
one run (SPEC §9, §12):

    python3 bench/emulator/bench_modes.py

Each kernel runs warm in the fiber mode (FLYDSL_EMU_MODE=fiber: one fiber
per work-item, a runtime call per wave instruction) and in the SIMD mode
(FLYDSL_EMU_MODE=wave: one call per wave, lanes as vector elements); the
mode is read at each launch, so both use the same compiled artifact. The
numpy column is numpy computing the same result on the same arrays (for
the GEMMs, its BLAS). Times are medians of warm calls (time.perf_counter
around the Python call, so they include argument packing and the launch),
with all of the machine's cores (the emulator runs workgroups on every
core; numpy's BLAS uses them too).

Columns: kernel; fiber ms; wave ms; wave speed-up over fiber; numpy ms;
the wave mode's time over numpy's. A kernel without a wave function runs
as fibers in both columns (FLYDSL_DEBUG_LOG_LEVEL=info says why).
"""

import os
import sys
from pathlib import Path

os.environ["FLYDSL_RUNTIME_KIND"] = "emu"
os.environ.setdefault("ARCH", "gfx942")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from timing import median_seconds  # noqa: E402


# One output element per work-item, a dynamic K loop of FMAs: the simplest
# GEMM a kernel author writes first.
NAIVE_BLOCK = 256


@flyc.kernel
def naive_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, n: fx.Int32, k: fx.Int32):
    i = fx.block_idx.y
    j = fx.block_idx.x * NAIVE_BLOCK + fx.thread_idx.x
    acc = fx.Float32(0.0)
    for kk in range(k):
        acc = acc + A[i * k + kk] * B[kk * n + j]
    C[i * n + j] = acc


@flyc.jit
def naive_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, m: fx.Int32, n: fx.Int32,
               k: fx.Int32):
    naive_gemm_kernel(A, B, C, n, k).launch(grid=(n // NAIVE_BLOCK, m, 1),
                                            block=(NAIVE_BLOCK, 1, 1))


def cases():
    """(name, run, numpy's run, check) of each kernel."""
    import fma_gemm
    import tiled_copy_lds
    import vector_add

    rng = np.random.default_rng(0)
    out = []

    # 1M-element vector add, 128-bit copies.
    m, n = 1024, 1024
    a, b = (rng.random((m, n), dtype=np.float32) for _ in range(2))
    c = np.zeros_like(a)
    args = [flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4) for x in (a, b, c)]
    out.append(("vector_add 1M f32 (128-bit copies)", lambda: vector_add.vector_add(*args),
                lambda: np.add(a, b, out=c), lambda: np.array_equal(c, a + b)))

    # 256^3 GEMM, one element per work-item.
    s = 256
    ga, gb = rng.standard_normal((s, s), dtype=np.float32), rng.standard_normal((s, s), dtype=np.float32)
    gc = np.zeros((s, s), np.float32)
    out.append(("naive GEMM 256^3 f32 (1 element/work-item)",
                lambda: naive_gemm(ga.ravel(), gb.ravel(), gc.ravel(), s, s, s),
                lambda: ga @ gb, lambda: np.allclose(gc, ga @ gb, rtol=1e-4, atol=1e-3)))

    # The project's tiled FMA GEMM.
    fa, fb, fc, fargs = fma_gemm.arguments(256, 256, 256)
    out.append(("fma_gemm 256^3 f32 (tiled)", lambda: fma_gemm.fma_gemm(*fargs),
                lambda: fa @ fb.T, lambda: np.allclose(fc, fa @ fb.T, rtol=1e-4, atol=1e-3)))

    # MFMA GEMM (16x16x16 f16 atoms, operands staged in LDS).
    import torch

    import mfma_gemm
    gen = torch.Generator().manual_seed(1)
    ma = torch.randn(256, 256, generator=gen).to(torch.float16)
    mb = torch.randn(256, 256, generator=gen).to(torch.float16)
    mc = torch.zeros(256, 256)
    want = (ma.float() @ mb.float().T).numpy()
    out.append(("mfma_gemm 256^3 f16 -> f32", lambda: mfma_gemm.mfma_gemm(ma, mb, mc),
                lambda: ma.float() @ mb.float().T,
                lambda: np.allclose(mc.numpy(), want, rtol=1e-3, atol=1e-3)))

    # A copy through LDS (tiles staged in LDS, barriers between).
    ta, tb, targs = tiled_copy_lds.arguments(256, 1024)
    out.append(("tiled_copy_lds 256x1024 (copy through LDS)",
                lambda: tiled_copy_lds.tiled_copy(*targs),
                lambda: np.copyto(tb, ta), lambda: np.array_equal(ta, tb)))
    return out


def main():
    print("| kernel                                      | fiber ms |  wave ms | wave speed-up | numpy ms | wave / numpy |")
    print("|---------------------------------------------|----------|----------|---------------|----------|--------------|")
    reps = 20
    for name, run, reference, check in cases():
        times = {}
        for mode in ("fiber", "wave"):
            os.environ["FLYDSL_EMU_MODE"] = mode
            run()
            assert check(), f"{name}: wrong result in the {mode} mode"
            times[mode] = median_seconds(run, reps)
        t_numpy = median_seconds(reference, reps)
        print(f"| {name:<43} | {times['fiber'] * 1e3:8.2f} | {times['wave'] * 1e3:8.2f} | "
              f"{times['fiber'] / times['wave']:12.2f}x | {t_numpy * 1e3:8.3f} | "
              f"{times['wave'] / t_numpy:11.1f}x |")


if __name__ == "__main__":
    main()
