"""The binary protocol (prepared statements) against a real MariaDB: one table holding every type
at the ends of its range, and typed parameters, read with mysql-connector-python's prepared
cursor (its pure-Python protocol) from both servers; values and type codes must be MariaDB's.

Before: a BIGINT UNSIGNED above 2^63-1 made the server fail while writing the rows, TINYINT 5
arrived as 1, and a DOUBLE parameter came back as a DECIMAL ('SELECT ? + 1' with 41.0 → 42.0
as Decimal).
"""

from __future__ import annotations

import decimal
from typing import Any

import mysql.connector
import pytest

from tests.conftest import ServerProcess
from tests.support.mariadb import mariadb_server

TABLE = """CREATE TABLE bp.ty (id INT, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT,
 su SMALLINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE,
 dc DECIMAL(20,4), dt DATE, dtt DATETIME, dt6 DATETIME(6), tm TIME, vc VARCHAR(20), bl BLOB)"""
ROWS = """INSERT INTO bp.ty VALUES
 (1, -128, 255, -32768, 65535, -2147483648, 4294967295, -9223372036854775808,
  18446744073709551615, -1.5, -2.25e300, -1234567890123456.7891, '1000-01-01',
  '1000-01-01 00:00:00', '2024-01-01 10:00:00.123456', '12:34:56', 'x''y', X'00ff'),
 (2, 127, 0, 32767, 0, 2147483647, 0, 9223372036854775807, 9223372036854775808, 3.5, 1e-300,
  0.0001, '9999-12-31', '9999-12-31 23:59:59', '2024-01-01 10:00:00', '23:59:59', '', X''),
 (3, 5, 200, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  '00:00:00', NULL, NULL)"""

QUERIES: list[tuple[str, tuple[Any, ...]]] = [
    ("SELECT * FROM bp.ty ORDER BY id", ()),
    ("SELECT bu, bu - 1 FROM bp.ty WHERE id = 1", ()),
    ("SELECT CAST(18446744073709551615 AS UNSIGNED), -5, NULL", ()),
    ("SELECT ? + 1", (41.0,)),
    ("SELECT ? + 1", (41,)),
    ("SELECT ? + 1", (decimal.Decimal("41.50"),)),
    ("SELECT ?", (18446744073709551615,)),
    ("SELECT ? * 2", (1e20,)),
    ("SELECT id FROM bp.ty WHERE bu = ?", (18446744073709551615,)),
]


def _answers(host: str, port: int) -> list[Any]:
    conn = mysql.connector.connect(
        host=host, port=port, user="root", password="", use_pure=True, connection_timeout=10
    )
    try:
        setup = conn.cursor()
        for sql in ("DROP DATABASE IF EXISTS bp", "CREATE DATABASE bp", TABLE, ROWS):
            setup.execute(sql)
        conn.commit()
        out: list[Any] = []
        for sql, args in QUERIES:
            cur = conn.cursor(prepared=True)
            cur.execute(sql, args)
            rows = [tuple(bytes(v) if isinstance(v, bytearray) else v for v in r) for r in cur]
            out.append((sql, args, rows, [d[1] for d in cur.description]))
        return out
    finally:
        conn.close()


# Integer expressions MariaDB types INT (3) and MySQL 8 BIGINT (8): the literal -5 and an integer
# parameter plus 1 (server/expression_columns.py; MariaDB narrows them when the length fits).
# By query index: the positions of such columns.
_MYSQL8_BIGINT = {2: (1,), 4: (0,)}


def _as_mysql8(answers: list[Any]) -> list[Any]:
    out = list(answers)
    for index, positions in _MYSQL8_BIGINT.items():
        sql, args, rows, types = out[index]
        types = [8 if i in positions and t == 3 else t for i, t in enumerate(types)]
        out[index] = (sql, args, rows, types)
    return out


@pytest.fixture(scope="module")
def mariadb_answers() -> list[Any]:
    with mariadb_server() as address:
        return _as_mysql8(_answers(*address))


@pytest.fixture(scope="module")
def drydock_answers(shared_server: ServerProcess) -> list[Any]:
    return _answers(shared_server.host, shared_server.port)


@pytest.mark.parametrize("index", range(len(QUERIES)))
def test_prepared_results_are_mariadbs(
    drydock_answers: list[Any], mariadb_answers: list[Any], index: int
) -> None:
    assert drydock_answers[index] == mariadb_answers[index]
