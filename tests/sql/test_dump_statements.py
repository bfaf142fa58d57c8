"""What dump tools and drivers send besides queries (issue 25, item 7), answered as MySQL 8 /
MariaDB 10.11 answer (compared by hand with MariaDB 10.11; the texts below are MariaDB's where
both servers agree):

- OK-packet info strings (``Rows matched: 2  Changed: 1  Warnings: 0``, ``Records: 2
  Duplicates: 1  Warnings: 0``) and affected rows, also under CLIENT_FOUND_ROWS;
- COM_SET_OPTION turning multi-statements on and off;
- DESC t 'pattern' / DESC t col, SHOW CREATE DATABASE, SHOW INDEX … FROM db, SHOW TRIGGERS,
  LOCK/UNLOCK/FLUSH TABLES, SQL_NO_CACHE, START TRANSACTION WITH CONSISTENT SNAPSHOT, the switches
  dumps set, information_schema.FILES, column CHARACTER SET, ALTER TABLE … DISABLE KEYS.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT, COMMAND

from tests.conftest import ServerProcess


@pytest.fixture
def db(shared_server: ServerProcess) -> Iterator[str]:
    name = f"dump_{uuid.uuid4().hex[:10]}"
    shared_server.query(f"CREATE DATABASE {name}")
    shared_server.query(f"CREATE TABLE {name}.t (id INT PRIMARY KEY, a VARCHAR(20), b INT)")
    shared_server.query(f"INSERT INTO {name}.t VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 3)")
    yield name
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")


def _ok(conn: pymysql.connections.Connection, sql: str) -> tuple[int, str]:
    """(affected rows, info string) of a statement's OK packet. PyMySQL keeps the rest of the
    packet, whose first byte is the info's length (MySQL and MariaDB send it length-encoded, as
    libmysqlclient reads it): the same bytes MariaDB 10.11 sends."""
    with conn.cursor() as cur:
        affected = cur.execute(sql)
    message = (conn._result.message if conn._result is not None else b"") or b""  # noqa: SLF001
    if message:
        assert message[0] == len(message) - 1  # short info: a one-byte length
    return affected, message[1:].decode()


def test_update_info_and_affected_rows_count_changed_rows(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn:
        assert _ok(conn, "UPDATE t SET b = 1 WHERE id <= 2") == (
            1,
            "Rows matched: 2  Changed: 1  Warnings: 0",
        )
        assert _ok(conn, "UPDATE t SET b = b WHERE id = 3") == (
            0,
            "Rows matched: 1  Changed: 0  Warnings: 0",
        )
        with conn.cursor() as cur:
            cur.execute("SELECT ROW_COUNT()")
            assert cur.fetchone() == (0,)
        assert _ok(conn, "UPDATE t SET a = NULL WHERE id = 1") == (
            1,
            "Rows matched: 1  Changed: 1  Warnings: 0",
        )
        assert _ok(conn, "UPDATE t SET a = NULL WHERE id = 1")[0] == 0  # NULL to NULL: unchanged


def test_client_found_rows_gets_rows_matched(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db, client_flag=CLIENT.FOUND_ROWS) as conn:
        assert _ok(conn, "UPDATE t SET b = 1 WHERE id <= 2") == (
            2,
            "Rows matched: 2  Changed: 1  Warnings: 0",
        )


def test_on_duplicate_key_update_counts_unchanged_rows_apart(
    shared_server: ServerProcess, db: str
) -> None:
    """MySQL 15.2.7.2: 1 per inserted row, 2 per updated row, 0 per duplicate left unchanged — 1
    under CLIENT_FOUND_ROWS (values as MariaDB answers them)."""
    upsert = (
        "INSERT INTO t VALUES (1, 'x', {b}), (2, 'y', 2), (77, 'n', 7) "
        "ON DUPLICATE KEY UPDATE b = VALUES(b)"
    )
    with shared_server.connect(database=db) as conn:
        _ok(conn, "UPDATE t SET b = 2 WHERE id = 2")
        _ok(conn, "UPDATE t SET b = 1 WHERE id = 1")
        # 1 changed (2), 2 unchanged (0), 77 inserted (1)
        # Duplicates: the changed rows only (all duplicates under CLIENT_FOUND_ROWS)
        assert _ok(conn, upsert.format(b=5)) == (3, "Records: 3  Duplicates: 1  Warnings: 0")
        assert _ok(conn, "INSERT INTO t VALUES (2, 'y', 2) ON DUPLICATE KEY UPDATE b = 2") == (
            0,
            "",
        )
    with shared_server.connect(database=db, client_flag=CLIENT.FOUND_ROWS) as conn:
        # 1 changed (2), 2 and 77 unchanged (1 each)
        assert _ok(conn, upsert.format(b=6)) == (4, "Records: 3  Duplicates: 3  Warnings: 0")
        assert _ok(conn, "INSERT INTO t VALUES (2, 'y', 2) ON DUPLICATE KEY UPDATE b = 2") == (
            1,
            "",
        )
    assert shared_server.query(f"SELECT id, b FROM {db}.t WHERE id IN (1, 2, 77) ORDER BY id") == [
        (1, 6),
        (2, 2),
        (77, 7),
    ]


def test_insert_info_strings_as_mariadb(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn:
        assert _ok(conn, "INSERT INTO t VALUES (4, 'q', 4), (5, 'r', 5)") == (
            2,
            "Records: 2  Duplicates: 0  Warnings: 0",
        )
        assert _ok(conn, "INSERT INTO t VALUES (6, 's', 6)") == (1, "")  # one row: no info
        assert _ok(
            conn,
            "INSERT INTO t VALUES (1, 'x', 9), (7, 'q', 7) ON DUPLICATE KEY UPDATE b = VALUES(b)",
        ) == (3, "Records: 2  Duplicates: 1  Warnings: 0")
        assert _ok(conn, "INSERT INTO t VALUES (2, 'y', 5) ON DUPLICATE KEY UPDATE b = 8") == (
            2,
            "",
        )
        assert _ok(conn, "INSERT IGNORE INTO t VALUES (1, 'x', 5), (8, 'q', 1)") == (
            1,
            "Records: 2  Duplicates: 1  Warnings: 1",  # the 1062 warning of the skipped row
        )
        assert _ok(conn, "REPLACE INTO t VALUES (1, 'x', 7), (9, 'q', 1)") == (
            3,
            "Records: 2  Duplicates: 1  Warnings: 0",
        )
        assert _ok(conn, "INSERT INTO t SELECT id + 100, a, b FROM t WHERE id <= 3") == (
            3,
            "Records: 3  Duplicates: 0  Warnings: 0",
        )
        with conn.cursor() as cur:
            cur.execute("SELECT b FROM t WHERE id IN (1, 2) ORDER BY id")
            assert cur.fetchall() == ((7,), (8,))


def _set_option(conn: pymysql.connections.Connection, option: int) -> bytes:
    conn._execute_command(COMMAND.COM_SET_OPTION, option.to_bytes(2, "little"))  # noqa: SLF001
    return bytes(conn._read_packet().get_all_data())  # noqa: SLF001


def test_com_set_option_turns_multi_statements_on_and_off(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn:
        assert _set_option(conn, 0)[0] == 0xFE  # EOF, as MySQL answers
        with conn.cursor() as cur:
            cur.execute("SELECT 1; SELECT 2")
            assert cur.fetchall() == ((1,),)
            assert cur.nextset()
            assert cur.fetchall() == ((2,),)
        assert _set_option(conn, 1)[0] == 0xFE
        with conn.cursor() as cur, pytest.raises(pymysql.err.ProgrammingError) as err:
            cur.execute("SELECT 1; SELECT 2")
        assert err.value.args[0] == 1064
        with conn.cursor() as cur:
            cur.execute("SELECT 3")
            assert cur.fetchall() == ((3,),)


def _rows(conn: pymysql.connections.Connection, sql: str) -> tuple[list[str], list[Any]]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return [d[0] for d in cur.description or ()], list(cur.fetchall())


def test_describe_with_a_pattern_or_a_column(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn:
        columns, rows = _rows(conn, "DESCRIBE t 'i%'")
        assert columns == ["Field", "Type", "Null", "Key", "Default", "Extra"]
        assert [r[0] for r in rows] == ["id"]
        assert [r[0] for r in _rows(conn, "DESC t a")[1]] == ["a"]
        assert [r[0] for r in _rows(conn, f"DESC {db}.t `b`")[1]] == ["b"]
        assert _rows(conn, "DESC t nothing")[1] == []


def test_show_create_database_and_triggers(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn:
        columns, rows = _rows(conn, f"SHOW CREATE DATABASE {db}")
        assert columns == ["Database", "Create Database"]
        assert rows == [
            (
                db,
                f"CREATE DATABASE `{db}` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
                "utf8mb4_0900_ai_ci */ /*!80016 DEFAULT ENCRYPTION='N' */",
            )
        ]
        assert "IF NOT EXISTS" in _rows(conn, f"SHOW CREATE SCHEMA IF NOT EXISTS {db}")[1][0][1]
        columns, rows = _rows(conn, f"SHOW TRIGGERS FROM {db} LIKE 't%'")
        assert columns[:5] == ["Trigger", "Event", "Table", "Statement", "Timing"]
        assert rows == []
        with pytest.raises(pymysql.err.OperationalError) as err:
            _rows(conn, "SHOW CREATE DATABASE no_such_db")
        assert err.value.args[0] == 1049


def test_show_index_from_table_from_database(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as conn:
        for sql in (
            f"SHOW INDEX FROM t FROM {db}",
            f"SHOW KEYS IN t IN {db}",
            f"SHOW INDEXES FROM {db}.t",
        ):
            assert _rows(conn, sql)[0][0] == "Table"
        with pytest.raises(pymysql.err.ProgrammingError) as err:
            _rows(conn, f"SHOW INDEX FROM missing FROM {db}")
        assert err.value.args[0] == 1146


def test_lock_flush_and_dump_session_statements(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn:
        for sql in (
            "LOCK TABLES t READ /*!32311 LOCAL */, t AS t2 WRITE",
            "UNLOCK TABLES",
            "FLUSH TABLES",
            "FLUSH /*!40101 LOCAL */ TABLES",
            "FLUSH TABLES WITH READ LOCK",
            "UNLOCK TABLES",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "COMMIT",
            "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */",
            "SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0",
            "SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=OFF",
            "SET SQL_QUOTE_SHOW_CREATE=1",
            "SET SESSION character_set_results = 'binary'",
        ):
            _ok(conn, sql)
        assert _rows(
            conn,
            "SELECT @@UNIQUE_CHECKS, @@FOREIGN_KEY_CHECKS, @@SQL_NOTES, @@SQL_QUOTE_SHOW_CREATE, "
            "@OLD_UNIQUE_CHECKS, @OLD_SQL_NOTES",
        )[1] == [(0, 0, 0, 1, 1, 1)]
        with pytest.raises(pymysql.err.MySQLError) as err:
            _ok(conn, "SET UNIQUE_CHECKS = 2")
        assert err.value.args[0] == 1231
        with pytest.raises(pymysql.err.MySQLError) as err:
            _ok(conn, "LOCK TABLES missing READ")
        assert err.value.args[0] == 1146
        assert _rows(conn, "SELECT /*!40001 SQL_NO_CACHE */ * FROM t ORDER BY id")[1][0][0] == 1
        assert _rows(conn, "SELECT SQL_NO_CACHE id FROM t WHERE id = 2")[1] == [(2,)]
        assert _rows(conn, "SELECT * FROM information_schema.FILES")[1] == []


def test_a_transaction_with_consistent_snapshot_is_a_transaction(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn:
        _ok(conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
        _ok(conn, "DELETE FROM t WHERE id = 1")
        _ok(conn, "ROLLBACK")
        assert _rows(conn, "SELECT count(*) FROM t")[1] == [(3,)]


def test_column_character_set_and_disable_keys(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn:
        _ok(
            conn,
            "CREATE TABLE cs (id INT PRIMARY KEY, "
            "a VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, b TEXT CHARSET latin1)"
            " ENGINE=InnoDB DEFAULT CHARSET=latin1",
        )
        _ok(conn, "INSERT INTO cs VALUES (1, 'Ab', 'c')")
        assert _rows(conn, "SELECT id FROM cs WHERE a = 'ab'")[1] == [(1,)]  # general_ci
        with conn.cursor() as cur:
            cur.execute("ALTER TABLE cs DISABLE KEYS")
            cur.execute("SHOW WARNINGS")
            assert cur.fetchall() == (
                ("Note", 1031, "Table storage engine for 'cs' doesn't have this option"),
            )
            cur.execute("ALTER TABLE cs ENABLE KEYS")
        with pytest.raises(pymysql.err.ProgrammingError) as err:
            _ok(conn, "ALTER TABLE missing DISABLE KEYS")
        assert err.value.args[0] == 1146


def test_group_by_without_only_full_group_by(shared_server: ServerProcess, db: str) -> None:
    """mariadb-dump runs with sql_mode '' and selects a column it does not group by."""
    with shared_server.connect(database=db) as conn:
        with pytest.raises(pymysql.err.MySQLError):
            _rows(conn, "SELECT a, b FROM t GROUP BY a")
        _ok(conn, "SET sql_mode = ''")
        assert sorted(_rows(conn, "SELECT a, b FROM t GROUP BY a")[1]) == [
            ("x", 1),
            ("y", 2),
            ("z", 3),
        ]
