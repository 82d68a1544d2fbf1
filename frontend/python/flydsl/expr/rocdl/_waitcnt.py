"""the per-family s_waitcnt(vmcnt, lgkmcnt, expcnt) of fx.rocdl.cdna3/rdna3/rdna4."""

__all__: list = []


def _not_yet(*args, **kwargs):
    from ...tracing.errors import TraceError
    from ...tracing.ir import user_location

    raise TraceError("s_waitcnt is not implemented yet", *user_location()[:2])


cdna3_s_waitcnt = rdna3_s_waitcnt = rdna4_s_waitcnt = _not_yet
