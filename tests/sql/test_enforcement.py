"""Strict MySQL 8 on INSERT / UPDATE of internal tables with a dictionary definition
(engine/sql/enforcement.py): MySQL's error codes, SQLSTATEs and messages in strict mode, clipped
values with warnings in non-strict mode and under INSERT IGNORE, nothing written after an error,
and an explicit transaction that survives the error."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest


@pytest.fixture
def cur(shared_server) -> Any:  # type: ignore[no-untyped-def]
    conn = shared_server.connect()
    cursor = conn.cursor()
    cursor.execute("DROP DATABASE IF EXISTS enforce_db")
    cursor.execute("CREATE DATABASE enforce_db")
    cursor.execute("USE enforce_db")
    yield cursor
    cursor.execute("DROP DATABASE IF EXISTS enforce_db")
    conn.close()


def _error(cur: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as info:
        cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def _count(cur: Any, table: str) -> int:
    cur.execute(f"SELECT COUNT(*) FROM {table}")
    return int(cur.fetchone()[0])


def _warnings(cur: Any) -> list[tuple[Any, ...]]:
    cur.execute("SHOW WARNINGS")
    return [tuple(r) for r in cur.fetchall()]


def test_strict_value_errors(cur: Any) -> None:
    cur.execute(
        "CREATE TABLE t (a VARCHAR(3), c CHAR(2), n TINYINT, u INT UNSIGNED, m MEDIUMINT, "
        "d DECIMAL(5,2), e ENUM('a','b'), x VARCHAR(5) NOT NULL DEFAULT 'x')"
    )
    cur.execute("INSERT INTO t (a) VALUES ('ok')")
    assert _error(cur, "INSERT INTO t (a) VALUES ('abc'), ('abcd')") == (
        1406,
        "Data too long for column 'a' at row 2",
    )
    assert _error(cur, "INSERT INTO t (c) VALUES ('abc')")[0] == 1406
    assert _error(cur, "INSERT INTO t (n) VALUES (128)") == (
        1264,
        "Out of range value for column 'n' at row 1",
    )
    assert _error(cur, "INSERT INTO t (u) VALUES (-1)")[0] == 1264
    assert _error(cur, "INSERT INTO t (m) VALUES (8388608)")[0] == 1264
    assert _error(cur, "INSERT INTO t (d) VALUES (1000)")[0] == 1264
    assert _error(cur, "INSERT INTO t (e) VALUES ('c')") == (
        1265,
        "Data truncated for column 'e' at row 1",
    )
    assert _error(cur, "INSERT INTO t (x) VALUES (NULL)") == (1048, "Column 'x' cannot be null")
    assert _count(cur, "t") == 1
    assert _error(cur, "UPDATE t SET a = concat(a, 'xx')") == (
        1406,
        "Data too long for column 'a' at row 1",
    )
    assert _error(cur, "UPDATE t SET n = 200")[0] == 1264
    cur.execute("SELECT a, n FROM t")
    assert cur.fetchall() == (("ok", None),)


def test_sqlstates(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a VARCHAR(1), e ENUM('a'))")
    for sql, state in (
        ("INSERT INTO t (a) VALUES ('xx')", "22001"),
        ("INSERT INTO t (e) VALUES ('x')", "01000"),
    ):
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
        # pymysql keeps no SQLSTATE; the exception class follows it (22xxx: DataError)
        assert info.value.args[0] in (1406, 1265)
        assert state
    assert _count(cur, "t") == 0


def test_enum_set_members_case_insensitive(cur: Any) -> None:
    cur.execute("CREATE TABLE t (e ENUM('Small','Large'))")
    cur.execute("INSERT INTO t VALUES ('small'), ('LARGE'), (1)")
    cur.execute("SELECT e FROM t")
    assert [r[0] for r in cur.fetchall()] == ["Small", "Large", "Small"]


def test_decimal_rounding_note(cur: Any) -> None:
    cur.execute("CREATE TABLE t (d DECIMAL(5,2))")
    cur.execute("INSERT INTO t VALUES (1.005)")
    assert _warnings(cur) == [("Note", 1265, "Data truncated for column 'd' at row 1")]
    cur.execute("SELECT d FROM t")
    assert str(cur.fetchone()[0]) == "1.01"


def test_non_strict_clips_with_warnings(cur: Any) -> None:
    cur.execute("SET sql_mode = ''")
    cur.execute("CREATE TABLE t (a VARCHAR(3), n TINYINT UNSIGNED, x INT NOT NULL)")
    cur.execute("INSERT INTO t VALUES ('abcdef', 300, 1), ('ab', -5, NULL)")
    assert _warnings(cur) == [
        ("Warning", 1265, "Data truncated for column 'a' at row 1"),
        ("Warning", 1264, "Out of range value for column 'n' at row 1"),
        ("Warning", 1264, "Out of range value for column 'n' at row 2"),
        ("Warning", 1048, "Column 'x' cannot be null"),
    ]
    cur.execute("SELECT a, n, x FROM t ORDER BY a DESC")
    assert cur.fetchall() == (("abc", 255, 1), ("ab", 0, 0))
    # a single-row INSERT of NULL into NOT NULL is an error in any mode
    assert _error(cur, "INSERT INTO t VALUES ('a', 1, NULL)")[0] == 1048
    cur.execute("UPDATE t SET a = 'toolong', n = n + 1000")
    assert [w[1] for w in _warnings(cur)] == [1265, 1264, 1265, 1264]
    cur.execute("SELECT a, n FROM t")
    assert cur.fetchall() == (("too", 255), ("too", 255))


def test_insert_ignore_clips_and_skips(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(2))")
    cur.execute("INSERT INTO t VALUES (1, 'x')")
    cur.execute("INSERT IGNORE INTO t VALUES (1, 'y'), (2, 'long')")
    assert cur.rowcount == 1
    assert _warnings(cur) == [
        ("Warning", 1265, "Data truncated for column 'a' at row 2"),
        ("Warning", 1062, "Duplicate entry '1' for key 't.PRIMARY'"),
    ]
    cur.execute("SELECT id, a FROM t ORDER BY id")
    assert cur.fetchall() == ((1, "x"), (2, "lo"))


def test_unique_under_collation(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), UNIQUE KEY uk (name))")
    cur.execute("INSERT INTO t VALUES (1, 'a')")
    assert _error(cur, "INSERT INTO t VALUES (2, 'A')") == (
        1062,
        "Duplicate entry 'A' for key 't.uk'",
    )
    assert _error(cur, "INSERT INTO t VALUES (2, 'b'), (3, 'B')")[0] == 1062
    assert _error(cur, "INSERT INTO t VALUES (2, 'á')")[0] == 1062
    cur.execute("INSERT INTO t VALUES (2, 'b')")
    assert _error(cur, "UPDATE t SET name = 'A' WHERE id = 2") == (
        1062,
        "Duplicate entry 'A' for key 't.uk'",
    )
    cur.execute("UPDATE t SET name = 'B' WHERE id = 2")  # its own row: no collision
    assert _count(cur, "t") == 2


def test_transaction_survives_error(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a VARCHAR(2))")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES ('ok')")
    assert _error(cur, "INSERT INTO t VALUES ('long')")[0] == 1406
    cur.execute("INSERT INTO t VALUES ('o2')")
    cur.execute("COMMIT")
    assert _count(cur, "t") == 2


def _family(cur: Any, on_delete: str = "", on_update: str = "") -> None:
    cur.execute("CREATE TABLE parent (id INT PRIMARY KEY, code VARCHAR(5))")
    cur.execute(
        "CREATE TABLE child (id INT PRIMARY KEY, p INT, CONSTRAINT fk FOREIGN KEY (p) "
        f"REFERENCES parent (id) {on_delete} {on_update})"
    )
    cur.execute("INSERT INTO parent VALUES (1, 'a'), (2, 'b')")
    cur.execute("INSERT INTO child VALUES (10, 1), (11, 1), (12, 2), (13, NULL)")


def test_foreign_key_restrict(cur: Any) -> None:
    _family(cur)
    assert _error(cur, "INSERT INTO child VALUES (20, 3)") == (
        1452,
        "Cannot add or update a child row: a foreign key constraint fails (`enforce_db`.`child`, "
        "CONSTRAINT `fk` FOREIGN KEY (`p`) REFERENCES `parent` (`id`))",
    )
    assert _error(cur, "UPDATE child SET p = 5 WHERE id = 10")[0] == 1452
    assert _error(cur, "DELETE FROM parent WHERE id = 1") == (
        1451,
        "Cannot delete or update a parent row: a foreign key constraint fails (`enforce_db`."
        "`child`, CONSTRAINT `fk` FOREIGN KEY (`p`) REFERENCES `parent` (`id`))",
    )
    assert _error(cur, "UPDATE parent SET id = 7 WHERE id = 2")[0] == 1451
    cur.execute("UPDATE parent SET code = 'z' WHERE id = 2")  # not the referenced key
    cur.execute("INSERT IGNORE INTO child VALUES (20, 3), (21, 2)")
    assert [w[1] for w in _warnings(cur)] == [1452]
    assert _count(cur, "child") == 5
    cur.execute("SET FOREIGN_KEY_CHECKS = 0")
    cur.execute("INSERT INTO child VALUES (30, 99)")
    cur.execute("DELETE FROM parent WHERE id = 1")
    cur.execute("SET FOREIGN_KEY_CHECKS = 1")
    assert _count(cur, "parent") == 1


def test_foreign_key_cascade_and_set_null(cur: Any) -> None:
    _family(cur, "ON DELETE CASCADE", "ON UPDATE CASCADE")
    cur.execute(
        "CREATE TABLE grandchild (id INT PRIMARY KEY, c INT, "
        "FOREIGN KEY (c) REFERENCES child (id) ON DELETE SET NULL)"
    )
    cur.execute("INSERT INTO grandchild VALUES (100, 10), (101, 12)")
    cur.execute("DELETE FROM parent WHERE id = 1")
    cur.execute("SELECT id FROM child ORDER BY id")
    assert cur.fetchall() == ((12,), (13,))
    cur.execute("SELECT id, c FROM grandchild ORDER BY id")
    assert cur.fetchall() == ((100, None), (101, 12))
    cur.execute("UPDATE parent SET id = 5 WHERE id = 2")
    cur.execute("SELECT id, p FROM child ORDER BY id")
    assert cur.fetchall() == ((12, 5), (13, None))


def test_foreign_key_error_keeps_transaction(cur: Any) -> None:
    _family(cur)
    cur.execute("BEGIN")
    cur.execute("INSERT INTO child VALUES (20, 2)")
    assert _error(cur, "DELETE FROM parent WHERE id = 2")[0] == 1451
    assert _error(cur, "INSERT INTO child VALUES (21, 9)")[0] == 1452
    cur.execute("COMMIT")
    assert _count(cur, "child") == 5


def test_check_constraints(cur: Any) -> None:
    cur.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, CONSTRAINT pos CHECK (a > 0), "
        "CHECK (b < 10))"
    )
    cur.execute("INSERT INTO t VALUES (1, 1, NULL)")  # NULL passes
    assert _error(cur, "INSERT INTO t VALUES (2, 1, 1), (3, -1, 1)") == (
        3819,
        "Check constraint 'pos' is violated.",
    )
    assert _error(cur, "INSERT INTO t VALUES (2, 1, 11)") == (
        3819,
        "Check constraint 't_chk_1' is violated.",
    )
    assert _error(cur, "UPDATE t SET a = a - 5")[0] == 3819
    assert _error(cur, "INSERT INTO t (id, a) SELECT 5, -3")[0] == 3819  # DuckDB's own CHECK
    cur.execute("INSERT IGNORE INTO t VALUES (2, 5, 5), (3, -1, 1)")
    assert _warnings(cur) == [("Warning", 3819, "Check constraint 'pos' is violated.")]
    assert _count(cur, "t") == 2


def test_insert_select(cur: Any) -> None:
    cur.execute("CREATE TABLE src (s VARCHAR(20), n INT)")
    cur.execute("INSERT INTO src VALUES ('ok', 1), ('much too long', 500)")
    cur.execute("CREATE TABLE t (a VARCHAR(5), b TINYINT)")
    assert _error(cur, "INSERT INTO t SELECT s, n FROM src ORDER BY n") == (
        1406,
        "Data too long for column 'a' at row 2",
    )
    assert _count(cur, "t") == 0
    cur.execute("INSERT IGNORE INTO t SELECT s, n FROM src ORDER BY n")
    assert [w[1] for w in _warnings(cur)] == [1265, 1264]
    cur.execute("SELECT a, b FROM t ORDER BY b")
    assert cur.fetchall() == (("ok", 1), ("much ", 127))


def test_no_definition_is_unchanged(cur: Any) -> None:
    cur.execute("CREATE TABLE t AS SELECT 'abc' AS a")  # no dictionary definition
    cur.execute("INSERT INTO t VALUES ('a much longer text')")
    assert _count(cur, "t") == 2


def test_prepared_statements(shared_server, cur: Any) -> None:  # type: ignore[no-untyped-def]
    """COM_STMT_PREPARE / EXECUTE (binary protocol): parameters are checked as literals are."""
    import mysql.connector

    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(3), n TINYINT, e ENUM('x','y'))")
    conn = mysql.connector.connect(
        host=shared_server.host,
        port=shared_server.port,
        user="root",
        password="",
        database="enforce_db",
        autocommit=True,
    )
    try:
        prepared = conn.cursor(prepared=True)
        prepared.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (1, "abc", 5, "X"))
        for params, code in (
            ((2, "abcd", 5, "x"), 1406),
            ((2, "ab", 300, "x"), 1264),
            ((2, "ab", 5, "z"), 1265),
            ((1, "ab", 5, "x"), 1062),
        ):
            with pytest.raises(mysql.connector.Error) as info:
                prepared.execute("INSERT INTO t VALUES (?, ?, ?, ?)", params)
            assert info.value.errno == code
        with pytest.raises(mysql.connector.Error) as info:
            prepared.execute("UPDATE t SET a = ? WHERE id = ?", ("toolong", 1))
        assert info.value.errno == 1406
    finally:
        conn.close()
    cur.execute("SELECT id, a, n, e FROM t")
    assert cur.fetchall() == ((1, "abc", 5, "x"),)


def test_update_key_collision_keeps_transaction(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    cur.execute("BEGIN")
    assert _error(cur, "UPDATE t SET id = 1 WHERE id = 2") == (
        1062,
        "Duplicate entry '1' for key 't.PRIMARY'",
    )
    cur.execute("UPDATE t SET v = 5 WHERE id = 2")
    cur.execute("COMMIT")
    cur.execute("SELECT id, v FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 1), (2, 5))


def test_not_null_without_default_left_out(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, x INT NOT NULL, s VARCHAR(3) NOT NULL)")
    assert _error(cur, "INSERT INTO t (id) VALUES (1)") == (
        1364,
        "Field 'x' doesn't have a default value",
    )
    cur.execute("INSERT IGNORE INTO t (id) VALUES (1), (2)")
    assert _warnings(cur) == [
        ("Warning", 1364, "Field 'x' doesn't have a default value"),
        ("Warning", 1364, "Field 's' doesn't have a default value"),
    ]
    cur.execute("SELECT id, x, s FROM t ORDER BY id")
    assert cur.fetchall() == ((1, 0, ""), (2, 0, ""))


def test_on_duplicate_key_update_literal(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(2), e ENUM('x','y'))")
    cur.execute("INSERT INTO t VALUES (1, 'ab', 'x')")
    assert (
        _error(cur, "INSERT INTO t VALUES (1, 'c', 'x') ON DUPLICATE KEY UPDATE a = 'long'")[0]
        == 1406
    )
    assert (
        _error(cur, "INSERT INTO t VALUES (1, 'toolong', 'x') ON DUPLICATE KEY UPDATE a = 'z'")[0]
        == 1406
    )
    cur.execute("INSERT INTO t VALUES (1, 'c', 'x') ON DUPLICATE KEY UPDATE e = 'Y'")
    cur.execute("SELECT a, e FROM t")
    assert cur.fetchall() == (("ab", "y"),)


def test_drop_table_a_foreign_key_references(cur: Any) -> None:
    """MySQL 3730: a referenced parent is not dropped while foreign key checks are on; after its
    child, or with FOREIGN_KEY_CHECKS = 0 (dump loaders, Django's flush), it is."""
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute(
        "CREATE TABLE kid (id INT, p INT, CONSTRAINT kid_p FOREIGN KEY (p) REFERENCES par (id))"
    )
    assert _error(cur, "DROP TABLE par") == (
        3730,
        "Cannot drop table 'par' referenced by a foreign key constraint 'kid_p' on table 'kid'.",
    )
    cur.execute("SELECT count(*) FROM par")  # still there
    cur.execute("DROP TABLE kid")
    cur.execute("DROP TABLE par")
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE kid (id INT, p INT, FOREIGN KEY (p) REFERENCES par (id))")
    cur.execute("SET FOREIGN_KEY_CHECKS = 0")
    cur.execute("DROP TABLE par")
    cur.execute("SET FOREIGN_KEY_CHECKS = 1")
