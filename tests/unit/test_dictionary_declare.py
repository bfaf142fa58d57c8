"""The data dictionary's values as MySQL's CREATE TABLE declares them (engine/dictionary/)."""

from __future__ import annotations

import duckdb
import sqlglot

from drydock.engine.dictionary import store
from drydock.engine.dictionary.declare import table_def
from drydock.engine.dictionary.model import table_from_json
from drydock.grammar.sql import DrydockMySQL

CREATE = """CREATE TABLE t (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'pk',
  a VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT 'it''s',
  b ENUM('x','y') NOT NULL, c DECIMAL(10,2), d DATETIME(3) ON UPDATE CURRENT_TIMESTAMP(3),
  e TINYINT(1), f INT ZEROFILL, g SET('a','b'), h BIT(3), y YEAR, tx TEXT(100), s SERIAL,
  n NUMERIC, fl FLOAT(30), ch CHAR,
  PRIMARY KEY (id), UNIQUE KEY uk (a(10), b), KEY k1 (c DESC), FULLTEXT KEY ft (a),
  CONSTRAINT fk1 FOREIGN KEY (e) REFERENCES other (id) ON DELETE CASCADE ON UPDATE SET NULL,
  FOREIGN KEY (y) REFERENCES db2.yy (y), CONSTRAINT ck CHECK (c > 0), CHECK (e IN (0, 1)),
  UNIQUE (e)
) ENGINE=InnoDB COMMENT='hello'"""


def _table():  # type: ignore[no-untyped-def]
    return table_def(sqlglot.parse_one(CREATE, read=DrydockMySQL), "db")


def test_column_types_as_mysql_8_writes_them() -> None:
    types = {c.name: c.column_type() for c in _table().columns}
    assert types == {
        "id": "int unsigned",
        "a": "varchar(40)",
        "b": "enum('x','y')",
        "c": "decimal(10,2)",
        "d": "datetime(3)",
        "e": "tinyint(1)",
        "f": "int(10) unsigned zerofill",
        "g": "set('a','b')",
        "h": "bit(3)",
        "y": "year",
        "tx": "text",  # TEXT(100): the smallest type holding 100 utf8mb4 characters
        "s": "bigint unsigned",
        "n": "decimal(10,0)",
        "fl": "double",
        "ch": "char(1)",
    }


def test_column_attributes() -> None:
    t = _table()
    a, b, d, s, idc = (t.column(n) for n in ("a", "b", "d", "s", "id"))
    assert a is not None and (a.default, a.charset, a.collation) == (
        "'it''s'",
        "utf8mb4",
        "utf8mb4_bin",
    )
    assert a.character_maximum_length() == 40
    assert b is not None and not b.nullable and b.character_maximum_length() == 1
    assert d is not None and d.on_update == "CURRENT_TIMESTAMP(3)" and d.fsp == 3
    assert s is not None and s.auto_increment and not s.nullable
    assert idc is not None and idc.comment == "pk" and idc.integer_range() == (0, 4294967295)
    assert t.comment == "hello"


def test_keys_named_and_ordered_as_mysql() -> None:
    t = _table()
    assert [(k.name, k.kind, k.columns) for k in t.keys] == [
        ("PRIMARY", "PRIMARY", ("id",)),
        ("s", "UNIQUE", ("s",)),  # SERIAL's implicit UNIQUE
        ("uk", "UNIQUE", ("a", "b")),
        ("e", "UNIQUE", ("e",)),  # unnamed: its first column
        ("k1", "INDEX", ("c",)),
        ("ft", "FULLTEXT", ("a",)),
        ("y", "INDEX", ("y",)),  # InnoDB's index for a foreign key no key starts with
    ]
    uk = t.key("uk")
    assert uk is not None and uk.parts[0].prefix == 10
    k1 = t.key("k1")
    assert k1 is not None and k1.parts[0].descending


def test_foreign_keys_and_checks_named_as_mysql() -> None:
    t = _table()
    assert [
        (f.name, f.columns, f.ref_schema, f.ref_table, f.on_delete, f.on_update)
        for f in t.foreign_keys
    ] == [
        ("fk1", ("e",), "db", "other", "CASCADE", "SET NULL"),
        ("t_ibfk_1", ("y",), "db2", "yy", "NO ACTION", "NO ACTION"),
    ]
    assert [(c.name, c.expression) for c in t.checks] == [
        ("ck", "c > 0"),
        ("t_chk_1", "e IN (0, 1)"),
    ]


def test_json_round_trip_and_store() -> None:
    t = _table()
    assert table_from_json(t.to_json()) == t
    con = duckdb.connect()
    con.execute("ATTACH ':memory:' AS internal")
    store.ensure(con)
    store.ensure(con)  # idempotent
    con.execute(store.save_sql(t))
    assert store.load(con, "DB", "T") == t  # keys are case-insensitive, as DuckDB's names
    con.execute(store.save_sql(t))  # replaces
    assert store.load_schema(con, "db") == [t]
    con.execute(store.delete_sql("db", "t"))
    assert store.load(con, "db", "t") is None


def test_bare_varchar_is_duckdbs_spelling() -> None:
    """MySQL requires VARCHAR's length; DuckDB's bare VARCHAR still creates a table, described
    from DuckDB's own type."""
    t = table_def(
        sqlglot.parse_one("CREATE TABLE t (v VARCHAR, w VARCHAR(3))", read=DrydockMySQL), "db"
    )
    v, w = t.columns
    assert not v.is_mysql_type
    assert w.is_mysql_type and w.column_type() == "varchar(3)"
