"""Counter-based random numbers in kernels (FlyDSL's
`flydsl.extension.random`, also `fx.random`): Philox4x32-10 with Triton's
`tl.random` conventions, so a draw is a pure function of (seed, offset) and
no generator state is threaded through a kernel.

    g = fx.block_idx.x * BLOCK + fx.thread_idx.x
    bits = fx.random.randint(seed, g)          # a Uint32
    w0, w1, w2, w3 = fx.random.randint4x(seed, g)
    u = fx.random.rand(seed, g)                # a Float32 in [0, 1)
    z0, z1, z2, z3 = fx.random.randn4x(seed, g)  # Float32 ~ N(0, 1)

`seed` and `offset` are integer numerics (or Python ints) of up to 64 bits;
each name takes `n_rounds=10`. `randint`, `rand` and `randn` are the first
value of their 4x form, drawn from the same Philox call.
`flydsl.extension.random.universal` documents the splitting of seed and
offset, the uniform mapping and Box-Muller, and holds the building blocks
(`philox`, `philox_impl` with Philox4x64 too, `uint_to_uniform_float`).

FlyDSL dispatches these names to per-target overrides (`random.rocdl`, which
has none in FlyDSL either) and keeps the portable forms in
`random.universal`; here the portable forms are the only ones, so
`random.universal` holds the same objects and `random.rocdl` is empty.
"""

from . import rocdl as rocdl
from . import universal as universal
from .universal import *  # noqa: F401,F403

__all__ = ["randint", "randint4x", "rand", "rand4x", "randn", "randn4x"]
