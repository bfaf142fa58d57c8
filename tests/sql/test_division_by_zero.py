"""Division by zero as MySQL answers it (engine/sql/division_by_zero.py): NULL; warning 1365
per row under ERROR_FOR_DIVISION_BY_ZERO; error 1365 in a strict INSERT / UPDATE."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest

DIVISION_BY_ZERO = 1365


def _session(server: Any, db: str) -> Any:
    cur = server.connect().cursor()
    cur.execute(f"CREATE DATABASE IF NOT EXISTS {db}")
    cur.execute(f"USE {db}")
    return cur


def _warning_codes(cur: Any) -> list[int]:
    cur.execute("SHOW WARNINGS")
    return [int(row[1]) for row in cur.fetchall()]


def test_every_operator_by_a_zero_column_is_null_with_one_warning_per_row(
    shared_server: Any,
) -> None:
    cur = _session(shared_server, "div_rows")
    cur.execute("CREATE TABLE t (a INT, b INT)")
    cur.execute("INSERT INTO t VALUES (1, 0), (2, 1), (NULL, 0), (3, NULL)")
    cur.execute("SELECT a / b, a DIV b, a MOD b, a % 0 FROM t ORDER BY a IS NULL, a")
    rows = cur.fetchall()
    assert [r[1:] for r in rows] == [
        (None, None, None),
        (2, 0, None),
        (None, None, None),
        (None,) * 3,
    ]
    assert rows[1][0] == 2
    # (1, 0): four divisions by zero; (2, 1) and (3, NULL): a % 0; (NULL, 0): none (NULL first)
    assert _warning_codes(cur) == [DIVISION_BY_ZERO] * 6


def test_without_error_for_division_by_zero_nothing_is_said(shared_server: Any) -> None:
    cur = _session(shared_server, "div_quiet")
    cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("INSERT INTO t VALUES (1 / 0), (7 DIV 0)")
    cur.execute("SELECT a, 5 DIV 0 FROM t")
    assert cur.fetchall() == ((None, None), (None, None))
    assert _warning_codes(cur) == []


def test_strict_insert_and_update_fail_insert_ignore_and_delete_warn(shared_server: Any) -> None:
    cur = _session(shared_server, "div_strict")
    cur.execute("CREATE TABLE t (a INT, b INT)")
    cur.execute("INSERT INTO t VALUES (1, 0)")
    for statement in (
        "INSERT INTO t VALUES (1 / 0, 1)",
        "INSERT INTO t SELECT a DIV b, 1 FROM t",
        "UPDATE t SET a = 5 WHERE a MOD b > 1",
    ):
        with pytest.raises(pymysql.err.MySQLError) as caught:
            cur.execute(statement)
        assert caught.value.args[0] == DIVISION_BY_ZERO, statement
    # once per row, though the dictionary's checks evaluate the new values first
    cur.execute("INSERT IGNORE INTO t SELECT a / b, 2 FROM t")
    assert _warning_codes(cur) == [DIVISION_BY_ZERO]
    cur.execute("DELETE FROM t WHERE a / 0 > 1")
    assert _warning_codes(cur) == [DIVISION_BY_ZERO]  # a NULL dividend says nothing
    cur.execute("SELECT a, b FROM t ORDER BY b")
    assert cur.fetchall() == ((1, 0), (None, 2))


def test_a_declared_table_warns_once_per_row_in_show_warnings_and_the_ok_packet(
    shared_server: Any,
) -> None:
    cur = _session(shared_server, "div_once")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT IGNORE INTO t VALUES (1, 1 / 0), (2, 2 / 0), (3, 3)")
    assert cur._result.warning_count == 2
    assert _warning_codes(cur) == [DIVISION_BY_ZERO] * 2
    cur.execute("SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'")
    cur.execute("INSERT INTO t VALUES (4, 4 / 0)")
    assert cur._result.warning_count == 1
    assert _warning_codes(cur) == [DIVISION_BY_ZERO]
    cur.execute("UPDATE t SET v = id / 0 WHERE id <= 2")
    assert cur._result.warning_count == 2
    assert _warning_codes(cur) == [DIVISION_BY_ZERO] * 2


def test_warnings_of_a_streamed_result_s_later_batches_are_kept(shared_server: Any) -> None:
    """A large result set is sent batch by batch as DuckDB computes it (server/results.py
    StreamedRows): the warnings its later batches raise reach the EOF packet and SHOW WARNINGS."""
    cur = _session(shared_server, "div_stream")
    cur.execute("CREATE TABLE n (i INT PRIMARY KEY)")
    cur.execute(
        "INSERT INTO n WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r "
        "WHERE i < 2000) SELECT i FROM r"
    )
    # 200,000 rows; the divisor is 0 twice, at rows ~100,000 and ~200,000
    cur.execute("SELECT a.i / ((a.i * 100 + b.i) % 100000) FROM n a, n b WHERE b.i <= 100")
    assert len(cur.fetchall()) == 200_000
    assert cur._result.warning_count == 2
    assert _warning_codes(cur) == [DIVISION_BY_ZERO] * 2


def test_a_value_the_checks_clip_still_raises_its_division_warning(shared_server: Any) -> None:
    cur = _session(shared_server, "div_clipped")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v TINYINT)")
    cur.execute("INSERT IGNORE INTO t VALUES (1, COALESCE(1 / 0, 1000))")
    # MySQL lists 1365 first: drydock's checks run before DuckDB raises it
    assert sorted(_warning_codes(cur)) == [1264, DIVISION_BY_ZERO]
    cur.execute("SELECT v FROM t")
    assert cur.fetchall() == ((127,),)
