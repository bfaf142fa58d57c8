"""Unit tests of the wire-fidelity pieces: multi-statement splitting (grammar/lexer.py), column
definitions (server/column_meta.py), result column origins (engine/sql/result_origins.py) and the
session limits (engine/sql/session_limits.py)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot
from mysql_mimic import ResultColumn
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import ColumnType

from sqlglot import exp

from drydock.engine.dictionary.model import ColumnDef, KeyDef, KeyPart, TableDef
from drydock.engine.sql import result_origins, session_limits
from drydock.engine.errors import DrydockError
from drydock.engine.sql.result_origins import Origin
from drydock.engine.session import INTERNAL, SessionContext
from drydock.grammar import lexer
from drydock.server import column_meta


@pytest.mark.parametrize(
    "sql, parts",
    [
        ("SELECT 1; SELECT 2", ["SELECT 1;", " SELECT 2"]),
        (
            "SELECT ';' ; SELECT \"a;b\"; SELECT `c;d`",
            ["SELECT ';' ;", ' SELECT "a;b";', " SELECT `c;d`"],
        ),
        ("SELECT 1 -- x;y\n; SELECT 2 # z;\n", ["SELECT 1 -- x;y\n;", " SELECT 2 # z;\n"]),
        ("SELECT /* a;b */ 1; ;; SELECT 'it''s;' ;", ["SELECT /* a;b */ 1;", " SELECT 'it''s;' ;"]),
        ("SELECT 'a\\';b'; SELECT 2", ["SELECT 'a\\';b';", " SELECT 2"]),
        ("SELECT 1;", ["SELECT 1;"]),
        ("", [""]),
        (" ; -- only noise", [" ; -- only noise"]),
    ],
)
def test_split_statements_splits_only_at_semicolons_outside_literals_and_comments(
    sql: str, parts: list[str]
) -> None:
    assert lexer.split_statements(sql) == parts


def _definition_fields(column: ResultColumn, meta: column_meta.ColumnMeta | None) -> dict[str, Any]:
    """The fixed-length part of ColumnDefinition41, read back from the packet."""
    packet = column_meta.definition(column, meta, CharacterSet.utf8mb4)
    i, strings = 0, []
    for _ in range(6):
        n = packet[i]
        strings.append(packet[i + 1 : i + 1 + n].decode())
        i += 1 + n
    fixed = packet[i + 1 :]
    return {
        "schema": strings[1],
        "table": strings[2],
        "org_table": strings[3],
        "name": strings[4],
        "org_name": strings[5],
        "charset": int.from_bytes(fixed[0:2], "little"),
        "length": int.from_bytes(fixed[2:6], "little"),
        "type": fixed[6],
        "flags": int.from_bytes(fixed[7:9], "little"),
        "decimals": fixed[9],
    }


def test_varchar_is_sent_as_var_string_never_15() -> None:
    fields = _definition_fields(ResultColumn("s", ColumnType.VARCHAR), None)
    assert fields["type"] == 253 and fields["charset"] == CharacterSet.utf8mb4


def test_decimal_carries_its_scale_and_precision_and_the_num_flag() -> None:
    meta = column_meta.from_duck_type("DECIMAL(10,2)")
    fields = _definition_fields(ResultColumn("p", ColumnType.NEWDECIMAL), meta)
    assert (fields["type"], fields["decimals"], fields["length"]) == (246, 2, 12)
    assert fields["flags"] & column_meta.NUM_FLAG and fields["charset"] == CharacterSet.binary


def test_origin_names_schema_table_and_original_column() -> None:
    meta = column_meta.ColumnMeta(schema="d", table="x", org_table="t", org_name="name")
    fields = _definition_fields(ResultColumn("n", ColumnType.VARCHAR), meta)
    assert (
        fields["schema"],
        fields["table"],
        fields["org_table"],
        fields["name"],
        fields["org_name"],
    ) == ("d", "x", "t", "n", "name")


def test_unsigned_and_binary_flags() -> None:
    unsigned = _definition_fields(
        ResultColumn("u", ColumnType.LONGLONG), column_meta.from_duck_type("UBIGINT")
    )
    assert unsigned["flags"] & column_meta.UNSIGNED_FLAG
    blob = _definition_fields(ResultColumn("b", ColumnType.BLOB, CharacterSet.binary), None)
    assert (
        blob["type"] == 252
        and blob["flags"] & column_meta.BLOB_FLAG
        and blob["flags"] & column_meta.BINARY_FLAG
    )


def _ctx(**variables: Any) -> SessionContext:
    class Vars:
        def get(self, name: str) -> Any:
            return variables.get(name)

    return SessionContext(
        user="u",
        host="h",
        connection_id=1,
        query=None,
        variables=Vars(),  # type: ignore[arg-type]
        database="d",
    )


def _origins(sql: str, columns: list[str]) -> list[Origin | None]:
    return result_origins.resolve(
        result_origins.plan(sqlglot.parse_one(sql, read="mysql"), _ctx()), columns
    )


def test_origins_of_plain_columns_aliases_and_stars() -> None:
    assert _origins("SELECT id, name AS n, id + 1 FROM t x", ["id", "n", "id + 1"]) == [
        Origin("d", "x", "t", "id"),
        Origin("d", "x", "t", "name", aliased=True),
        None,
    ]
    assert _origins("SELECT *, 1 FROM s.t", ["a", "b", "1"]) == [
        Origin("s", "t", "t", "a"),
        Origin("s", "t", "t", "b"),
        None,
    ]
    assert (
        _origins("SELECT * FROM a JOIN b ON a.i = b.i", ["i", "i"]) == []
    )  # a star over a join: unknown
    assert _origins("SELECT b.v FROM a JOIN b ON a.i = b.i", ["v"]) == [Origin("d", "b", "b", "v")]
    assert _origins("INSERT INTO t VALUES (1)", []) == []


def _grouping(sql: str, keys: tuple[KeyDef, ...]) -> tuple[list[bool], list[bool]]:
    """Per plain column, whether it is sent as a temporary table's group key; per expression,
    whether it is typed as a temporary table's field: for table t (a, b, c) with ``keys``."""
    select = sqlglot.parse_one(sql, read="mysql")
    for table in select.find_all(exp.Table):
        table.set("catalog", exp.to_identifier(INTERNAL))
    columns = tuple(ColumnDef(name, "int") for name in ("a", "b", "c"))
    definition = TableDef("d", "t", columns, keys)
    planned = result_origins.define(result_origins.plan(select, _ctx()), lambda t: definition)
    assert planned is not None
    items = planned[0]
    return (
        [i.group_key for i in items if isinstance(i, Origin)],
        [i.grouped for i in items if isinstance(i, result_origins.Computed)],
    )


def test_a_query_grouped_by_an_index_in_its_order_needs_no_temporary_table() -> None:
    """MySQL reads the rows grouped through an index that starts with the GROUP BY columns, so
    nothing is sent from a temporary table (no GROUP_FLAG, BINARY kept); any other grouping,
    or an ORDER BY of something else, groups in a temporary table."""
    primary = (KeyDef("PRIMARY", "PRIMARY", (KeyPart("a"),)),)
    both = (KeyDef("k", "INDEX", (KeyPart("b"), KeyPart("a"), KeyPart("c"))),)
    by_a = "SELECT a, COUNT(*) FROM t GROUP BY a"
    assert _grouping(by_a, primary) == ([False], [False])
    assert _grouping(by_a + " ORDER BY a DESC", primary) == ([False], [False])
    assert _grouping("SELECT a, b, SUM(c) FROM t GROUP BY a, b", both) == ([True, True], [True])
    assert _grouping("SELECT a, b, SUM(c) FROM t GROUP BY a, b", both + primary) == (
        [True, True],
        [True],
    )
    assert _grouping("SELECT b, a, SUM(c) FROM t GROUP BY b, a", both) == ([False, False], [False])
    assert _grouping(by_a, ()) == ([True], [True])
    assert _grouping(by_a + " ORDER BY COUNT(*)", primary) == ([True], [True])
    assert _grouping("SELECT b, COUNT(*) FROM t GROUP BY b", primary) == ([True], [True])
    assert _grouping("SELECT LOWER(a), COUNT(*) FROM t GROUP BY LOWER(a)", primary) == (
        [],
        [True, True],
    )
    prefix = (KeyDef("p", "INDEX", (KeyPart("a", prefix=3),)),)
    assert _grouping(by_a, prefix) == ([True], [True])


def _limited(sql: str, **variables: Any) -> str:
    expression = sqlglot.parse_one(sql, read="mysql")
    session_limits.apply(expression, _ctx(**variables))
    return expression.sql(dialect="mysql")


def test_select_limit_applies_to_top_level_queries_without_their_own_limit() -> None:
    assert _limited("SELECT * FROM t", sql_select_limit=5) == "SELECT * FROM t LIMIT 5"
    assert _limited("SELECT * FROM t LIMIT 9", sql_select_limit=5) == "SELECT * FROM t LIMIT 9"
    assert _limited("SELECT * FROM (SELECT * FROM t) AS s", sql_select_limit=5).endswith(
        ") AS s LIMIT 5"
    )
    assert _limited("SELECT 1 UNION SELECT 2", sql_select_limit=1).endswith("LIMIT 1")
    assert (
        _limited("INSERT INTO t SELECT * FROM u", sql_select_limit=1)
        == "INSERT INTO t SELECT * FROM u"
    )
    assert (
        _limited("SELECT * FROM t", sql_select_limit=session_limits.UNLIMITED) == "SELECT * FROM t"
    )
    assert _limited("SELECT * FROM t", sql_select_limit=None) == "SELECT * FROM t"


def test_safe_updates_refuse_update_and_delete_without_where_or_limit() -> None:
    for sql in ("DELETE FROM t", "UPDATE t SET a = 1"):
        with pytest.raises(DrydockError) as info:
            _limited(sql, sql_safe_updates=True)
        assert info.value.code == 1175
        assert _limited(sql, sql_safe_updates=False)
    assert _limited("DELETE FROM t WHERE a = 1", sql_safe_updates=True)
    assert _limited("UPDATE t SET a = 1 LIMIT 3", sql_safe_updates=True)
