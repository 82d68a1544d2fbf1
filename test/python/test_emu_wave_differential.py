"""The emulator's two modes against each other on seeded random kernels:
each kernel runs as fibers (FLYDSL_EMU_MODE=fiber, one per work-item) and
as SIMD waves (FLYDSL_EMU_MODE=wave), and their outputs must agree bit for
bit, and the SIMD mode must have run its wave function (no fallback logged).

A kernel is fx code over per-lane float and integer variables: arithmetic
and selects, loads at lane-dependent and uniform indices, ifs on
lane-dependent conditions (nested, with else), loops whose trip count
differs per lane and loops of a fixed count with branches inside, and at
the top level, where the whole wave is active, lane shuffles and LDS
exchanges between barriers. (Shuffles stay out of divergent code: there the
fiber mode is no oracle, it gathers a collective's lanes by kind, not by
site.)

Run as a script for more kernels and the counts:
    python test/python/test_emu_wave_differential.py --kernels 2000 [--seed 1]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

BLOCK = 128
GRID = 2
N = BLOCK * GRID
KERNELS_PER_TEST = 12   # per chip, in the test


class Program:
    """The source of one random kernel."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.depth = 0
        self.floats = ["x", "y"]
        self.ints = ["k", "j"]

    def emit(self, text: str) -> None:
        self.lines.append("    " * (self.depth + 1) + text)

    def const_f(self) -> str:
        return repr(round(self.rng.uniform(-2, 2), 3))

    def float_expr(self) -> str:
        r = self.rng
        a, b = r.choice(self.floats), r.choice(self.floats)
        choice = r.randrange(6)
        if choice == 0:
            return f"{a} * {self.const_f()} + {b}"
        if choice == 1:
            return f"{a} - A[(tid + {r.randrange(1, N)}) % {N}]"
        if choice == 2:
            return f"{a} + A[{r.randrange(N)}]"          # a uniform address
        if choice == 3:
            return f"({a} > {b}).select({a}, {b} * 0.5)"
        if choice == 4:
            return f"{a} + fx.Float32({r.choice(self.ints)} % 7)"
        return f"{a} * {b} * 0.25"

    def int_expr(self) -> str:
        r = self.rng
        k = r.choice(self.ints)
        choice = r.randrange(4)
        if choice == 0:
            return f"{k} + tid % {r.randrange(2, 9)}"
        if choice == 1:
            return f"{k} ^ (tid >> {r.randrange(0, 5)})"
        if choice == 2:
            return f"{k} * {r.randrange(1, 4)} + B[(tid + {r.randrange(N)}) % {N}]"
        return f"({k} & {r.randrange(1, 64)}) + 1"

    def condition(self) -> str:
        r = self.rng
        if r.random() < 0.5:
            return f"({r.choice(self.ints)} % {r.randrange(2, 6)}) == {r.randrange(0, 2)}"
        return f"{r.choice(self.floats)} > {self.const_f()}"

    def statement(self, top: bool) -> None:
        r = self.rng
        kinds = ["float", "float", "int"]
        if self.depth < 3:
            kinds += ["if", "loop", "fixed_loop"]
        if top:
            kinds += ["shuffle", "lds"]
        kind = r.choice(kinds)
        if kind == "float":
            self.emit(f"{r.choice(self.floats)} = {self.float_expr()}")
        elif kind == "int":
            self.emit(f"{r.choice(self.ints)} = {self.int_expr()}")
        elif kind == "if":
            self.emit(f"if {self.condition()}:")
            self.block(r.randint(1, 3))
            if r.random() < 0.6:
                self.emit("else:")
                self.block(r.randint(1, 3))
        elif kind == "loop":       # a trip count of its own per lane
            self.emit(f"for i{self.depth} in range(({r.choice(self.ints)} & 7)):")
            self.block(r.randint(1, 3))
        elif kind == "fixed_loop":
            self.emit(f"for i{self.depth} in range({r.randint(1, 4)}):")
            self.block(r.randint(1, 3))
        elif kind == "shuffle":
            f = r.choice(self.floats)
            op = r.choice(["shuffle_xor", "shuffle_down", "shuffle_up"])
            self.emit(f"{f} = {f} + fx.gpu.{op}({f}, {1 << r.randrange(0, 5)}, 32)")
        else:                      # an LDS exchange between barriers
            f = r.choice(self.floats)
            self.emit(f"smem[fx.thread_idx.x] = {f}")
            self.emit("fx.gpu.barrier()")
            self.emit(f"{f} = {f} + smem[(fx.thread_idx.x + {r.randrange(1, BLOCK)}) % {BLOCK}]")
            self.emit("fx.gpu.barrier()")

    def block(self, count: int) -> None:
        self.depth += 1
        for _ in range(count):
            self.statement(top=False)
        self.depth -= 1

    def source(self, statements: int) -> str:
        head = [
            "import flydsl.compiler as flyc",
            "import flydsl.expr as fx",
            "",
            "@flyc.kernel",
            "def kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):",
            f"    tid = fx.block_idx.x * {BLOCK} + fx.thread_idx.x",
            f"    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout({BLOCK}, 1))",
            "    x = A[tid]",
            f"    y = A[(tid + 1) % {N}]",
            "    k = B[tid]",
            "    j = tid % 13",
        ]
        for _ in range(statements):
            self.statement(top=True)
        tail = [
            "    C[tid] = x + y + fx.Float32((k + j) % 1000)",
            "",
            "@flyc.jit",
            "def run(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):",
            f"    kernel(A, B, C).launch(grid=({GRID}, 1, 1), block=({BLOCK}, 1, 1))",
        ]
        return "\n".join(head + self.lines + tail) + "\n"


def make_kernel(seed: int, directory: Path):
    """The jit function of random kernel `seed` (and its source)."""
    rng = random.Random(seed)
    text = Program(rng).source(rng.randint(3, 9))
    path = directory / f"random_kernel_{seed}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"random_kernel_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run, text


def run_both(run, seed: int, capfd=None):
    """The outputs of `run` in the fiber and the SIMD mode, and the SIMD
    mode's stderr."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(N, dtype=np.float32)
    b = rng.integers(-50, 50, N).astype(np.int32)
    outputs, err = {}, ""
    for mode in ("fiber", "wave"):
        os.environ["FLYDSL_EMU_MODE"] = mode
        c = np.zeros(N, np.float32)
        if capfd is not None:
            capfd.readouterr()
        run(a.copy(), b.copy(), c)
        if capfd is not None and mode == "wave":
            err = capfd.readouterr().err
        outputs[mode] = c
    return outputs, err


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_random_kernels_agree_in_both_modes(arch, fly_env, tmp_path, capfd, monkeypatch):
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_LOG_LEVEL="info")
    monkeypatch.setenv("FLYDSL_EMU_MODE", "fiber")  # (run_both switches it)
    for seed in range(KERNELS_PER_TEST):
        run, text = make_kernel(seed, tmp_path)
        outputs, err = run_both(run, seed, capfd)
        assert "as fibers, one per work-item" not in err, f"seed {seed}:\n{err}\n{text}"
        fiber, wave = outputs["fiber"], outputs["wave"]
        same = (fiber.view(np.int32) == wave.view(np.int32)) | (np.isnan(fiber) & np.isnan(wave))
        assert same.all(), (f"seed {seed}: lanes {np.flatnonzero(~same)[:8]} differ\n"
                            f"fiber {fiber[~same][:4]} wave {wave[~same][:4]}\n{text}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="the first kernel's seed")
    parser.add_argument("--arch", default="gfx942")
    args = parser.parse_args(argv)
    os.environ.update(ARCH=args.arch, FLYDSL_RUNTIME_KIND="emu")
    os.environ.pop("COMPILE_ONLY", None)
    agree = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.kernels):
            run, text = make_kernel(seed, Path(tmp))
            outputs, _ = run_both(run, seed)
            fiber, wave = outputs["fiber"], outputs["wave"]
            same = (fiber.view(np.int32) == wave.view(np.int32)) | (np.isnan(fiber) & np.isnan(wave))
            if same.all():
                agree += 1
            else:
                differ += 1
                print(f"seed {seed}: {int((~same).sum())} lanes differ\n{text}", flush=True)
    print(f"{args.arch}: {agree + differ} kernels, {agree} agree, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
