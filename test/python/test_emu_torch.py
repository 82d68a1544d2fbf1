"""torch CPU tensors as kernel arguments, on the CPU emulator.

The three reference kernels of examples/ (vector add, the copy through
swizzled LDS, the FMA GEMM) take torch tensors where the examples use numpy
arrays: raw tensors (a dynamic layout with the unit stride static), views
that are not contiguous (column slices, a transposed tensor), and
`flyc.from_dlpack(t).mark_layout_dynamic(...)` descriptors compiled once with
`flyc.compile` and called with other tensors. Results are written in place
into the torch tensors and compared with torch's own results, on a wave64
(gfx942) and a wave32 (gfx1100) chip. f16 tensors go through a kernel of
their own (the vector-add example's copy atom is for f32).
"""

import importlib.util

import numpy as np
import pytest
import torch  # a dependency of the tests (scripts/setup.sh): missing is a failure

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import REPO_ROOT


def _example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", REPO_ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vector_add = _example("vector_add")
tiled_copy_lds = _example("tiled_copy_lds")
fma_gemm = _example("fma_gemm")


@pytest.fixture(params=["gfx942", "gfx1100"], autouse=True)
def chip(request, fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH=request.param, COMPILE_ONLY=None)
    return request.param


def _rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.rand(*shape, generator=g, dtype=torch.float32).to(dtype)


def test_vector_add_on_torch_tensors():
    for seed, (m, n) in enumerate([(100, 200), (37, 200), (16, 64)]):
        a, b = _rand(m, n, seed=seed), _rand(m, n, seed=seed + 10)
        c = torch.zeros(m, n)
        address = c.data_ptr()
        vector_add.vector_add(a, b, c)
        assert c.data_ptr() == address
        assert torch.equal(c, a + b)
        assert not torch.equal(c, torch.zeros_like(c))


def test_vector_add_on_column_slices():
    """Views whose rows are longer than they are: row strides 300 and 216,
    the outputs' neighbouring columns untouched."""
    a_all, b = _rand(100, 300, seed=1), _rand(100, 200, seed=2)
    a = a_all[:, 52:252]
    c_all = torch.full((100, 216), -1.0)
    c = c_all[:, 8:208]
    assert not a.is_contiguous() and not c.is_contiguous()
    vector_add.vector_add(a, b, c)
    assert torch.equal(c, a + b)
    assert torch.equal(c_all[:, :8], torch.full((100, 8), -1.0))
    assert torch.equal(c_all[:, 208:], torch.full((100, 8), -1.0))


@flyc.kernel
def scale_kernel(A: fx.Tensor, B: fx.Tensor):
    i, j = fx.block_idx.x, fx.thread_idx.x
    B[i, j] = A[i, j] * 2.0 + 1.0


@flyc.jit
def scale(A, B):
    M, N = A.shape
    scale_kernel(A, B).launch(grid=(M, 1, 1), block=(N, 1, 1))


def test_transposed_views():
    """Column-major tensors (torch's .T) in and out: the kernel indexes by
    coordinates, the layout carries the strides."""
    a = _rand(48, 32, seed=3).T
    b_storage = torch.zeros(48, 32)
    b = b_storage.T
    assert a.stride() == (1, 32) and b.stride() == (1, 32)
    scale(a, b)
    assert torch.equal(b, a * 2.0 + 1.0)
    # A row-major output from the same column-major input.
    c = torch.zeros(32, 48)
    scale(a, c)
    assert torch.equal(c, a * 2.0 + 1.0)


def test_tiled_copy_through_lds_on_torch_tensors():
    for m, n in [(64, 256), (16, 64)]:
        a = _rand(m, n, seed=4)
        b = torch.zeros(m, n)

        def tensor(x):
            desc = flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4)
            return (desc.mark_shape_dynamic([0], divisibility=tiled_copy_lds.TILE_M)
                    .mark_shape_dynamic([1], divisibility=tiled_copy_lds.TILE_N))

        tiled_copy_lds.tiled_copy(tensor(a), tensor(b))
        assert torch.equal(a, b)


def test_fma_gemm_on_torch_tensors():
    tile = fma_gemm.TILE
    a, b = _rand(256, 64, seed=5), _rand(128, 64, seed=6)
    c = torch.zeros(256, 128)

    def tensor(x, rows_div):
        return flyc.from_dlpack(x).mark_layout_dynamic().mark_shape_dynamic([0], divisibility=rows_div)

    fma_gemm.fma_gemm(tensor(a, tile), tensor(b, tile),
                      tensor(c, tile).mark_shape_dynamic([1], divisibility=tile))
    torch.testing.assert_close(c, a @ b.T, rtol=1e-4, atol=1e-4)
    # Raw tensors: the same kernel with a fully dynamic layout.
    a, b = _rand(128, 8, seed=7), _rand(256, 8, seed=8)
    c = torch.zeros(128, 256)
    fma_gemm.fma_gemm(a, b, c)
    torch.testing.assert_close(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_compiled_from_dlpack_runs_on_torch_tensors():
    a, b = _rand(64, 128, seed=9), _rand(64, 128, seed=10)
    c = torch.zeros(64, 128)
    compiled = flyc.compile(vector_add.vector_add,
                            *[flyc.from_dlpack(t).mark_layout_dynamic(divisibility=4) for t in (a, b, c)])
    assert compiled.emulator
    compiled(a, b, c)
    assert torch.equal(c, a + b)
    # Other shapes through the same compiled function: raw tensors and descriptors.
    a, b = _rand(36, 260, seed=11), _rand(36, 260, seed=12)
    c = torch.zeros(36, 260)
    compiled(a, b, c)
    assert torch.equal(c, a + b)
    c.zero_()
    compiled(*[flyc.from_dlpack(t) for t in (a, b, c)])
    assert torch.equal(c, a + b)
    # A tensor of another dtype is refused, naming the parameter; nothing ran.
    d = torch.zeros(36, 260, dtype=torch.float64)
    with pytest.raises(flyc.ArgumentError) as e:
        compiled(a, b, d)
    assert e.value.bare_message.startswith(
        "argument 'C' of vector_add was compiled for float32 tensors, got a Tensor of torch.float64")
    assert torch.equal(d, torch.zeros_like(d))
    # A width that breaks the compiled divisibility is refused too.
    with pytest.raises(flyc.ArgumentError, match=r"strides\[0\] = 258 is not a multiple of 4"):
        compiled(*[torch.zeros(36, 258) for _ in range(3)])


@flyc.kernel
def add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    C[i] = A[i] + B[i]


@flyc.jit
def add(A, B, C):
    add_kernel(A, B, C).launch(grid=(A.shape[0] // 64, 1, 1), block=(64, 1, 1))


def test_float16_vector_add():
    a, b = _rand(512, dtype=torch.float16, seed=13), _rand(512, dtype=torch.float16, seed=14)
    c = torch.zeros(512, dtype=torch.float16)
    add(a, b, c)
    assert c.dtype == torch.float16
    assert torch.equal(c, a + b)  # one rounding to f16 of the exact sum, as torch does
    # And numpy's f16 agrees.
    np.testing.assert_array_equal(c.numpy(), a.numpy() + b.numpy())


def test_bfloat16_vector_add():
    # The f32 -> bf16 rounding is a compiler-runtime call on the host
    # (__truncsfbf2), which the emulator provides.
    a, b = _rand(256, dtype=torch.bfloat16, seed=15), _rand(256, dtype=torch.bfloat16, seed=16)
    c = torch.zeros(256, dtype=torch.bfloat16)
    add(a, b, c)
    assert torch.equal(c, a + b)
