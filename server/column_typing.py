"""Per column of a DuckDB result, MySQL's type when drydock knows it better than DuckDB's type
says: an expression of the select list (server/expression_columns.py, from its MySQL AST kept by
engine/sql/result_origins.py) or a column of information_schema (server/metadata_columns.py).
Declared table columns are not here: server/declared_columns.py sends those.

The server sends such a column with this type when the value DuckDB computed fits it (an integer
sent as BIGINT, text as VAR_STRING, …: :func:`fits`); otherwise it keeps describing the column
from DuckDB's type, as before."""

from __future__ import annotations

from mysql_mimic.types import ColumnType
from sqlglot import exp

from drydock.engine.results import Result
from drydock.engine.sql.result_origins import Computed, Origin
from drydock.server.declared_columns import declared
from drydock.server.expression_columns import ExpressionTyping
from drydock.server.mysql_types import MySQLType, from_declared
from drydock.server.metadata_columns import metadata_column

_INFORMATION_SCHEMA = "information_schema"
_TEXT = (ColumnType.VARCHAR, ColumnType.VAR_STRING, ColumnType.STRING)
_FAMILIES = (
    {
        ColumnType.TINY,
        ColumnType.SHORT,
        ColumnType.INT24,
        ColumnType.LONG,
        ColumnType.LONGLONG,
    },
    {ColumnType.NEWDECIMAL},
    {ColumnType.FLOAT, ColumnType.DOUBLE},
    {ColumnType.DATE},
    {ColumnType.DATETIME, ColumnType.TIMESTAMP},
    {ColumnType.TIME},
)


def column_types(result: Result) -> list[MySQLType | None]:
    """MySQL's type of each column of ``result`` (None: not known here); [] when none is."""
    count = len(result.columns)
    out: list[MySQLType | None] = [None] * count
    computed = result.column_expressions if len(result.column_expressions) == count else []
    for i, item in enumerate(computed):
        if isinstance(item, Computed):
            typing = ExpressionTyping(_column_typer(item.tables), item.grouped)
            out[i] = typing.result(item.node)
    origins = result.column_origins if len(result.column_origins) == count else []
    for i, origin in enumerate(origins):
        if isinstance(origin, Origin) and origin.schema.lower() == _INFORMATION_SCHEMA:
            out[i] = metadata_column(origin.org_table, origin.org_name)
    return out if any(out) else []


def fits(duck: ColumnType, mysql: MySQLType) -> bool:
    """Whether a value DuckDB typed ``duck`` can be sent as ``mysql``'s type: the same kind of
    value (an integer as an integer or a DECIMAL, text as text, …; NULL as anything)."""
    if duck == ColumnType.NULL:
        return True
    if duck in _FAMILIES[0] and mysql.type == ColumnType.NEWDECIMAL:
        return True
    if duck in _TEXT:  # text as VARCHAR or TEXT (DuckDB's BLOB holds bytes: never text)
        return mysql.is_string and not mysql.binary
    return any(duck in family and mysql.type in family for family in _FAMILIES)


def _column_typer(tables: dict[str, Origin]):  # type: ignore[no-untyped-def]
    def column_type(node: exp.Column) -> MySQLType | None:
        table = node.table.lower()
        origin = tables.get(table) if table else _only(tables)
        if origin is None:
            return None
        if origin.schema.lower() == _INFORMATION_SCHEMA:
            return metadata_column(origin.org_table, node.name)
        if origin.definition is None:
            return None
        found = declared(origin.definition, node.name)
        return from_declared(found) if found is not None else None

    return column_type


def _only(tables: dict[str, Origin]) -> Origin | None:
    return next(iter(tables.values())) if len(tables) == 1 else None
