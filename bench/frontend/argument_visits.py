"""How many times the first call of a @flyc.jit function enters the files
that describe its arguments: compiler/arguments.py, tracing/signature.py,
compiler/compiled.py and compiler/jit_function.py (prints a table; the
measure of "an argument's description gets one home").

A visit to one of these files is control entering its code from another
of them: a Python call into one of its functions or a return into one of
its frames (sys.setprofile events). Other files (numpy, the tracer, the
user's code, the rest of flydsl) are left out of the sequence, so that
going from a file through them back to the same file is no new visit.

The first call (trace, compile for the CPU emulator, launch, and the
making of the native warm path) of a jit function with one argument of a
kind, minus that of the same function without it, is what one argument of
that kind costs (the last row: a function with all four); then the totals
of the function without arguments and of the one with all four.

    python3 bench/frontend/argument_visits.py
"""

import os
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "frontend" / "python"
sys.path.insert(0, str(PACKAGE))
os.environ["FLYDSL_RUNTIME_ENABLE_CACHE"] = "0"  # every first call traces and compiles
os.environ.setdefault("FLYDSL_RUNTIME_KIND", "emu")
os.environ.pop("COMPILE_ONLY", None)

import numpy as np  # noqa: E402

import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402

FILES = ["compiler/arguments.py", "tracing/signature.py", "compiler/compiled.py",
         "compiler/jit_function.py"]
ROOT = str(PACKAGE / "flydsl") + os.sep


def _file(frame):
    name = frame.f_code.co_filename
    return name[len(ROOT):] if name.startswith(ROOT) else name


def visits(call) -> Counter:
    """Per file of FILES, how many times control enters it during call()."""
    counts, current = Counter(), [None]

    def profile(frame, event, arg):
        if event == "call":
            here = _file(frame)
        elif event == "return" and frame.f_back is not None:
            here = _file(frame.f_back)
        else:
            return
        if here in FILES and here != current[0]:
            current[0] = here
            counts[here] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return counts


# One kernel and jit function per argument kind, and one without arguments
# (each jit function passes its argument on to its kernel, or its stream to
# the launch).

@flyc.kernel
def _none():
    pass


@flyc.kernel
def _tensor(A: fx.Tensor):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] + 1.0


@flyc.kernel
def _int32(n: fx.Int32):
    pass


@flyc.kernel
def _constexpr(c: fx.Constexpr[int]):
    pass


@flyc.kernel
def _all(A: fx.Tensor, n: fx.Int32, c: fx.Constexpr[int]):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] + fx.Float32(float(c))


@flyc.jit
def no_argument():
    _none().launch(grid=(1, 1, 1), block=(8, 1, 1))


@flyc.jit
def tensor(A: fx.Tensor):
    _tensor(A).launch(grid=(1, 1, 1), block=(8, 1, 1))


@flyc.jit
def int32(n: fx.Int32):
    _int32(n).launch(grid=(1, 1, 1), block=(8, 1, 1))


@flyc.jit
def constexpr(c: fx.Constexpr[int]):
    _constexpr(c).launch(grid=(1, 1, 1), block=(8, 1, 1))


@flyc.jit
def stream(s: fx.Stream = fx.Stream(None)):
    _none().launch(grid=(1, 1, 1), block=(8, 1, 1), stream=s)


@flyc.jit
def all_four(A: fx.Tensor, n: fx.Int32, c: fx.Constexpr[int], s: fx.Stream = fx.Stream(None)):
    _all(A, n, c).launch(grid=(1, 1, 1), block=(8, 1, 1), stream=s)


@flyc.jit
def _warm_up(A: fx.Tensor, n: fx.Int32, c: fx.Constexpr[int], s: fx.Stream = fx.Stream(None)):
    _all(A, n, c).launch(grid=(1, 1, 1), block=(8, 1, 1), stream=s)


def main():
    a = np.zeros(8, np.float32)
    _warm_up(a.copy(), 3, 2)  # the process's one-time work (imports, runtime)
    base = visits(no_argument)
    rows = [("tensor", lambda: tensor(a)), ("Int32", lambda: int32(3)),
            ("Constexpr", lambda: constexpr(2)), ("stream", lambda: stream()),
            ("all four", lambda: all_four(a, 3, 5))]
    print("Visits of a @flyc.jit function's first call to the files describing its "
          "arguments, per argument (the function with it minus the one without)")
    print(f"{'argument':<12}" + "".join(f"{Path(f).name:>16}" for f in FILES))
    for name, call in rows:
        got = visits(call)
        print(f"{name:<12}" + "".join(f"{got[f] - base[f]:>16}" for f in FILES))
    print("In all, the first call of the function without arguments and of the one with "
          "all four")
    for name, counts in (("none", base), ("all four", got)):
        print(f"{name:<12}" + "".join(f"{counts[f]:>16}" for f in FILES))
    assert a.tolist() == [6.0] * 8, a  # tensor's +1, all_four's +5


if __name__ == "__main__":
    main()
