"""fx.rocdl.cluster: gfx1250's workgroup clusters, as FlyDSL's kernels use
them (`from flydsl.expr.rocdl import cluster`).

    CLUSTER_BARRIER_ID, CLUSTER_WAIT_ALL   the cluster's user barrier (-3)
    wave_id()                     the wave's index in its workgroup (i32)
    cluster_workgroup_id_x/y/z()  the workgroup's position in its cluster (i32)
    compute_cluster_position()    (x, y) of that position, as index values
    is_wave_leader()              wave 0 of the workgroup (i1)
    cluster_signal_once_per_wg()  wave 0 signals the cluster barrier
    cluster_wait()                wait on the cluster barrier
    cluster_barrier()             the workgroup barrier, then one signal per
                                  workgroup and the wait: every workgroup of
                                  the cluster has arrived

Results are raw values (ArithValues). The ids (fx.rocdl's too) are the
AMDGPU intrinsics llvm.amdgcn.wave.id and llvm.amdgcn.cluster.workgroup.id.*
(LLVM 22's ROCDL has no ops for them); the barrier is rocdl.s.barrier.signal
/ .wait on the cluster barrier's id.
"""

from __future__ import annotations

from ..._mlir import ir
from ..._mlir.dialects import rocdl as _rocdl
from ...tracing.control_flow import current as _control_flow
from .. import numeric as nm
from ..gpu import barrier as _workgroup_barrier
from ..utils.arith import ArithValue, index_cast
from ._raw import cluster_workgroup_id_x, cluster_workgroup_id_y, cluster_workgroup_id_z, wave_id

__all__ = ["CLUSTER_BARRIER_ID", "CLUSTER_WAIT_ALL", "wave_id", "cluster_workgroup_id_x",
           "cluster_workgroup_id_y", "cluster_workgroup_id_z", "compute_cluster_position",
           "is_wave_leader", "cluster_signal_once_per_wg", "cluster_wait", "cluster_barrier"]

CLUSTER_BARRIER_ID = -3  # the hardware's cluster user barrier
CLUSTER_WAIT_ALL = CLUSTER_BARRIER_ID  # a cluster sync waits on that barrier itself


def compute_cluster_position():
    """(x, y) of the workgroup in its cluster, as index values."""
    index = ir.IndexType.get()
    return (index_cast(index, cluster_workgroup_id_x()),
            index_cast(index, cluster_workgroup_id_y()))


def is_wave_leader():
    """Whether this is wave 0 of the workgroup (an i1)."""
    return ArithValue(wave_id()) == 0


def cluster_signal_once_per_wg():
    """Wave 0 of the workgroup signals the cluster barrier (the other waves
    do not: the barrier counts workgroups)."""
    def signal():
        _rocdl.s_barrier_signal(CLUSTER_BARRIER_ID)
        return ()

    _control_flow().if_(nm.Boolean(is_wave_leader()), signal, None, (), ())


def cluster_wait():
    """Waits until every workgroup of the cluster has signalled."""
    _rocdl.s_barrier_wait(CLUSTER_WAIT_ALL)


def cluster_barrier():
    """All waves of every workgroup of the cluster meet here: the
    workgroup barrier, one signal per workgroup, then the cluster wait."""
    _workgroup_barrier()
    cluster_signal_once_per_wg()
    cluster_wait()
