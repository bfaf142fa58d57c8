"""Engine results → mysql-mimic result sets: declared column types and wire-safe values.

The engine names column types the way DuckDB prints them ('INTEGER', 'DECIMAL(4,2)', 'FLOAT[2]');
this module is the only place that knows MySQL's column-type codes.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from decimal import Decimal
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from mysql_mimic import ResultColumn
from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import AllowedResult, infer_type
from mysql_mimic.types import ColumnType

from drydock.engine.errors import Errors
from drydock.engine.results import Result, RowStream
from drydock.engine.sql.mysql_json_doc import mysql_text
from drydock.server import float_text
from drydock.server.column_meta import BINARY_FLAG, ColumnMeta, from_duck_type, temporal
from drydock.server.column_typing import column_types, fits
from drydock.server.declared_columns import Declared, declared, time_text
from drydock.server.mysql_types import MySQLType
from drydock.server.show_columns import show_column

_EXACT = {
    "BOOLEAN": ColumnType.TINY,
    "TINYINT": ColumnType.TINY,
    # unsigned integers keep MySQL's type code with the UNSIGNED flag (server/column_meta.py);
    # the binary protocol packs them unsigned (server/binary_rows.py)
    "UTINYINT": ColumnType.TINY,
    "SMALLINT": ColumnType.SHORT,
    "USMALLINT": ColumnType.SHORT,
    "INTEGER": ColumnType.LONG,
    "UINTEGER": ColumnType.LONG,
    "BIGINT": ColumnType.LONGLONG,
    "UBIGINT": ColumnType.LONGLONG,
    "FLOAT": ColumnType.FLOAT,
    "DOUBLE": ColumnType.DOUBLE,
    "DATE": ColumnType.DATE,
    "TIME": ColumnType.TIME,
    "INTERVAL": ColumnType.TIME,  # MySQL's TIME range (±838:59:59) lives in DuckDB intervals
    "VARCHAR": ColumnType.VARCHAR,
    "BLOB": ColumnType.BLOB,
    "JSON": ColumnType.JSON,
    '"NULL"': ColumnType.NULL,
    "NULL": ColumnType.NULL,
}


def _is_nested(duck_type: str) -> bool:
    """Lists, arrays (vectors), structs and maps: shown as JSON text, as MySQL shows JSON."""
    t = duck_type.upper()
    return t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION"))


def _is_vector(duck_type: str) -> bool:
    """A list or fixed-size array of FLOAT/DOUBLE (a Lance vector column reads as FLOAT[n])."""
    t = duck_type.upper()
    return t.startswith(("FLOAT[", "DOUBLE[")) and t.count("[") == 1


def _float_text(value: float, single: bool) -> str:
    """The shortest text that reads back as the same float32 (``single``) or float64 value;
    ``1`` not ``1.0``."""
    text = str(np.float32(value)) if single else repr(float(value))
    return text.removesuffix(".0")


def _vector_text(single: bool) -> Callable[[Any], Any]:
    """A vector as text: ``[0.1,-2,3.5]``, each element's shortest round-trip form (of float32
    for a FLOAT vector: no widening noise such as 0.10000000149011612)."""

    def convert(value: Any) -> Any:
        if value is None or isinstance(value, (str, bytes)):
            return value
        return "[" + ",".join("NULL" if v is None else _float_text(v, single) for v in value) + "]"

    return convert


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (str, bytes)):
        return value
    if isinstance(value, list) and value and all(isinstance(v, Decimal) for v in value):
        return "[" + ", ".join(str(v) for v in value) + "]"  # numbers, not JSON strings
    return json.dumps(value, default=str, ensure_ascii=False)


def _nested_converter(duck_type: str) -> Callable[[Any], Any]:
    if _is_vector(duck_type):
        return _vector_text(single=duck_type.upper().startswith("FLOAT"))
    return _to_json


def column_type(duck_type: str) -> ColumnType:
    t = duck_type.upper()
    if _is_nested(t):
        # text in the connection's character set; not MySQL 9's VECTOR (242), which older
        # clients cannot read (docs/upstream-facts.md)
        return ColumnType.VARCHAR
    if t in _EXACT:
        return _EXACT[t]
    if t.startswith("DECIMAL") or t in ("HUGEINT", "UHUGEINT"):
        return ColumnType.NEWDECIMAL
    if t.startswith("TIMESTAMP"):
        return ColumnType.DATETIME
    return ColumnType.VARCHAR  # lists, arrays, structs, maps, uuids, intervals: shown as text


def _to_text(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, bytes)) else str(value)


def _to_bytes(value: Any) -> Any:
    return value.encode("utf-8") if isinstance(value, str) else value


def _to_naive(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _to_timedelta(value: Any) -> Any:
    if isinstance(value, dt.time):
        return dt.timedelta(
            hours=value.hour,
            minutes=value.minute,
            seconds=value.second,
            microseconds=value.microsecond,
        )
    return value


def _json_text(value: Any) -> Any:
    """A JSON value as MySQL prints it (``{"a": 1, "b": [1, 2]}``, keys in MySQL's order);
    DuckDB's json functions print compact text."""
    return mysql_text(value) if isinstance(value, str) else value


_CONVERT: dict[ColumnType, Callable[[Any], Any]] = {
    ColumnType.JSON: _json_text,
    ColumnType.VARCHAR: _to_text,
    ColumnType.NEWDECIMAL: _to_text,
    ColumnType.DATETIME: _to_naive,
    ColumnType.TIME: _to_timedelta,
    ColumnType.TINY: lambda v: None if v is None else int(v),
    ColumnType.BLOB: _to_bytes,
}


_TEXT_TYPES = (ColumnType.VARCHAR, ColumnType.VAR_STRING, ColumnType.STRING, ColumnType.JSON)


RowBatch = list[tuple[Any, ...]]
RowConverter = Callable[[Sequence[Sequence[Any]]], RowBatch]


class StreamedRows:
    """The rows of a streamed result set (engine/results.py RowStream): the first batch already
    converted, and the rest converted batch by batch as it is fetched (server/result_writer.py
    writes each batch before the next is fetched). Deliberately not iterable: code that would
    read every row at once must not get only the first batch."""

    def __init__(
        self, first: Sequence[Sequence[Any]], stream: RowStream, convert: RowConverter | None
    ):
        self.first = first
        self.stream = stream
        self._convert = convert

    def next_batch(self) -> Sequence[Sequence[Any]]:
        """The next converted batch, [] at the end; blocks (DuckDB runs as it is fetched)."""
        batch = self.stream.next_batch()
        return self._convert(batch) if self._convert is not None and batch else batch

    def close(self) -> None:
        self.stream.close()


def to_wire(
    result: Result, charset: CharacterSet = CharacterSet.utf8mb4, max_value_bytes: int | None = None
) -> AllowedResult:
    """``result`` as mysql-mimic rows and typed columns; text columns in ``charset`` (the
    session's character_set_results). A streamed result's rows are a :class:`StreamedRows`. A
    text or binary value longer than ``max_value_bytes`` (max_allowed_packet) is refused with
    1301 before its batch's row packets are built."""
    if not result.is_result_set:
        return None
    if not result.column_types:  # engine-built rows (no DuckDB types): never streamed
        columns = _show_typed(inferred_columns(result.rows, result.columns), result)
        if _is_utf8(charset):
            return result.rows, columns
        return in_charset(result.rows, columns, charset)
    columns, convert = _plan(result, charset, max_value_bytes)
    rows = convert(result.rows) if convert is not None else result.rows
    if result.stream is not None:
        return StreamedRows(rows, result.stream, convert), columns  # type: ignore[return-value]
    return rows, columns


def _is_utf8(charset: CharacterSet) -> bool:
    return charset.codec in ("utf8", "utf-8")


def in_charset(
    rows: Sequence[Sequence[Any]], columns: Sequence[ResultColumn], charset: CharacterSet
) -> tuple[list[tuple[Any, ...]], list[ResultColumn]]:
    """Text columns sent in another character set (a latin1 client): declared so in the column
    definition, and every value made encodable (a character the set lacks becomes '?', as MySQL
    converts it)."""
    out_columns, convert = _charset_plan(columns, charset)
    return convert(rows), out_columns


def _charset_plan(
    columns: Sequence[ResultColumn], charset: CharacterSet
) -> tuple[list[ResultColumn], RowConverter]:
    text = [
        (c.type in _TEXT_TYPES or c.type == ColumnType.BLOB)
        and c.character_set != CharacterSet.binary
        for c in columns
    ]
    out_columns = [
        ResultColumn(c.name, c.type, charset) if is_text else c for c, is_text in zip(columns, text)
    ]

    def value(v: Any) -> Any:
        if not isinstance(v, str):
            return v
        return v.encode(charset.codec, "replace").decode(charset.codec)

    def convert(rows: Sequence[Sequence[Any]]) -> RowBatch:
        return [tuple(value(v) if is_text else v for v, is_text in zip(row, text)) for row in rows]

    return out_columns, convert


def _check_value_sizes(
    rows: Sequence[Sequence[Any]],
    columns: Sequence[ResultColumn],
    bounded: Sequence[bool],
    limit: int,
) -> None:
    """1301 when a value of a ``bounded`` column is longer than ``limit`` bytes on the wire. A
    scan per column at C speed (map/len, no Python call per value); only a value whose length
    could exceed the limit in UTF-8 (at most 4 bytes a character) is encoded to measure it."""
    quarter = limit // 4
    for i, column in enumerate(columns):
        if not bounded[i] or not rows:
            continue
        try:
            longest = max(map(len, filter(None, map(itemgetter(i), rows))), default=0)
        except TypeError:  # a value without a length (not text): measure the texts only
            longest = quarter + 1
        if longest <= quarter:
            continue
        for v in map(itemgetter(i), rows):
            if (
                isinstance(v, (str, bytes))
                and len(v) > quarter
                and (
                    len(v) > limit
                    or len(v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v) > limit
                )
            ):
                raise Errors.VALUE_OVER_MAX_ALLOWED_PACKET.error(
                    column=column.name[:64], limit=limit
                )


def _plan(
    result: Result, charset: CharacterSet, max_value_bytes: int | None
) -> tuple[list[ResultColumn], RowConverter | None]:
    """The typed columns of a DuckDB result and the conversion of its rows to wire-safe values
    (None: the rows go as they are). One plan serves every batch of a streamed result."""
    types = [column_type(result.column_types.get(c, "VARCHAR")) for c in result.columns]
    # BLOB columns carry the binary character set, as in MySQL: clients then return bytes
    # instead of decoding them as text (pymysql fails on bytes that are not UTF-8).
    columns = [
        ResultColumn(name, t, CharacterSet.binary)
        if t == ColumnType.BLOB
        else ResultColumn(name, t, text_encoder=time_text)
        if t == ColumnType.TIME
        else ResultColumn(name, t)
        for name, t in zip(result.columns, types)
    ]
    duck_types = [result.column_types.get(c, "VARCHAR") for c in result.columns]
    converters = [
        _nested_converter(d) if _is_nested(d) else _CONVERT.get(t)
        for d, t in zip(duck_types, types)
    ]
    for i, found in enumerate(declared_columns(result)):
        if found is not None:  # a declared table column: MySQL's type and value forms (else
            # the stored type's conversion: a BOOLEAN behind TINYINT(1) still sends 0/1)
            columns[i], types[i] = found.column(columns[i].name), found.type
            converters[i] = found.convert or converters[i]
    for i, mysql_type in enumerate(column_types(result)):  # expressions, information_schema
        if mysql_type is not None and fits(types[i], mysql_type):
            binary = mysql_type.binary and mysql_type.is_string
            columns[i] = _typed_column(columns[i], mysql_type.type, binary, mysql_type.decimals)
            types[i] = mysql_type.type
    columns = _show_typed(columns, result)
    for i, converter in enumerate(converters):
        if types[i] in (ColumnType.FLOAT, ColumnType.DOUBLE):
            converters[i] = _approximate_text(converter, _is_float_column(result, i, types[i]))
    convert: RowConverter | None = None
    if any(converters):

        def convert(rows: Sequence[Sequence[Any]]) -> RowBatch:
            return [
                tuple(conv(v) if conv else v for conv, v in zip(converters, row)) for row in rows
            ]

    if max_value_bytes is not None:  # every value that can be long: texts, binaries, nested values
        bounded = [
            t in _TEXT_TYPES or t == ColumnType.BLOB or _is_nested(d)
            for t, d in zip(types, duck_types)
        ]
        convert = _checked(convert, columns, bounded, max_value_bytes)
    if _is_utf8(charset):
        return columns, convert
    out_columns, in_set = _charset_plan(columns, charset)
    if convert is None:
        return out_columns, in_set
    typed = convert
    return out_columns, lambda rows: in_set(typed(rows))


def _show_types(result: Result) -> list[MySQLType | None]:
    """MySQL 8's type of each column of a SHOW result (server/show_columns.py); [] otherwise."""
    if not result.show:
        return []
    return [show_column(result.show, name, result.rows) for name in result.columns]


def _show_typed(columns: list[ResultColumn], result: Result) -> list[ResultColumn]:
    """A SHOW result's columns with MySQL 8's types: its values are the engine's own (text,
    integers, NULL), sent as those types whatever the first value looks like."""
    for i, mysql_type in enumerate(_show_types(result)):
        if mysql_type is not None:
            binary = mysql_type.binary and mysql_type.is_string
            columns[i] = _typed_column(columns[i], mysql_type.type, binary)
    return columns


def _typed_column(
    column: ResultColumn, type_code: ColumnType, binary: bool, fsp: int | None = None
) -> ResultColumn:
    """``column`` sent as ``type_code``; a TIME expression typed with ``fsp`` fractional digits
    (``t3 + INTERVAL 1 SECOND`` is TIME(3)) is written with exactly those."""
    charset = CharacterSet.binary if binary else CharacterSet.utf8mb4
    if column.type == ColumnType.TIME:
        digits = fsp if type_code == ColumnType.TIME and fsp is not None and fsp <= 6 else None
        return ResultColumn(
            column.name,
            type_code,
            charset,
            text_encoder=lambda c, v: time_text(c, v, digits),
        )
    return ResultColumn(column.name, type_code, charset)


def _checked(
    convert: RowConverter | None,
    columns: Sequence[ResultColumn],
    bounded: Sequence[bool],
    limit: int,
) -> RowConverter:
    """``convert`` followed by the max_allowed_packet check of each batch (on the values as sent
    in UTF-8, before any other character set)."""

    def checked(rows: Sequence[Sequence[Any]]) -> RowBatch:
        out = convert(rows) if convert is not None else rows
        _check_value_sizes(out, columns, bounded, limit)
        return out if isinstance(out, list) else list(out)  # type: ignore[arg-type]

    return checked


def _is_float_column(result: Result, i: int, column_type: ColumnType) -> bool:
    """A FLOAT read from a table column (MySQL types FLOAT arithmetic DOUBLE: ``f + 0`` prints
    the float32 widened, where DuckDB keeps it FLOAT)."""
    origins, computed = result.column_origins, result.column_expressions
    if column_type != ColumnType.FLOAT:
        return False
    if len(origins) == len(result.columns) and origins[i] is not None:
        return True
    node = getattr(computed[i], "node", None) if len(computed) == len(result.columns) else None
    return float_text.keeps_float(node)  # MAX(f), MIN(f)


def _approximate_text(converter: Callable[[Any], Any] | None, single: bool) -> Callable[[Any], Any]:
    """FLOAT/DOUBLE values as MySQL's text (server/float_text.py); the binary protocol reads
    the text back with float()."""
    text = float_text.float_text if single else float_text.double_text

    def convert(value: Any) -> Any:
        value = converter(value) if converter is not None else value
        return text(value) if isinstance(value, float) else value

    return convert


def declared_columns(result: Result) -> list[Declared | None]:
    """Per column of ``result``: how it goes on the wire when it is a declared table column
    (server/declared_columns.py), else None. [] when no column is."""
    origins = result.column_origins
    if len(origins) != len(result.columns):
        return []
    out: list[Declared | None] = []
    for origin in origins:
        table = origin.definition if origin is not None else None
        out.append(declared(table, origin.org_name) if table is not None else None)
    return out


def inferred_columns(rows: Sequence[Sequence[Any]], names: Sequence[Any]) -> list[ResultColumn]:
    """Typed columns by mysql-mimic's own rule (``infer_type`` of each column's first non-null
    value; NULL when there is none), computed on the list here. Handing mysql-mimic bare names
    makes ensure_result_set peek the rows through an async generator it then abandons, whose
    finalizer costs every result a call_soon_threadsafe and an extra event-loop turn."""
    types: list[ColumnType | None] = [None] * len(names)
    missing = len(names)
    for row in rows:
        if not missing:
            break
        for i, t in enumerate(types):
            if t is None and row[i] is not None:
                types[i] = infer_type(row[i])
                missing -= 1
    return [
        ResultColumn(str(name), t if t is not None else ColumnType.NULL)
        for name, t in zip(names, types)
    ]


MetaByColumn = dict[int, tuple[ResultColumn, ColumnMeta]]
GROUP_FLAG = 32768  # MySQL's internal flag of a grouping field; the same bit as NUM_FLAG


def column_metas(wire: AllowedResult, result: Result) -> MetaByColumn:
    """The ColumnMeta (server/column_meta.py) of each column of ``wire``, keyed by the column
    object's id (the pair keeps the column alive, so an id is never reused while it is kept)."""
    if not (isinstance(wire, tuple) and len(wire) == 2):
        return {}
    out: MetaByColumn = {}
    origins = result.column_origins if len(result.column_origins) == len(wire[1]) else []
    sample = wire[0].first if isinstance(wire[0], StreamedRows) else wire[0]
    found = declared_columns(result) if result.column_types else []
    typed = _show_types(result) or (column_types(result) if result.column_types else [])
    for i, column in enumerate(wire[1]):
        if not isinstance(column, ResultColumn):
            continue
        shape = found[i] if found else None
        if shape is not None:
            origin = origins[i]
            meta = shape.meta(origin.schema, origin.table, origin.definition.name)
            if origin.group_key:
                meta = replace(meta, flags=(meta.flags & ~BINARY_FLAG) | GROUP_FLAG)
            out[id(column)] = (column, meta)
            continue
        mysql_type = typed[i] if typed else None
        if mysql_type is not None and mysql_type.type == column.type:
            meta = ColumnMeta(
                length=mysql_type.length,
                decimals=mysql_type.decimals,
                flags=mysql_type.flags,
                declared=True,
            )
        else:
            meta = (
                from_duck_type(result.column_types.get(column.name, ""))
                if result.column_types
                else ColumnMeta()
            )
        if meta.decimals == 6 and column.type in (ColumnType.DATETIME, ColumnType.TIME):
            meta = _seconds_only(meta, column.type, sample, i)
        origin = origins[i] if origins else None
        if origin is not None:
            meta = ColumnMeta(
                schema=origin.schema,
                table=origin.table,
                org_table=origin.org_table,
                org_name=origin.org_name,
                length=meta.length,
                decimals=meta.decimals,
                flags=meta.flags,
                declared=meta.declared,
            )
        out[id(column)] = (column, meta)
    return out


def _seconds_only(meta: ColumnMeta, column_type: ColumnType, rows: Any, i: int) -> ColumnMeta:
    """DuckDB keeps every TIMESTAMP and TIME in microseconds, so the declared fsp of an
    expression is lost; MySQL's is 0 unless asked for. Clients that format binary temporals
    by the definition's decimals (PHP mysqlnd, Go) print '.000000' for decimals 6: when no value
    of the rows at hand has a fraction, the column is sent as fsp 0. (A streamed result is judged
    by its first batch; a later fraction then reaches those clients truncated.)"""
    try:
        for row in rows:
            value = row[i]
            if value is not None and getattr(value, "microsecond", 0) | getattr(
                value, "microseconds", 0
            ):
                return meta
    except (TypeError, IndexError):  # rows not at hand (an async source): keep fsp 6
        return meta
    return temporal(column_type, 0)
