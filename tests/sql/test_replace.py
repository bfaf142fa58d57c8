"""REPLACE as MySQL (engine/sql/replace_rows.py): the old row is deleted and the new one inserted,
so the columns a column list leaves out take their defaults; affected rows are the rows given
plus the old rows deleted (an unchanged row colliding on the table's last unique key is not)."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest


def test_replace_with_a_column_list_gives_the_other_columns_their_defaults(
    shared_server: Any,
) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_defaults")
    cur.execute("USE replace_defaults")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT DEFAULT 7, s VARCHAR(5))")
    cur.execute("INSERT INTO t VALUES (1, 1, 5, 'x'), (2, 2, 6, 'y')")
    assert cur.execute("REPLACE INTO t (id, v) VALUES (1, 100)") == 2
    assert cur.execute("REPLACE INTO t (id, v) VALUES (9, 100)") == 1
    assert cur.execute("REPLACE INTO t SET id = 2, s = 'z'") == 2
    cur.execute("SELECT * FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 100, 7, None), (2, None, 7, "z"), (9, 100, 7, None))


def test_replace_on_a_table_with_two_keys_replaces_by_the_primary_key(shared_server: Any) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_two_keys")
    cur.execute("USE replace_two_keys")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(5) UNIQUE, w INT DEFAULT 7)")
    cur.execute("INSERT INTO t VALUES (1, 'a', 1)")
    assert cur.execute("REPLACE INTO t (id, u) VALUES (1, 'c')") == 2
    cur.execute("SELECT * FROM t")
    assert cur.fetchall() == ((1, "c", 7),)


def test_replace_recomputes_a_generated_column(shared_server: Any) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_generated")
    cur.execute("USE replace_generated")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, g INT AS (v * 2))")
    cur.execute("INSERT INTO t (id, v) VALUES (1, 1)")
    assert cur.execute("REPLACE INTO t (id, v) VALUES (1, 5)") == 2
    cur.execute("SELECT * FROM t")
    assert cur.fetchall() == ((1, 5, 10),)


def test_replace_into_an_auto_increment_table_counts_two_per_replaced_row(
    shared_server: Any,
) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_auto_increment")
    cur.execute("USE replace_auto_increment")
    cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(5), n INT DEFAULT 7)")
    cur.execute("INSERT INTO t (u, n) VALUES ('a', 1), ('b', 2)")
    assert cur.execute("REPLACE INTO t (id, u) VALUES (1, 'c'), (5, 'e')") == 3
    assert cur.execute("REPLACE INTO t (u) VALUES ('d')") == 1
    cur.execute("SELECT * FROM t ORDER BY id")
    assert cur.fetchall() == ((1, "c", 7), (2, "b", 2), (5, "e", 7), (6, "d", 7))


def test_replace_of_an_existing_row_in_an_all_key_table_counts_one(shared_server: Any) -> None:
    """The row collides on the table's only (so last) unique key and is the same: MySQL changes
    nothing in place and counts only the row given."""
    conn = shared_server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_all_key")
    cur.execute("USE replace_all_key")
    cur.execute("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))")
    cur.execute("INSERT INTO t VALUES (1, 2)")
    assert cur.execute("REPLACE INTO t VALUES (1, 2)") == 1
    assert cur.execute("REPLACE INTO t VALUES (1, 2), (3, 4), (3, 4)") == 3
    assert conn._result.message.endswith(
        b"Records: 3  Duplicates: 0  Warnings: 0"
    )  # length-encoded
    cur.execute("SELECT * FROM t ORDER BY a")
    assert cur.fetchall() == ((1, 2), (3, 4))


def test_replace_deletes_every_row_a_unique_key_collides_with(shared_server: Any) -> None:
    conn = shared_server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_every_key")
    cur.execute("USE replace_every_key")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v INT)")
    cur.execute("INSERT INTO t VALUES (1, 10, 0), (2, 20, 0), (3, 30, 0)")
    assert cur.execute("REPLACE INTO t VALUES (1, 20, 5)") == 3  # deletes rows 1 and 2
    assert cur.execute("REPLACE INTO t VALUES (1, 20, 5), (4, 30, 1), (5, 50, 0)") == 5
    assert conn._result.message.endswith(
        b"Records: 3  Duplicates: 2  Warnings: 0"
    )  # length-encoded
    cur.execute("SELECT * FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 20, 5), (4, 30, 1), (5, 50, 0))


def test_replace_select_applies_colliding_source_rows_in_order(shared_server: Any) -> None:
    conn = shared_server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_select_order")
    cur.execute("USE replace_select_order")
    cur.execute("CREATE TABLE s (id INT, v INT)")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO s VALUES (1, 1), (2, 2), (1, 3)")
    cur.execute("INSERT INTO t VALUES (2, 0)")
    assert cur.execute("REPLACE INTO t SELECT id, v FROM s ORDER BY v") == 5
    assert conn._result.message.endswith(
        b"Records: 3  Duplicates: 2  Warnings: 0"
    )  # length-encoded
    cur.execute("SELECT * FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 3), (2, 2))


def test_replace_into_a_table_without_a_unique_key_inserts(shared_server: Any) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_no_key")
    cur.execute("USE replace_no_key")
    cur.execute("CREATE TABLE t (id INT, v INT)")
    cur.execute("INSERT INTO t VALUES (1, 1)")
    assert cur.execute("REPLACE INTO t VALUES (1, 1), (2, 2)") == 2
    cur.execute("SELECT count(*) FROM t")
    assert cur.fetchall() == ((3,),)


def test_replace_of_a_referenced_parent_row_is_refused_and_undone_in_a_transaction(
    shared_server: Any,
) -> None:
    """MySQL deletes the old row (a table foreign keys reference is never changed in place):
    1451 for a referencing child; rows the statement replaced before that are undone."""
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_parent")
    cur.execute("USE replace_parent")
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, v INT)")
    cur.execute("CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
    cur.execute("INSERT INTO p VALUES (1, 1), (2, 2)")
    cur.execute("INSERT INTO c VALUES (1, 1)")
    assert cur.execute("REPLACE INTO p VALUES (2, 2)") == 2  # unchanged, but deleted: 2
    cur.execute("BEGIN")
    with pytest.raises(pymysql.err.IntegrityError) as refused:
        cur.execute("REPLACE INTO p VALUES (2, 5), (2, 6), (1, 1)")
    assert refused.value.args[0] == 1451
    cur.execute("INSERT INTO p VALUES (3, 3)")
    cur.execute("COMMIT")
    cur.execute("SELECT * FROM p ORDER BY id")
    assert cur.fetchall() == ((1, 1), (2, 2), (3, 3))


def test_replace_rows_colliding_through_an_earlier_new_row_apply_in_order(
    shared_server: Any,
) -> None:
    """Rows 2 and 3 each collide (by different keys) with the row 1 inserted: applied one
    after the other as MySQL does, each deletes what the table holds by then."""
    conn = shared_server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS replace_chain")
    cur.execute("USE replace_chain")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, w INT UNIQUE, x INT)")
    cur.execute("INSERT INTO t VALUES (1, 1, 1, 1), (2, 2, NULL, 3), (4, 3, 4, 2)")
    sql = "REPLACE INTO t VALUES (3, 1, 1, 2), (1, 1, NULL, 2), (3, 4, 3, 2), (4, 1, NULL, 2)"
    assert cur.execute(sql) == 8
    assert conn._result.message.endswith(b"Records: 4  Duplicates: 4  Warnings: 0")
    cur.execute("SELECT * FROM t ORDER BY id")
    assert cur.fetchall() == ((2, 2, None, 3), (3, 4, 3, 2), (4, 1, None, 2))
