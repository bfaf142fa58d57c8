"""System tables of external catalogs: Paimon's ``t$snapshots`` … ``t$consumers`` and
``t$branch_<b>``, Lance's ``t$versions`` / ``t$tags`` / ``t$indices`` (local warehouse and the local
S3 server). Each is compared with what pypaimon / pylance read themselves, and checked to be
read-only and privilege-checked exactly like its base table."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine.errors import Errors
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import create_catalog, local_warehouse, s3_warehouse, unique
from tests.support.paimon_procs import Lake, local_lake, s3_lake

# Column names of Paimon's system tables, from Paimon's Java source (TABLE_TYPE of each class in
# paimon-core/src/main/java/org/apache/paimon/table/system/, apache/paimon 5dacde5; see
# docs/catalog-system-tables.md).
PAIMON_COLUMNS = {
    "snapshots": [
        "snapshot_id",
        "schema_id",
        "commit_user",
        "commit_identifier",
        "commit_kind",
        "commit_time",
        "base_manifest_list",
        "delta_manifest_list",
        "changelog_manifest_list",
        "total_record_count",
        "delta_record_count",
        "changelog_record_count",
        "watermark",
        "next_row_id",
        "operation",
        "writer_version",
    ],
    "tags": [
        "tag_name",
        "snapshot_id",
        "schema_id",
        "commit_time",
        "record_count",
        "create_time",
        "time_retained",
    ],
    "branches": ["branch_name", "create_time"],
    "options": ["key", "value"],
    "schemas": [
        "schema_id",
        "fields",
        "partition_keys",
        "primary_keys",
        "options",
        "comment",
        "update_time",
    ],
    "files": [
        "partition",
        "bucket",
        "file_path",
        "file_format",
        "schema_id",
        "level",
        "record_count",
        "file_size_in_bytes",
        "min_key",
        "max_key",
        "null_value_counts",
        "min_value_stats",
        "max_value_stats",
        "min_sequence_number",
        "max_sequence_number",
        "creation_time",
        "deleteRowCount",
        "file_source",
        "first_row_id",
        "write_cols",
    ],
    "manifests": [
        "file_name",
        "file_size",
        "num_added_files",
        "num_deleted_files",
        "schema_id",
        "min_partition_stats",
        "max_partition_stats",
        "min_row_id",
        "max_row_id",
    ],
    "partitions": [
        "partition",
        "record_count",
        "file_size_in_bytes",
        "file_count",
        "last_update_time",
        "created_at",
        "created_by",
        "updated_by",
        "options",
        "total_buckets",
        "done",
        "deleted_record_count",
    ],
    "consumers": ["consumer_id", "next_snapshot_id"],
}


@pytest.fixture(params=["local", "s3"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    if request.param == "local":
        return local_lake(proc_server, tmp_path)
    return s3_lake(proc_server, request.getfixturevalue("s3"))


def select(
    lake: Lake, sql: str, user: str = "root", password: str = ""
) -> tuple[list[str], list[tuple[Any, ...]]]:
    with lake.server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return [d[0] for d in cur.description], list(cur.fetchall())


def failure(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[int, str]:
    with (
        pytest.raises(pymysql.err.MySQLError) as info,
        server.connect(user=user, password=password) as conn,
        conn.cursor() as cur,
    ):
        cur.execute(sql)
    return int(info.value.args[0]), str(info.value.args[1])


def comparable(value: Any) -> Any:
    """A value as both pymysql and pyarrow give it (datetimes to the millisecond, naive)."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None, microsecond=value.microsecond // 1000 * 1000)
    if isinstance(value, list):
        return str(value)
    return value


def pypaimon_rows(lake: Lake, name: str) -> list[tuple[Any, ...]]:
    system = lake.paimon().get_table(name)
    builder = system.new_read_builder()
    table = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return [tuple(comparable(v) for v in r.values()) for r in table.to_pylist()]


def paimon_table(lake: Lake) -> None:
    lake.create("db.t", schema=lake_schema(), partition_keys=["dt"], options={"bucket": "-1"})
    lake.append("db.t", [{"id": 1, "item": "a", "dt": "2024-01-01"}])
    lake.append(
        "db.t",
        [{"id": 2, "item": "b", "dt": "2024-01-02"}, {"id": 3, "item": "c", "dt": "2024-01-01"}],
    )
    lake.call("create_tag", "'db.t', 'first', 1")
    lake.call("create_branch", "'db.t', 'dev', 'first'")
    lake.append("db.t", [{"id": 10, "item": "dev", "dt": "2024-01-03"}], branch="dev")
    from pypaimon.consumer.consumer import Consumer
    from pypaimon.consumer.consumer_manager import ConsumerManager

    table = lake.table("db.t")
    ConsumerManager(table.file_io, table.table_path).reset_consumer(
        "reader", Consumer(next_snapshot=2)
    )


def lake_schema() -> Any:
    from tests.support.paimon_procs import PARTED

    return PARTED


def test_paimon_system_tables_match_pypaimon_and_paimon_column_names(lake: Lake) -> None:
    paimon_table(lake)
    for system, expected in PAIMON_COLUMNS.items():
        columns, rows = select(lake, f"SELECT * FROM {lake.catalog}.db.`t${system}`")
        assert columns == expected, system
        ours = [tuple(comparable(v) for v in r) for r in rows]
        if system == "snapshots":  # pypaimon lacks Java's operation column (null for its snapshots)
            assert [r[14] for r in ours] == [None] * len(ours)
            ours = [r[:14] + r[15:] for r in ours]
        assert ours == pypaimon_rows(lake, f"db.t${system}"), system
    _, snapshots = select(
        lake, f"SELECT snapshot_id, commit_kind FROM {lake.catalog}.db.t$snapshots ORDER BY 1"
    )
    assert snapshots == [(1, "APPEND"), (2, "APPEND")]
    assert select(lake, f"SELECT tag_name, snapshot_id FROM {lake.catalog}.db.t$tags")[1] == [
        ("first", 1)
    ]
    assert select(lake, f"SELECT branch_name FROM {lake.catalog}.db.t$branches")[1] == [("dev",)]
    assert select(lake, f"SELECT * FROM {lake.catalog}.db.t$consumers")[1] == [("reader", 2)]
    _, parts = select(
        lake,
        f"SELECT `partition`, record_count, file_count FROM {lake.catalog}.db.t$partitions ORDER "
        f"BY 1",
    )
    assert parts == [("dt=2024-01-01", 2, 2), ("dt=2024-01-02", 1, 1)]
    _, files = select(lake, f"SELECT count(*), sum(record_count) FROM {lake.catalog}.db.t$files")
    assert files == [(3, 3)]


def test_paimon_branch_reads_as_table_dollar_branch(lake: Lake) -> None:
    paimon_table(lake)
    _, rows = select(lake, f"SELECT id, item FROM {lake.catalog}.db.`t$branch_dev` ORDER BY id")
    assert (
        rows
        == [(r[0], r[1]) for r in sorted(lake.rows("db.t", branch="dev"))]
        == [(1, "a"), (10, "dev")]
    )
    # unquoted, with time travel on the branch's own snapshots, and the branch's system table
    _, old = select(lake, f"SELECT id FROM {lake.catalog}.db.t$branch_dev FOR VERSION AS OF 1")
    assert old == [(1,)]
    _, snaps = select(
        lake, f"SELECT snapshot_id FROM {lake.catalog}.db.t$branch_dev$snapshots ORDER BY 1"
    )
    assert (
        snaps == [(r[0],) for r in pypaimon_rows(lake, "db.t$branch_dev$snapshots")]
        and len(snaps) == 2
    )
    # main is unchanged by reading the branch
    assert select(lake, f"SELECT count(*) FROM {lake.catalog}.db.t")[1] == [(3,)]
    code, message = failure(lake.server, f"SELECT * FROM {lake.catalog}.db.t$branch_nope")
    assert (code, message) == (
        Errors.UNKNOWN_TABLE_BRANCH.code,
        Errors.UNKNOWN_TABLE_BRANCH.error(
            branch="nope", table="db.t", catalog=lake.catalog
        ).message,
    )


def test_system_tables_are_read_only_and_checked_like_their_base_table(lake: Lake) -> None:
    paimon_table(lake)
    lake.create("db.other")
    user = unique("sys")
    lake.sql(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    lake.sql(f"GRANT SELECT_PRIV ON {lake.catalog}.db.other TO '{user}'@'%'")
    for name in ("t$snapshots", "t$branch_dev", "t$branch_dev$tags"):
        code, _ = failure(lake.server, f"SELECT * FROM {lake.catalog}.db.`{name}`", user, "pw")
        assert code in (1142, 1146), name  # denied or invisible, never read
    lake.sql(f"GRANT SELECT_PRIV ON {lake.catalog}.db.t TO '{user}'@'%'")
    assert select(lake, f"SELECT count(*) FROM {lake.catalog}.db.`t$snapshots`", user, "pw")[1] == [
        (2,)
    ]
    assert select(lake, f"SELECT count(*) FROM {lake.catalog}.db.t$branch_dev", user, "pw")[1] == [
        (2,)
    ]
    before = lake.snapshots("db.t")
    for sql in (
        f"INSERT INTO {lake.catalog}.db.`t$snapshots` VALUES (1)",
        f"DELETE FROM {lake.catalog}.db.`t$tags`",
        f"UPDATE {lake.catalog}.db.t$options SET value = 'x'",
    ):
        code, message = failure(lake.server, sql)
        assert code == Errors.SYSTEM_TABLE_READ_ONLY.code and "is read-only" in message, sql
    assert lake.snapshots("db.t") == before and lake.tags("db.t") == {"first": 1}
    code, _ = failure(lake.server, f"SELECT * FROM {lake.catalog}.db.`t$nope`")
    assert code == Errors.UNKNOWN_EXTERNAL_TABLE.code
    code, message = failure(
        lake.server, f"SELECT * FROM {lake.catalog}.db.t$snapshots FOR VERSION AS OF 1"
    )
    assert code == Errors.TIME_TRAVEL_INVALID.code and "describes the table now" in message


# -- Lance
# ------------------------------------------------------------------------------------------
@pytest.fixture(params=["local", "s3"])
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "local":
        return local_warehouse(tmp_path / "lance")
    return s3_warehouse(request.getfixturevalue("s3"))


def test_lance_system_tables_match_pylance(proc_server: ServerProcess, warehouse: Any) -> None:  # noqa: F811
    catalog = create_catalog(proc_server, warehouse)
    warehouse.write("db", "v")
    ds = warehouse.write("db", "v", mode="append")
    ds.tags.create("one", 1)
    ds.create_scalar_index("id", "BTREE")
    ds = warehouse.dataset("db", "v")
    lake = Lake(proc_server, catalog, warehouse.root, {})
    columns, versions = select(lake, f"SELECT * FROM {catalog}.db.`v$versions` ORDER BY version")
    assert columns == ["version", "timestamp", "metadata"]
    assert [v[0] for v in versions] == [v["version"] for v in ds.versions()] == [1, 2, 3]
    columns, tags = select(lake, f"SELECT tag_name, version FROM {catalog}.db.v$tags")
    assert tags == [(n, t["version"]) for n, t in ds.tags.list().items()] == [("one", 1)]
    columns, indices = select(
        lake,
        f"SELECT index_name, index_type, num_indexed_rows, num_unindexed_rows "
        f"FROM {catalog}.db.v$indices",
    )
    stats = ds.stats.index_stats("id_idx")
    assert indices == [
        ("id_idx", stats["index_type"], stats["num_indexed_rows"], stats["num_unindexed_rows"])
    ]
    code, _ = failure(proc_server, f"INSERT INTO {catalog}.db.`v$tags` VALUES ('x')")
    assert code == Errors.SYSTEM_TABLE_READ_ONLY.code
    code, _ = failure(proc_server, f"SELECT * FROM {catalog}.db.`v$snapshots`")
    assert code == Errors.UNKNOWN_EXTERNAL_TABLE.code
