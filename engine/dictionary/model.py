"""An internal table's MySQL definition, as the user declared it: the data dictionary's values.

DuckDB stores the rows but keeps no MySQL schema (VARCHAR(40) is VARCHAR, ENUM is text, a key is
an ART index or nothing, a foreign key added later does not exist). These frozen values keep what
MySQL keeps, so DESCRIBE, SHOW CREATE TABLE, information_schema, result column definitions and
enforcement answer from the declaration (MySQL 8.0 manual 13 "Data Types", 15.1.20 CREATE TABLE).

Values are plain data with a JSON form (:meth:`TableDef.to_json` / :func:`table_from_json`): the
store (engine/dictionary/store.py) keeps one JSON document per table in the same DuckDB
transaction as the table's DDL.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

# MySQL DATA_TYPE names (information_schema.COLUMNS.DATA_TYPE), by family
INTEGER_TYPES = ("tinyint", "smallint", "mediumint", "int", "bigint")
STRING_TYPES = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext")
BINARY_TYPES = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
TEMPORAL_TYPES = ("date", "datetime", "timestamp", "time", "year")
FSP_TYPES = ("datetime", "timestamp", "time")
OTHER_TYPES = ("decimal", "float", "double", "enum", "set", "bit", "json", "geometry")
MYSQL_TYPES = frozenset(
    (*INTEGER_TYPES, *STRING_TYPES, *BINARY_TYPES, *TEMPORAL_TYPES, *OTHER_TYPES)
)

# the largest value of each signed integer type; unsigned is 2 * max + 1, min is -max - 1
INTEGER_MAX = {
    "tinyint": 127,
    "smallint": 32767,
    "mediumint": 8388607,
    "int": 2147483647,
    "bigint": 9223372036854775807,
}
# CHARACTER_MAXIMUM_LENGTH of the types that take no length (characters; bytes for blobs)
FIXED_LENGTH = {
    "tinytext": 255,
    "text": 65535,
    "mediumtext": 16777215,
    "longtext": 4294967295,
    "tinyblob": 255,
    "blob": 65535,
    "mediumblob": 16777215,
    "longblob": 4294967295,
    "json": 4294967295,
}
DEFAULT_CHARSET = "utf8mb4"
DEFAULT_COLLATION = "utf8mb4_0900_ai_ci"


@dataclass(frozen=True)
class ColumnDef:
    name: str
    data_type: str  # MySQL DATA_TYPE: 'int', 'varchar', 'enum', 'decimal', 'datetime', ...
    length: int | None = None  # char/varchar/binary/varbinary/bit length; display width if set
    precision: int | None = None  # decimal
    scale: int | None = None  # decimal
    fsp: int | None = None  # datetime/timestamp/time fractional digits (0 when not declared)
    unsigned: bool = False
    zerofill: bool = False
    values: tuple[str, ...] = ()  # ENUM/SET members, in declared order
    charset: str | None = None  # string types only: None means the table's (utf8mb4)
    collation: str | None = None
    nullable: bool = True
    default: str | None = None  # the DEFAULT as SQL text ("'x'", "0", "CURRENT_TIMESTAMP"), or None
    auto_increment: bool = False
    on_update: str | None = None  # "CURRENT_TIMESTAMP" / "CURRENT_TIMESTAMP(3)"
    comment: str = ""

    @property
    def is_mysql_type(self) -> bool:
        """False for a DuckDB type MySQL has no name for (FLOAT[3], STRUCT(…)): describe such a
        column from DuckDB's type."""
        if self.data_type in ("varchar", "varbinary") and self.length is None:
            return False  # DuckDB's bare VARCHAR
        return self.data_type in MYSQL_TYPES

    @property
    def is_string(self) -> bool:
        return self.data_type in STRING_TYPES or self.data_type in ("enum", "set")

    def column_type(self) -> str:
        """information_schema.COLUMNS.COLUMN_TYPE, as MySQL 8.0 writes it: no integer display
        width except TINYINT(1) and ZEROFILL columns."""
        t = self.data_type
        if t in INTEGER_TYPES:
            text = t
            if self.zerofill or (t == "tinyint" and self.length == 1):
                text += f"({self.length or _zerofill_width(t, self.unsigned)})"
        elif t == "decimal":
            text = f"decimal({self.precision},{self.scale})"
        elif t in ("char", "varchar", "binary", "varbinary", "bit"):
            text = f"{t}({self.length})"
        elif t in FSP_TYPES:
            text = f"{t}({self.fsp})" if self.fsp else t
        elif t in ("enum", "set"):
            text = f"{t}(" + ",".join(_string_literal(v) for v in self.values) + ")"
        else:
            text = t
        if self.unsigned:
            text += " unsigned"
        if self.zerofill:
            text += " zerofill"
        return text

    def character_maximum_length(self) -> int | None:
        """information_schema.COLUMNS.CHARACTER_MAXIMUM_LENGTH (characters)."""
        if self.data_type in ("char", "varchar", "binary", "varbinary"):
            return self.length
        if self.data_type in ("enum", "set"):
            if not self.values:
                return 0
            if self.data_type == "enum":
                return max(len(v) for v in self.values)
            return sum(len(v) for v in self.values) + len(self.values) - 1
        return FIXED_LENGTH.get(self.data_type)

    def integer_range(self) -> tuple[int, int] | None:
        """The values an integer column holds (MySQL 1264 outside), or None."""
        top = INTEGER_MAX.get(self.data_type)
        if top is None:
            return None
        return (0, 2 * top + 1) if self.unsigned else (-top - 1, top)


@dataclass(frozen=True)
class KeyPart:
    column: str
    prefix: int | None = None  # KEY (name(10)): the first 10 characters
    descending: bool = False


@dataclass(frozen=True)
class KeyDef:
    name: str  # 'PRIMARY' for the primary key
    kind: str  # 'PRIMARY', 'UNIQUE', 'INDEX', 'FULLTEXT'
    parts: tuple[KeyPart, ...]
    comment: str = ""

    @property
    def unique(self) -> bool:
        return self.kind in ("PRIMARY", "UNIQUE")

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(p.column for p in self.parts)


# referential actions as information_schema.REFERENTIAL_CONSTRAINTS spells them
FK_ACTIONS = ("RESTRICT", "CASCADE", "SET NULL", "NO ACTION", "SET DEFAULT")


@dataclass(frozen=True)
class ForeignKeyDef:
    name: str
    columns: tuple[str, ...]
    ref_schema: str
    ref_table: str
    ref_columns: tuple[str, ...]
    on_delete: str = "NO ACTION"  # MySQL's default when the clause is absent
    on_update: str = "NO ACTION"
    index_name: str = ""  # FOREIGN KEY index_name (…): names InnoDB's implicit index


@dataclass(frozen=True)
class CheckDef:
    name: str
    expression: str  # the condition as MySQL SQL text, without the CHECK keyword
    enforced: bool = True


@dataclass(frozen=True)
class TableDef:
    schema: str
    name: str
    columns: tuple[ColumnDef, ...]
    keys: tuple[KeyDef, ...] = ()
    foreign_keys: tuple[ForeignKeyDef, ...] = ()
    checks: tuple[CheckDef, ...] = ()
    comment: str = ""
    engine: str = "DuckDB"
    charset: str = DEFAULT_CHARSET
    collation: str = DEFAULT_COLLATION
    extra: dict[str, Any] = field(default_factory=dict)  # room for later fields, kept as given

    def column(self, name: str) -> ColumnDef | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    @property
    def primary_key(self) -> KeyDef | None:
        return next((k for k in self.keys if k.kind == "PRIMARY"), None)

    def key(self, name: str) -> KeyDef | None:
        lowered = name.lower()
        return next((k for k in self.keys if k.name.lower() == lowered), None)

    def with_columns(self, columns: tuple[ColumnDef, ...]) -> TableDef:
        return replace(self, columns=columns)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)


def table_from_json(text: str) -> TableDef:
    data = json.loads(text)
    return TableDef(
        schema=data["schema"],
        name=data["name"],
        columns=tuple(
            ColumnDef(**{**c, "values": tuple(c.get("values") or ())}) for c in data["columns"]
        ),
        keys=tuple(
            KeyDef(
                name=k["name"],
                kind=k["kind"],
                parts=tuple(KeyPart(**p) for p in k["parts"]),
                comment=k.get("comment", ""),
            )
            for k in data.get("keys") or ()
        ),
        foreign_keys=tuple(
            ForeignKeyDef(
                **{
                    **f,
                    "columns": tuple(f["columns"]),
                    "ref_columns": tuple(f["ref_columns"]),
                }
            )
            for f in data.get("foreign_keys") or ()
        ),
        checks=tuple(CheckDef(**c) for c in data.get("checks") or ()),
        comment=data.get("comment", ""),
        engine=data.get("engine", "DuckDB"),
        charset=data.get("charset", DEFAULT_CHARSET),
        collation=data.get("collation", DEFAULT_COLLATION),
        extra=dict(data.get("extra") or {}),
    )


def _zerofill_width(data_type: str, unsigned: bool) -> int:
    """MySQL's default display width: the digits of the type's extreme value (+1 for a sign)."""
    top = INTEGER_MAX[data_type]
    return len(str(2 * top + 1)) if unsigned else len(str(top)) + 1


def _string_literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
