"""Client compatibility: pymysql, mysql-connector-python (pure Python) and the mariadb CLI each
connect, query, change data, see warnings and errors through their own API, and use prepared
statements against a real drydock server. MySQL's diagnostics area (SHOW WARNINGS / SHOW ERRORS /
SHOW COUNT(*)) is checked here too. The JDBC program is in test_jdbc.py.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import mysql.connector
import pymysql
import pytest
from mysql.connector.connection import MySQLConnection

from tests.conftest import ServerProcess

CLI_TIMEOUT_SECONDS = 30
PARSE_ERROR_SQL = "ADMIN SHOW FRONTEND CONFIG LIK 'x'"
PARSE_ERROR_TEXT = "line 1:27 mismatched input 'LIK' expecting"
CONFIG_ERROR_SQL = 'ADMIN SET FRONTEND CONFIG ("lance_index_job_keep_max_second" = "0")'


@pytest.fixture
def db(shared_server: ServerProcess) -> Iterator[str]:
    """A fresh database with table ``t(id INT, name VARCHAR(40))`` holding 1 'alice', 2 'it''s'."""
    name = f"c_{uuid.uuid4().hex[:10]}"
    shared_server.query(f"CREATE DATABASE {name}")
    shared_server.query(f"CREATE TABLE {name}.t (id INT, name VARCHAR(40))")
    shared_server.query(f"INSERT INTO {name}.t VALUES (1, 'alice'), (2, 'it''s')")
    yield name
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")  # drops its tables too, as in MySQL


def connector(server: ServerProcess, **kwargs: Any) -> MySQLConnection:
    # Pure Python: the C extension of mysql-connector 26.10 fails to load here
    # (docs/upstream-facts.md).
    conn = mysql.connector.connect(
        host=server.host,
        port=server.port,
        user="root",
        password="",
        use_pure=True,
        autocommit=True,
        connection_timeout=10,
        read_timeout=60,
        write_timeout=60,
        **kwargs,
    )
    assert isinstance(conn, MySQLConnection)
    return conn


# (statement, expected Note) for every statement that produces a warning today; "{db}" is a
# database holding table t.
WARNING_CASES = [
    ("DROP TABLE IF EXISTS {db}.nope", ("Note", 1051, "Unknown table '{db}.nope'")),
    (
        "DROP DATABASE IF EXISTS nope_{db}",
        ("Note", 1008, "Can't drop database 'nope_{db}'; database doesn't exist"),
    ),
    (
        "CREATE DATABASE IF NOT EXISTS {db}",
        ("Note", 1007, "Can't create database '{db}'; database exists"),
    ),
    ("CREATE TABLE IF NOT EXISTS {db}.t (id INT)", ("Note", 1050, "Table 't' already exists")),
]
WARNING_IDS = ["drop_table", "drop_database", "create_database", "create_table"]


def _case(sql: str, note: tuple[str, int, str], db: str) -> tuple[str, tuple[str, int, str]]:
    return sql.format(db=db), (note[0], note[1], note[2].format(db=db))


# -- pymysql
# ----------------------------------------------------------------------------------------
def test_pymysql_selects_typed_values(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SELECT id, name FROM {db}.t ORDER BY id")
        assert cur.fetchall() == ((1, "alice"), (2, "it's"))
        cur.execute("SELECT CAST(12.5 AS DECIMAL(5,2)), DATE '2024-05-06', NULL, 2.5 FROM DUAL")
        assert cur.fetchall() == ((decimal.Decimal("12.50"), dt.date(2024, 5, 6), None, 2.5),)
        types = [d[1] for d in cur.description]
        assert types[:2] == [
            pymysql.constants.FIELD_TYPE.NEWDECIMAL,
            pymysql.constants.FIELD_TYPE.DATE,
        ]


def test_pymysql_reads_blob_as_bytes(shared_server: ServerProcess, db: str) -> None:
    """BLOB columns carry the binary character set, so non-UTF-8 bytes come back as bytes."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {db}.b (x BLOB)")
        cur.execute(f"INSERT INTO {db}.b VALUES (%s)", (b"\xff\x00\x01",))
        cur.execute(f"SELECT x FROM {db}.b")
        assert cur.fetchall() == ((b"\xff\x00\x01",),)


def test_information_schema_columns_are_mysql_shaped(shared_server: ServerProcess, db: str) -> None:
    """Precision in decimal digits, MySQL type names, case-insensitive enumerated values (JDBC's
    getColumns computes NULLABLE with ``IS_NULLABLE = 'yes'``)."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(
            f"CREATE TABLE {db}.k (b BIGINT NOT NULL, f DOUBLE, flag BOOLEAN, d DECIMAL(7,3), ts "
            f"DATETIME)"
        )
        cur.execute(
            "SELECT column_name, data_type, column_type, numeric_precision, numeric_scale, "
            "IF(is_nullable = 'yes', 1, 0) FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = 'k' ORDER BY ordinal_position",
            (db,),
        )
        assert cur.fetchall() == (
            ("b", "bigint", "bigint", 19, 0, 0),
            ("f", "double", "double", 22, None, 1),
            ("flag", "tinyint", "tinyint(1)", 3, 0, 1),
            ("d", "decimal", "decimal(7,3)", 7, 3, 1),
            ("ts", "datetime", "datetime", None, None, 1),  # as declared (no fsp)
        )
        cur.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = %s AND table_type = 'base table' ORDER BY 1",
            (db,),
        )
        assert cur.fetchall() == (("k",), ("t",))


def test_drop_database_drops_its_tables(shared_server: ServerProcess) -> None:
    name = f"c_{uuid.uuid4().hex[:10]}"
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
        cur.execute(f"CREATE TABLE {name}.t (a INT)")
        cur.execute(f"DROP DATABASE {name}")
        cur.execute(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = %s", (name,)
        )
        assert cur.fetchone() == (0,)


def test_pymysql_reports_affected_rows(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        assert cur.execute(f"INSERT INTO {db}.t VALUES (3, 'c'), (4, 'd'), (5, 'e')") == 3
        assert conn.affected_rows() == 3
        assert cur.execute(f"UPDATE {db}.t SET name = 'z' WHERE id >= 4") == 2
        assert cur.execute(f"DELETE FROM {db}.t WHERE id = 99") == 0
        assert cur.execute(f"DELETE FROM {db}.t WHERE id = 5") == 1
        cur.execute(f"SELECT count(*) FROM {db}.t")
        assert cur.fetchone() == (4,)


@pytest.mark.parametrize(("sql", "note"), WARNING_CASES, ids=WARNING_IDS)
def test_pymysql_sees_each_warning(
    shared_server: ServerProcess, db: str, sql: str, note: tuple[str, int, str]
) -> None:
    sql, note = _case(sql, note, db)
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(sql)
        assert cur._result.warning_count == 1  # noqa: SLF001 - the OK packet's warning count
        assert conn.show_warnings() == (note,)


def test_pymysql_error_codes(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.ProgrammingError) as parse:
            cur.execute(PARSE_ERROR_SQL)
        assert (parse.value.args[0], parse.value.sqlstate) == (1064, "42000")
        assert parse.value.args[1].startswith(PARSE_ERROR_TEXT)
        with pytest.raises(pymysql.err.OperationalError) as config:
            cur.execute(CONFIG_ERROR_SQL)
        assert (config.value.args[0], config.value.sqlstate) == (1105, "HY000")
        assert "must be a positive long" in config.value.args[1]
        with pytest.raises(pymysql.err.ProgrammingError) as missing:
            cur.execute("SELECT * FROM nope.t")
        assert missing.value.args == (1146, "Table 'nope.t' doesn't exist")
        assert missing.value.sqlstate == "42S02"
        cur.execute("SELECT 1")  # the connection survives its errors
        assert cur.fetchone() == (1,)


def test_pymysql_client_side_parameters_are_escaped(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SELECT id FROM {db}.t WHERE name = %s", ("it's",))
        assert cur.fetchall() == ((2,),)
        cur.execute(f"SELECT id FROM {db}.t WHERE name = %s", ("' OR '1'='1",))
        assert cur.fetchall() == ()
        assert (
            cur.executemany(
                f"INSERT INTO {db}.t VALUES (%s, %s)", [(7, "back\\slash"), (8, 'dq"'), (9, None)]
            )
            == 3
        )
        cur.execute(f"SELECT name FROM {db}.t WHERE id >= %(low)s ORDER BY id", {"low": 7})
        assert cur.fetchall() == (("back\\slash",), ('dq"',), (None,))


# -- MySQL diagnostics-area semantics (through pymysql)
# ----------------------------------------------
def _rows(cur: Any, sql: str) -> tuple[Any, ...]:
    cur.execute(sql)
    return tuple(cur.fetchall())


def test_show_warnings_twice_returns_the_same_rows_and_reports_no_warning_itself(
    shared_server: ServerProcess, db: str
) -> None:
    note = ("Note", 1051, f"Unknown table '{db}.nope'")
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")
        assert _rows(cur, "SHOW WARNINGS") == (note,)
        assert cur._result.warning_count == 0  # noqa: SLF001 - SHOW WARNINGS' own EOF/OK
        assert _rows(cur, "SHOW WARNINGS") == (note,)
        assert _rows(cur, "SHOW COUNT(*) WARNINGS") == ((1,),)
        assert cur._result.warning_count == 0  # noqa: SLF001
        assert _rows(cur, "SELECT @@warning_count, @@error_count") == ((1, 0),)
        assert _rows(cur, "SHOW WARNINGS") == ()  # the SELECT above cleared the area


@pytest.mark.parametrize(
    "next_sql",
    [
        "SELECT 1",
        "SELECT id FROM {db}.t WHERE id = 1",
        "INSERT INTO {db}.t VALUES (3, 'x')",
        "CREATE TABLE {db}.u (a INT)",
        "ADMIN SHOW FRONTEND CONFIG LIKE 'nothing'",
    ],
    ids=["probe", "select", "insert", "ddl", "owned"],
)
def test_warnings_are_cleared_by_the_next_non_diagnostic_statement(
    shared_server: ServerProcess, db: str, next_sql: str
) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")
        assert _rows(cur, "SHOW COUNT(*) WARNINGS") == ((1,),)
        cur.execute(next_sql.format(db=db))
        cur.fetchall()
        assert cur._result.warning_count == 0  # noqa: SLF001
        assert _rows(cur, "SHOW WARNINGS") == ()
        assert _rows(cur, "SHOW COUNT(*) WARNINGS") == ((0,),)


def test_show_warnings_limit(shared_server: ServerProcess, db: str) -> None:
    note = ("Note", 1051, f"Unknown table '{db}.nope'")
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")
        assert _rows(cur, "SHOW WARNINGS LIMIT 1") == (note,)
        assert _rows(cur, "SHOW WARNINGS LIMIT 0") == ()
        assert _rows(cur, "SHOW WARNINGS LIMIT 0, 5") == (note,)
        assert _rows(cur, "SHOW WARNINGS LIMIT 1, 5") == ()
        assert _rows(cur, "SHOW WARNINGS") == (note,)  # LIMIT did not consume anything


def test_show_errors_lists_only_errors(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")
        assert _rows(cur, "SHOW ERRORS") == ()
        assert _rows(cur, "SHOW COUNT(*) ERRORS") == ((0,),)
        assert len(_rows(cur, "SHOW WARNINGS")) == 1  # the Note is still there
        with pytest.raises(pymysql.err.ProgrammingError):
            cur.execute(PARSE_ERROR_SQL)
        errors = _rows(cur, "SHOW ERRORS")
        assert len(errors) == 1 and errors[0][:2] == ("Error", 1064)
        assert errors[0][2].startswith(PARSE_ERROR_TEXT)
        assert _rows(cur, "SHOW WARNINGS") == errors  # MySQL lists errors among the warnings
        assert _rows(cur, "SHOW COUNT(*) ERRORS") == ((1,),)
        assert _rows(cur, "SHOW COUNT(*) WARNINGS") == ((1,),)
        assert _rows(cur, "SELECT @@error_count") == ((1,),)
        assert _rows(cur, "SHOW ERRORS") == ()  # cleared by the SELECT


def test_failed_config_change_is_an_error_row(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.OperationalError):
            cur.execute(CONFIG_ERROR_SQL)
        (row,) = _rows(cur, "SHOW ERRORS")
        assert row[:2] == ("Error", 1105) and "must be a positive long" in row[2]


def test_diagnostics_are_per_connection(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect() as a, shared_server.connect() as b:
        a.cursor().execute(f"DROP TABLE IF EXISTS {db}.nope")
        assert _rows(b.cursor(), "SHOW WARNINGS") == ()
        assert len(_rows(a.cursor(), "SHOW WARNINGS")) == 1


# -- mysql-connector-python (pure Python)
# ------------------------------------------------------------
def test_connector_selects_and_counts_affected_rows(shared_server: ServerProcess, db: str) -> None:
    conn = connector(shared_server)
    try:
        cur = conn.cursor()
        cur.execute(f"SELECT id, name FROM {db}.t ORDER BY id")
        assert cur.fetchall() == [(1, "alice"), (2, "it's")]
        cur.execute(f"INSERT INTO {db}.t VALUES (3, 'c'), (4, 'd')")
        assert cur.rowcount == 2
        cur.execute(f"UPDATE {db}.t SET name = 'x' WHERE id > 1")
        assert cur.rowcount == 3
    finally:
        conn.close()


@pytest.mark.filterwarnings("ignore::UserWarning")  # mysql-connector also warns in Python
@pytest.mark.parametrize(("sql", "note"), WARNING_CASES, ids=WARNING_IDS)
def test_connector_get_warnings_sees_each_warning(
    shared_server: ServerProcess, db: str, sql: str, note: tuple[str, int, str]
) -> None:
    sql, note = _case(sql, note, db)
    conn = connector(shared_server, get_warnings=True)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        assert cur.warning_count == 1
        assert cur.warnings == [note]
    finally:
        conn.close()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_connector_show_warnings_does_not_recurse(shared_server: ServerProcess, db: str) -> None:
    """With get_warnings=True the driver runs SHOW WARNINGS after any statement reporting
    warnings; SHOW WARNINGS must therefore report 0 warnings itself."""
    conn = connector(shared_server, get_warnings=True)
    try:
        cur = conn.cursor()
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == [("Note", 1051, f"Unknown table '{db}.nope'")]
        assert cur.warning_count == 0 and cur.warnings is None
        cur.execute("SHOW COUNT(*) WARNINGS")
        assert cur.fetchall() == [(1,)] and cur.warnings is None
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate", "text"),
    [
        (PARSE_ERROR_SQL, 1064, "42000", PARSE_ERROR_TEXT),
        (
            CONFIG_ERROR_SQL,
            1105,
            "HY000",
            "Invalid value '0' for config 'lance_index_job_keep_max_second'",
        ),
        ("SELECT * FROM nope.t", 1146, "42S02", "Table 'nope.t' doesn't exist"),
        ("USE nope_db_x", 1049, "42000", "Unknown database 'nope_db_x'"),
    ],
    ids=["parse", "config", "missing_table", "unknown_database"],
)
def test_connector_error_code_and_sqlstate(
    shared_server: ServerProcess, sql: str, errno: int, sqlstate: str, text: str
) -> None:
    conn = connector(shared_server)
    try:
        with pytest.raises(mysql.connector.Error) as err:
            conn.cursor().execute(sql)
        assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)
        assert err.value.msg.startswith(text)
        cur = conn.cursor()
        cur.execute("SHOW ERRORS")
        assert [r[:2] for r in cur.fetchall()] == [("Error", errno)]
    finally:
        conn.close()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_connector_server_side_prepared_statements(shared_server: ServerProcess, db: str) -> None:
    conn = connector(shared_server, get_warnings=True)
    try:
        cur = conn.cursor(prepared=True)
        select = f"SELECT id FROM {db}.t WHERE name = ?"
        cur.execute(select, ("it's",))
        assert cur.fetchall() == [(2,)]
        cur.execute(select, ("' OR '1'='1",))  # the same statement, re-executed
        assert cur.fetchall() == []
        cur.execute(f"INSERT INTO {db}.t VALUES (?, ?)", (3, "back\\slash ' \" ?"))
        assert cur.rowcount == 1
        cur.execute(f"SELECT name FROM {db}.t WHERE id = ?", (3,))
        assert cur.fetchall() == [("back\\slash ' \" ?",)]
        # DECIMAL, DATE, DATETIME and TIME parameters (binary types mysql-mimic alone rejects)
        cur.execute(
            f"CREATE TABLE {db}.typed (d DECIMAL(6,2), day DATE, ts TIMESTAMP, tm TIME, f DOUBLE)"
        )
        cur.execute(
            f"INSERT INTO {db}.typed VALUES (?, ?, ?, ?, ?)",
            (
                decimal.Decimal("1.25"),
                dt.date(2024, 1, 2),
                dt.datetime(2024, 1, 2, 3, 4, 5, 6),
                dt.timedelta(hours=1, seconds=3),
                0.5,
            ),
        )
        cur.execute(
            f"SELECT d, day, ts, tm, f FROM {db}.typed WHERE day = ? AND d = ?",
            (dt.date(2024, 1, 2), decimal.Decimal("1.25")),
        )
        assert cur.fetchall() == [
            (
                decimal.Decimal("1.25"),
                dt.date(2024, 1, 2),
                dt.datetime(2024, 1, 2, 3, 4, 5),  # TIMESTAMP is fsp 0: MySQL keeps no fraction
                dt.timedelta(hours=1, seconds=3),
                0.5,
            )
        ]
        cur.execute("SELECT ?, ?", (None, -7))
        assert cur.fetchall() == [(None, -7)]
        cur.execute(f"DROP TABLE IF EXISTS {db}.nope")  # warnings through a prepared statement
        assert cur.warnings == [("Note", 1051, f"Unknown table '{db}.nope'")]
        with pytest.raises(mysql.connector.Error) as err:
            cur.execute("SELECT * FROM nope.t WHERE a = ?", (1,))
        assert (err.value.errno, err.value.sqlstate) == (1146, "42S02")
    finally:
        conn.close()


# -- the mariadb CLI
# --------------------------------------------------------------------------------
def mariadb(server: ServerProcess, sql: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """Runs the CLI in batch mode with ``sql`` on stdin."""
    cli = shutil.which("mariadb") or shutil.which("mysql")
    if cli is None:
        pytest.skip("the mariadb CLI is missing: apt-get install mariadb-client")
    return subprocess.run(
        [
            cli,
            "-h",
            server.host,
            "-P",
            str(server.port),
            "-u",
            "root",
            "--batch",
            "--connect-timeout=10",
            *flags,
        ],
        input=sql,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_SECONDS,
    )


def _untabled(text: str) -> str:
    """The CLI's boxed table output with the padding around '|' removed."""
    return re.sub(r" *\| *", "|", text)


def test_cli_selects_and_reports_affected_rows(shared_server: ServerProcess, db: str) -> None:
    out = mariadb(shared_server, f"SELECT id, name FROM {db}.t ORDER BY id;\nSELECT 7 FROM DUAL;\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "id\tname\n1\talice\n2\tit's\n7\n7\n"
    out = mariadb(
        shared_server,
        f"INSERT INTO {db}.t VALUES (3, 'c'), (4, 'd');\n"
        f"UPDATE {db}.t SET name = 'x' WHERE id > 2;\n",
        "-vvv",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Query OK, 2 rows affected") == 2  # the INSERT and the UPDATE


@pytest.mark.parametrize(("sql", "note"), WARNING_CASES, ids=WARNING_IDS)
def test_cli_show_warnings_prints_each_note(
    shared_server: ServerProcess, db: str, sql: str, note: tuple[str, int, str]
) -> None:
    sql, note = _case(sql, note, db)
    out = mariadb(shared_server, sql + ";\n", "--show-warnings")
    assert out.returncode == 0, out.stderr
    assert f"{note[0]} (Code {note[1]}): {note[2]}" in out.stdout


def test_cli_warning_count_show_warnings_and_backslash_w(
    shared_server: ServerProcess, db: str
) -> None:
    out = mariadb(shared_server, f"DROP TABLE IF EXISTS {db}.nope;\nSHOW WARNINGS;\n", "-vvv")
    assert out.returncode == 0, out.stderr
    assert "Query OK, 0 rows affected, 1 warning" in out.stdout
    assert f"|Note|1051|Unknown table '{db}.nope'|" in _untabled(out.stdout)
    # \W ("warnings") switches on warning display inside a session; \w switches it off.
    out = mariadb(
        shared_server, f"\\W\nDROP TABLE IF EXISTS {db}.a;\n\\w\nDROP TABLE IF EXISTS {db}.b;\n"
    )
    assert out.returncode == 0, out.stderr
    assert f"Note (Code 1051): Unknown table '{db}.a'" in out.stdout
    assert f"'{db}.b'" not in out.stdout


def test_cli_shows_error_code_and_sqlstate(shared_server: ServerProcess) -> None:
    out = mariadb(shared_server, PARSE_ERROR_SQL + ";\n")
    assert out.returncode == 1
    assert f"ERROR 1064 (42000) at line 1: {PARSE_ERROR_TEXT}" in out.stderr
    out = mariadb(shared_server, "SELECT * FROM nope.t;\n")
    assert "ERROR 1146 (42S02) at line 1: Table 'nope.t' doesn't exist" in out.stderr
    out = mariadb(shared_server, f"{CONFIG_ERROR_SQL};\n", "--force")
    assert "ERROR 1105 (HY000) at line 1: Invalid value '0'" in out.stderr


def test_cli_show_errors_after_a_failed_statement(shared_server: ServerProcess) -> None:
    out = mariadb(
        shared_server, f"{PARSE_ERROR_SQL};\nSHOW ERRORS;\nSHOW COUNT(*) ERRORS;\n", "--force"
    )
    assert f"Error\t1064\t{PARSE_ERROR_TEXT}" in out.stdout
    assert "@@session.error_count\n1\n" in out.stdout


def test_cli_sql_prepared_statement(shared_server: ServerProcess, db: str) -> None:
    """The CLI's only prepared statements: SQL-level PREPARE / EXECUTE USING @var / DEALLOCATE."""
    out = mariadb(
        shared_server,
        f"SET @n = 'it''s';\nPREPARE s FROM 'SELECT id FROM {db}.t WHERE name = ?';\n"
        "EXECUTE s USING @n;\nDEALLOCATE PREPARE s;\n",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "id\n2\n"
    # the text from a variable, re-executed with another value, a DML statement, DROP PREPARE
    out = mariadb(
        shared_server,
        f"SET @q = 'SELECT name FROM {db}.t WHERE id = ?', @id = 1;\n"
        "PREPARE s FROM @q;\nEXECUTE s USING @id;\nSET @id = 2;\nEXECUTE s USING @id;\n"
        f"PREPARE ins FROM 'INSERT INTO {db}.t VALUES (?, ?)';\n"
        "SET @i = 3, @v = 'x''y';\nEXECUTE ins USING @i, @v;\nDROP PREPARE ins;\n"
        f"SELECT count(*) AS n FROM {db}.t;\n",
        "-vvv",
    )
    assert out.returncode == 0, out.stderr
    assert "|alice|" in _untabled(out.stdout) and "|it's|" in _untabled(out.stdout)
    assert "Query OK, 1 row affected" in out.stdout  # the INSERT run by EXECUTE
    assert "|3|" in _untabled(out.stdout)
    # errors: wrong number of values (1210), a deallocated statement (1243)
    out = mariadb(
        shared_server,
        "PREPARE s FROM 'SELECT ?';\nEXECUTE s;\nDEALLOCATE PREPARE s;\nEXECUTE s;\n",
        "--force",
    )
    assert "ERROR 1210 (HY000) at line 2: Incorrect arguments to EXECUTE" in out.stderr
    assert (
        "ERROR 1243 (HY000) at line 4: Unknown prepared statement handler (s) given to EXECUTE"
        in out.stderr
    )
