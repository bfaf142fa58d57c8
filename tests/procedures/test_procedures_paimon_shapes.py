"""Every Paimon procedure's result columns (names and wire types) and argument names against
Paimon's own procedures (apache/paimon 5dacde5:
paimon-spark-common/.../spark/procedure/*Procedure.java
PARAMETERS and OUTPUT_TYPE; Flink's where Spark has no such procedure). Deliberate differences are
listed in DIFFERENCES and in docs/paimon-procedure-shapes.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from pymysql.constants import FIELD_TYPE

from drydock.engine.lakehouse.procedures.paimon import PROCEDURES
from tests.conftest import ServerProcess
from tests.support.paimon_procs import local_lake, row

ROOT = Path(__file__).resolve().parents[2]
B = ("result", "BOOLEAN")
# procedure → (Paimon's argument names in order, result (name, type) pairs)
PAIMON: dict[str, tuple[list[str], list[tuple[str, str]]]] = {
    "expire_snapshots": (
        ["table", "retain_max", "retain_min", "older_than", "max_deletes", "options"],
        [("deleted_snapshots_count", "INTEGER")],
    ),
    "rollback_to": (
        ["table", "tag", "snapshot_id"],  # Flink RollbackToProcedure; Spark's is `rollback`
        [("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")],
    ),
    "rollback_to_as_latest": (
        ["table", "tag", "snapshot_id"],  # Flink only
        [
            ("previous_snapshot_id", "BIGINT"),
            ("rolled_back_snapshot_id", "BIGINT"),
            ("current_snapshot_id", "BIGINT"),
        ],
    ),
    "remove_orphan_files": (
        ["table", "older_than", "dry_run", "parallelism", "mode"],
        [("deletedFileCount", "BIGINT"), ("deletedFileTotalLenInBytes", "BIGINT")],
    ),
    "compact": (
        [
            "table",
            "partitions",
            "compact_strategy",
            "order_strategy",
            "order_by",
            "where",
            "options",
            "partition_idle_time",
            "buckets",
        ],
        [B],
    ),
    "create_tag": (["table", "tag", "snapshot", "time_retained"], [B]),
    "delete_tag": (["table", "tag"], [B]),
    "rename_tag": (["table", "tag", "target_tag"], [B]),
    "create_branch": (["table", "branch", "tag", "ignoreIfExists"], [B]),
    "delete_branch": (["table", "branch"], [B]),
    "rename_branch": (["table", "from_branch", "to_branch"], [B]),
    "fast_forward": (["table", "branch"], [B]),
    "merge_branch": (["table", "source_branch", "target_branch"], [B]),
    "expire_partitions": (
        [
            "table",
            "expiration_time",
            "timestamp_formatter",
            "timestamp_pattern",
            "expire_strategy",
            "max_expires",
            "options",
        ],
        [("expired_partitions", "VARCHAR")],
    ),
    "mark_partition_done": (["table", "partitions"], [B]),
    "reset_consumer": (["table", "consumerId", "nextSnapshotId"], [B]),
    "clear_consumers": (["table", "includingConsumers", "excludingConsumers"], [B]),
}
# Paimon arguments drydock does not take (an unknown argument is an error, never ignored)
DIFFERENCES = {"compact": {"buckets"}, "expire_partitions": {"options"}}


def test_every_paimon_procedure_has_paimons_argument_names_and_result_shape() -> None:
    ours = {p.name: p for p in PROCEDURES}
    assert sorted(ours) == sorted(PAIMON)
    for name, (args, result) in PAIMON.items():
        procedure = ours[name]
        missing = DIFFERENCES.get(name, set())
        assert sorted(a.name for a in procedure.args) == sorted(
            a for a in args if a not in missing
        ), name
        assert list(zip(procedure.result_columns, procedure.result_types)) == result, name


def test_differences_are_documented() -> None:
    text = (ROOT / "docs" / "paimon-procedure-shapes.md").read_text()
    for name, missing in DIFFERENCES.items():
        assert all(f"`{name}`" in text and f"`{arg}`" in text for arg in missing), name
    assert "`rollback_to`" in text and "`rollback`" in text


WIRE = {
    "BOOLEAN": FIELD_TYPE.TINY,
    "INTEGER": FIELD_TYPE.LONG,
    "BIGINT": FIELD_TYPE.LONGLONG,
    "VARCHAR": FIELD_TYPE.VAR_STRING,
}


@pytest.mark.parametrize(
    "call,expected",
    [
        ("expire_snapshots('db.t', 5, 1)", "expire_snapshots"),
        ("remove_orphan_files(table => 'db.t', dry_run => true)", "remove_orphan_files"),
        ("create_tag('db.t', 'x')", "create_tag"),
        ("rollback_to(table => 'db.t', snapshot_id => 2)", "rollback_to"),
    ],
)
def test_result_columns_on_the_wire(
    proc_server: ServerProcess, tmp_path: Path, call: str, expected: str
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    lake.create("db.t")
    for i in range(1, 4):
        lake.append("db.t", [row(i)])
    with lake.server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"CALL {lake.catalog}.sys.{call}")
        description = [(d[0], d[1]) for d in cur.description]
    assert description == [(n, WIRE[t]) for n, t in PAIMON[expected][1]]
