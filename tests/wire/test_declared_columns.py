"""Result columns read straight from a declared internal table carry MySQL's column definition
of the declared type (server/declared_columns.py): type code, length, decimals and flags, in the
text protocol, the binary protocol and COM_STMT_PREPARE's column list; values print in the
declared form (fsp, scale, BIT bytes). Expected definitions are MariaDB 10.11's for the same
table (they agree with MySQL 8.0 here; JSON is MySQL 8's type 245).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import mysql.connector
import pymysql
import pytest

from tests.conftest import ServerProcess

TABLE = """CREATE TABLE dc.t (
 id INT AUTO_INCREMENT PRIMARY KEY,
 b TINYINT(1) NOT NULL DEFAULT 0,
 ti TINYINT, si SMALLINT UNSIGNED, i INT UNSIGNED NOT NULL, bi BIGINT,
 d DECIMAL(10,2), d0 DECIMAL(5,0), f FLOAT, f2 FLOAT(7,3), db DOUBLE,
 c CHAR(10), vc VARCHAR(40) NOT NULL, vb BLOB,
 tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, lb LONGBLOB,
 e ENUM('a','bb') NOT NULL,
 dt DATE, dtm DATETIME, dtm3 DATETIME(3),
 ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
 ts6 TIMESTAMP(6) NULL, tm TIME, tm2 TIME(2), bt BIT(8), j JSON,
 u VARCHAR(10) UNIQUE, m INT, k1 INT NOT NULL, k2 INT NOT NULL,
 KEY (m), UNIQUE KEY (k1, k2)
)"""
ROW = """INSERT INTO dc.t VALUES (NULL, 1, -5, 7, 9, 10, 3.5, 12, 1.5, 2.25, 3.125,
 'ch', 'vc', 'vb', 'tt', 'tx', 'mt', 'lt', 'lb', 'bb',
 '2024-01-02', '2024-01-01 10:00:00', '2024-01-01 10:00:00.5', '2024-01-01 10:00:00',
 '2024-01-01 10:00:00.123456', '10:00:00', '01:02:03.456', b'1010', '{"a": 1}', 'u', 5, 1, 2)"""

# name: (type code, length, decimals, flags), as MariaDB 10.11 sends them for this table
DEFINITIONS = {
    "id": (3, 11, 0, 16899),  # NOT_NULL|PRI_KEY|AUTO_INCREMENT|PART_KEY
    "b": (1, 1, 0, 1),  # TINYINT(1): length 1 (Connector/J's Boolean)
    "ti": (1, 4, 0, 0),
    "si": (2, 5, 0, 32),
    "i": (3, 10, 0, 4129),  # NOT_NULL|UNSIGNED|NO_DEFAULT_VALUE
    "bi": (8, 20, 0, 0),
    "d": (246, 12, 2, 0),
    "d0": (246, 6, 0, 0),
    "f": (4, 12, 31, 0),
    "f2": (4, 7, 3, 0),
    "db": (5, 22, 31, 0),
    "c": (254, 40, 0, 0),
    "vc": (253, 160, 0, 4097),
    "vb": (252, 65535, 0, 144),
    "tt": (252, 1020, 0, 16),
    "tx": (252, 262140, 0, 16),
    "mt": (252, 67108860, 0, 16),
    "lt": (252, 4294967295, 0, 16),
    "lb": (252, 4294967295, 0, 144),
    "e": (254, 8, 0, 4353),  # NOT_NULL|ENUM|NO_DEFAULT_VALUE
    "dt": (10, 10, 0, 128),
    "dtm": (12, 19, 0, 128),
    "dtm3": (12, 23, 3, 128),
    "ts": (7, 19, 0, 9376),  # UNSIGNED|BINARY|TIMESTAMP|ON_UPDATE_NOW
    "ts6": (7, 26, 6, 160),
    "tm": (11, 10, 0, 128),
    "tm2": (11, 13, 2, 128),
    "bt": (16, 8, 0, 32),
    "j": (245, 4294967295, 0, 144),  # MySQL 8's JSON (MariaDB's is LONGTEXT)
    "u": (253, 40, 0, 16388),  # UNIQUE_KEY|PART_KEY
    "m": (3, 11, 0, 16392),  # MULTIPLE_KEY|PART_KEY
    "k1": (3, 11, 0, 20489),  # first of a two-column unique key: MULTIPLE_KEY
    "k2": (3, 11, 0, 20481),
}
BINARY_CHARSET = 63
TEXT_COLUMNS = {"c", "vc", "tt", "tx", "mt", "lt", "e", "u"}

TEXT_VALUES = {
    "b": 1,
    "si": 7,
    "d": Decimal("3.50"),
    "d0": Decimal(12),
    "dtm": dt.datetime(2024, 1, 1, 10, 0),
    "dtm3": dt.datetime(2024, 1, 1, 10, 0, 0, 500000),
    "ts6": dt.datetime(2024, 1, 1, 10, 0, 0, 123456),
    "tm2": dt.timedelta(seconds=3723, microseconds=460000),  # .456 rounded to TIME(2)
    "bt": b"\n",
    "e": "bb",
    "vb": b"vb",
}


@pytest.fixture(scope="module")
def dc(shared_server: ServerProcess) -> ServerProcess:
    conn = shared_server.connect()
    with conn.cursor() as cur:
        for sql in ("CREATE DATABASE dc", TABLE, ROW):
            cur.execute(sql)
    conn.close()
    return shared_server


def _fields(conn: Any, sql: str) -> tuple[list[Any], tuple[Any, ...]]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur._result.fields, cur.fetchone()


def test_text_protocol_definitions_are_mysqls(dc: ServerProcess) -> None:
    conn = dc.connect()
    fields, _ = _fields(conn, "SELECT * FROM dc.t")
    got = {f.name: (f.type_code, f.length, f.scale, f.flags) for f in fields}
    assert got == DEFINITIONS
    for f in fields:
        assert (f.db, f.table_name, f.org_table, f.org_name) == (b"dc", "t", "t", f.name)
        assert (f.charsetnr != BINARY_CHARSET) == (f.name in TEXT_COLUMNS), f.name


def test_text_protocol_values_in_declared_form(dc: ServerProcess) -> None:
    conn = dc.connect()
    fields, row = _fields(conn, "SELECT * FROM dc.t")
    values = dict(zip([f.name for f in fields], row))
    for name, want in TEXT_VALUES.items():
        assert values[name] == want, name
    raw = pymysql.connect(
        host=dc.host, port=dc.port, user="root", password="", conv={}, autocommit=True
    )
    _, texts = _fields(raw, "SELECT dtm, dtm3, ts, ts6, tm, tm2, d, b FROM dc.t")
    assert texts == (
        "2024-01-01 10:00:00",
        "2024-01-01 10:00:00.500",
        "2024-01-01 10:00:00",
        "2024-01-01 10:00:00.123456",
        "10:00:00",
        "01:02:03.46",
        "3.50",
        "1",
    )


def test_aliased_and_qualified_columns_keep_the_definition(dc: ServerProcess) -> None:
    conn = dc.connect()
    fields, _ = _fields(conn, "SELECT x.id AS n, x.vc, x.id + 1 FROM dc.t AS x")
    assert (fields[0].name, fields[0].org_name, fields[0].table_name) == ("n", "id", "x")
    assert (fields[0].type_code, fields[0].length, fields[0].flags) == (3, 11, 16899)
    assert (fields[1].type_code, fields[1].length, fields[1].flags) == (253, 160, 4097)
    assert fields[2].org_name == "" or fields[2].org_table == ""  # an expression: no definition
    assert fields[2].flags & 0x4000 == 0
    # org_name / org_table are the declared spellings, however the query wrote them
    fields, _ = _fields(conn, "SELECT ID FROM dc.T")
    assert (fields[0].org_name, fields[0].org_table) == ("id", "t")


def test_key_flags_follow_the_keys(dc: ServerProcess) -> None:
    conn = dc.connect()
    with conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE dc.k (a INT NOT NULL, b INT NOT NULL, c INT NOT NULL UNIQUE, "
            "PRIMARY KEY (a, b))"
        )
        cur.execute("CREATE TABLE dc.q (a INT NOT NULL UNIQUE, b INT)")
    fields, _ = _fields(conn, "SELECT * FROM dc.k")
    assert [f.flags for f in fields] == [20483, 20483, 20485]
    # no PRIMARY KEY: the first NOT NULL UNIQUE key is taken as the primary key, as in MySQL
    fields, _ = _fields(conn, "SELECT * FROM dc.q")
    assert [f.flags for f in fields] == [20483, 0]


def test_definitions_follow_ddl(dc: ServerProcess) -> None:
    conn = dc.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE dc.r (v VARCHAR(5))")
        assert _fields(conn, "SELECT v FROM dc.r")[0][0].length == 20
        cur.execute("DROP TABLE dc.r")
        cur.execute("CREATE TABLE dc.r (v VARCHAR(7) NOT NULL)")
        field = _fields(conn, "SELECT v FROM dc.r")[0][0]
        assert (field.length, field.flags) == (28, 4097)


def test_table_without_definition_keeps_duckdb_types(dc: ServerProcess) -> None:
    conn = dc.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE dc.s AS SELECT 1 AS n, 'x' AS v")
    fields, _ = _fields(conn, "SELECT n, v FROM dc.s")
    assert fields[0].type_code == 3 and fields[0].flags & 32768  # as before: DuckDB's INTEGER
    assert fields[1].length == 262140


def _connector(server: ServerProcess) -> Any:
    return mysql.connector.connect(
        host=server.host,
        port=server.port,
        user="root",
        password="",
        use_pure=True,
        connection_timeout=10,
    )


def test_binary_protocol_definitions_and_values(dc: ServerProcess) -> None:
    conn = _connector(dc)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute(
            "SELECT b, si, i, d, dtm, dtm3, ts, tm2, bt, e, vc FROM dc.t WHERE id = ?", (1,)
        )
        row = cur.fetchone()
        names = [d[0] for d in cur.description]
        assert [(d[1], d[7]) for d in cur.description] == [
            DEFINITIONS[n][0:1] + DEFINITIONS[n][3:4] for n in names
        ]
        assert tuple(bytes(v) if isinstance(v, bytearray) else v for v in row) == (
            1,
            7,
            9,
            Decimal("3.50"),
            dt.datetime(2024, 1, 1, 10, 0),
            dt.datetime(2024, 1, 1, 10, 0, 0, 500000),
            dt.datetime(2024, 1, 1, 10, 0),
            dt.timedelta(seconds=3723, microseconds=460000),
            b"\n",
            "bb",
            "vc",
        )
    finally:
        conn.close()


def test_prepare_column_list_is_the_declared_one(dc: ServerProcess) -> None:
    conn = _connector(dc)
    try:
        prepared = conn.cmd_stmt_prepare(b"SELECT b, vc, dtm3 FROM dc.t WHERE id = ?")
        columns = prepared["columns"]
        assert [(c[0], c[1], c[7]) for c in columns] == [
            ("b", 1, 1),
            ("vc", 253, 4097),
            ("dtm3", 12, 128),
        ]
        conn.cmd_stmt_close(prepared["statement_id"])
    finally:
        conn.close()


def test_mysqlclient_converts_by_the_declared_types(dc: ServerProcess) -> None:
    """libmariadb (mysqlclient's C client) picks each value's Python type by the type code."""
    MySQLdb = pytest.importorskip("MySQLdb")
    conn = MySQLdb.connect(
        host=dc.host, port=dc.port, user="root", passwd="", charset="utf8mb4", connect_timeout=10
    )
    try:
        cur = conn.cursor()
        cur.execute("SELECT b, d, dtm, dtm3, tm2, bt, e, vb, i FROM dc.t")
        assert [d[1] for d in cur.description] == [1, 246, 12, 12, 11, 16, 254, 252, 3]
        assert cur.fetchone() == (
            1,
            Decimal("3.50"),
            dt.datetime(2024, 1, 1, 10, 0),
            dt.datetime(2024, 1, 1, 10, 0, 0, 500000),
            dt.timedelta(seconds=3723, microseconds=460000),
            b"\n",
            "bb",
            b"vb",
            9,
        )
    finally:
        conn.close()


def test_bool_is_tinyint_1_printing_0_and_1(dc: ServerProcess) -> None:
    """BOOL is TINYINT(1) to MySQL; DuckDB stores it as BOOLEAN, whose values still print 0/1."""
    conn = dc.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE dc.flags (on_ BOOL, off_ BOOLEAN NOT NULL)")
        cur.execute("INSERT INTO dc.flags VALUES (true, false)")
    fields, row = _fields(conn, "SELECT on_, off_ FROM dc.flags")
    assert [(f.type_code, f.length, f.flags) for f in fields] == [(1, 1, 0), (1, 1, 4097)]
    assert row == (1, 0)
    binary = _connector(dc)
    try:
        cur = binary.cursor(prepared=True)
        cur.execute("SELECT on_, off_ FROM dc.flags WHERE off_ = ?", (0,))
        assert cur.fetchall() == [(1, 0)]
    finally:
        binary.close()
