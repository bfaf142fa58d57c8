"""compact with ``where`` (a condition on partition columns, Paimon's Spark CompactProcedure) on
append tables: only the matching partitions are rewritten, every row stays (pypaimon reads the
result), and anything but a partition predicate is refused with nothing changed. Local warehouse and
the local S3 server."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from drydock.engine.errors import Errors
from tests.conftest import ServerProcess
from tests.support.paimon_procs import PARTED, Lake, any_lake

DAYS = ("2024-01-01", "2024-01-02", "2024-01-03")


@pytest.fixture(params=["local", "s3", "rest", "jdbc"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    return any_lake(request, proc_server, tmp_path)


def parted(lake: Lake) -> list[tuple[object, ...]]:
    lake.create("db.t", schema=PARTED, partition_keys=["dt"], options={"bucket": "-1"})
    n = 0
    for _ in range(3):  # three small files in every partition
        lake.append("db.t", [{"id": (n := n + 1), "item": f"i{n}", "dt": day} for day in DAYS])
    return lake.rows("db.t")


def files_by_partition(lake: Lake) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in lake.data_files("db.t"):
        found[path.split("/", 1)[0]].add(path)
    return dict(found)


def test_compact_where_rewrites_only_matching_partitions(lake: Lake) -> None:
    rows = parted(lake)
    before = files_by_partition(lake)
    assert {len(v) for v in before.values()} == {3}
    assert lake.call("compact", "table => 'db.t', `where` => 'dt = ''2024-01-01'''") == [(1,)]
    after = files_by_partition(lake)
    assert len(after["dt=2024-01-01"]) == 1 and after["dt=2024-01-01"].isdisjoint(
        before["dt=2024-01-01"]
    )
    assert (
        after["dt=2024-01-02"] == before["dt=2024-01-02"]
        and after["dt=2024-01-03"] == before["dt=2024-01-03"]
    )
    assert lake.rows("db.t") == rows
    # ranges, IN, OR and NOT over the partition column, case-insensitively named
    assert lake.call(
        "compact",
        "table => 'db.t', `where` => 'DT > ''2024-01-01'' AND NOT dt IN (''2024-01-03'')'",
    ) == [(1,)]
    again = files_by_partition(lake)
    assert len(again["dt=2024-01-02"]) == 1 and again["dt=2024-01-03"] == before["dt=2024-01-03"]
    assert again["dt=2024-01-01"] == after["dt=2024-01-01"]  # one file already: left alone
    assert lake.rows("db.t") == rows
    snapshots = lake.snapshots("db.t")
    assert lake.call("compact", "table => 'db.t', `where` => 'dt = ''1999-01-01'''") == [
        (1,)
    ]  # matches none
    assert lake.snapshots("db.t") == snapshots


REFUSED = [
    ("'id > 1'", Errors.PROCEDURE_NOT_SUPPORTED.code, "only partition columns (dt)"),
    ("'dt = (SELECT max(dt) FROM db.t)'", Errors.PROCEDURE_BAD_ARGUMENT.code, "found SUBQUERY"),
    ("'dt IN (SELECT 1)'", Errors.PROCEDURE_BAD_ARGUMENT.code, "subquery"),
    ("'getenv(''HOME'') = dt'", Errors.PROCEDURE_BAD_ARGUMENT.code, "partition columns, literals"),
    ("'dt = ''x''; DROP TABLE t'", Errors.PROCEDURE_BAD_ARGUMENT.code, "not a valid condition"),
    ("'dt = ''x'' UNION SELECT 1'", Errors.PROCEDURE_BAD_ARGUMENT.code, "one condition"),
    ("'t.dt = ''x'''", Errors.PROCEDURE_NOT_SUPPORTED.code, "only partition columns"),
    ("'dt ='", Errors.PROCEDURE_BAD_ARGUMENT.code, "not a valid condition"),
]


def test_compact_where_refuses_anything_but_a_partition_predicate(lake: Lake) -> None:
    parted(lake)
    before, snapshots = files_by_partition(lake), lake.snapshots("db.t")
    for where, code, words in REFUSED:
        got, message = lake.error("compact", f"table => 'db.t', `where` => {where}")
        assert (got, words in message) == (code, True), (where, message)
    got, message = lake.error(
        "compact", "table => 'db.t', partitions => 'dt=2024-01-01', `where` => 'dt = ''x'''"
    )
    assert got == Errors.PROCEDURE_BAD_ARGUMENT.code and "cannot be used together" in message
    got, message = lake.error("compact", "table => 'db.t', partition_idle_time => '1 d'")
    assert (
        got == Errors.PROCEDURE_NOT_SUPPORTED.code
        and "'partition_idle_time' is not supported" in message
    )
    assert files_by_partition(lake) == before and lake.snapshots("db.t") == snapshots


def test_compact_where_on_an_unpartitioned_table_is_refused(lake: Lake) -> None:
    lake.create("db.u")
    got, message = lake.error("compact", "table => 'db.u', `where` => 'id = 1'")
    assert got == Errors.PROCEDURE_NOT_SUPPORTED.code and "is not partitioned" in message
