"""The Python rows of the client matrix: pymysql, mysql-connector (pure Python and C extension)
and mysqlclient, each against one server for the module. Per driver: MySQL's result type codes
and scale, error codes → the driver's exception class, CLIENT_MULTI_STATEMENTS, sql_select_limit,
SHOW VARIABLES WHERE, bytes round trips (``_binary'…'`` / ``X'…'``) and a latin1 client."""

from __future__ import annotations

import decimal
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.clients.drivers import NAMES, Driver, load
from tests.conftest import ServerProcess

VAR_STRING, NEWDECIMAL, BLOB = 253, 246, 252


@pytest.fixture(params=NAMES)
def driver(request: pytest.FixtureRequest) -> Driver:
    return load(request.param)


@pytest.fixture
def db(shared_server: ServerProcess) -> Iterator[str]:
    name = f"drv_{uuid.uuid4().hex[:10]}"
    for sql in [
        f"CREATE DATABASE {name}",
        (
            f"CREATE TABLE {name}.t (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price "
            f"DECIMAL(10,2), "
            f"small TINYINT)"
        ),
        f"CREATE TABLE {name}.child (id INT PRIMARY KEY, tid INT, "
        f"FOREIGN KEY (tid) REFERENCES {name}.t(id))",  # inline REFERENCES: ignored, as MySQL
        f"CREATE TABLE {name}.b (id INT, data BLOB)",
        f"INSERT INTO {name}.t VALUES (1, 'a', 1.50, 1), (2, 'b', 2.25, 2), (3, 'c', 3.00, 3)",
        f"INSERT INTO {name}.child VALUES (1, 1)",
    ]:
        shared_server.query(sql)
    yield name
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")


def _rows(conn: Any, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    cur = conn.cursor()
    try:
        cur.execute(sql, params)
        return [tuple(r) for r in cur.fetchall()]
    finally:
        cur.close()


def test_string_columns_have_mysqls_type_codes_and_decimal_its_scale(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    with driver.connect(shared_server, db) as conn:
        cur = conn.cursor()
        cur.execute("SELECT name, price, CONCAT(name, 'x') AS c FROM t WHERE id = 1")
        description = cur.description
        assert [tuple(r) for r in cur.fetchall()] == [("a", decimal.Decimal("1.50"), "ax")]
    assert [d[1] for d in description] == [VAR_STRING, NEWDECIMAL, VAR_STRING]
    if driver.describes_scale:
        assert description[1][5] == 2  # DECIMAL(10,2): decimals in the column definition


def test_prepared_statement_reads_string_columns(shared_server: ServerProcess, db: str) -> None:
    """mysql-connector's prepared cursor (binary protocol): string columns as VAR_STRING, and a
    string parameter bound safely."""
    driver = load("connector-pure")
    with driver.connect(shared_server, db) as conn:
        cur = conn.cursor(prepared=True)
        cur.execute("SELECT id, name, price FROM t WHERE name = %s", ("b",))
        assert [tuple(r) for r in cur.fetchall()] == [(2, "b", decimal.Decimal("2.25"))]
        assert [d[1] for d in cur.description] == [3, VAR_STRING, NEWDECIMAL]


# (statement, MySQL code, SQLSTATE, DB-API exception class name every driver raises for it)
ERROR_CASES = [
    ("INSERT INTO t VALUES (1, 'dup', 0, 0)", 1062, "23000", "IntegrityError"),
    ("INSERT INTO t VALUES (9, NULL, 0, 0)", 1048, "23000", "IntegrityError"),
    ("DELETE FROM t WHERE id = 1", 1451, "23000", "IntegrityError"),
    ("INSERT INTO child VALUES (2, 99)", 1452, "23000", "IntegrityError"),
    ("SELECT * FROM nosuch", 1146, "42S02", "ProgrammingError"),
    ("SELECT nosuch FROM t", 1054, "42S22", "DatabaseError"),
    ("CREATE TABLE t (x INT)", 1050, "42S01", "DatabaseError"),
    ("INSERT INTO t VALUES (9, 'x', 0, 1000)", 1264, "22003", "DataError"),
    ("INSERT INTO t VALUES ('abc', 'x', 0, 0)", 1366, "HY000", "DatabaseError"),
]


@pytest.mark.parametrize(
    "sql, code, sqlstate, class_name", ERROR_CASES, ids=[str(c[1]) for c in ERROR_CASES]
)
def test_errors_raise_the_drivers_exception_class_for_mysqls_code(
    driver: Driver,
    shared_server: ServerProcess,
    db: str,
    sql: str,
    code: int,
    sqlstate: str,
    class_name: str,
) -> None:
    with driver.connect(shared_server, db) as conn:
        with pytest.raises(getattr(driver.module, class_name)) as info:
            _rows(conn, sql)
        assert info.value.args[0] == code or getattr(info.value, "errno", None) == code
        state = getattr(info.value, "sqlstate", None)
        if state is not None:
            assert state == sqlstate
        assert _rows(conn, "SELECT count(*) FROM t") == [(3,)]  # nothing changed


def test_multi_statements_answer_each_statement_with_the_flag_only(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    if driver.name.startswith("connector"):
        pytest.skip(
            "mysql-connector 9+/26 splits multi-statement text client-side (map_results); "
            "the wire behaviour is covered by pymysql and mysqlclient"
        )
    with driver.connect(shared_server, db, multi=True) as conn:
        cur = conn.cursor()
        cur.execute(
            "INSERT INTO t VALUES (7, 'g;h', 0, 0); SELECT name FROM t WHERE id = 7; "
            "SELECT ';' AS s -- a comment;\n"
        )
        results = []
        while True:
            results.append(
                (cur.rowcount, [tuple(r) for r in cur.fetchall()] if cur.description else None)
            )
            if not cur.nextset():
                break
        assert results == [(1, None), (1, [("g;h",)]), (1, [(";",)])]
        with pytest.raises(driver.module.ProgrammingError):
            cur.execute("SELECT 1; SELECT * FROM nosuch; INSERT INTO t VALUES (8, 'never', 0, 0)")
            while cur.nextset():
                pass
    assert _rows(driver.connect(shared_server, db), "SELECT count(*) FROM t WHERE id = 8") == [(0,)]
    with driver.connect(shared_server, db) as conn:  # without the flag: one statement per query
        with pytest.raises(driver.module.ProgrammingError) as info:
            _rows(conn, "SELECT 1; SELECT 2")
        assert info.value.args[0] == 1064


def test_sql_select_limit_limits_top_level_selects_only(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    with driver.connect(shared_server, db) as conn:
        _rows(conn, "SET sql_select_limit = 2")
        assert len(_rows(conn, "SELECT * FROM t")) == 2
        assert len(_rows(conn, "SELECT * FROM t LIMIT 3")) == 3  # the statement's own LIMIT wins
        assert _rows(conn, "SELECT count(*) FROM (SELECT * FROM t) s") == [(3,)]
        _rows(conn, "SET sql_select_limit = DEFAULT")
        assert len(_rows(conn, "SELECT * FROM t")) == 3
        assert _rows(conn, "SELECT @@sql_select_limit") == [(18446744073709551615,)]


def test_show_variables_where_filters_and_safe_updates_exist(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    with driver.connect(shared_server, db) as conn:
        rows = _rows(
            conn, "SHOW VARIABLES WHERE Variable_name IN ('sql_safe_updates', 'version_comment')"
        )
        assert sorted(r[0] for r in rows) == ["sql_safe_updates", "version_comment"]
        assert _rows(conn, "SHOW SESSION VARIABLES WHERE Value = 'no such value'") == []
        _rows(conn, "SET sql_safe_updates = 1")
        with pytest.raises(driver.module.DatabaseError) as info:
            _rows(conn, "DELETE FROM t")
        assert info.value.args[0] == 1175 or getattr(info.value, "errno", None) == 1175
        _rows(conn, "DELETE FROM t WHERE id = 3")
        assert _rows(conn, "SELECT count(*) FROM t") == [(2,)]


def test_bytes_round_trip_through_the_drivers_own_binding(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    data = bytes(range(256)) + b"'\\\x00"
    with driver.connect(shared_server, db) as conn:
        cur = conn.cursor()
        cur.execute("INSERT INTO b VALUES (%s, %s)", (1, data))
        cur.execute("SELECT data FROM b WHERE id = 1")
        ((value,),) = cur.fetchall()
        assert [d[1] for d in cur.description] == [BLOB]
    assert bytes(value) == data


def test_latin1_client_reads_and_writes_its_own_character_set(
    driver: Driver, shared_server: ServerProcess, db: str
) -> None:
    with driver.connect(shared_server, db, charset="latin1") as conn:
        cur = conn.cursor()
        cur.execute("INSERT INTO t VALUES (%s, %s, 0, 0)", (5, "ñé"))
        cur.execute("SELECT name, @@character_set_results FROM t WHERE id = 5")
        assert [tuple(r) for r in cur.fetchall()] == [("ñé", "latin1")]
    assert shared_server.query(f"SELECT hex(name) FROM {db}.t WHERE id = 5") == [
        ("C3B1C3A9",)
    ]  # stored as UTF-8
