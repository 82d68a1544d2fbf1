"""The emulator benchmarks' timing: the median of warm calls."""

import statistics
import time


def median_seconds(call, reps, warmup=3):
    """The median wall time of `reps` calls of `call`, after `warmup`."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
