"""MMA register fragments as FlyDSL makes them: fx.mma_make_fragment and
TiledMma/ThrMma.make_fragment_A/B/C take the whole, unpartitioned tile of
an operand ((M,K), (N,K) or (M,N)) and give thread 0's partition of it as
compact register storage, in the order of the tile's strides, with the
MMA's element type; stages=N partitions the tile's first two modes and
appends a stage mode. Result types against FlyDSL 0.4.2's, a GEMM written
as FlyDSL's examples/03-tiledMma.py (universal FMA atoms, 32-bit universal
copies) on the emulator against numpy, and the located errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from flydsl.tracing.errors import TraceError  # noqa: E402

CHIPS = ["gfx942", "gfx1100"]


@pytest.fixture
def compile_only(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    yield tmp_path
    monkeypatch.undo()
    flyc.Environment.reload()


@pytest.fixture(params=CHIPS)
def chip(request, monkeypatch):
    monkeypatch.setenv("FLYDSL_RUNTIME_KIND", "emu")
    monkeypatch.setenv("ARCH", request.param)
    flyc.Environment.reload()
    yield request.param
    monkeypatch.undo()
    flyc.Environment.reload()


def trace(body):
    """body(A) traced in a kernel (compile only); what it returned."""
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor):
        out["r"] = body(A)

    @flyc.jit
    def host(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    flyc.compile(host, np.zeros(1024, np.float32))
    return out["r"]


def tiled_mmas():
    fma = fx.make_mma_atom(fx.UniversalFMA(fx.Float32))
    return {
        "111": fx.make_tiled_mma(fma, fx.make_layout((1, 1, 1), (0, 0, 0))),
        "221": fx.make_tiled_mma(fma, fx.make_layout((2, 2, 1), (1, 2, 0))),
        "411": fx.make_tiled_mma(fma, fx.make_layout((4, 1, 1), (1, 0, 0))),
        "221perm": fx.make_tiled_mma(fma, fx.make_layout((2, 2, 1), (1, 2, 0)),
                                     (fx.make_layout((2, 4), (4, 1)), 8, None)),
        "411perm": fx.make_tiled_mma(fma, fx.make_layout((4, 1, 1), (1, 0, 0)),
                                     (8, fx.make_layout((2, 2), (2, 1)), None)),
    }


# Recorded from FlyDSL 0.4.2's IR: the same calls,
# getattr(mma.thr_slice(0), "make_fragment_" + op)(fx.make_view(fx.get_iter(A),
# fx.make_layout(shape, stride)), stages=stages), traced in a kernel with
# COMPILE_ONLY=1 ARCH=gfx942 under /opt/flydsl-0.4.2/bin/python, and the
# layout of each printed result type (all !fly.memref<f32, register, ...>).
# The tiles of shape (1,8,8) are partitions passed as tiles: FlyDSL has no
# special case for them, nor do we.
RECORDED_042 = [
    ("111", (8, 4), (1, 8), "A", None, "(1,8,4):(0,1,8)"),
    ("111", (8, 4), (1, 8), "A", 2, "(1,8,4,2):(0,1,8,32)"),
    ("111", (8, 4), (1, 8), "B", None, "(1,8,4):(0,1,8)"),
    ("111", (8, 4), (1, 8), "B", 2, "(1,8,4,2):(0,1,8,32)"),
    ("111", (8, 4), (1, 8), "C", None, "(1,8,4):(0,1,8)"),
    ("111", (8, 4), (1, 8), "C", 2, "(1,8,4,2):(0,1,8,32)"),
    ("221", (8, 4), (1, 8), "A", None, "(1,4,4):(0,1,4)"),
    ("221", (8, 4), (1, 8), "A", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221", (8, 4), (1, 8), "A", 3, "(1,4,4,3):(0,1,4,16)"),
    ("221", (8, 4), (1, 8), "B", None, "(1,4,4):(0,1,4)"),
    ("221", (8, 4), (1, 8), "B", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221", (8, 4), (1, 8), "B", 3, "(1,4,4,3):(0,1,4,16)"),
    ("221", (8, 4), (1, 8), "C", None, "(1,4,2):(0,1,4)"),
    ("221", (8, 4), (1, 8), "C", 2, "(1,4,2,2):(0,1,4,8)"),
    ("221", (8, 4), (1, 8), "C", 3, "(1,4,2,3):(0,1,4,8)"),
    ("411", (8, 4), (1, 8), "A", None, "(1,2,4):(0,1,2)"),
    ("411", (8, 4), (1, 8), "A", 2, "(1,2,4,2):(0,1,2,8)"),
    ("411", (8, 4), (1, 8), "B", None, "(1,8,4):(0,1,8)"),
    ("411", (8, 4), (1, 8), "B", 2, "(1,8,4,2):(0,1,8,32)"),
    ("411", (8, 4), (1, 8), "C", None, "(1,2,4):(0,1,2)"),
    ("411", (8, 4), (1, 8), "C", 2, "(1,2,4,2):(0,1,2,8)"),
    ("221perm", (8, 4), (1, 8), "A", None, "(1,4,4):(0,1,4)"),
    ("221perm", (8, 4), (1, 8), "A", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221perm", (8, 4), (1, 8), "B", None, "(1,4,4):(0,1,4)"),
    ("221perm", (8, 4), (1, 8), "B", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221perm", (8, 4), (1, 8), "C", None, "(1,4,4):(0,1,4)"),
    ("221perm", (8, 4), (1, 8), "C", 2, "(1,4,4,2):(0,1,4,16)"),
    ("411perm", (8, 4), (1, 8), "A", None, "(1,2,4):(0,1,2)"),
    ("411perm", (8, 4), (1, 8), "A", 2, "(1,2,4,2):(0,1,2,8)"),
    ("411perm", (8, 4), (1, 8), "B", None, "(1,(2,2,2),4):(0,(2,1,4),8)"),
    ("411perm", (8, 4), (1, 8), "B", 2, "(1,(2,2,2),4,2):(0,(2,1,4),8,32)"),
    ("411perm", (8, 4), (1, 8), "C", None, "(1,2,(2,2)):(0,1,(4,2))"),
    ("411perm", (8, 4), (1, 8), "C", 2, "(1,2,(2,2),2):(0,1,(4,2),8)"),
    ("221", (8, 4), (4, 1), "A", None, "(1,4,4):(0,4,1)"),
    ("221", (8, 4), (4, 1), "A", 2, "(1,4,4,2):(0,4,1,16)"),
    ("221", (8, 4), (4, 1), "A", 3, "(1,4,4,3):(0,4,1,16)"),
    ("221", (8, 4), (4, 1), "B", None, "(1,4,4):(0,4,1)"),
    ("221", (8, 4), (4, 1), "B", 2, "(1,4,4,2):(0,4,1,16)"),
    ("221", (8, 4), (4, 1), "B", 3, "(1,4,4,3):(0,4,1,16)"),
    ("221", (8, 4), (4, 1), "C", None, "(1,4,2):(0,2,1)"),
    ("221", (8, 4), (4, 1), "C", 2, "(1,4,2,2):(0,2,1,8)"),
    ("221", (8, 4), (4, 1), "C", 3, "(1,4,2,3):(0,2,1,8)"),
    ("411", (8, 4), (4, 1), "A", None, "(1,2,4):(0,4,1)"),
    ("411", (8, 4), (4, 1), "A", 2, "(1,2,4,2):(0,4,1,8)"),
    ("411", (8, 4), (4, 1), "B", None, "(1,8,4):(0,4,1)"),
    ("411", (8, 4), (4, 1), "B", 2, "(1,8,4,2):(0,4,1,32)"),
    ("411", (8, 4), (4, 1), "C", None, "(1,2,4):(0,4,1)"),
    ("411", (8, 4), (4, 1), "C", 2, "(1,2,4,2):(0,4,1,8)"),
    ("221perm", (8, 4), (4, 1), "A", None, "(1,4,4):(0,4,1)"),
    ("221perm", (8, 4), (4, 1), "A", 2, "(1,4,4,2):(0,4,1,16)"),
    ("221perm", (8, 4), (4, 1), "B", None, "(1,4,4):(0,4,1)"),
    ("221perm", (8, 4), (4, 1), "B", 2, "(1,4,4,2):(0,4,1,16)"),
    ("221perm", (8, 4), (4, 1), "C", None, "(1,4,4):(0,4,1)"),
    ("221perm", (8, 4), (4, 1), "C", 2, "(1,4,4,2):(0,4,1,16)"),
    ("411perm", (8, 4), (4, 1), "A", None, "(1,2,4):(0,4,1)"),
    ("411perm", (8, 4), (4, 1), "A", 2, "(1,2,4,2):(0,4,1,8)"),
    ("411perm", (8, 4), (4, 1), "B", None, "(1,(2,2,2),4):(0,(8,4,16),1)"),
    ("411perm", (8, 4), (4, 1), "B", 2, "(1,(2,2,2),4,2):(0,(8,4,16),1,32)"),
    ("411perm", (8, 4), (4, 1), "C", None, "(1,2,(2,2)):(0,4,(2,1))"),
    ("411perm", (8, 4), (4, 1), "C", 2, "(1,2,(2,2),2):(0,4,(2,1),8)"),
    ("221", (16, 8), (1, 16), "A", None, "(1,8,8):(0,1,8)"),
    ("221", (16, 8), (1, 16), "A", 2, "(1,8,8,2):(0,1,8,64)"),
    ("221", (16, 8), (1, 16), "B", None, "(1,8,8):(0,1,8)"),
    ("221", (16, 8), (1, 16), "B", 2, "(1,8,8,2):(0,1,8,64)"),
    ("221", (16, 8), (1, 16), "C", None, "(1,8,4):(0,1,8)"),
    ("221", (16, 8), (1, 16), "C", 2, "(1,8,4,2):(0,1,8,32)"),
    ("411", (16, 8), (1, 16), "A", None, "(1,4,8):(0,1,4)"),
    ("411", (16, 8), (1, 16), "A", 2, "(1,4,8,2):(0,1,4,32)"),
    ("411", (16, 8), (1, 16), "B", None, "(1,16,8):(0,1,16)"),
    ("411", (16, 8), (1, 16), "B", 2, "(1,16,8,2):(0,1,16,128)"),
    ("411", (16, 8), (1, 16), "C", None, "(1,4,8):(0,1,4)"),
    ("411", (16, 8), (1, 16), "C", 2, "(1,4,8,2):(0,1,4,32)"),
    ("221perm", (16, 8), (1, 16), "A", None, "(1,(4,2),8):(0,(1,4),8)"),
    ("221perm", (16, 8), (1, 16), "A", 2, "(1,(4,2),8,2):(0,(1,4),8,64)"),
    ("221perm", (16, 8), (1, 16), "B", None, "(1,8,8):(0,1,8)"),
    ("221perm", (16, 8), (1, 16), "B", 2, "(1,8,8,2):(0,1,8,64)"),
    ("221perm", (16, 8), (1, 16), "C", None, "(1,(4,2),4):(0,(1,4),8)"),
    ("221perm", (16, 8), (1, 16), "C", 2, "(1,(4,2),4,2):(0,(1,4),8,32)"),
    ("411perm", (16, 8), (1, 16), "A", None, "(1,4,8):(0,1,4)"),
    ("411perm", (16, 8), (1, 16), "A", 2, "(1,4,8,2):(0,1,4,32)"),
    ("411perm", (16, 8), (1, 16), "B", None, "(1,(2,2,4),8):(0,(2,1,4),16)"),
    ("411perm", (16, 8), (1, 16), "B", 2, "(1,(2,2,4),8,2):(0,(2,1,4),16,128)"),
    ("411perm", (16, 8), (1, 16), "C", None, "(1,4,(2,2,2)):(0,1,(8,4,16))"),
    ("411perm", (16, 8), (1, 16), "C", 2, "(1,4,(2,2,2),2):(0,1,(8,4,16),32)"),
    ("221", (16, 16), (16, 1), "A", None, "(1,8,16):(0,16,1)"),
    ("221", (16, 16), (16, 1), "A", 2, "(1,8,16,2):(0,16,1,128)"),
    ("221", (16, 16), (16, 1), "B", None, "(1,8,16):(0,16,1)"),
    ("221", (16, 16), (16, 1), "B", 2, "(1,8,16,2):(0,16,1,128)"),
    ("221", (16, 16), (16, 1), "C", None, "(1,8,8):(0,8,1)"),
    ("221", (16, 16), (16, 1), "C", 2, "(1,8,8,2):(0,8,1,64)"),
    ("411", (16, 16), (16, 1), "A", None, "(1,4,16):(0,16,1)"),
    ("411", (16, 16), (16, 1), "A", 2, "(1,4,16,2):(0,16,1,64)"),
    ("411", (16, 16), (16, 1), "B", None, "(1,16,16):(0,16,1)"),
    ("411", (16, 16), (16, 1), "B", 2, "(1,16,16,2):(0,16,1,256)"),
    ("411", (16, 16), (16, 1), "C", None, "(1,4,16):(0,16,1)"),
    ("411", (16, 16), (16, 1), "C", 2, "(1,4,16,2):(0,16,1,64)"),
    ("221perm", (16, 16), (16, 1), "A", None, "(1,(4,2),16):(0,(16,64),1)"),
    ("221perm", (16, 16), (16, 1), "A", 2, "(1,(4,2),16,2):(0,(16,64),1,128)"),
    ("221perm", (16, 16), (16, 1), "B", None, "(1,8,16):(0,16,1)"),
    ("221perm", (16, 16), (16, 1), "B", 2, "(1,8,16,2):(0,16,1,128)"),
    ("221perm", (16, 16), (16, 1), "C", None, "(1,(4,2),8):(0,(8,32),1)"),
    ("221perm", (16, 16), (16, 1), "C", 2, "(1,(4,2),8,2):(0,(8,32),1,64)"),
    ("411perm", (16, 16), (16, 1), "A", None, "(1,4,16):(0,16,1)"),
    ("411perm", (16, 16), (16, 1), "A", 2, "(1,4,16,2):(0,16,1,64)"),
    ("411perm", (16, 16), (16, 1), "B", None, "(1,(2,2,4),16):(0,(32,16,64),1)"),
    ("411perm", (16, 16), (16, 1), "B", 2, "(1,(2,2,4),16,2):(0,(32,16,64),1,256)"),
    ("411perm", (16, 16), (16, 1), "C", None, "(1,4,(2,2,4)):(0,16,(2,1,4))"),
    ("411perm", (16, 16), (16, 1), "C", 2, "(1,4,(2,2,4),2):(0,16,(2,1,4),64)"),
    ("221", (32, 8), (1, 32), "A", None, "(1,16,8):(0,1,16)"),
    ("221", (32, 8), (1, 32), "A", 2, "(1,16,8,2):(0,1,16,128)"),
    ("221", (32, 8), (1, 32), "B", None, "(1,16,8):(0,1,16)"),
    ("221", (32, 8), (1, 32), "B", 2, "(1,16,8,2):(0,1,16,128)"),
    ("221", (32, 8), (1, 32), "C", None, "(1,16,4):(0,1,16)"),
    ("221", (32, 8), (1, 32), "C", 2, "(1,16,4,2):(0,1,16,64)"),
    ("411", (32, 8), (1, 32), "A", None, "(1,8,8):(0,1,8)"),
    ("411", (32, 8), (1, 32), "A", 2, "(1,8,8,2):(0,1,8,64)"),
    ("411", (32, 8), (1, 32), "B", None, "(1,32,8):(0,1,32)"),
    ("411", (32, 8), (1, 32), "B", 2, "(1,32,8,2):(0,1,32,256)"),
    ("411", (32, 8), (1, 32), "C", None, "(1,8,8):(0,1,8)"),
    ("411", (32, 8), (1, 32), "C", 2, "(1,8,8,2):(0,1,8,64)"),
    ("221perm", (32, 8), (1, 32), "A", None, "(1,(4,4),8):(0,(1,4),16)"),
    ("221perm", (32, 8), (1, 32), "A", 2, "(1,(4,4),8,2):(0,(1,4),16,128)"),
    ("221perm", (32, 8), (1, 32), "B", None, "(1,16,8):(0,1,16)"),
    ("221perm", (32, 8), (1, 32), "B", 2, "(1,16,8,2):(0,1,16,128)"),
    ("221perm", (32, 8), (1, 32), "C", None, "(1,(4,4),4):(0,(1,4),16)"),
    ("221perm", (32, 8), (1, 32), "C", 2, "(1,(4,4),4,2):(0,(1,4),16,64)"),
    ("411perm", (32, 8), (1, 32), "A", None, "(1,8,8):(0,1,8)"),
    ("411perm", (32, 8), (1, 32), "A", 2, "(1,8,8,2):(0,1,8,64)"),
    ("411perm", (32, 8), (1, 32), "B", None, "(1,(2,2,8),8):(0,(2,1,4),32)"),
    ("411perm", (32, 8), (1, 32), "B", 2, "(1,(2,2,8),8,2):(0,(2,1,4),32,256)"),
    ("411perm", (32, 8), (1, 32), "C", None, "(1,8,(2,2,2)):(0,1,(16,8,32))"),
    ("411perm", (32, 8), (1, 32), "C", 2, "(1,8,(2,2,2),2):(0,1,(16,8,32),64)"),
    ("111", (6, 5), (1, 6), "A", None, "(1,6,5):(0,1,6)"),
    ("111", (6, 5), (1, 6), "A", 2, "(1,6,5,2):(0,1,6,30)"),
    ("111", (6, 5), (1, 6), "B", None, "(1,6,5):(0,1,6)"),
    ("111", (6, 5), (1, 6), "B", 2, "(1,6,5,2):(0,1,6,30)"),
    ("111", (6, 5), (1, 6), "C", None, "(1,6,5):(0,1,6)"),
    ("111", (6, 5), (1, 6), "C", 2, "(1,6,5,2):(0,1,6,30)"),
    ("221", (6, 5), (1, 6), "A", None, "(1,3,5):(0,1,3)"),
    ("221", (6, 5), (1, 6), "A", 2, "(1,3,5,2):(0,1,3,15)"),
    ("221", (6, 5), (1, 6), "B", None, "(1,3,5):(0,1,3)"),
    ("221", (6, 5), (1, 6), "B", 2, "(1,3,5,2):(0,1,3,15)"),
    ("221", (6, 5), (1, 6), "C", None, "(1,3,3):(0,1,3)"),
    ("221", (6, 5), (1, 6), "C", 2, "(1,3,3,2):(0,1,3,9)"),
    ("411", (6, 5), (1, 6), "A", None, "(1,2,5):(0,1,2)"),
    ("411", (6, 5), (1, 6), "A", 2, "(1,2,5,2):(0,1,2,10)"),
    ("411", (6, 5), (1, 6), "B", None, "(1,6,5):(0,1,6)"),
    ("411", (6, 5), (1, 6), "B", 2, "(1,6,5,2):(0,1,6,30)"),
    ("411", (6, 5), (1, 6), "C", None, "(1,2,5):(0,1,2)"),
    ("411", (6, 5), (1, 6), "C", 2, "(1,2,5,2):(0,1,2,10)"),
    ("221perm", (6, 5), (1, 6), "A", None, "(1,4,5):(0,1,4)"),
    ("221perm", (6, 5), (1, 6), "A", 2, "(1,4,5,2):(0,1,4,20)"),
    ("221perm", (6, 5), (1, 6), "B", None, "(1,4,5):(0,1,4)"),
    ("221perm", (6, 5), (1, 6), "B", 2, "(1,4,5,2):(0,1,4,20)"),
    ("221perm", (6, 5), (1, 6), "C", None, "(1,4,4):(0,1,4)"),
    ("221perm", (6, 5), (1, 6), "C", 2, "(1,4,4,2):(0,1,4,16)"),
    ("411perm", (6, 5), (1, 6), "A", None, "(1,2,5):(0,1,2)"),
    ("411perm", (6, 5), (1, 6), "A", 2, "(1,2,5,2):(0,1,2,10)"),
    ("411perm", (6, 5), (1, 6), "B", None, "(1,(2,2,2),5):(0,(2,1,4),8)"),
    ("411perm", (6, 5), (1, 6), "B", 2, "(1,(2,2,2),5,2):(0,(2,1,4),8,40)"),
    ("411perm", (6, 5), (1, 6), "C", None, "(1,2,(2,2,2)):(0,1,(4,2,8))"),
    ("411perm", (6, 5), (1, 6), "C", 2, "(1,2,(2,2,2),2):(0,1,(4,2,8),16)"),
    ("221", (8, 4, 3), (1, 8, 32), "A", None, "(1,4,4,3):(0,1,4,16)"),
    ("221", (8, 4, 3), (1, 8, 32), "A", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221", (8, 4, 3), (1, 8, 32), "B", None, "(1,4,4,3):(0,1,4,16)"),
    ("221", (8, 4, 3), (1, 8, 32), "B", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221", (8, 4, 3), (1, 8, 32), "C", None, "(1,4,2,3):(0,1,4,8)"),
    ("221", (8, 4, 3), (1, 8, 32), "C", 2, "(1,4,2,2):(0,1,4,8)"),
    ("411", (8, 4, 3), (1, 8, 32), "A", None, "(1,2,4,3):(0,1,2,8)"),
    ("411", (8, 4, 3), (1, 8, 32), "A", 2, "(1,2,4,2):(0,1,2,8)"),
    ("411", (8, 4, 3), (1, 8, 32), "B", None, "(1,8,4,3):(0,1,8,32)"),
    ("411", (8, 4, 3), (1, 8, 32), "B", 2, "(1,8,4,2):(0,1,8,32)"),
    ("411", (8, 4, 3), (1, 8, 32), "C", None, "(1,2,4,3):(0,1,2,8)"),
    ("411", (8, 4, 3), (1, 8, 32), "C", 2, "(1,2,4,2):(0,1,2,8)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "A", None, "(1,4,4,3):(0,1,4,16)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "A", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "B", None, "(1,4,4,3):(0,1,4,16)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "B", 2, "(1,4,4,2):(0,1,4,16)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "C", None, "(1,4,4,3):(0,1,4,16)"),
    ("221perm", (8, 4, 3), (1, 8, 32), "C", 2, "(1,4,4,2):(0,1,4,16)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "A", None, "(1,2,4,3):(0,1,2,8)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "A", 2, "(1,2,4,2):(0,1,2,8)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "B", None, "(1,(2,2,2),4,3):(0,(2,1,4),8,32)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "B", 2, "(1,(2,2,2),4,2):(0,(2,1,4),8,32)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "C", None, "(1,2,(2,2),3):(0,1,(4,2),8)"),
    ("411perm", (8, 4, 3), (1, 8, 32), "C", 2, "(1,2,(2,2),2):(0,1,(4,2),8)"),
    ("221", (1, 8, 8), (0, 1, 8), "A", None, "(1,1,8,8):(0,0,1,8)"),
    ("221", (1, 8, 8), (0, 1, 8), "A", 2, "(1,1,8,2):(0,0,1,8)"),
    ("221", (1, 8, 8), (0, 1, 8), "B", None, "(1,1,8,8):(0,0,1,8)"),
    ("221", (1, 8, 8), (0, 1, 8), "B", 2, "(1,1,8,2):(0,0,1,8)"),
    ("221", (1, 8, 8), (0, 1, 8), "C", None, "(1,1,4,8):(0,0,1,4)"),
    ("221", (1, 8, 8), (0, 1, 8), "C", 2, "(1,1,4,2):(0,0,1,4)"),
    ("411", (1, 8, 8), (0, 1, 8), "A", None, "(1,1,8,8):(0,0,1,8)"),
    ("411", (1, 8, 8), (0, 1, 8), "A", 2, "(1,1,8,2):(0,0,1,8)"),
    ("411", (1, 8, 8), (0, 1, 8), "B", None, "(1,1,8,8):(0,0,1,8)"),
    ("411", (1, 8, 8), (0, 1, 8), "B", 2, "(1,1,8,2):(0,0,1,8)"),
    ("411", (1, 8, 8), (0, 1, 8), "C", None, "(1,1,8,8):(0,0,1,8)"),
    ("411", (1, 8, 8), (0, 1, 8), "C", 2, "(1,1,8,2):(0,0,1,8)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "A", None, "(1,4,8,8):(0,1,4,32)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "A", 2, "(1,4,8,2):(0,1,4,32)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "B", None, "(1,4,8,8):(0,1,4,32)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "B", 2, "(1,4,8,2):(0,1,4,32)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "C", None, "(1,4,4,8):(0,1,4,16)"),
    ("221perm", (1, 8, 8), (0, 1, 8), "C", 2, "(1,4,4,2):(0,1,4,16)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "A", None, "(1,2,8,8):(0,1,2,16)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "A", 2, "(1,2,8,2):(0,1,2,16)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "B", None, "(1,4,8,8):(0,1,4,32)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "B", 2, "(1,4,8,2):(0,1,4,32)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "C", None, "(1,2,(2,2,2),8):(0,1,(4,2,8),16)"),
    ("411perm", (1, 8, 8), (0, 1, 8), "C", 2, "(1,2,(2,2,2),2):(0,1,(4,2,8),16)"),
]


def test_fragment_types_match_flydsl_042(compile_only):
    def body(A):
        base, mmas, got = fx.get_iter(A), tiled_mmas(), []
        for mma, shape, stride, op, stages, _ in RECORDED_042:
            tile = fx.make_view(base, fx.make_layout(shape, stride))
            thr = mmas[mma].thr_slice(0)
            got.append(str(getattr(thr, "make_fragment_" + op)(tile, stages=stages).ir.type))
        return got
    got = trace(body)
    mismatches = [f"{case[:5]}: FlyDSL 0.4.2 {case[5]}, ours {g}"
                  for case, g in zip(RECORDED_042, got)
                  if g != f"!fly.memref<f32, register, {case[5]}>"]
    assert not mismatches, "\n".join(mismatches)


def test_fragment_spellings_agree(compile_only):
    """fx.mma_make_fragment, TiledMma.make_fragment_* and ThrMma's (any
    thread) are one op: the fragment does not depend on the thread."""
    def body(A):
        mma = tiled_mmas()["221"]
        tile = fx.make_view(fx.get_iter(A), fx.make_layout((16, 8), (8, 1)))
        return [str(x.ir.type) for x in (
            fx.mma_make_fragment(fx.MmaOperand.A, mma, tile),
            mma.make_fragment_A(tile),
            mma.thr_slice(3).make_fragment_A(tile),
            mma.thr_slice(fx.thread_idx.x).make_fragment_A(tile))]
    assert set(trace(body)) == {"!fly.memref<f32, register, (1,8,8):(0,8,1)>"}


def test_block_tile_of_a_kernel_argument(compile_only):
    """Example 03's tiles: blocks of row-major kernel arguments, a dynamic
    row stride (FlyDSL 0.4.2 gives the same types)."""
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor, C: fx.Tensor):
        mma = tiled_mmas()["221"]
        bA = fx.slice(fx.zipped_divide(A, (16, 8)), (None, fx.block_idx.x))
        bC = fx.slice(fx.zipped_divide(C, (16, 16)), (None, fx.block_idx.x))
        thr = mma.thr_slice(fx.thread_idx.x)
        out["r"] = [str(x.ir.type) for x in (thr.make_fragment_A(bA), thr.make_fragment_C(bC),
                                           thr.make_fragment_A(bA, stages=2))]

    @flyc.jit
    def host(A: fx.Tensor, C: fx.Tensor):
        k(A, C).launch(grid=(1, 1, 1), block=(4, 1, 1))

    flyc.compile(host, np.zeros((16, 8), np.float32), np.zeros((16, 16), np.float32))
    assert out["r"] == ["!fly.memref<f32, register, (1,8,8):(0,8,1)>",
                        "!fly.memref<f32, register, (1,8,8):(0,8,1)>",
                        "!fly.memref<f32, register, (1,8,8,2):(0,8,1,64)>"]


# -- FlyDSL's examples/03-tiledMma.py with universal atoms ----------------------------------------

def make_gemm(block_m, block_n, block_k, atom_layout, permutation, threads):
    @flyc.kernel
    def gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        bid = fx.block_idx.x

        bA = fx.zipped_divide(A, (block_m, block_k))
        bB = fx.zipped_divide(B, (block_n, block_k))
        bC = fx.zipped_divide(C, (block_m, block_n))

        bA = fx.slice(bA, (None, bid))
        bB = fx.slice(bB, (None, bid))
        bC = fx.slice(bC, (None, bid))

        mma_atom = fx.make_mma_atom(fx.UniversalFMA(fx.Float32))
        tiled_mma = fx.make_tiled_mma(mma_atom, fx.make_layout(*atom_layout),
                                      permutation() if permutation else None)
        thr_mma = tiled_mma.thr_slice(tid)

        copy_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        tiled_copy_A = fx.make_tiled_copy_A(copy_atom, tiled_mma)
        tiled_copy_B = fx.make_tiled_copy_B(copy_atom, tiled_mma)
        tiled_copy_C = fx.make_tiled_copy_C(copy_atom, tiled_mma)

        thr_copy_A = tiled_copy_A.get_slice(tid)
        thr_copy_B = tiled_copy_B.get_slice(tid)
        thr_copy_C = tiled_copy_C.get_slice(tid)

        copy_src_A = thr_copy_A.partition_S(bA)
        copy_src_B = thr_copy_B.partition_S(bB)
        copy_dst_C = thr_copy_C.partition_S(bC)

        frag_A = thr_mma.make_fragment_A(bA)
        frag_B = thr_mma.make_fragment_B(bB)
        frag_C = thr_mma.make_fragment_C(bC)

        copy_frag_A = thr_copy_A.retile(frag_A)
        copy_frag_B = thr_copy_B.retile(frag_B)
        copy_frag_C = thr_copy_C.retile(frag_C)

        fx.copy(copy_atom, copy_src_A, copy_frag_A, pred=None)
        fx.copy(copy_atom, copy_src_B, copy_frag_B, pred=None)

        frag_C.fill(0)
        fx.gemm(mma_atom, frag_C, frag_A, frag_B, frag_C)

        fx.copy(copy_atom, copy_frag_C, copy_dst_C, pred=None)

    @flyc.jit
    def tiledMma(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        gemm_kernel(A, B, C).launch(grid=(1, 1, 1), block=(threads, 1, 1), stream=stream)

    return tiledMma


GEMMS = {
    # block (m, n, k), atom layout, permutation, threads
    "2x2": ((16, 16, 8), ((2, 2, 1), (1, 2, 0)), None, 4),
    "4x1": ((16, 8, 4), ((4, 1, 1), (1, 0, 0)), None, 4),
    "4x4": ((32, 16, 4), ((4, 4, 1), (1, 4, 0)), None, 16),
    # M permuted: each thread's rows interleaved across the atoms.
    "2x2perm": ((16, 16, 4), ((2, 2, 1), (1, 2, 0)),
                lambda: (fx.make_layout((2, 4), (4, 1)), 8, None), 4),
}


@pytest.mark.parametrize("config", sorted(GEMMS))
def test_example_03_gemm_on_the_emulator(chip, config):
    (block_m, block_n, block_k), atom_layout, permutation, threads = GEMMS[config]
    gemm = make_gemm(block_m, block_n, block_k, atom_layout, permutation, threads)
    rng = np.random.default_rng(block_m * 100 + threads)
    A = rng.standard_normal((block_m, block_k)).astype(np.float32)
    B = rng.standard_normal((block_n, block_k)).astype(np.float32)
    C = np.zeros((block_m, block_n), np.float32)
    gemm(A, B, C)
    np.testing.assert_allclose(C, A @ B.T, rtol=1e-5, atol=1e-5)


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("case, message", [
    ("rank_one", r"the tile 64:1 needs at least two modes"),
    ("dynamic_shape", r"register fragment needs a tile of static shape"),
    ("stages_zero", r"stages"),
    ("stages_float", r"stages"),
    ("stages_rank_one", r"the tile 64:1 needs at least two modes"),
    ("not_a_tensor", r"input"),
    ("not_a_tiled_mma", r"tiled_mma"),
])
def test_bad_input_is_a_located_error(compile_only, case, message):
    def body(A):
        mma = tiled_mmas()["221"]
        base = fx.get_iter(A)
        tile = fx.make_view(base, fx.make_layout((16, 8), (1, 16)))
        if case == "rank_one":
            return mma.make_fragment_A(fx.make_view(base, fx.make_layout(64, 1)))
        if case == "dynamic_shape":
            return mma.make_fragment_C(fx.make_view(base, fx.make_layout((16, fx.size(A)), (1, 16))))
        if case == "stages_zero":
            return mma.make_fragment_A(tile, stages=0)
        if case == "stages_float":
            return mma.make_fragment_B(tile, stages=2.0)
        if case == "stages_rank_one":
            return mma.make_fragment_A(fx.make_view(base, fx.make_layout(64, 1)), stages=2)
        if case == "not_a_tensor":
            return mma.make_fragment_A(fx.make_layout((16, 8), (1, 16)))
        return fx.mma_make_fragment(fx.MmaOperand.A, fx.make_layout(1, 0), tile)
    with pytest.raises(TraceError, match=r"test_mma_fragments.py:\d+: .*" + message):
        trace(body)


# -- make_fragment_like ------------------------------------------------------------------------

# FlyDSL 0.4.2's make_fragment_like (CuTe's): mode 0 compact and innermost,
# the other modes ordered like the strides. Recorded by tracing these
# tensors under /opt/flydsl-0.4.2/bin/python (COMPILE_ONLY=1, gfx942; "dyn"
# is fx.slice(fx.zipped_divide(A, (16, 8)), (None, bid)) of a (64, 32) f32
# torch tensor) and printing the result's type.
FRAGMENT_LIKE_042 = {
    "dyn": "(16,8):(1,16)",
    "rowm": "(16,8):(1,16)",
    "3d": "(4,8,2):(1,8,4)",
    "nest": "((2,4),8):((1,2),8)",
    "colm": "(4,8):(1,4)",
}


def test_make_fragment_like_orders_as_flydsl(compile_only):
    seen = {}

    @flyc.kernel
    def fragments(A: fx.Tensor):
        bA = fx.slice(fx.zipped_divide(A, (16, 8)), (None, fx.block_idx.x))
        layouts = {"rowm": ((16, 8), (8, 1)), "3d": ((4, 8, 2), (2, 8, 1)),
                   "nest": (((2, 4), 8), ((8, 16), 1)), "colm": ((4, 8), (1, 4))}
        seen["dyn"] = fx.make_fragment_like(bA).type
        for name, (shape, stride) in layouts.items():
            r = fx.make_rmem_tensor(fx.make_layout(shape, stride), fx.Float32)
            seen[name] = fx.make_fragment_like(r).type

    @flyc.jit
    def run(A: fx.Tensor):
        fragments(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    run(np.zeros((64, 32), np.float32))
    assert {k: str(v) for k, v in seen.items()} == {
        k: f"!fly.memref<f32, register, {v}>" for k, v in FRAGMENT_LIKE_042.items()}
