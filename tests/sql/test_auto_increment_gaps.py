"""AUTO_INCREMENT values a refused INSERT spends, as MySQL 8's InnoDB (innodb_autoinc_lock_mode
2) spends them (engine/sql/mysql_dml.py consume, engine/sql/dictionary_hooks.py)."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest


def _refused(cur: Any, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as caught:
        cur.execute(sql)
    return int(caught.value.args[0])


def test_a_failed_insert_leaves_a_gap_unless_its_first_row_was_refused(
    shared_server: Any,
) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ai_gaps")
    cur.execute("USE ai_gaps")
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    cur.execute(
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(3) UNIQUE, pid INT, "
        "FOREIGN KEY (pid) REFERENCES p (id))"
    )
    cur.execute("INSERT INTO t (u) VALUES ('a')")  # 1
    assert _refused(cur, "INSERT INTO t (u) VALUES ('a')") == 1062  # spends 2
    cur.execute("INSERT INTO t (u) VALUES ('b')")  # 3
    assert _refused(cur, "INSERT INTO t (u) VALUES ('long')") == 1406  # row 1: spends none
    cur.execute("INSERT INTO t (u) VALUES ('c')")  # 4
    assert _refused(cur, "INSERT INTO t (u) VALUES ('d'), ('long'), ('e')") == 1406  # 5, 6, 7
    cur.execute("INSERT INTO t (u) VALUES ('f')")  # 8
    assert _refused(cur, "INSERT INTO t (u, pid) VALUES ('g', 5)") == 1452  # spends 9
    cur.execute("INSERT INTO t (u) VALUES ('h')")  # 10
    cur.execute("SELECT id, u FROM t ORDER BY id")
    assert cur.fetchall() == ((1, "a"), (3, "b"), (4, "c"), (8, "f"), (10, "h"))


def test_an_insert_duckdb_refuses_spends_values_as_innodb(shared_server: Any) -> None:
    """DuckDB's own refusals (an overflow it raises, a date it cannot convert, a key inside a
    transaction) spend the statement's values when a later row fails, none when row 1 does."""
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ai_gaps_duckdb")
    cur.execute("USE ai_gaps_duckdb")
    cur.execute(
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, n BIGINT, d DATE, u INT UNIQUE)"
    )
    cur.execute("INSERT INTO t (n) VALUES (0)")  # 1
    overflow = "9223372036854775807 + 1"
    assert _refused(cur, f"INSERT INTO t (n) VALUES (1), ({overflow}), (3)") == 1690  # 2, 3, 4
    cur.execute("INSERT INTO t (n) VALUES (4)")  # 5
    assert _refused(cur, f"INSERT INTO t (n) VALUES ({overflow}), (5)") == 1690  # row 1: none
    cur.execute("INSERT INTO t (n) VALUES (6)")  # 6
    bad_date = "INSERT INTO t (n, d) VALUES (7, '2020-01-02'), (8, '2020-02-30')"
    assert _refused(cur, bad_date) == 1292  # 7, 8
    cur.execute("INSERT INTO t (n) VALUES (9)")  # 9
    cur.execute("BEGIN")
    assert _refused(cur, f"INSERT INTO t (n) VALUES (10), ({overflow})") == 1690  # 10, 11
    assert _refused(cur, "INSERT INTO t (n, u) VALUES (11, 1), (12, 1)") == 1062  # 12, 13
    cur.execute("INSERT INTO t (n) VALUES (13)")  # 14
    cur.execute("COMMIT")
    cur.execute("SELECT id, n FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 0), (5, 4), (6, 6), (9, 9), (14, 13))


def test_a_refused_insert_select_spends_the_intervals_innodb_reserved(shared_server: Any) -> None:
    """INSERT … SELECT reserves values in intervals of 1, 2, 4 … rows as it writes them."""
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ai_gaps_select")
    cur.execute("USE ai_gaps_select")
    cur.execute("CREATE TABLE s (x INT, y VARCHAR(20))")
    cur.execute(
        "INSERT INTO s VALUES (2, 'a'), (3, 'b'), (1, 'c'), (4, 'd'), (5, 'e'), (6, 'long')"
    )
    cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, v VARCHAR(3))")
    cur.execute("INSERT INTO t (u) VALUES (1)")  # 1
    # a duplicate in row 3: rows 1-3 written, intervals 1 + 2 reserved
    assert _refused(cur, "INSERT INTO t (u) SELECT x FROM s WHERE x <= 3 ORDER BY x DESC") == 1062
    cur.execute("INSERT INTO t (u) VALUES (50)")  # 5
    # row 6 too long: rows 1-5 written, intervals 1 + 2 + 4 reserved
    assert _refused(cur, "INSERT INTO t (u, v) SELECT x + 20, y FROM s ORDER BY x") == 1406
    cur.execute("INSERT INTO t (u) VALUES (51)")  # 13
    cur.execute("SELECT id, u FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 1), (5, 50), (13, 51))
