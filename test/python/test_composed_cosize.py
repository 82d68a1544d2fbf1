"""fly.cosize of composed (swizzled) layouts against pycute.

The cosize of a composed layout is one past the largest index its whole
function reaches; a swizzle can send the last coordinate below others, so
the C++ algebra visits every element. The reference evaluates pycute's
ComposedLayout at every index. The cases are random static layouts (seed
printed, FLY_TEST_SEED), with a swizzle or a layout inside.
"""

from __future__ import annotations

import os
import random
import re
import subprocess

from pycute import ComposedLayout, Layout, Swizzle, size

SEED = int(os.environ.get("FLY_TEST_SEED", "2026"))


def text(layout: Layout) -> str:
    def t(x):
        return "(" + ",".join(t(e) for e in x) + ")" if isinstance(x, tuple) else str(x)
    return f"{t(layout.shape)}:{t(layout.stride)}"


def random_layout(rng, modes, max_extent=8):
    shape = tuple(rng.randint(1, max_extent) for _ in range(modes))
    stride = tuple(rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64]) for _ in range(modes))
    return Layout(shape, stride) if modes > 1 else Layout(shape[0], stride[0])


def cases(n):
    rng = random.Random(SEED)
    out = []
    for i in range(n):
        outer = random_layout(rng, rng.randint(1, 3))
        offset = rng.randint(0, 40)
        if i % 4 == 3:  # a layout inside: its domain covers every index reached
            reach = offset + max(outer(j) for j in range(size(outer))) + 1
            inner = Layout((reach, 2), (rng.choice([1, 3]), 1))
            out.append((f"{text(inner)} o {offset} o {text(outer)}",
                        ComposedLayout(inner, offset, outer)))
        else:
            b, m = rng.randint(0, 3), rng.randint(0, 4)
            s = rng.randint(max(b, 1), 5)
            out.append((f"S<{b},{m},{s}> o {offset} o {text(outer)}",
                        ComposedLayout(Swizzle(b, m, s), offset, outer)))
    return out


def test_cosize_of_composed_layouts(fly_opt, tmp_path):
    print(f"seed {SEED}")
    all_cases = cases(300)
    lines = ["func.func @f() {"]
    for i, (ty, _) in enumerate(all_cases):
        lines.append(f"  %l{i} = fly.static : !fly.composed_layout<{ty}>")
        lines.append(f"  %c{i} = fly.cosize(%l{i}) : (!fly.composed_layout<{ty}>)")
    lines += ["  return", "}"]
    src = tmp_path / "cosize.mlir"
    src.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([fly_opt, str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = [int(x) for x in re.findall(r"fly\.cosize.*-> !fly\.int_tuple<(-?\d+)>", proc.stdout)]
    assert len(got) == len(all_cases)
    mismatches = []
    for (ty, ref), value in zip(all_cases, got):
        want = max(ref(j) for j in range(size(ref.layoutA))) + 1
        if value != want:
            mismatches.append((ty, value, want))
    assert not mismatches, mismatches[:5]
    # The cases exercise the point: the last element is not always the largest.
    assert any(ref(size(ref.layoutA) - 1) + 1 != max(ref(j) for j in range(size(ref.layoutA))) + 1
               for _, ref in all_cases)

