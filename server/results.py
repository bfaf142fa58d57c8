"""Engine results → mysql-mimic result sets: declared column types and wire-safe values.

The engine names column types the way DuckDB prints them ('INTEGER', 'DECIMAL(4,2)', 'FLOAT[2]');
this module is the only place that knows MySQL's column-type codes.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from mysql_mimic import ResultColumn
from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import AllowedResult, infer_type
from mysql_mimic.types import ColumnType

from engine.errors import Errors
from engine.results import Result
from server.column_meta import ColumnMeta, from_duck_type

_EXACT = {
    "BOOLEAN": ColumnType.TINY,
    "TINYINT": ColumnType.TINY,
    "UTINYINT": ColumnType.SHORT,
    "SMALLINT": ColumnType.SHORT,
    "USMALLINT": ColumnType.LONG,
    "INTEGER": ColumnType.LONG,
    "UINTEGER": ColumnType.LONGLONG,
    "BIGINT": ColumnType.LONGLONG,
    "UBIGINT": ColumnType.LONGLONG,
    "FLOAT": ColumnType.FLOAT,
    "DOUBLE": ColumnType.DOUBLE,
    "DATE": ColumnType.DATE,
    "TIME": ColumnType.TIME,
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


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (str, bytes)):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def column_type(duck_type: str) -> ColumnType:
    t = duck_type.upper()
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
        return dt.timedelta(hours=value.hour, minutes=value.minute, seconds=value.second,
                            microseconds=value.microsecond)
    return value


_CONVERT: dict[ColumnType, Callable[[Any], Any]] = {
    ColumnType.VARCHAR: _to_text,
    ColumnType.NEWDECIMAL: _to_text,
    ColumnType.DATETIME: _to_naive,
    ColumnType.TIME: _to_timedelta,
    ColumnType.TINY: lambda v: None if v is None else int(v),
    ColumnType.BLOB: _to_bytes,
}


_TEXT_TYPES = (ColumnType.VARCHAR, ColumnType.VAR_STRING, ColumnType.STRING, ColumnType.JSON)


def to_wire(result: Result, charset: CharacterSet = CharacterSet.utf8mb4,
            max_value_bytes: int | None = None) -> AllowedResult:
    """``result`` as mysql-mimic rows and typed columns; text columns in ``charset`` (the
    session's character_set_results). A text or binary value longer than ``max_value_bytes``
    (max_allowed_packet) is refused with 1301 before any row packet is built."""
    wire = _to_wire(result, max_value_bytes)
    if charset.codec in ("utf8", "utf-8") or not isinstance(wire, tuple):
        return wire
    return in_charset(wire[0], wire[1], charset)


def in_charset(rows: Sequence[Sequence[Any]], columns: Sequence[ResultColumn],
               charset: CharacterSet) -> tuple[list[tuple[Any, ...]], list[ResultColumn]]:
    """Text columns sent in another character set (a latin1 client): declared so in the column
    definition, and every value made encodable (a character the set lacks becomes '?', as MySQL
    converts it)."""
    text = [c.type in _TEXT_TYPES and c.character_set != CharacterSet.binary for c in columns]
    out_columns = [ResultColumn(c.name, c.type, charset) if is_text else c for c, is_text in zip(columns, text)]

    def convert(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return value.encode(charset.codec, "replace").decode(charset.codec)

    out_rows = [tuple(convert(v) if is_text else v for v, is_text in zip(row, text)) for row in rows]
    return out_rows, out_columns


def _check_value_sizes(rows: Sequence[Sequence[Any]], columns: Sequence[ResultColumn], bounded: Sequence[bool],
                       limit: int) -> None:
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
            if isinstance(v, (str, bytes)) and len(v) > quarter and (
                    len(v) > limit or len(v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v) > limit):
                raise Errors.VALUE_OVER_MAX_ALLOWED_PACKET.error(column=column.name[:64], limit=limit)


def _to_wire(result: Result, max_value_bytes: int | None = None) -> AllowedResult:
    if not result.is_result_set:
        return None
    if not result.column_types:
        return result.rows, inferred_columns(result.rows, result.columns)
    types = [column_type(result.column_types.get(c, "VARCHAR")) for c in result.columns]
    # BLOB columns carry the binary character set, as in MySQL: clients then return bytes
    # instead of decoding them as text (pymysql fails on bytes that are not UTF-8).
    columns = [ResultColumn(name, t, CharacterSet.binary) if t == ColumnType.BLOB else ResultColumn(name, t)
               for name, t in zip(result.columns, types)]
    duck_types = [result.column_types.get(c, "VARCHAR") for c in result.columns]
    converters = [_to_json if _is_nested(d) else _CONVERT.get(t) for d, t in zip(duck_types, types)]
    rows: Sequence[Sequence[Any]] = result.rows
    if any(converters):
        rows = [
            tuple(conv(v) if conv else v for conv, v in zip(converters, row))
            for row in result.rows
        ]
    if max_value_bytes is not None:  # every value that can be long: texts, binaries, nested values
        _check_value_sizes(rows, columns, [t in _TEXT_TYPES or t == ColumnType.BLOB or _is_nested(d)
                                           for t, d in zip(types, duck_types)], max_value_bytes)
    return rows, columns


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
    return [ResultColumn(str(name), t if t is not None else ColumnType.NULL) for name, t in zip(names, types)]


def typed_result(result: AllowedResult) -> AllowedResult:
    """A ``(rows, columns)`` answer whose columns are (partly) bare names → the same answer with
    every column typed (see inferred_columns); anything else is returned unchanged."""
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], (list, tuple))):
        return result
    rows, columns = result
    if all(isinstance(c, ResultColumn) for c in columns):
        return result
    inferred = inferred_columns(rows, [c.name if isinstance(c, ResultColumn) else c for c in columns])
    return rows, [c if isinstance(c, ResultColumn) else t for c, t in zip(columns, inferred)]


MetaByColumn = dict[int, tuple[ResultColumn, ColumnMeta]]


def column_metas(wire: AllowedResult, result: Result) -> MetaByColumn:
    """The ColumnMeta (server/column_meta.py) of each column of ``wire``, keyed by the column
    object's id (the pair keeps the column alive, so an id is never reused while it is kept)."""
    if not (isinstance(wire, tuple) and len(wire) == 2):
        return {}
    out: MetaByColumn = {}
    origins = result.column_origins if len(result.column_origins) == len(wire[1]) else []
    for i, column in enumerate(wire[1]):
        if not isinstance(column, ResultColumn):
            continue
        meta = from_duck_type(result.column_types.get(column.name, "")) if result.column_types else ColumnMeta()
        origin = origins[i] if origins else None
        if origin is not None:
            meta = ColumnMeta(schema=origin.schema, table=origin.table, org_table=origin.org_table,
                              org_name=origin.org_name, length=meta.length, decimals=meta.decimals,
                              flags=meta.flags)
        out[id(column)] = (column, meta)
    return out
