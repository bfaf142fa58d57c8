"""reset_consumer / clear_consumers on Paimon's consumer files (local warehouse and the local S3
server), checked with pypaimon's ConsumerManager and by reading the table with pypaimon; and
expire_snapshots honouring what the consumers still need."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drydock.engine.errors import Errors
from tests.conftest import ServerProcess
from tests.support.paimon_procs import (
    Lake,
    any_lake,
    concurrently,
    local_lake,
    row,
)  # noqa: F401

FUTURE = "'2999-01-01 00:00:00'"


@pytest.fixture(params=["local", "s3", "rest", "jdbc"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    return any_lake(request, proc_server, tmp_path)


def consumers(lake: Lake, name: str = "db.t") -> dict[str, int]:
    """What pypaimon (the independent reader) sees."""
    from pypaimon.consumer.consumer_manager import ConsumerManager

    table = lake.table(name)
    return dict(ConsumerManager(table.file_io, table.table_path).consumers())


def consumer_file(lake: Lake, consumer: str) -> Any:
    table = lake.table("db.t")
    return json.loads(
        table.file_io.read_file_utf8(f"{table.table_path}/consumer/consumer-{consumer}")
    )


def five(lake: Lake) -> None:
    lake.create("db.t")
    for i in range(1, 6):
        lake.append("db.t", [row(i)])


def test_reset_consumer_writes_paimons_consumer_file_and_deletes_it(lake: Lake) -> None:
    five(lake)
    assert lake.call(
        "reset_consumer", "table => 'db.t', consumerId => 'reader', nextSnapshotId => 2"
    ) == [(1,)]
    assert consumer_file(lake, "reader") == {"nextSnapshot": 2}
    assert lake.call("reset_consumer", "'db.t', 'other', 4") == [(1,)]  # positional
    assert lake.call(
        "reset_consumer", "table => 'db.t', consumer_id => 'flink', next_snapshot_id => 3"
    ) == [(1,)]
    assert consumers(lake) == {"reader": 2, "other": 4, "flink": 3}
    assert sorted(lake.sql(f"SELECT * FROM {lake.catalog}.db.t$consumers")) == [
        ("flink", 3),
        ("other", 4),
        ("reader", 2),
    ]
    assert lake.call("reset_consumer", "'db.t', 'reader', 5") == [(1,)]
    assert consumers(lake)["reader"] == 5
    assert lake.call("reset_consumer", "table => 'db.t', consumerId => 'reader'") == [
        (1,)
    ]  # no id: delete
    assert consumers(lake) == {"other": 4, "flink": 3}
    assert lake.rows("db.t") == [(i, "x", 1) for i in range(1, 6)]  # data untouched


def test_reset_consumer_refuses_bad_input_and_changes_nothing(lake: Lake) -> None:
    five(lake)
    lake.call("reset_consumer", "'db.t', 'reader', 2")
    cases = [
        ("'db.t', 'reader', 99", "snapshot 99 doesn't exist"),
        ("'db.t', 'ghost'", "consumer 'ghost' doesn't exist"),
        ("'db.t', '../escape', 2", "not a valid consumer id"),
        ("'db.t', '', 2", "not a valid consumer id"),
        ("table => 'db.t', consumerId => 'a', consumer_id => 'b'", "duplicate argument"),
    ]
    for args, words in cases:
        code, message = lake.error("reset_consumer", args)
        assert code == Errors.PROCEDURE_BAD_ARGUMENT.code and words in message, (args, message)
    code, _ = lake.error(
        "reset_consumer", "'db.t$branch_x', 'reader', 2"
    )  # not a table of the catalog
    assert code == Errors.UNKNOWN_EXTERNAL_TABLE.code
    assert consumers(lake) == {"reader": 2}
    assert not lake.exists("db.t", "escape") and list(lake.files("db.t", "consumer")) == [
        "consumer/consumer-reader"
    ]


def test_clear_consumers_including_and_excluding(lake: Lake) -> None:
    five(lake)
    for name, snap in (("job-a", 1), ("job-b", 2), ("audit", 3), ("job-keep", 4)):
        lake.call("reset_consumer", f"'db.t', '{name}', {snap}")
    assert lake.call(
        "clear_consumers",
        "table => 'db.t', includingConsumers => 'job-.*', excludingConsumers => 'job-keep'",
    ) == [(1,)]
    assert consumers(lake) == {"audit": 3, "job-keep": 4}
    assert lake.call("clear_consumers", "table => 'db.t', including_consumers => 'aud'") == [
        (1,)
    ]  # whole id
    assert consumers(lake) == {"audit": 3, "job-keep": 4}
    code, message = lake.error("clear_consumers", "'db.t', '(unclosed'")
    assert code == Errors.PROCEDURE_BAD_ARGUMENT.code and "regular expression" in message
    assert lake.call("clear_consumers", "'db.t'") == [(1,)]
    assert consumers(lake) == {}


def test_a_consumer_protects_its_snapshot_from_expire_snapshots(lake: Lake) -> None:
    five(lake)
    lake.call("reset_consumer", "'db.t', 'reader', 2")
    assert lake.call("expire_snapshots", f"'db.t', 1, 1, {FUTURE}") == [
        (1,)
    ]  # only 1 goes: 2 is still wanted
    assert lake.snapshots("db.t") == [2, 3, 4, 5]
    assert lake.rows("db.t", snapshot=2) == [(1, "x", 1), (2, "x", 1)]  # pypaimon reads it
    lake.call("reset_consumer", "'db.t', 'reader', 4")
    assert lake.call("expire_snapshots", f"'db.t', 1, 1, {FUTURE}") == [(2,)]
    assert lake.snapshots("db.t") == [4, 5]
    lake.call("clear_consumers", "'db.t'")
    assert lake.call("expire_snapshots", f"'db.t', 1, 1, {FUTURE}") == [(1,)]
    assert lake.snapshots("db.t") == [5] and lake.rows("db.t") == [(i, "x", 1) for i in range(1, 6)]


def test_consumer_calls_stop_on_a_concurrent_change(
    proc_server: ServerProcess,
    hook_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    lake = local_lake(proc_server, tmp_path)
    five(lake)
    lake.call("reset_consumer", "'db.t', 'reader', 2")
    code, message = concurrently(
        lake,
        hook_dir,
        "reset_consumer",
        "'db.t', 'reader', 3",
        lambda: lake.append("db.t", [row(6)]),
    )
    assert code == Errors.PROCEDURE_CONCURRENT_COMMIT.code and "concurrent commit" in message
    assert consumers(lake) == {"reader": 2}
    code, message = concurrently(
        lake,
        hook_dir,
        "clear_consumers",
        "'db.t'",
        lambda: lake.call("reset_consumer", "'db.t', 'late', 3"),
    )
    assert "concurrent commit" in message and "the consumers" in message
    assert consumers(lake) == {"reader": 2, "late": 3}
    # expire_snapshots pins the consumers too: a consumer moved back meanwhile stops it
    code, message = concurrently(
        lake,
        hook_dir,
        "expire_snapshots",
        f"'db.t', 1, 1, {FUTURE}",
        lambda: lake.call("reset_consumer", "'db.t', 'late', 1"),
    )
    assert "concurrent commit" in message and lake.snapshots("db.t") == [1, 2, 3, 4, 5, 6]
