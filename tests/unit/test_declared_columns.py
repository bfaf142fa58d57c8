"""Column definitions and value forms of declared table columns (server/declared_columns.py), for
the types drydock cannot create yet as well (MEDIUMINT, ZEROFILL, BINARY, SET, YEAR, BIT(1)):
the expected (type code, length, decimals, flags) are MariaDB 10.11's for the same declaration
(tests/wire/test_declared_columns.py checks the creatable ones over the wire)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import sqlglot

from drydock.engine.dictionary.declare import table_def
from drydock.grammar.sql import DrydockMySQL
from drydock.server.declared_columns import declared

CREATE = """CREATE TABLE t (
 mi MEDIUMINT, mu MEDIUMINT UNSIGNED NOT NULL, zf INT(5) ZEROFILL, bin BINARY(4),
 s SET('x','y'), y YEAR, bt1 BIT(1), latin VARCHAR(10) CHARACTER SET latin1,
 du DECIMAL(6,3) UNSIGNED, dbl DOUBLE(8,2), ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
 t3 TIME(3), dt2 DATETIME(2))"""

EXPECTED = {
    "mi": (9, 9, 0, 0),
    "mu": (9, 8, 0, 4129),
    "zf": (3, 5, 0, 96),
    "bin": (254, 4, 0, 128),
    "s": (254, 12, 0, 2048),
    "y": (13, 4, 0, 96),
    "bt1": (16, 1, 0, 32),
    "latin": (253, 40, 0, 0),  # in the results' utf8mb4: 4 bytes a character
    "du": (246, 7, 3, 32),
    "dbl": (5, 8, 2, 0),
    "ts": (7, 19, 0, 1185),  # NOT_NULL|UNSIGNED|BINARY|TIMESTAMP
    "t3": (11, 14, 3, 128),
    "dt2": (12, 22, 2, 128),
}


def _table():  # type: ignore[no-untyped-def]
    return table_def(sqlglot.parse_one(CREATE, read=DrydockMySQL), "db")


def test_definitions_of_types_not_creatable_yet() -> None:
    table = _table()
    got = {}
    for column in table.columns:
        found = declared(table, column.name)
        assert found is not None, column.name
        got[column.name] = (int(found.type), found.length, found.decimals, found.flags)
    assert got == EXPECTED


def test_a_column_the_table_does_not_declare_has_no_definition() -> None:
    assert declared(_table(), "nope") is None


def test_values_in_the_declared_form() -> None:
    table = _table()

    def convert(name: str, value: object) -> object:
        found = declared(table, name)
        assert found is not None and found.convert is not None
        return found.convert(value)

    assert convert("bt1", "1") == b"\x01"
    assert convert("bt1", 1) == b"\x01"
    assert convert("bt1", "not bits") == "not bits"  # sent as stored, never a failure
    assert convert("du", Decimal("1.5")) == "1.500"
    assert convert("y", 2024) == 2024
    # fractions rounded half up to the fsp, carrying into the seconds
    assert convert("dt2", dt.datetime(2024, 1, 1, 23, 59, 59, 996000)) == dt.datetime(2024, 1, 2)
    assert convert("t3", dt.timedelta(seconds=-3723, microseconds=-456700)) == -dt.timedelta(
        seconds=3723, microseconds=457000
    )
    found = declared(table, "dt2")
    assert found is not None and found.text_encoder is not None
    column = found.column("dt2")
    assert found.text_encoder(column, dt.datetime(2024, 1, 1, 10, 0, 0, 500000)) == (
        b"2024-01-01 10:00:00.50"
    )
    ts = declared(table, "ts")
    assert ts is not None and ts.text_encoder is not None
    assert ts.text_encoder(column, dt.datetime(2024, 1, 1, 10, 0)) == b"2024-01-01 10:00:00"
