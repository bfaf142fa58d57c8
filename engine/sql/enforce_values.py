"""What strict MySQL 8 does with one value written to a column of an internal table whose declared
definition the data dictionary keeps (engine/dictionary/model.py): the stored value, or MySQL's
error, or MySQL's warning (MySQL 8.0 manual 5.1.11 "Strict SQL Mode", 13.1.7, 13.3, 13.4).

- CHAR/VARCHAR/TEXT: at most the declared characters; BINARY/VARBINARY/BLOB: bytes. Longer is
  1406 in strict mode; otherwise the value is cut with warning 1265. Only trailing spaces beyond
  the length are cut with a Note 1265, in every mode.
- ENUM/SET: members match case-insensitively (the default collation) and are stored as declared;
  a number is a member's index (ENUM) or a bit mask (SET). Anything else is 1265.
- Integers: rounded to whole numbers, then within the type's range (UNSIGNED and MEDIUMINT
  included, DuckDB has no MEDIUMINT), else 1264; non-strict clips to the nearest bound.
- DECIMAL(p,s): extra scale rounded (Note 1265), more integer digits than p-s are 1264.
- TIME: read as MySQL reads it (engine/sql/time_columns.py), the fraction rounded to the fsp;
  out of ±838:59:59 or no time at all is 1292 in strict mode, otherwise clipped with warning
  1264 (or 00:00:00 with 1265 for no time).
- NULL in a NOT NULL column: 1048; non-strict multi-row statements store the type's implicit
  default with warning 1048.

``Mode.raises`` is strict without IGNORE; INSERT IGNORE turns the errors into warnings and the
value into what non-strict mode stores, as MySQL does. A value this module cannot judge (a date,
an expression it did not evaluate) is left as it is, for DuckDB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, ROUND_HALF_UP, localcontext
from typing import Any

from drydock.engine.dictionary.model import BINARY_TYPES, INTEGER_TYPES, STRING_TYPES, ColumnDef
from drydock.engine.errors import Errors
from drydock.engine.results import Diagnostic
from drydock.engine.sql import time_columns

# digits of Python decimal arithmetic here: more than MySQL DECIMAL's 65, and its exponent range
_DECIMAL_DIGITS = 100


@dataclass(frozen=True)
class Mode:
    strict: bool = True  # sql_mode has STRICT_TRANS_TABLES or STRICT_ALL_TABLES
    ignore: bool = False  # INSERT IGNORE / UPDATE IGNORE
    single_row: bool = False  # a one-row INSERT … VALUES: NULL into NOT NULL is 1048 in any mode

    @property
    def raises(self) -> bool:
        return self.strict and not self.ignore


def strict(sql_mode: str | None) -> bool:
    modes = (sql_mode or "").upper().split(",")
    return "STRICT_TRANS_TABLES" in modes or "STRICT_ALL_TABLES" in modes


@dataclass
class ValueRules:
    """Applies the rules to the values of one statement, collecting its warnings in order."""

    mode: Mode
    warnings: list[Diagnostic] = field(default_factory=list)

    def value(self, column: ColumnDef, value: Any, row: int) -> Any:
        """The value to store in ``column`` for ``value`` of row ``row`` (1-based); raises the
        strict-mode error, or records the warning."""
        if value is None:
            return self._null(column, row)
        kind = column.data_type
        if kind in STRING_TYPES or kind in BINARY_TYPES:
            return self._text(column, value, row)
        if kind == "enum":
            return self._enum(column, value, row)
        if kind == "set":
            return self._set(column, value, row)
        if kind in INTEGER_TYPES:
            return self._integer(column, value, row)
        if kind == "decimal":
            return self._decimal(column, value, row)
        if kind == "time":
            return self._time(column, value, row)
        return value

    def _problem(self, spec: Any, column: ColumnDef, row: int, note: bool = False) -> None:
        params = {"column": column.name, "row": row}
        if note:
            self.warnings.append(spec.note(**params))
        elif self.mode.raises:
            raise spec.error(**params)
        else:
            self.warnings.append(spec.warning(**params))

    def _null(self, column: ColumnDef, row: int) -> Any:
        if column.nullable or column.auto_increment:
            return None
        if self.mode.raises or (self.mode.single_row and not self.mode.ignore):
            raise Errors.BAD_NULL.error(column=column.name)
        self.warnings.append(Errors.BAD_NULL.warning(column=column.name))
        return implicit_default(column)

    def _text(self, column: ColumnDef, value: Any, row: int) -> Any:
        if isinstance(value, bool) or not isinstance(value, (str, bytes, int, Decimal)):
            return value
        text = value if isinstance(value, (str, bytes)) else str(value)
        limit = column.character_maximum_length()
        if limit is None:
            return value
        binary = column.data_type in BINARY_TYPES
        size = len(text.encode() if isinstance(text, str) else text) if binary else len(text)
        if isinstance(text, bytes) and not binary:
            size = len(text.decode(errors="replace"))
        if size <= limit:
            return value
        if binary:
            raw = text.encode() if isinstance(text, str) else text
            cut_bytes, rest_bytes = raw[:limit], raw[limit:]
            if rest_bytes.strip(b"\x00") == b"" and column.data_type == "binary":
                return value
            self._problem(Errors.DATA_TOO_LONG, column, row)
            self.warnings[-1:] = [Errors.DATA_TRUNCATED.warning(column=column.name, row=row)]
            return cut_bytes if isinstance(text, bytes) else cut_bytes.decode(errors="ignore")
        chars = text if isinstance(text, str) else text.decode(errors="replace")
        cut, rest = chars[:limit], chars[limit:]
        if rest.strip(" ") == "":  # only trailing spaces: cut with a Note, in every mode
            if column.data_type != "char":
                self._problem(Errors.DATA_TRUNCATED, column, row, note=True)
            return cut
        self._problem(Errors.DATA_TOO_LONG, column, row)
        # non-strict: MySQL's warning for a cut string is 1265, not 1406
        self.warnings[-1] = Errors.DATA_TRUNCATED.warning(column=column.name, row=row)
        return cut

    def _enum(self, column: ColumnDef, value: Any, row: int) -> Any:
        members = column.values
        if isinstance(value, int) and not isinstance(value, bool):
            if 1 <= value <= len(members):
                return members[value - 1]
        elif isinstance(value, (str, Decimal)):
            wanted = _member_key(str(value))
            for member in members:
                if _member_key(member) == wanted:
                    return member
            if isinstance(value, Decimal) and value == value.to_integral_value():
                return self._enum(column, int(value), row)
        else:
            return value
        self._problem(Errors.DATA_TRUNCATED, column, row)
        return (
            ""  # index 0, MySQL's error value (engine/sql/mysql_ddl.py lists it in DuckDB's ENUM)
        )

    def _set(self, column: ColumnDef, value: Any, row: int) -> Any:
        members = column.values
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < 1 << len(members):
                return ",".join(m for i, m in enumerate(members) if value >> i & 1)
            self._problem(Errors.DATA_TRUNCATED, column, row)
            return ""
        if not isinstance(value, str):
            return value
        keys = {_member_key(m): m for m in members}
        chosen = set()
        bad = False
        for item in value.split(",") if value else []:
            member = keys.get(_member_key(item))
            if member is None:
                bad = True
            else:
                chosen.add(member)
        if bad:
            self._problem(Errors.DATA_TRUNCATED, column, row)
        return ",".join(m for m in members if m in chosen)

    def _integer(self, column: ColumnDef, value: Any, row: int) -> Any:
        number = _number(value)
        bounds = column.integer_range()
        if number is None or bounds is None:
            return value
        whole = int(number.to_integral_value(rounding=ROUND_HALF_UP))
        low, high = bounds
        if low <= whole <= high:
            return whole if whole != value or isinstance(value, (str, Decimal)) else value
        self._problem(Errors.COLUMN_OUT_OF_RANGE, column, row)
        return max(low, min(high, whole))

    def _decimal(self, column: ColumnDef, value: Any, row: int) -> Any:
        with localcontext() as context:  # MySQL's DECIMAL has up to 65 digits; Python's default 28
            context.prec = _DECIMAL_DIGITS
            return self._decimal_in_context(column, value, row)

    def _decimal_in_context(self, column: ColumnDef, value: Any, row: int) -> Any:
        number = _number(value)
        if number is None or column.precision is None:
            return value
        scale = column.scale or 0
        step = Decimal(1).scaleb(-scale)
        rounded = number.quantize(step, rounding=ROUND_HALF_UP) if number.is_finite() else number
        top = Decimal(10) ** (column.precision - scale) - step
        low = Decimal(0) if column.unsigned else -top
        if not rounded.is_finite() or not low <= rounded <= top:
            self._problem(Errors.COLUMN_OUT_OF_RANGE, column, row)
            return top if number > 0 else low
        if rounded != number:
            self._problem(Errors.DATA_TRUNCATED, column, row, note=True)
        return rounded

    def _time(self, column: ColumnDef, value: Any, row: int) -> Any:
        parsed = time_columns.parse(value, column.fsp or 0)
        if parsed is None:
            return value
        if parsed.in_range and parsed.microseconds is not None:
            return time_columns.text(parsed.microseconds)
        if self.mode.raises:
            shown = value if isinstance(value, str) else str(value)
            raise Errors.WRONG_VALUE_FOR_COLUMN.error(
                type="time", value=shown, column=column.name, row=row
            )
        if parsed.microseconds is None:
            self.warnings.append(Errors.DATA_TRUNCATED.warning(column=column.name, row=row))
            return time_columns.text(0)
        self.warnings.append(Errors.COLUMN_OUT_OF_RANGE.warning(column=column.name, row=row))
        return time_columns.text(time_columns.clipped(parsed.microseconds))


def implicit_default(column: ColumnDef) -> Any:
    """MySQL's implicit default of a type (manual 13.6): what non-strict NULL becomes."""
    kind = column.data_type
    if kind in INTEGER_TYPES or kind in ("decimal", "float", "double", "bit", "year"):
        return 0
    if kind == "enum":
        return column.values[0] if column.values else None
    if kind in STRING_TYPES or kind in BINARY_TYPES or kind == "set":
        return ""
    if kind == "time":
        return time_columns.text(0)
    return None  # dates: MySQL's zero date, which DuckDB has not; DuckDB reports the NULL


def _member_key(text: str) -> str:
    """ENUM/SET members compare under the default collation: case-insensitive, trailing spaces
    ignored (members are stored without them)."""
    return text.rstrip(" ").casefold()


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None  # not a number: DuckDB answers 1366
    return None
