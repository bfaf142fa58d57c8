"""The savepoint log without a server (engine/sql/savepoints.py): MySQL's savepoint semantics,
the log's bound, volatile functions, the write clock, and a replay on a real DuckDB cursor."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import sqlglot

from drydock.engine.errors import DrydockError
from drydock.engine.sql.savepoints import (
    LoggedStatement,
    RecordingCursor,
    TransactionLog,
    WriteClock,
    replay,
    volatile_call,
)


def _statement(sql: str = "INSERT INTO t VALUES (1)") -> LoggedStatement:
    cursor = RecordingCursor(duckdb.connect())
    cursor.start("main")
    cursor.execute("SELECT 1").fetchall()
    record = cursor.finish()
    assert record is not None
    record.executed[0].sql = sql
    return record


def test_savepoints_follow_mysql() -> None:
    log = TransactionLog(version=0)
    log.mark("a")
    log.append(_statement())
    log.mark("B")
    log.append(_statement())
    log.mark("c")
    assert log.rollback_to("b") == 1  # names compare without case; c is gone, b stays
    assert [name for name, _ in log.savepoints] == ["a", "b"]
    log.mark("a")  # the same name again moves it
    assert log.savepoints == [("b", 1), ("a", 2)]
    log.release("b")  # and every later savepoint
    assert log.savepoints == []
    with pytest.raises(DrydockError) as info:
        log.rollback_to("b")
    assert (info.value.code, info.value.message) == (1305, "SAVEPOINT b does not exist")


def test_past_the_bound_only_earlier_savepoints_can_be_replayed() -> None:
    one = _statement().size
    log = TransactionLog(version=0, limit=one * 2 + 8)
    log.append(_statement())
    log.mark("early")
    log.append(_statement())
    log.append(_statement())  # past the bound: counted, not kept
    log.mark("late")
    assert len(log.statements) == 2 and log.length == 3
    assert "bound" in log.unreplayable(log.rollback_to("late"))
    assert log.unreplayable(log.rollback_to("early")) == ""
    log.truncate(1)
    log.append(_statement())  # under the bound again: kept
    assert len(log.statements) == log.length == 2


@pytest.mark.parametrize(
    ("sql", "volatile"),
    [
        ("INSERT INTO t VALUES (random())", "random"),
        ("INSERT INTO t VALUES (now())", "now"),
        ("UPDATE t SET ts = current_timestamp", "current_timestamp"),
        ("INSERT INTO t VALUES (uuid())", "uuid"),
        ("SELECT nextval('s')", "nextval"),
        ("INSERT INTO t VALUES (1, 'now')", ""),
        ("CREATE TABLE t (id INT DEFAULT nextval('s'))", ""),
        ("CREATE TABLE t AS SELECT random() AS r", "random"),
        ("UPDATE t SET v = lower(v)", ""),
    ],
)
def test_volatile_functions(sql: str, volatile: str) -> None:
    found = volatile_call(sqlglot.parse_one(sql, read="duckdb"))
    assert (found != "") == (volatile != "")


def test_write_clock_sees_commits_in_flight() -> None:
    clock = WriteClock()
    start = clock.version
    with clock.committing():
        assert not clock.unchanged_since(start)  # DuckDB may have applied it already
    assert not clock.unchanged_since(start) and clock.unchanged_since(clock.version)


def test_replay_compares_what_each_call_returned(tmp_path: Path) -> None:
    db = duckdb.connect(str(tmp_path / "internal.duckdb"))
    db.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    cursor = RecordingCursor(db.cursor())
    cursor.raw.execute("BEGIN TRANSACTION")
    cursor.start("main")
    cursor.execute("INSERT INTO t VALUES (?), (?)", [1, 2]).fetchall()
    cursor.execute("DELETE FROM t WHERE id > 1").fetchall()
    record = cursor.finish()
    assert record is not None and [e.params for e in record.executed] == [[1, 2], None]
    cursor.raw.execute("ROLLBACK")
    cursor.raw.execute("BEGIN TRANSACTION")
    assert replay(cursor.raw, [record], "main") == ""
    assert cursor.raw.execute("SELECT id FROM t").fetchall() == [(1,)]
    cursor.raw.execute("ROLLBACK")
    db.execute("INSERT INTO t VALUES (3)")  # the DELETE now counts 2 rows, not 1
    cursor.raw.execute("BEGIN TRANSACTION")
    assert "other rows or counts" in replay(cursor.raw, [record], "main")
    cursor.raw.execute("ROLLBACK")
