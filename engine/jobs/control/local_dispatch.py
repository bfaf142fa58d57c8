"""When a job on a local (file) dataset may be dispatched. Pure: no I/O.

A local path names a dataset on one host's file system. With several frontends on one store, the
leader that dispatches may be any of them, where the same path may be another dataset or none —
so, as the reference does (it dispatches a local dataset only on a single-node deployment), a local
job is dispatched only while its store has exactly one alive frontend, or when its catalog declares
the warehouse a file system every frontend mounts at the same path (the Lance catalog property
``warehouse.shared_filesystem = true``). Otherwise it waits PENDING, its Message saying why, and is
dispatched once the condition holds. enable_lance_index_local_file_mutation = false holds it too.
"""

from __future__ import annotations

from drydock.engine.lakehouse.catalogs.lance_fs import SHARED_FILESYSTEM

LOCAL_HOLD_MESSAGE = (
    "waiting: enable_lance_index_local_file_mutation = false; this local dataset is not "
    "changed while it is off"
)


def local_hold_reason(
    *, local: bool, switch_on: bool, alive_frontends: int, shared_filesystem: bool
) -> str | None:
    """Why a PENDING job must wait before dispatch, or None when it may go."""
    if not local:
        return None  # an object-store dataset is the same dataset from every frontend
    if not switch_on:
        return LOCAL_HOLD_MESSAGE
    if shared_filesystem or alive_frontends == 1:
        return None
    return (
        f"waiting: {alive_frontends} frontends are alive on this store and this local dataset's "
        f"path may name another dataset (or none) on the leader's host; it is dispatched while "
        f"exactly one frontend is alive, or set the catalog property "
        f"'{SHARED_FILESYSTEM}' = 'true' if every frontend mounts the warehouse at the "
        f"same path"
    )
