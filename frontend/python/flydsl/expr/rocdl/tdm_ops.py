"""fx.rocdl.tdm_ops: the tensor data mover's instructions used on their own.
So far the wait, tensor_wait (s_wait_tensorcnt); the copies themselves are
the TDM atoms of fx.rocdl (make_tdm_atom)."""

from ._tdm import tensor_wait  # noqa: F401

__all__ = ["tensor_wait"]
