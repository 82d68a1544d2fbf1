"""Hostile inputs for the algebra ops: no crash, only located errors.

Random layouts with huge extents (products overflow int64), zero strides,
dynamic leaves and mismatched ranks go through every algebra op, once when
the types are inferred and once through fly-layout-lowering and
fly-canonicalize. Each chunk must either succeed or fail with a
`file:line:col: error:` diagnostic; fly-opt must never die of a signal or
an assertion (an overflow once reached a division by zero here).
"""

import os
import random
import re
import subprocess

import pytest

SEED = int(os.environ.get("FLY_TEST_SEED", "20250601"))
CASES = 400

BINARY_OPS = [
    "composition", "logical_divide", "zipped_divide", "tiled_divide",
    "flat_divide", "logical_product", "zipped_product", "tiled_product",
    "flat_product", "blocked_product", "raked_product",
]
UNARY_OPS = [
    "coalesce", "complement", "right_inverse", "left_inverse",
    "make_layout_like", "size", "cosize", "coshape",
]
HUGE = [2**20, 2**31 - 1, 2**40, 2**62]


def _leaf(rng, huge):
    r = rng.random()
    if r < 0.1:
        return "?"
    if r < 0.15:
        return "?{div=4}"
    return str(rng.choice(HUGE + [1, 2, 3, 8] if huge else [1, 2, 3, 4, 6, 8]))


def _shape(rng, depth, huge):
    if depth == 0 or rng.random() < 0.4:
        return _leaf(rng, huge)
    return "(" + ",".join(_shape(rng, depth - 1, huge) for _ in range(rng.randint(1, 3))) + ")"


def _layout(rng, huge):
    shape = _shape(rng, 2, huge)
    stride = re.sub(r"\?\{div=4\}|\?|\d+",
                    lambda _: "0" if rng.random() < 0.2 else _leaf(rng, huge), shape)
    return f"!fly.layout<{shape}:{stride}>"


def _case(rng):
    huge = rng.random() < 0.5
    a, b = _layout(rng, huge), _layout(rng, huge)
    if rng.random() < 0.5:
        op = rng.choice(BINARY_OPS)
        return (f"func.func @f(%a: {a}, %b: {b}) {{\n"
                f"  %r = fly.{op}(%a, %b) : ({a}, {b})\n  return\n}}")
    op = rng.choice(UNARY_OPS)
    return f"func.func @f(%a: {a}) {{\n  %r = fly.{op}(%a) : ({a})\n  return\n}}"


@pytest.mark.parametrize("passes", [[], ["--fly-layout-lowering", "--fly-canonicalize"]],
                         ids=["infer", "lower"])
def test_hostile_layouts_give_located_errors(fly_opt, tmp_path, passes):
    rng = random.Random(SEED)
    chunks = [_case(rng) for _ in range(CASES)]
    path = tmp_path / "cases.mlir"
    path.write_text("\n// -----\n".join(chunks))
    proc = subprocess.run([fly_opt, str(path), "--split-input-file", *passes],
                          capture_output=True, text=True, errors="replace")
    where = f"seed {SEED} (FLY_TEST_SEED), input {path}"
    assert proc.returncode >= 0, f"fly-opt died of signal {-proc.returncode}; {where}\n{proc.stderr[-3000:]}"
    for marker in ("Stack dump", "Assertion", "PLEASE submit a bug report"):
        assert marker not in proc.stderr, f"fly-opt crashed; {where}\n{proc.stderr[-3000:]}"
    # Every diagnostic line is located; some cases fail (overflow, no
    # divisibility), most succeed.
    errors = [l for l in proc.stderr.splitlines() if "error:" in l]
    for line in errors:
        assert re.match(r"^\S+:\d+:\d+: error: ", line), f"unlocated diagnostic {line!r}; {where}"
    printed = proc.stdout.count("func.func @f")
    assert printed + len(errors) >= CASES, f"{printed} printed + {len(errors)} errors < {CASES}; {where}"
    assert printed > CASES // 4 and errors, f"the generator lost its mix: {printed} ok, {len(errors)} errors"
