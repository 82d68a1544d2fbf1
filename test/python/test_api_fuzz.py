"""Random calls of the fx API with arguments of every kind (seeded): each
call returns, or fails with a located FlyDSL error, or with the TypeError
Python itself raises when the arguments do not bind to the parameters.
Anything else -- an AttributeError, KeyError, IndexError or TypeError from
inside the implementation, an abort of the process -- is a crash, and the
test lists them by API (SPEC §7.2: bad input is a located error, never a
crash).

The calls are traced only (nothing is compiled), so every API of fx's
direct children and of flydsl.extension.coop is reached thousands of times
in a few seconds."""

from __future__ import annotations

import inspect
import random
import traceback
from collections import Counter

import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import FlyDSLError
from flydsl.tracing.ir import parse_type
from flydsl.tracing.trace import Trace

MODULES = ["flydsl.expr." + m for m in
           ("numeric", "typing", "primitive", "gpu", "derived", "arith", "math", "struct", "enum")]
MODULES.append("flydsl.extension.coop")
CALLS_PER_SEED = 4000


def api_functions():
    """(qualified name, callable) of every public function and class of
    the fx modules (enum classes excepted: calling one with a random value
    is Python's own ValueError)."""
    import importlib
    import enum

    seen, out = set(), []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            if not callable(obj) or id(obj) in seen:
                continue
            if isinstance(obj, type) and issubclass(obj, enum.Enum):
                continue
            seen.add(id(obj))
            out.append((f"{name}.{attr}", obj))
    return out


def _pool():
    """Arguments of every kind, made in the current trace."""
    b = Trace.current().builder
    (gmem,) = b.push_block([parse_type("!fly.memref<f32, global, (?,?):(?,1)>")]).args
    tensor = fx.typing.Tensor(gmem) if hasattr(fx.typing, "Tensor") else gmem
    layout = fx.make_layout((4, 8), (1, 4))
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    values = [
        0, 1, -1, 3, 7, 2**40, -2**63, 0.5, float("nan"), True, None, "x", b"x", (), (1,),
        (4, 8), ((2, 2), 8), (1, None), [1, 2], {"a": 1}, object(), fx.Float32, fx.Int32,
        fx.Boolean, int, lambda x: x,
        fx.Int32(5), fx.Float32(1.5), fx.Boolean(True), fx.Int64(-3), fx.Float16(2.0),
        fx.make_int_tuple((4, 8)), layout, fx.make_layout(8), tensor,
        fx.make_rmem_tensor(fx.make_layout((4,)), fx.Float32), atom,
        fx.make_tiled_copy_tv(atom, fx.make_layout((4, 8), (8, 1)), fx.make_layout((1, 1))),
        fx.make_identity_tensor((4, 8)), gmem,
    ]
    return values


def _binding_error(err: BaseException) -> bool:
    """The TypeError Python raises at the call itself (arity, unknown
    keyword): its traceback has no frame below the caller's."""
    tb = err.__traceback__
    return isinstance(err, TypeError) and tb is not None and tb.tb_next is None


def fuzz(seed: int, calls: int):
    rng = random.Random(seed)
    functions = api_functions()
    crashes = Counter()
    examples = {}
    done = 0
    while done < calls:
        trace = Trace()
        trace.arch = "gfx942"
        with trace.activate():
            trace.builder.push_block()
            pool = _pool()
            for _ in range(100):
                name, fn = rng.choice(functions)
                try:
                    params = list(inspect.signature(fn).parameters.values())
                except (TypeError, ValueError):
                    params = []
                args = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
                kwargs = {}
                if params and rng.random() < 0.3:
                    p = rng.choice(params)
                    if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                        kwargs[p.name] = rng.choice(pool)
                try:
                    fn(*args, **kwargs)
                except FlyDSLError:
                    pass
                except Exception as err:  # noqa: BLE001 - what the test is about
                    if not _binding_error(err):
                        key = (name, type(err).__name__)
                        crashes[key] += 1
                        if key not in examples:
                            last = traceback.extract_tb(err.__traceback__)[-1]
                            examples[key] = (f"{err!s:.120} at {last.filename.rsplit('/', 1)[-1]}:"
                                             f"{last.lineno} args={args!r:.100} kwargs={list(kwargs)}")
                done += 1
    return crashes, examples


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_calls_do_not_crash(seed):
    crashes, examples = fuzz(seed, CALLS_PER_SEED)
    report = "\n".join(f"{n} x{c} {e}: {examples[(n, e)]}" for (n, e), c in crashes.most_common())
    assert not crashes, f"{sum(crashes.values())} crashes in {CALLS_PER_SEED} calls:\n{report}"


if __name__ == "__main__":
    import sys
    crashes, examples = fuzz(int(sys.argv[1]) if len(sys.argv) > 1 else 1, CALLS_PER_SEED)
    for (n, e), c in crashes.most_common():
        print(f"{c:5d} {n} {e}: {examples[(n, e)]}")
    print(sum(crashes.values()), "crashes")
