"""User-code helpers called from kernels in test_ast_rewriter.py.

The tests find lines of this file by their `# L:<name>` markers.
"""

import functools


def clamp(x, hi):
    if x > hi:  # L:clamp_if
        x = hi
    return x


def clamp_twice(x, hi):
    return clamp(clamp(x, hi), hi)


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        if x > 0:  # L:scale_if
            x = x * self.k
        return x


def passthrough(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@passthrough
def wrapped_sign(x):
    s = 1
    if x < 0:  # L:wrapped_if
        s = -1
    return s


def opted_out(x):
    if x > 0:
        x = 0
    return x


opted_out.__fly_no_rewrite__ = True


def raises_in_helper(x):
    y = x + 1
    return y // 0  # L:helper_raise
