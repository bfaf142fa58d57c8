"""The procedures of Paimon catalogs: CALL <catalog>.sys.<procedure>(...).

Paimon's own procedures (Spark/Flink names, argument names and result columns), run through
pypaimon where it has the operation and on Paimon's documented table layout where it does not
(engine/lakehouse/procedures/paimon_layout.py). See the module of each group:

* paimon_snapshots: expire_snapshots, rollback_to, rollback_to_as_latest
* paimon_files: remove_orphan_files, compact (append-only tables; 'db.*' for a whole database)
* paimon_tags: create_tag, delete_tag, rename_tag
* paimon_branches: create_branch, delete_branch, rename_branch, fast_forward, merge_branch
* paimon_partitions: expire_partitions, mark_partition_done
* paimon_consumers: reset_consumer, clear_consumers
"""

from __future__ import annotations

from drydock.engine.lakehouse.procedures import (
    paimon_branches,
    paimon_consumers,
    paimon_files,
    paimon_partitions,
    paimon_snapshots,
    paimon_tags,
)

PROCEDURES = [
    *paimon_snapshots.PROCEDURES,
    *paimon_files.PROCEDURES,
    *paimon_tags.PROCEDURES,
    *paimon_branches.PROCEDURES,
    *paimon_partitions.PROCEDURES,
    *paimon_consumers.PROCEDURES,
]
