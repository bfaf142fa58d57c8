"""MySQL's types of function results in a select list (server/expression_columns.py runs them):
string functions (CONCAT adds lengths, UPPER/LOWER/TRIM/REVERSE keep them, SUBSTRING/LEFT/LPAD
with a constant length take it; CONCAT is nullable whatever its arguments, a result longer than
max_allowed_packet being NULL), IF/CASE/COALESCE/IFNULL/NULLIF (MySQL's type aggregation of
their branches) and date functions (parts are BIGINT of their digits and a sign, DATE() and
LAST_DAY() DATE, DATE_FORMAT with a constant format the widest text it prints)."""

from __future__ import annotations

from dataclasses import replace

from mysql_mimic.types import ColumnType
import sqlglot
from sqlglot import exp

from drydock.grammar.sql import DrydockMySQL
from drydock.server.mysql_types import (
    NULL,
    MySQLType,
    Rule,
    Typing,
    decimal,
    double,
    integer,
    integer_digits,
    string,
)


# -- strings --------------------------------------------------------------------------------------
def _characters(t: MySQLType) -> int:
    return t.characters


def _concat(typing: Typing, node: exp.Expr) -> MySQLType | None:
    """Nullable whatever its arguments: a result longer than max_allowed_packet is NULL."""
    found = typing.operands(list(node.expressions))
    if found is None:
        return None
    return string(sum(_characters(t) for t in found), True)


def _concat_ws(typing: Typing, node: exp.Expr) -> MySQLType | None:
    found = typing.operands(list(node.expressions))
    if not found:
        return None
    separator, parts = found[0], found[1:]
    characters = sum(_characters(t) for t in parts) + _characters(separator) * max(
        len(parts) - 1, 0
    )
    return string(characters, True)


def _same_length(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    return string(_characters(arg), True)


def _constant(node: exp.Expr | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string and node.name.isdigit():
        return int(node.name)
    return None


def _substring(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    characters = _characters(arg)
    length = _constant(node.args.get("length"))
    if length is not None:
        characters = min(characters, length)
    return string(characters, True)


def _left_right(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    length = _constant(node.expression)
    characters = _characters(arg) if length is None else min(_characters(arg), length)
    return string(characters, True)


def _pad(typing: Typing, node: exp.Expr) -> MySQLType | None:
    length = _constant(node.expression)
    if length is None:
        return None
    return string(length, True)


def _replace(typing: Typing, node: exp.Expr) -> MySQLType | None:
    found = typing.operands([node.this, node.expression, node.args["replacement"]])
    if found is None:
        return None
    subject, search, substitute = (_characters(t) for t in found)
    characters = subject
    if substitute > search and search:
        characters = subject // search * (substitute - search) + subject
    return string(characters, True)


def _length(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None:
        return None
    return integer(10, 10, arg.nullable)


# -- choices --------------------------------------------------------------------------------------
def _aggregate(found: list[MySQLType], nullable: bool) -> MySQLType | None:
    """MySQL's type aggregation of IF/CASE/COALESCE branches (NULL branches ignored)."""
    typed = [t for t in found if not t.is_null]
    if not typed:
        return NULL
    if all(t.is_string for t in typed) and not any(t.binary for t in typed):
        return string(max(_characters(t) for t in typed), nullable)
    if not all(t.is_exact or t.is_real for t in typed):
        return None
    if any(t.is_real for t in typed):
        return double(nullable)
    scale = max(t.decimals for t in typed)
    digits = max(integer_digits(t) for t in typed)
    unsigned = all(t.unsigned for t in typed)
    if all(t.is_integer for t in typed):
        return integer(digits + (0 if unsigned else 1), digits, nullable, unsigned)
    return decimal(digits + scale, scale, nullable, unsigned)


def _if(typing: Typing, node: exp.Expr) -> MySQLType | None:
    branches = [node.args.get("true"), node.args.get("false")]
    if any(b is None for b in branches):
        return None
    found = typing.operands(branches)  # type: ignore[arg-type]
    if found is None:
        return None
    return _aggregate(found, any(t.nullable for t in found))


def _case(typing: Typing, node: exp.Expr) -> MySQLType | None:
    branches = [w.args.get("true") for w in node.args.get("ifs") or []]
    default = node.args.get("default")
    found = typing.operands([b for b in branches + [default] if b is not None])
    if found is None:
        return None
    return _aggregate(found, default is None or any(t.nullable for t in found))


def _coalesce(typing: Typing, node: exp.Expr) -> MySQLType | None:
    found = typing.operands([node.this, *node.expressions])
    if found is None:
        return None
    return _aggregate(found, all(t.nullable for t in found))


def _nullif(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    return replace(arg, nullable=True) if arg is not None else None


def _date(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None:
        return None
    return MySQLType(ColumnType.DATE, 10, 0, True)


def _date_part(length: int) -> Rule:
    """YEAR(), MONTH(), …: BIGINT of the part's digits and a sign, NULL for a bad date."""

    def rule(typing: Typing, node: exp.Expr) -> MySQLType | None:
        return integer(length, length - 1, True)

    return rule


def _last_day(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return MySQLType(ColumnType.DATE, 10, 0, True)


# characters each DATE_FORMAT specifier can print (MySQL's Item_func_date_format::format_length)
_FORMAT_WIDTHS = {"M": 64, "W": 64, "D": 4, "Y": 4, "x": 4, "X": 4, "a": 32, "b": 32, "j": 3}
_FORMAT_WIDTHS |= {c: 2 for c in "UuVvymdhIilpSsce"}
# %T is 8 in MySQL, but the grammar reads '%H:%i:%s' (7 + 1 + 2 + 1 + 2 = 13) as %T too, and that
# spelling is the common one: a %T is typed as the longer (a display length may exceed the text)
_FORMAT_WIDTHS |= {"k": 7, "H": 7, "r": 11, "T": 13, "f": 6}


def _date_format(typing: Typing, node: exp.Expr) -> MySQLType | None:
    """A constant format: the widest text its specifiers print."""
    if not isinstance(node.args.get("format"), exp.Literal):
        return None
    return string(_format_width(_mysql_format(node)), True)


def _format_width(text: str) -> int:
    size, i = 0, 0
    while i < len(text):
        if text[i] == "%" and i < len(text) - 1:
            i += 1
            size += _FORMAT_WIDTHS.get(text[i], 1)
        else:
            size += 1
        i += 1
    return size


def _time_format(typing: Typing, node: exp.Expr) -> MySQLType | None:
    """TIME_FORMAT(t, format): MySQL's Item_func_time_format is a DATE_FORMAT (same widths)."""
    if len(node.expressions) != 2 or not isinstance(node.expressions[1], exp.Literal):
        return None
    return string(_format_width(node.expressions[1].name), True)


# DATE_ADD / DATE_SUB / `x + INTERVAL n unit` of a string (MySQL's Item_date_add_interval):
# VARCHAR of MAX_DATETIME_FULL_WIDTH characters, since the string may hold any temporal.
_DATETIME_FULL_WIDTH = 29


def date_arithmetic(
    typing: Typing, operand: exp.Expr, amount: exp.Expr | None = None, unit: str = ""
) -> MySQLType | None:
    """The type of date arithmetic on ``operand``; a string operand, and a TIME one (TIME of its
    own fsp or the interval's, MySQL's Item_date_add_interval: 6 for a MICROSECOND unit, a
    SECOND amount's fraction digits), are typed here (a DATE or DATETIME operand keeps the type
    DuckDB computes, which is MySQL's)."""
    found = typing.of(operand)
    if found is not None and found.type == ColumnType.TIME:
        decimals = max(found.decimals, _interval_decimals(amount, unit.upper()))
        length = 10 + (decimals + 1 if decimals else 0)  # maybe_null: an overflow is NULL
        return replace(found, length=length, decimals=decimals, nullable=True)
    if found is None or not found.is_string or found.binary:
        return None
    return string(_DATETIME_FULL_WIDTH, True)


def _interval_decimals(amount: exp.Expr | None, unit: str) -> int:
    if "MICROSECOND" in unit:
        return 6
    if unit == "SECOND" and isinstance(amount, exp.Literal) and "." in amount.name:
        return min(len(amount.name.split(".", 1)[1]), 6)
    return 0


def _date_add(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return date_arithmetic(typing, node.this, node.expression, node.text("unit"))


def _mysql_format(node: exp.Expr) -> str:
    """The format as MySQL wrote it (sqlglot keeps strftime's spelling: %W is %A there); the
    generator writes it as a quoted literal, which the grammar reads back."""
    written = DrydockMySQL().generator().format_time(node) or "''"
    literal = sqlglot.parse_one(written, dialect=DrydockMySQL)
    return literal.name if isinstance(literal, exp.Literal) else ""


# -- information functions ------------------------------------------------------------------------
# MySQL's Item_func_last_insert_id (BIGINT UNSIGNED), Item_func_row_count, Item_func_found_rows:
# 21 digits, never NULL. engine/statements/sql.py replaces the call by its value and keeps the
# call for typing.
_INFORMATION = {
    "last_insert_id": integer(21, 20, False, unsigned=True),
    "row_count": integer(21, 20, False),
    "found_rows": integer(21, 20, False),
}


def _information(typing: Typing, node: exp.Expr) -> MySQLType | None:
    if node.expressions:
        return None
    return _INFORMATION.get(str(node.name).lower())


def _anonymous(typing: Typing, node: exp.Expr) -> MySQLType | None:
    """Calls sqlglot keeps by name."""
    rule = _BY_NAME.get(str(node.name).lower())
    return rule(typing, node) if rule is not None else _information(typing, node)


# MySQL's Item_func_time_to_sec: an Item_int_func of 10 characters (the seconds of ±838:59:59
# and a sign), NULL for a bad time; its value is whole seconds
_BY_NAME: dict[str, Rule] = {
    "time_format": _time_format,
    "time_to_sec": lambda typing, node: integer(10, 9, True),
}


# -- CAST ----------------------------------------------------------------------------------------
_BIGINT_DIGITS = 20  # MY_INT64_NUM_DECIMAL_DIGITS


def _cast(typing: Typing, node: exp.Expr) -> MySQLType | None:
    """MySQL 8's Item_typecast_*: SIGNED keeps the operand's characters (at most 20), UNSIGNED is
    BIGINT UNSIGNED(20), DECIMAL(p,s) and CHAR(n) their declared size (CHAR: the operand's
    characters), DOUBLE MySQL's DOUBLE; nullable as the operand (CHAR: always). Temporal
    targets: not here."""
    assert isinstance(node, exp.Cast)
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    to, nullable = node.to, arg.nullable
    params = [int(p.name) for p in to.expressions if p.name.isdigit()]
    if to.is_type(exp.DataType.Type.BIGINT):
        length = min(arg.characters, _BIGINT_DIGITS)
        return integer(length, max(length - 1, 1), nullable)
    if to.is_type(exp.DataType.Type.UBIGINT):
        return integer(_BIGINT_DIGITS, _BIGINT_DIGITS, nullable, unsigned=True)
    if to.is_type(exp.DataType.Type.DECIMAL):
        precision, scale = (params + [10, 0][len(params) :])[:2] if params else (10, 0)
        return decimal(precision, scale, nullable)
    if to.is_type(exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR):
        return string(params[0] if params else arg.characters, True)  # a bad conversion: NULL
    if to.is_type(exp.DataType.Type.DOUBLE):
        return double(nullable)
    return None


FUNCTION_RULES: dict[type[exp.Expr], Rule] = {
    exp.Cast: _cast,
    exp.Anonymous: _anonymous,
    exp.Concat: _concat,
    exp.ConcatWs: _concat_ws,
    exp.Upper: _same_length,
    exp.Lower: _same_length,
    exp.Trim: _same_length,
    exp.Reverse: _same_length,
    exp.Substring: _substring,
    exp.Left: _left_right,
    exp.Right: _left_right,
    exp.Pad: _pad,
    exp.Replace: _replace,
    exp.Length: _length,
    exp.If: _if,
    exp.Case: _case,
    exp.Coalesce: _coalesce,
    exp.Nullif: _nullif,
    exp.TsOrDsToDate: _date,
    exp.Year: _date_part(5),
    exp.Quarter: _date_part(2),
    exp.Month: _date_part(3),
    exp.Day: _date_part(3),
    exp.DayOfMonth: _date_part(3),
    exp.DayOfWeek: _date_part(2),
    exp.Hour: _date_part(4),
    exp.Minute: _date_part(3),
    exp.Second: _date_part(3),
    exp.LastDay: _last_day,
    # Item_func_timestamp_diff: an Item_int_func's BIGINT(21), NULL for a bad date
    exp.TimestampDiff: lambda typing, node: integer(21, 20, True),
    exp.TimeToStr: _date_format,
    exp.DateAdd: _date_add,
    exp.DateSub: _date_add,
    # DATEDIFF is TO_DAYS(a) - TO_DAYS(b) (MySQL's Create_func_datediff): integer arithmetic,
    # BIGINT of 8 characters, NULL for a bad date
    exp.DateDiff: lambda typing, node: integer(8, 7, True),
}
