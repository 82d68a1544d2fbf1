"""Composed layouts of composed layouts (FlyDSL's swizzle chains such as
`make_composed_layout(sw_hi, make_composed_layout(sw_lo, layout))`, and
a layout composed onto a composed layout): one chain of functions, checked
against the values FlyDSL 0.4.2 infers for the same calls and, with
run-time indices and through a memory view, on the emulator against numpy."""

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import FlyDSLError


def swizzle(x, bits, base, shift):
    return x ^ ((x & (((1 << bits) - 1) << (base + shift))) >> shift)


def trace(body):
    seen = []

    @flyc.kernel
    def k(o: fx.Tensor):
        seen.extend(body())

    @flyc.jit
    def run(o: fx.Tensor):
        k(o).launch(grid=(1, 1, 1), block=(1, 1, 1))

    flyc.compile(run, np.zeros(4, np.float32))
    return seen


def chains():
    inner, mid = fx.make_layout(32, 2), fx.make_layout(32, 1)
    on_composed = fx.make_composed_layout(inner, fx.make_composed_layout(mid, fx.make_layout((4, 8), (1, 4))))
    sw = fx.make_composed_layout(fx.static(fx.SwizzleType.get(1, 4, 4)),
                                 fx.make_composed_layout(fx.static(fx.SwizzleType.get(1, 3, 6)),
                                                         fx.make_layout(4096, 1)))
    src = fx.make_composed_layout(fx.make_layout((32, 8, 4, 4), (1, 64, 32, 512)), sw)
    cs = fx.static(fx.CoordSwizzleType.get(3, 0, [1], 0, [2]))
    cl = fx.make_composed_layout(cs, (0, 0, 0), fx.make_layout((4, 8, 8), (fx.E(0), fx.E(1), fx.E(2))))
    nested = fx.make_composed_layout(cl, (1, 2, 3), fx.make_layout((2, 4, 8), (fx.E(0), fx.E(1), fx.E(2))))
    return [(str(on_composed.type), str(fx.crd2idx((1, 2), on_composed).type)),
            (str(sw.type), str(fx.crd2idx(1000, sw).type)),
            (str(src.type), str(fx.crd2idx(1000, src).type)),
            (str(nested.type), str(fx.crd2idx((1, 1, 1), nested).type))]


# FlyDSL 0.4.2 on the same calls: crd2idx's result and the printed type,
# which brackets a composed outer layout ([ ... ]); here every chain prints
# flat (the third column).
FLYDSL_042 = [
    ("!fly.int_tuple<18>", "!fly.composed_layout<32:2 o 0 o [32:1 o 0 o (4,8):(1,4)]>",
     "!fly.composed_layout<32:2 o 0 o 32:1 o 0 o (4,8):(1,4)>"),
    ("!fly.int_tuple<1008>", "!fly.composed_layout<S<1,4,4> o 0 o [S<1,3,6> o 0 o 4096:1]>",
     "!fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>"),
    ("!fly.int_tuple<560>", "!fly.composed_layout<(32,8,4,4):(1,64,32,512) o 0 o [S<1,4,4> o 0 o "
     "[S<1,3,6> o 0 o 4096:1]]>",
     "!fly.composed_layout<(32,8,4,4):(1,64,32,512) o 0 o S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>"),
    ("!fly.int_tuple<(2,3,7)>", "!fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o "
     "(4,8,8):(1E0,1E1,1E2) o (1,2,3) o (2,4,8):(1E0,1E1,1E2)>",
     "!fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2) o (1,2,3) o "
     "(2,4,8):(1E0,1E1,1E2)>"),
]


def test_the_values_flydsl_infers(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    for (ours, index), (their_index, theirs, flat) in zip(trace(chains), FLYDSL_042):
        assert index == their_index
        assert ours == flat
        assert theirs.replace("[", "").replace("]", "") == flat.replace("[", "").replace("]", "")


def test_the_parts_of_a_chain(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")

    def body():
        chain = fx.make_composed_layout(fx.make_layout(32, 2), fx.make_composed_layout(
            fx.make_layout(32, 1), 4, fx.make_layout((4, 8), (1, 4))))
        ending_in_swizzle = fx.make_composed_layout(
            fx.make_layout(64, 1), fx.make_composed_layout(fx.static(fx.SwizzleType.get(1, 3, 3)),
                                                           fx.make_layout(64, 1)))
        try:
            ending_in_swizzle.inner
            error = None
        except FlyDSLError as e:
            error = str(e)
        return [str(chain.inner.type), str(chain.offset.type), str(chain.outer.type),
                str(fx.size(chain).type), error]

    inner, offset, outer, size, error = trace(body)
    assert inner == "!fly.composed_layout<32:2 o 0 o 32:1>"
    assert offset == "!fly.int_tuple<4>" and outer == "!fly.layout<(4,8):(1,4)>"
    assert size == "!fly.int_tuple<32>"
    assert "has no inner part: the function before its outer layout is a swizzle" in error


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
def test_run_time_indices_and_a_memory_view_on_the_emulator(fly_env, chip):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu")

    @flyc.kernel
    def k(o: fx.Tensor, A: fx.Tensor):
        t = fx.thread_idx.x + fx.block_idx.x * 256
        sw = fx.make_composed_layout(fx.static(fx.SwizzleType.get(1, 4, 4)),
                                     fx.make_composed_layout(fx.static(fx.SwizzleType.get(1, 3, 6)),
                                                             fx.make_layout(1024, 1)))
        o[t] = fx.get_scalar(fx.crd2idx(t, sw))
        view = fx.make_view(fx.get_iter(A), sw)
        view[t] = t

    @flyc.jit
    def run(o: fx.Tensor, A: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        k(o, A).launch(grid=(4, 1, 1), block=(256, 1, 1), stream=stream)

    o, A = np.zeros(1024, np.int32), np.full(1024, -1, np.int32)
    run(o, A)
    t = np.arange(1024)
    expected = swizzle(swizzle(t, 1, 3, 6), 1, 4, 4)
    np.testing.assert_array_equal(o, expected)
    np.testing.assert_array_equal(A[expected], t)


def test_cosize_of_a_chain(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")

    def body():
        sw = fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 0, 3)), fx.make_composed_layout(
            fx.static(fx.SwizzleType.get(1, 6, 1)), fx.make_layout((8, 16), (16, 1))))
        return [fx.cosize(sw).type]

    (cosize,) = trace(body)
    t = np.arange(128)
    assert str(cosize) == f"!fly.int_tuple<{swizzle(swizzle(t, 1, 6, 1), 3, 0, 3).max() + 1}>"
