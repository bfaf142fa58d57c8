"""The data dictionary's remaining DDL and DML gaps closed on internal tables, as MySQL 8 answers:
a non-member of an ENUM in non-strict mode, INSERT … SELECT under keys / foreign keys / checks,
CREATE TABLE … LIKE, DROP TABLE of several tables, RENAME TABLE across databases and FULLTEXT
keys."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest


@pytest.fixture
def cur(shared_server) -> Any:  # type: ignore[no-untyped-def]
    conn = shared_server.connect()
    cursor = conn.cursor()
    for db in ("ddl_db", "ddl_other"):
        cursor.execute(f"DROP DATABASE IF EXISTS {db}")
        cursor.execute(f"CREATE DATABASE {db}")
    cursor.execute("USE ddl_db")
    yield cursor
    cursor.execute("SET FOREIGN_KEY_CHECKS = 0")
    for db in ("ddl_db", "ddl_other"):
        cursor.execute(f"DROP DATABASE IF EXISTS {db}")
    conn.close()


def _error(cur: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as info:
        cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def _warnings(cur: Any) -> list[tuple[Any, ...]]:
    cur.execute("SHOW WARNINGS")
    return [tuple(r) for r in cur.fetchall()]


def _rows(cur: Any, sql: str) -> list[tuple[Any, ...]]:
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def test_enum_non_member_is_empty_string_outside_strict_mode(cur: Any) -> None:
    """MySQL stores '' (index 0) with warning 1265, not NULL; strict mode refuses it."""
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'))")
    assert _error(cur, "INSERT INTO t VALUES (1, 'c')")[0] == 1265
    assert _error(cur, "INSERT INTO t VALUES (1, '')")[0] == 1265
    cur.execute("SET sql_mode = ''")
    cur.execute("INSERT INTO t VALUES (1, 'c'), (2, NULL), (3, 'B')")
    assert _warnings(cur) == [("Warning", 1265, "Data truncated for column 'e' at row 1")]
    cur.execute("UPDATE t SET e = 'zz' WHERE id = 3")
    assert _warnings(cur) == [("Warning", 1265, "Data truncated for column 'e' at row 1")]
    cur.execute("INSERT INTO t SELECT 4, 'nope'")
    assert _rows(cur, "SELECT id, e FROM t ORDER BY id") == [
        (1, ""),
        (2, None),
        (3, ""),
        (4, ""),
    ]
    # '' is index 0: it sorts before every member
    cur.execute("INSERT INTO t VALUES (5, 'a')")
    assert _rows(cur, "SELECT e FROM t WHERE e IS NOT NULL ORDER BY e, id") == [
        ("",),
        ("",),
        ("",),
        ("a",),
    ]


def test_drop_several_tables(cur: Any) -> None:
    """MySQL drops every named table or none: 1051 names all the missing ones; IF EXISTS drops
    the others with a Note 1051 per missing table."""
    cur.execute("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(3))")
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE c (id INT PRIMARY KEY)")
    assert _error(cur, "DROP TABLE a, nope1, b, nope2") == (
        1051,
        "Unknown table 'ddl_db.nope1,ddl_db.nope2'",
    )
    assert _rows(cur, "SHOW TABLES") == [("a",), ("b",), ("c",)]
    cur.execute("DROP TABLE IF EXISTS a, nope1, ddl_db.b")
    assert _warnings(cur) == [("Note", 1051, "Unknown table 'ddl_db.nope1'")]
    assert _rows(cur, "SHOW TABLES") == [("c",)]
    # the definition went with the table: a new one of the same name is its own
    cur.execute("CREATE TABLE a (x CHAR(2))")
    assert _rows(cur, "SHOW COLUMNS FROM a")[0][:2] == ("x", "char(2)")
    cur.execute("CREATE TABLE ddl_other.d (id INT)")
    cur.execute("DROP TABLE a, ddl_other.d, c")
    assert _rows(cur, "SHOW TABLES") == []
    assert _rows(cur, "SHOW TABLES FROM ddl_other") == []


def test_drop_several_tables_refuses_a_referenced_parent(cur: Any) -> None:
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE kid (p INT, CONSTRAINT kid_p FOREIGN KEY (p) REFERENCES par (id))")
    cur.execute("CREATE TABLE other (id INT)")
    assert _error(cur, "DROP TABLE other, par")[0] == 3730
    assert _rows(cur, "SHOW TABLES") == [("kid",), ("other",), ("par",)]
    cur.execute("DROP TABLE par, kid")
    assert _rows(cur, "SHOW TABLES") == [("other",)]


def test_insert_select_keys_foreign_keys_checks(cur: Any) -> None:
    """INSERT … SELECT is judged row by row as MySQL 8 does: 1062 (under the collation, and
    between rows of the source), 1452, 3819 — before DuckDB runs it, so a transaction lives on."""
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute("INSERT INTO par VALUES (1), (2)")
    cur.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), p INT, n INT, UNIQUE KEY uname "
        "(name), CONSTRAINT t_p FOREIGN KEY (p) REFERENCES par (id), CONSTRAINT pos CHECK (n > 0))"
    )
    cur.execute("INSERT INTO t VALUES (1, 'Ann', 1, 1)")
    cur.execute("CREATE TABLE src (id INT, name VARCHAR(10), p INT, n INT)")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO src VALUES (2, 'bob', 2, 1), (3, 'ANN', 1, 1)")
    assert _error(cur, "INSERT INTO t SELECT * FROM src ORDER BY id") == (
        1062,
        "Duplicate entry 'ANN' for key 't.uname'",
    )
    cur.execute("DELETE FROM src")
    cur.execute("INSERT INTO src VALUES (2, 'bob', 2, 1), (3, 'Bob', 1, 1)")
    assert _error(cur, "INSERT INTO t SELECT * FROM src ORDER BY id") == (
        1062,
        "Duplicate entry 'Bob' for key 't.uname'",
    )
    cur.execute("DELETE FROM src")
    cur.execute("INSERT INTO src VALUES (2, 'bob', 9, 1)")
    code, message = _error(cur, "INSERT INTO t SELECT * FROM src")
    assert code == 1452 and "CONSTRAINT `t_p` FOREIGN KEY (`p`) REFERENCES `par`" in message
    cur.execute("UPDATE src SET p = 2, n = 0")
    assert _error(cur, "INSERT INTO t SELECT * FROM src") == (
        3819,
        "Check constraint 'pos' is violated.",
    )
    cur.execute("UPDATE src SET n = 5")
    cur.execute("INSERT INTO t SELECT * FROM src")  # the transaction survived every error
    cur.execute("COMMIT")
    assert _rows(cur, "SELECT id, name, p, n FROM t ORDER BY id") == [
        (1, "Ann", 1, 1),
        (2, "bob", 2, 5),
    ]
    # IGNORE: the failing rows are skipped, a warning each
    cur.execute("DELETE FROM src")
    cur.execute(
        "INSERT INTO src VALUES (3, 'ann', 1, 1), (4, 'cy', 7, 1), (5, 'di', 1, -1), "
        "(6, 'ed', NULL, 2)"
    )
    cur.execute("INSERT IGNORE INTO t SELECT * FROM src ORDER BY id")
    assert [w[1] for w in _warnings(cur)] == [1062, 1452, 3819]
    assert _rows(cur, "SELECT id FROM t ORDER BY id") == [(1,), (2,), (6,)]
    # FOREIGN_KEY_CHECKS = 0: no parent needed
    cur.execute("SET FOREIGN_KEY_CHECKS = 0")
    cur.execute("INSERT INTO t SELECT 7, 'fy', 99, 1")
    cur.execute("SET FOREIGN_KEY_CHECKS = 1")
    assert _rows(cur, "SELECT count(*) FROM t") == [(4,)]


def test_create_table_like_copies_keys_checks_and_columns(cur: Any) -> None:
    """MySQL's LIKE copies columns, keys, checks and AUTO_INCREMENT (restarting at 1), not
    foreign keys: the copy enforces them as the original does."""
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute(
        "CREATE TABLE t1 (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(8) NOT NULL "
        "DEFAULT 'none', n INT DEFAULT 1, p INT, UNIQUE KEY ue (email), KEY kn (n), "
        "CONSTRAINT pos CHECK (n > 0), CHECK (n < 100), "
        "CONSTRAINT t1_p FOREIGN KEY (p) REFERENCES par (id)) COMMENT='people'"
    )
    cur.execute("INSERT INTO t1 (email) VALUES ('a'), ('b')")
    cur.execute("CREATE TABLE t2 LIKE t1")
    created = _rows(cur, "SHOW CREATE TABLE t2")[0][1]
    original = _rows(cur, "SHOW CREATE TABLE t1")[0][1]
    expected = (
        original.replace("`t1`", "`t2`")
        .replace("t1_chk_1", "t2_chk_1")
        .replace(" AUTO_INCREMENT=3", "")
    )
    expected = "\n".join(line for line in expected.split("\n") if "FOREIGN KEY" not in line)
    assert created == expected.replace("`pos` CHECK", "`pos` CHECK")
    assert "FOREIGN KEY" not in created and "t2_chk_1" in created and "COMMENT='people'" in created
    cur.execute("INSERT INTO t2 (email, p) VALUES ('x', 99)")  # no foreign key on the copy
    assert _rows(cur, "SELECT id, email, n, p FROM t2") == [(1, "x", 1, 99)]
    assert _error(cur, "INSERT INTO t2 (email) VALUES ('X')")[0] == 1062
    assert _error(cur, "INSERT INTO t2 (email) SELECT 'X'")[0] == 1062
    assert _error(cur, "INSERT INTO t2 (email) VALUES ('too long text')")[0] == 1406
    assert _error(cur, "INSERT INTO t2 (email, n) VALUES ('y', 0)") == (
        3819,
        "Check constraint 'pos' is violated.",
    )
    assert _error(cur, "INSERT INTO t2 (email, n) VALUES ('y', 100)") == (
        3819,
        "Check constraint 't2_chk_1' is violated.",
    )
    # DuckDB holds the primary key too: REPLACE finds the row it replaces
    cur.execute("REPLACE INTO t2 (id, email) VALUES (1, 'z')")
    assert _rows(cur, "SELECT id, email FROM t2") == [(1, "z")]
    assert _rows(cur, "SHOW INDEX FROM t2")[0][2] == "PRIMARY"


def test_fulltext_index_recorded(cur: Any) -> None:
    """CREATE FULLTEXT INDEX / FULLTEXT KEY on an internal table: a FULLTEXT key in the
    dictionary (SHOW INDEX, SHOW CREATE TABLE, information_schema.STATISTICS); MATCH … AGAINST
    on it answers 1191 (only Lance tables have text indexes)."""
    cur.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, title VARCHAR(50), body TEXT, FULLTEXT KEY fb (body))"
    )
    cur.execute("CREATE FULLTEXT INDEX ftb ON t (title, body)")
    shown = _rows(cur, "SHOW INDEX FROM t")
    assert [(r[2], r[3], r[4], r[10]) for r in shown] == [
        ("PRIMARY", 1, "id", "BTREE"),
        ("fb", 1, "body", "FULLTEXT"),
        ("ftb", 1, "title", "FULLTEXT"),
        ("ftb", 2, "body", "FULLTEXT"),
    ]
    created = _rows(cur, "SHOW CREATE TABLE t")[0][1]
    assert "  FULLTEXT KEY `ftb` (`title`,`body`)" in created
    assert _rows(
        cur,
        "SELECT INDEX_NAME, INDEX_TYPE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
        "'ddl_db' AND TABLE_NAME = 't' AND INDEX_NAME = 'ftb' ORDER BY SEQ_IN_INDEX",
    ) == [("ftb", "FULLTEXT"), ("ftb", "FULLTEXT")]
    assert _error(cur, "CREATE FULLTEXT INDEX ftb ON t (title)")[0] == 1061
    assert _error(cur, "SELECT id FROM t WHERE MATCH (body) AGAINST ('x')")[0] == 1191
    cur.execute("DROP INDEX ftb ON t")
    assert [r[2] for r in _rows(cur, "SHOW INDEX FROM t")] == ["PRIMARY", "fb"]


def test_rename_table_into_another_database(cur: Any) -> None:
    """RENAME TABLE db1.t TO db2.t and ALTER TABLE … RENAME TO db.t move the table, its rows, its
    definition and its AUTO_INCREMENT counter; foreign keys referencing it follow."""
    cur.execute("CREATE TABLE par (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(5) UNIQUE)")
    cur.execute("INSERT INTO par (name) VALUES ('a'), ('b')")
    cur.execute(
        "CREATE TABLE kid (id INT PRIMARY KEY, p INT, CONSTRAINT kid_p FOREIGN KEY (p) "
        "REFERENCES par (id))"
    )
    cur.execute("INSERT INTO kid VALUES (1, 1)")
    cur.execute("RENAME TABLE ddl_db.par TO ddl_other.par")
    assert _rows(cur, "SHOW TABLES") == [("kid",)]
    assert _rows(cur, "SELECT id, name FROM ddl_other.par ORDER BY id") == [(1, "a"), (2, "b")]
    created = _rows(cur, "SHOW CREATE TABLE ddl_other.par")[0][1]
    assert "`name` varchar(5)" in created and "AUTO_INCREMENT=3" in created
    assert "REFERENCES `ddl_other`.`par` (`id`)" in _rows(cur, "SHOW CREATE TABLE kid")[0][1]
    assert _error(cur, "INSERT INTO kid VALUES (2, 7)")[0] == 1452
    cur.execute("INSERT INTO kid VALUES (2, 2)")
    assert _error(cur, "DELETE FROM ddl_other.par WHERE id = 2")[0] == 1451
    assert _error(cur, "INSERT INTO ddl_other.par (name) VALUES ('toolong')")[0] == 1406
    assert _error(cur, "INSERT INTO ddl_other.par (name) VALUES ('A')")[0] == 1062
    cur.execute("INSERT INTO ddl_other.par (name) VALUES ('c')")
    # the counter moved: 3, spent by the refused duplicate as MySQL spends it, then 4
    assert _rows(cur, "SELECT max(id) FROM ddl_other.par") == [(4,)]
    # back, under another name, by ALTER TABLE
    cur.execute("ALTER TABLE ddl_other.par RENAME TO ddl_db.parent")
    assert _rows(cur, "SHOW TABLES FROM ddl_other") == []
    assert "REFERENCES `parent` (`id`)" in _rows(cur, "SHOW CREATE TABLE kid")[0][1]
    assert _error(cur, "INSERT INTO kid VALUES (3, 9)")[0] == 1452
    # the target database must exist, and hold no table of that name
    assert _error(cur, "RENAME TABLE parent TO nodb.parent")[0] == 1049
    cur.execute("CREATE TABLE ddl_other.parent (x INT)")
    assert _error(cur, "RENAME TABLE parent TO ddl_other.parent")[0] == 1050
    assert _rows(cur, "SELECT count(*) FROM parent") == [(3,)]
