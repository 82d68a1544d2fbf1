"""s_waitcnt, the sched_* group barriers, asyncmark / wait_asyncmark."""

__all__: list = []
