"""What information_schema and SHOW CREATE TABLE show of a definition (engine/dictionary/
info_rows.py, create_text.py, check_text.py), from MySQL DDL as the dictionary reads it."""

from __future__ import annotations

import pytest
import sqlglot

from drydock.engine.dictionary import create_text, declare, info_rows
from drydock.engine.dictionary.check_text import check_clause
from drydock.engine.dictionary.model import TableDef


def _table(ddl: str) -> TableDef:
    return declare.table_def(sqlglot.parse_one(ddl, read="mysql"), "d")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ddl", "keys"),
    [
        # every column of a composite primary key is PRI
        ("CREATE TABLE t (a INT, b INT, c INT, PRIMARY KEY (a, b))", {"a": "PRI", "b": "PRI"}),
        # a one-column unique key is UNI; the first column of a composite one is MUL
        (
            "CREATE TABLE t (a INT, b INT, c INT, UNIQUE KEY (a), UNIQUE KEY (b, c))",
            {"a": "UNI", "b": "MUL"},
        ),
        # no primary key: the first UNIQUE key on NOT NULL columns shows as PRI
        (
            "CREATE TABLE t (a INT NOT NULL, b INT, UNIQUE KEY (a), KEY (b))",
            {"a": "PRI", "b": "MUL"},
        ),
        ("CREATE TABLE t (a INT, b INT, KEY (a, b))", {"a": "MUL"}),
    ],
)
def test_column_key_as_mysql_decides_it(ddl: str, keys: dict[str, str]) -> None:
    assert info_rows.column_keys(_table(ddl)) == keys


def test_defaults_extra_and_lengths() -> None:
    table = _table(
        "CREATE TABLE t (d DECIMAL(6,3) DEFAULT 1, b BOOL DEFAULT FALSE, s VARCHAR(9) "
        "CHARACTER SET latin1 DEFAULT 'it''s', e INT DEFAULT (1 + 2), "
        "ts TIMESTAMP(2) NULL DEFAULT CURRENT_TIMESTAMP(2) ON UPDATE CURRENT_TIMESTAMP(2), "
        "dt DATETIME DEFAULT '2020-01-02')"
    )
    rows = {r["column_name"]: r for r in info_rows.column_rows(table)}
    assert [rows[c]["column_default"] for c in ("d", "b", "s", "e", "ts", "dt")] == [
        "1.000",
        "0",
        "it's",
        "1 + 2",
        "CURRENT_TIMESTAMP(2)",
        "2020-01-02 00:00:00",
    ]
    assert rows["e"]["extra"] == "DEFAULT_GENERATED"
    assert rows["ts"]["extra"] == "DEFAULT_GENERATED on update CURRENT_TIMESTAMP(2)"
    assert (rows["s"]["character_set_name"], rows["s"]["collation_name"]) == (
        "latin1",
        "latin1_swedish_ci",
    )
    assert rows["s"]["character_octet_length"] == 9  # one byte per latin1 character
    assert create_text.column_line(table, table.columns[2]) == (
        "`s` varchar(9) CHARACTER SET latin1 DEFAULT 'it\\'s'"
    )
    assert create_text.column_line(table, table.columns[3]) == "`e` int DEFAULT (1 + 2)"
    assert create_text.column_line(table, table.columns[4]) == (
        "`ts` timestamp(2) NULL DEFAULT CURRENT_TIMESTAMP(2) ON UPDATE CURRENT_TIMESTAMP(2)"
    )


def test_keys_in_mysqls_order() -> None:
    table = _table(
        "CREATE TABLE t (a INT, b INT NOT NULL, c TEXT, KEY k1 (a), FULLTEXT KEY f (c), "
        "UNIQUE KEY u1 (a), UNIQUE KEY u2 (b), PRIMARY KEY (b))"
    )
    assert [k.name for k in info_rows.ordered_keys(table)] == ["PRIMARY", "u2", "u1", "k1", "f"]


@pytest.mark.parametrize(
    ("expression", "clause"),
    [
        ("c > 0", "(`c` > 0)"),
        ("c > 0 AND s <> 'x'", "((`c` > 0) and (`s` <> _utf8mb4'x'))"),
        ("c IN ('a', 'b')", "(`c` in (_utf8mb4'a',_utf8mb4'b'))"),
        ("c IS NOT NULL", "(`c` is not null)"),
        ("c BETWEEN 1 AND 5", "(`c` between 1 and 5)"),
    ],
)
def test_check_clause_as_mysql_prints_it(expression: str, clause: str) -> None:
    assert check_clause(expression) == clause
