"""FlyDSL's coordinate swizzle (`CoordSwizzleType`, `CS<B,R,[row],C,[col]>`):
the column leaf of a coordinate XORed with B bits of its row leaf. Checked
against the values FlyDSL 0.4.2 infers for the same calls, against a
reference written from the definition (random cases), and on the emulator
with run-time coordinates against numpy."""

import random

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl.expr.primitive import CoordSwizzleType
from flydsl.tracing.errors import FlyDSLError

# FlyDSL 0.4.2: fx.crd2idx(crd, fx.make_composed_layout(fx.static(
# CoordSwizzleType.get(*params)), fx.make_identity_layout(shape))).type
FLYDSL_042 = [
    ((3, 0, [1], 0, [2]), (4, 8, 8), (1, 5, 3), "(1,5,6)"),
    ((3, 0, [1], 0, [2]), (4, 8, 8), (3, 7, 0), "(3,7,7)"),
    ((3, 0, [1], 0, [2]), (4, 8, 8), (2, 2, 6), "(2,2,4)"),
    ((2, 1, [0], 2, [1]), (8, 16), (5, 3), "(5,11)"),
    ((2, 1, [0], 2, [1]), (8, 16), (6, 9), "(6,5)"),
    ((2, 1, [0], 2, [1]), (8, 16), (7, 15), "(7,3)"),
    ((1, 0, [0, 1], 1, [1, 0]), ((2, 4), (4, 2)), ((1, 3), (2, 1)), "((1,3),(0,1))"),
    ((1, 0, [0, 1], 1, [1, 0]), ((2, 4), (4, 2)), ((0, 2), (3, 0)), "((0,2),(3,0))"),
]
FLYDSL_042_COMPOSED = {
    (3, 0, (1,), 0, (2,)): "!fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>",
    (1, 0, (0, 1), 1, (1, 0)): "!fly.composed_layout<CS<1,0,[0, 1],1,[1, 0]> o ((0,0),(0,0)) o "
                               "((2,4),(4,2)):((1E0E0,1E0E1),(1E1E0,1E1E1))>",
}


def text(t):
    return str(t).replace(" ", "")


def trace_static(cases):
    """The inferred types of crd2idx through each case's composed layout and
    through the swizzle alone, from a traced kernel."""
    results = []

    @flyc.kernel
    def k(out: fx.Tensor):
        for params, shape, crd in cases:
            cs = fx.static(CoordSwizzleType.get(*params))
            cl = fx.make_composed_layout(cs, fx.make_identity_layout(shape))
            results.append((str(cl.type), fx.crd2idx(crd, cl).type, fx.crd2idx(crd, cs).type))

    @flyc.jit
    def run(out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        k(out).launch(grid=(1, 1, 1), block=(1, 1, 1), stream=stream)

    flyc.compile(run, np.zeros(4, np.float32))
    return results


def test_the_values_flydsl_infers(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    results = trace_static([(p, s, c) for p, s, c, _ in FLYDSL_042])
    for (params, _, crd, expected), (composed, through_layout, through_swizzle) in zip(
            FLYDSL_042, results):
        assert text(through_layout) == f"!fly.int_tuple<{expected}>", (params, crd)
        assert text(through_swizzle) == f"!fly.int_tuple<{expected}>", (params, crd)
        key = (params[0], params[1], tuple(params[2]), params[3], tuple(params[4]))
        if key in FLYDSL_042_COMPOSED:
            assert composed == FLYDSL_042_COMPOSED[key]


def reference(params, crd):
    """The definition: col ^= ((row >> R) & (2^B - 1)) << C, on nested lists."""
    bits, base_row, row_path, base_col, col_path = params
    crd = [list(m) if isinstance(m, tuple) else m for m in crd]

    def at(path):
        node = crd
        for m in path:
            node = node[m]
        return node

    moved = (at(row_path) >> base_row) & ((1 << bits) - 1)
    parent = crd
    for m in col_path[:-1]:
        parent = parent[m]
    parent[col_path[-1]] ^= moved << base_col
    return crd


def tuple_text(t):
    return "(" + ",".join(tuple_text(m) if isinstance(m, (list, tuple)) else str(m) for m in t) + ")"


def test_random_cases_against_the_definition():
    rng = random.Random(11)
    for _ in range(300):
        rank = rng.randint(2, 4)
        nested = rng.random() < 0.3
        shape = [(4, 8) if nested and i == 0 else rng.choice([2, 4, 8, 16, 64]) for i in range(rank)]
        # Leaf paths: [0, j] inside the nested mode 0, [i] for the flat modes.
        paths = [[0, 0], [0, 1]] + [[i] for i in range(1, rank)] if nested else \
            [[i] for i in range(rank)]
        row_path, col_path = rng.sample(paths, 2)
        params = (rng.randint(0, 4), rng.randint(0, 3), row_path, rng.randint(0, 3), col_path)
        crd = [tuple(rng.randrange(e) for e in s) if isinstance(s, tuple) else rng.randrange(s)
               for s in shape]
        crd_type = _fly.parse_type(f"!fly.int_tuple<{tuple_text(crd)}>")
        cs_type = CoordSwizzleType.get(*params).handle
        (result,) = _fly.infer("fly.crd2idx", [crd_type, cs_type], "")
        expected = reference(params, crd) if params[0] else crd
        assert text(result) == f"!fly.int_tuple<{tuple_text(expected)}>", (params, crd)


def make_swizzled_columns(params, rows, cols):
    @flyc.kernel
    def k(out: fx.Tensor):
        t = fx.thread_idx.x
        cs = fx.static(CoordSwizzleType.get(*params))
        cl = fx.make_composed_layout(cs, fx.make_identity_layout((rows, cols)))
        r = fx.crd2idx((t // cols, t % cols), cl)
        out[t] = fx.get(r, 1) * 1000 + fx.get(r, 0)

    @flyc.jit
    def run(out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        k(out).launch(grid=(1, 1, 1), block=(rows * cols, 1, 1), stream=stream)

    return run


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("params", [(2, 1, [0], 2, [1]), (3, 0, [0], 0, [1]), (1, 2, [0], 3, [1])])
def test_run_time_coordinates_on_the_emulator(fly_env, chip, params):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu")
    rows, cols = 8, 16
    out = np.zeros(rows * cols, np.int32)
    make_swizzled_columns(params, rows, cols)(out)
    t = np.arange(rows * cols)
    row, col = t // cols, t % cols
    bits, base_row, _, base_col, _ = params
    swizzled = col ^ (((row >> base_row) & ((1 << bits) - 1)) << base_col)
    np.testing.assert_array_equal(out, swizzled * 1000 + row)


def test_members_of_the_type_and_the_value(fly_env):
    t = CoordSwizzleType.get(3, 1, [0, 1], 2, [1])
    assert (t.mask, t.base_row, t.mode_row, t.base_col, t.mode_col) == (3, 1, [0, 1], 2, [1])
    assert str(t) == "!fly.coord_swizzle<CS<3,1,[0, 1],2,[1]>>"
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    seen = []

    @flyc.kernel
    def k(out: fx.Tensor):
        cs = fx.static(t)
        cl = fx.make_composed_layout(cs, fx.make_identity_layout((4, 8)))
        seen.append((cs.mask, cs.base_row, cs.mode_row, cs.base_col, cs.mode_col,
                     str(fx.composed_get_inner(cl).type)))

    @flyc.jit
    def run(out: fx.Tensor):
        k(out).launch(grid=(1, 1, 1), block=(1, 1, 1))

    flyc.compile(run, np.zeros(4, np.float32))
    assert seen == [(3, 1, [0, 1], 2, [1], str(t))]


@pytest.mark.parametrize("args, message", [
    ((40, 0, [1], 0, [2]), r"invalid coordinate swizzle CS<40,0,\[1\],0,\[2\]>"),
    ((2, 0, [1], 3, [1]), r"invalid coordinate swizzle"),
    ((2, 0, "x", 3, [1]), r"CoordSwizzleType.get: 'mode_row' must be a list of mode indices"),
    ((2.0, 0, [0], 3, [1]), r"CoordSwizzleType.get: 'mask' must be a Python int"),
])
def test_bad_parameters_are_located_errors(args, message):
    with pytest.raises(FlyDSLError, match=message) as info:
        CoordSwizzleType.get(*args)
    assert info.value.filename == __file__


def test_a_coordinate_valued_layout_is_not_a_memory_layout(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")

    @flyc.kernel
    def k(out: fx.Tensor):
        cs = fx.static(CoordSwizzleType.get(2, 0, [0], 0, [1]))
        cl = fx.make_composed_layout(cs, fx.make_identity_layout((4, 8)))
        fx.cosize(cl)

    @flyc.jit
    def run(out: fx.Tensor):
        k(out).launch(grid=(1, 1, 1), block=(1, 1, 1))

    with pytest.raises(FlyDSLError, match=r"cosize of CS<2,0,\[0\],0,\[1\]> o \(0,0\) o "
                                          r"\(4,8\):\(1E0,1E1\) is a coordinate") as info:
        flyc.compile(run, np.zeros(4, np.float32))
    assert info.value.filename == __file__
