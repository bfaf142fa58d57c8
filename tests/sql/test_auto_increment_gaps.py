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
