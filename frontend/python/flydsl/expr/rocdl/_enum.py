"""fx.rocdl's enums: SyncScope, AMDGPU's synchronization scopes."""

from __future__ import annotations

__all__ = ["SyncScope"]


class SyncScope:
    """The synchronization scopes of the AMDGPU memory model, as the
    strings LLVM spells them in an atomic's or fence's `syncscope`: the
    agent (the whole GPU), the workgroup, the wavefront, and their
    "one-as" forms, which order only the address space of the access.
    This is a class of its own, apart from fx.SyncScope (LLVM's
    target-neutral System and SingleThread), as in FlyDSL."""

    Agent = "agent"
    Workgroup = "workgroup"
    Wavefront = "wavefront"
    OneAs = "one-as"
    AgentOneAs = "agent-one-as"
    WorkgroupOneAs = "workgroup-one-as"
    WavefrontOneAs = "wavefront-one-as"
    SingleThreadOneAs = "singlethread-one-as"
