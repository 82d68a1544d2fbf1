"""Target-neutral enums of the fx API (FlyDSL's `fx.enum`)."""

from __future__ import annotations

__all__ = ["SyncScope"]


class SyncScope:
    """The synchronization scopes LLVM defines for every target, as the
    strings its atomics and fences spell them (an atomic's `syncscope`):
    `System` (the empty string: every agent of the system) and
    `SingleThread` (only the thread itself, e.g. a signal handler).
    AMDGPU's own scopes (agent, workgroup, wavefront) are the target's."""

    System = ""
    SingleThread = "singlethread"
