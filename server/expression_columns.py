"""MySQL's type of a result column that is an expression: type code, display length, decimals and
flags as MySQL 8 derives them from the select list (its Item tree's resolve_type), not from the
DuckDB type that computes the value.

:class:`ExpressionTyping` walks the MySQL AST of one projection (engine/sql/result_origins.py
keeps it, copied before drydock adapts it for DuckDB) bottom up. Its leaves are literals and
columns: a column of an internal table with a declared definition is typed as that definition
(server/declared_columns.py), a column of information_schema as MySQL's metadata tables define it
(server/metadata_columns.py). Any node it does not know, or a column it cannot type, makes the whole
expression unknown (None): the caller then describes the column from its DuckDB type.

MySQL's rules, as its Item classes apply them:

- integer literals and integer arithmetic are BIGINT (LONGLONG) whose length counts the digits
  (``1 + 2`` is 3: one more digit and the sign); comparisons, logical operators, LIKE, IN,
  BETWEEN, IS and TRUE/FALSE are BIGINT of length 1; bit operators BIGINT UNSIGNED of length 21;
- DECIMAL literals keep their digits and scale; ``+``/``-`` take the larger scale and one more
  integer digit, ``*`` adds precisions and scales, ``/`` is DECIMAL with 4 more digits of scale
  (div_precision_increment) and is nullable (division by zero is NULL);
- COUNT is BIGINT(21) NOT NULL; SUM of an exact number is DECIMAL with 22 more digits, AVG with 4
  more digits and 4 more of scale; MIN/MAX are their argument's type (nullable);
- strings are VAR_STRING in utf8mb4 (length = characters × 4, decimals 31): CONCAT adds lengths,
  UPPER/LOWER/TRIM/REVERSE keep them, SUBSTRING/LEFT/LPAD with a constant length take it;
- IF/CASE/COALESCE/IFNULL/NULLIF aggregate their result branches' types;
- flags: NOT_NULL when the value can never be NULL, UNSIGNED, BINARY for numbers and temporals
  (their character set is binary) and binary strings, BLOB for the BLOB types. An expression
  never carries NUM (libmysqlclient sets it itself). A grouped query sends its columns from a
  temporary table, whose fields do not carry BINARY.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import ColumnType
from sqlglot import exp

from drydock.server.declared_columns import BINARY, BLOB, NOT_NULL, UNSIGNED, Declared

NOT_FIXED_DEC = 31  # MySQL's decimals of strings and of DOUBLE without a scale
MBMAXLEN = 4  # utf8mb4, the results' character set
MAX_PRECISION = 65
MAX_SCALE = 30
DIV_PRECISION_INCREMENT = 4
MAX_LENGTH = 4294967295  # the definition's length is 4 bytes (LONGTEXT)
DOUBLE_LENGTH = 23  # MySQL's float_length(NOT_FIXED_DEC): DBL_DIG + 8

_INTEGERS = (
    ColumnType.TINY,
    ColumnType.SHORT,
    ColumnType.INT24,
    ColumnType.LONG,
    ColumnType.LONGLONG,
    ColumnType.YEAR,
)
_REALS = (ColumnType.FLOAT, ColumnType.DOUBLE)
_STRINGS = (ColumnType.VAR_STRING, ColumnType.STRING, ColumnType.VARCHAR, ColumnType.BLOB)


@dataclass(frozen=True)
class MySQLType:
    """One result column's type as MySQL sends it."""

    type: ColumnType
    length: int  # display length; bytes in utf8mb4 for strings
    decimals: int = 0
    nullable: bool = True
    unsigned: bool = False
    binary: bool = True  # the binary character set: numbers, temporals, binary strings
    precision: int = 0  # digits of a number (MySQL's decimal_precision())
    blob: bool = False
    other_flags: int = 0  # flags of a table column: NO_DEFAULT_VALUE, keys

    @property
    def flags(self) -> int:
        return (
            (0 if self.nullable else NOT_NULL)
            | (UNSIGNED if self.unsigned else 0)
            | (BINARY if self.binary else 0)
            | (BLOB if self.blob else 0)
            | self.other_flags
        )

    @property
    def is_integer(self) -> bool:
        return self.type in _INTEGERS

    @property
    def is_decimal(self) -> bool:
        return self.type == ColumnType.NEWDECIMAL

    @property
    def is_real(self) -> bool:
        return self.type in _REALS

    @property
    def is_exact(self) -> bool:
        return self.is_integer or self.is_decimal

    @property
    def is_string(self) -> bool:
        return self.type in _STRINGS

    @property
    def is_null(self) -> bool:
        return self.type == ColumnType.NULL

    @property
    def characters(self) -> int:
        """The length in characters, as a string argument of a string function counts it."""
        if self.is_string and not self.binary:
            return self.length // MBMAXLEN
        return self.length


def integer(length: int, precision: int, nullable: bool, unsigned: bool = False) -> MySQLType:
    return MySQLType(ColumnType.LONGLONG, length, 0, nullable, unsigned, precision=precision)


def boolean(nullable: bool) -> MySQLType:
    return integer(1, 1, nullable)


def decimal(precision: int, scale: int, nullable: bool, unsigned: bool = False) -> MySQLType:
    precision = min(precision, MAX_PRECISION)
    scale = min(scale, MAX_SCALE)
    length = precision + (1 if scale else 0) + (0 if unsigned else 1)
    return MySQLType(ColumnType.NEWDECIMAL, length, scale, nullable, unsigned, precision=precision)


def double(nullable: bool) -> MySQLType:
    return MySQLType(ColumnType.DOUBLE, DOUBLE_LENGTH, NOT_FIXED_DEC, nullable)


def string(characters: int, nullable: bool) -> MySQLType:
    length = min(characters * MBMAXLEN, MAX_LENGTH)
    if length > 65535:  # longer than a VARCHAR can be: a (MEDIUM/LONG) TEXT
        return MySQLType(ColumnType.BLOB, length, NOT_FIXED_DEC, nullable, binary=False, blob=True)
    return MySQLType(ColumnType.VAR_STRING, length, NOT_FIXED_DEC, nullable, binary=False)


NULL = MySQLType(ColumnType.NULL, 0, 0, True)


def from_declared(column: Declared) -> MySQLType:
    """A declared table column as an operand: its wire definition."""
    unsigned = bool(column.flags & UNSIGNED)
    precision = 0
    if column.type in _INTEGERS:
        precision = column.length - (0 if unsigned else 1)
    elif column.type == ColumnType.NEWDECIMAL:
        precision = column.length - (1 if column.decimals else 0) - (0 if unsigned else 1)
    return MySQLType(
        column.type,
        column.length,
        column.decimals,
        nullable=not column.flags & NOT_NULL,
        unsigned=unsigned,
        # as an operand, a number or temporal is in the binary character set (a table column's
        # own definition leaves BINARY to binary strings and temporals)
        binary=column.type not in _STRINGS or column.charset == CharacterSet.binary,
        precision=precision,
        blob=bool(column.flags & BLOB),
    )


ColumnTypes = Callable[[exp.Column], "MySQLType | None"]
Rule = Callable[["ExpressionTyping", exp.Expr], "MySQLType | None"]


class ExpressionTyping:
    """MySQL's type of each expression of one SELECT's select list; ``column_type`` types a
    column reference (None: unknown)."""

    def __init__(self, column_type: ColumnTypes, grouped: bool = False):
        self._column_type = column_type
        self._grouped = grouped

    def result(self, node: exp.Expr) -> MySQLType | None:
        """The type a result column of this expression is sent with."""
        found = self.of(node)
        if found is None or not self._grouped:
            return found
        return replace(found, binary=found.binary and found.is_string)

    def of(self, node: exp.Expr) -> MySQLType | None:
        rule = _RULES.get(type(node))
        return rule(self, node) if rule is not None else None

    def operands(self, nodes: list[exp.Expr]) -> list[MySQLType] | None:
        found = [self.of(n) for n in nodes]
        return None if any(t is None for t in found) else found  # type: ignore[return-value]

    def column(self, node: exp.Expr) -> MySQLType | None:
        assert isinstance(node, exp.Column)
        return self._column_type(node)


# -- literals and columns -------------------------------------------------------------------------
def _literal(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    text = node.name
    if node.is_string:
        return string(len(text), False)
    if "e" in text.lower():
        return MySQLType(ColumnType.DOUBLE, len(text), NOT_FIXED_DEC, False)
    if "." in text:
        whole, fraction = text.split(".", 1)
        digits = max(len(whole.lstrip("+")), 1) + len(fraction)
        return decimal(digits, len(fraction), False)
    if not text.isdigit():
        return None
    if int(text) > 2**64 - 1:
        return decimal(len(text), 0, False)
    return integer(len(text), len(text), False, unsigned=int(text) > 2**63 - 1)


def _neg(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return arg
    return replace(arg, length=arg.length + 1, unsigned=False)  # room for the sign


# -- arithmetic -----------------------------------------------------------------------------------
def _numbers(typing: ExpressionTyping, node: exp.Expr) -> tuple[MySQLType, MySQLType] | None:
    found = typing.operands([node.this, node.expression])
    if found is None or not all(t.is_exact or t.is_real or t.is_null for t in found):
        return None
    return found[0], found[1]


def _integer_digits(t: MySQLType) -> int:
    return t.precision - t.decimals


def _additive(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None:
        return None
    a, b = pair
    nullable = a.nullable or b.nullable
    if a.is_null or b.is_null:
        return double(True) if a.is_real or b.is_real else None
    if a.is_real or b.is_real:
        return double(nullable)
    scale = max(a.decimals, b.decimals)
    precision = max(_integer_digits(a), _integer_digits(b)) + 1 + scale
    if a.is_integer and b.is_integer:
        unsigned = a.unsigned or b.unsigned
        return integer(precision + (0 if unsigned else 1), precision, nullable, unsigned)
    return decimal(precision, scale, nullable, a.unsigned and b.unsigned)


def _multiply(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    nullable = a.nullable or b.nullable
    if a.is_real or b.is_real:
        return double(nullable)
    precision = min(a.precision + b.precision, MAX_PRECISION)
    scale = min(a.decimals + b.decimals, MAX_SCALE)
    if a.is_integer and b.is_integer:
        unsigned = a.unsigned or b.unsigned
        return integer(precision + (0 if unsigned else 1), precision, nullable, unsigned)
    return decimal(precision, scale, nullable, a.unsigned and b.unsigned)


def _divide(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    if a.is_real or b.is_real:
        return double(True)
    precision = a.precision + b.decimals + DIV_PRECISION_INCREMENT
    return decimal(precision, a.decimals + DIV_PRECISION_INCREMENT, True, a.unsigned and b.unsigned)


def _integer_divide(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null or pair[0].is_real:
        return None
    a, b = pair
    length = a.length - (a.decimals + 1 if a.decimals else 0)
    unsigned = a.unsigned or b.unsigned
    return integer(length, length - (0 if unsigned else 1), True, unsigned)


def _modulo(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    if a.is_real or b.is_real:
        return double(True)
    scale = max(a.decimals, b.decimals)
    precision = max(_integer_digits(a), _integer_digits(b)) + scale
    if a.is_integer and b.is_integer:
        return integer(precision + (0 if a.unsigned else 1), precision, True, a.unsigned)
    return decimal(precision, scale, True, a.unsigned)


def _bitwise(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    args = [a for a in (node.this, node.args.get("expression")) if a is not None]
    found = typing.operands(args)
    if found is None:
        return None
    return integer(21, 20, any(t.nullable for t in found), unsigned=True)


# -- comparisons and logic ------------------------------------------------------------------------
def _predicate(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    args = [a for a in node.iter_expressions() if not isinstance(a, exp.Null)]
    nulls = any(isinstance(a, exp.Null) for a in node.iter_expressions())
    found = typing.operands(args)
    if found is None:
        return None
    return boolean(nulls or any(t.nullable for t in found))


def _never_null_predicate(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    return boolean(False)


def _true_false(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    return boolean(False)


# -- aggregates -----------------------------------------------------------------------------------
def _count(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    return integer(21, 20, False)


def _sum(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return double(True)
    return decimal(arg.precision + 22, arg.decimals, True)  # DECIMAL_LONGLONG_DIGITS more


def _avg(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return double(True)
    step = DIV_PRECISION_INCREMENT
    return decimal(arg.precision + step, arg.decimals + step, True)


def _min_max(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    return replace(arg, nullable=True) if arg is not None else None


# -- strings --------------------------------------------------------------------------------------
def _characters(t: MySQLType) -> int:
    return t.characters


def _concat(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    """Nullable whatever its arguments: a result longer than max_allowed_packet is NULL."""
    found = typing.operands(list(node.expressions))
    if found is None:
        return None
    return string(sum(_characters(t) for t in found), True)


def _concat_ws(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    found = typing.operands(list(node.expressions))
    if not found:
        return None
    separator, parts = found[0], found[1:]
    characters = sum(_characters(t) for t in parts) + _characters(separator) * max(
        len(parts) - 1, 0
    )
    return string(characters, True)


def _same_length(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    return string(_characters(arg), True)


def _constant(node: exp.Expr | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string and node.name.isdigit():
        return int(node.name)
    return None


def _substring(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    characters = _characters(arg)
    length = _constant(node.args.get("length"))
    if length is not None:
        characters = min(characters, length)
    return string(characters, True)


def _left_right(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None or arg.is_null:
        return None
    length = _constant(node.expression)
    characters = _characters(arg) if length is None else min(_characters(arg), length)
    return string(characters, True)


def _pad(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    length = _constant(node.expression)
    if length is None:
        return None
    return string(length, True)


def _replace(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    found = typing.operands([node.this, node.expression, node.args["replacement"]])
    if found is None:
        return None
    subject, search, substitute = (_characters(t) for t in found)
    characters = subject
    if substitute > search and search:
        characters = subject // search * (substitute - search) + subject
    return string(characters, True)


def _length(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
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
    digits = max(_integer_digits(t) for t in typed)
    unsigned = all(t.unsigned for t in typed)
    if all(t.is_integer for t in typed):
        return integer(digits + (0 if unsigned else 1), digits, nullable, unsigned)
    return decimal(digits + scale, scale, nullable, unsigned)


def _if(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    branches = [node.args.get("true"), node.args.get("false")]
    if any(b is None for b in branches):
        return None
    found = typing.operands(branches)  # type: ignore[arg-type]
    if found is None:
        return None
    return _aggregate(found, any(t.nullable for t in found))


def _case(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    branches = [w.args.get("true") for w in node.args.get("ifs") or []]
    default = node.args.get("default")
    found = typing.operands([b for b in branches + [default] if b is not None])
    if found is None:
        return None
    return _aggregate(found, default is None or any(t.nullable for t in found))


def _coalesce(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    found = typing.operands([node.this, *node.expressions])
    if found is None:
        return None
    return _aggregate(found, all(t.nullable for t in found))


def _nullif(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    return replace(arg, nullable=True) if arg is not None else None


def _column(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    return typing.column(node)


def _inner(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    return typing.of(node.this)


def _date(typing: ExpressionTyping, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is None:
        return None
    return MySQLType(ColumnType.DATE, 10, 0, True)


_RULES: dict[type[exp.Expr], Rule] = {
    exp.Literal: _literal,
    exp.Null: lambda typing, node: NULL,
    exp.Boolean: _true_false,
    exp.Column: _column,
    exp.Paren: _inner,
    exp.Alias: _inner,
    exp.Neg: _neg,
    exp.Add: _additive,
    exp.Sub: _additive,
    exp.Mul: _multiply,
    exp.Div: _divide,
    exp.IntDiv: _integer_divide,
    exp.Mod: _modulo,
    exp.BitwiseAnd: _bitwise,
    exp.BitwiseOr: _bitwise,
    exp.BitwiseXor: _bitwise,
    exp.BitwiseLeftShift: _bitwise,
    exp.BitwiseRightShift: _bitwise,
    exp.BitwiseNot: _bitwise,
    exp.EQ: _predicate,
    exp.NEQ: _predicate,
    exp.GT: _predicate,
    exp.GTE: _predicate,
    exp.LT: _predicate,
    exp.LTE: _predicate,
    exp.Like: _predicate,
    exp.ILike: _predicate,
    exp.Escape: _inner,  # LIKE … ESCAPE: drydock adds MySQL's backslash (engine/sql/collation.py)
    exp.RegexpLike: _predicate,
    exp.And: _predicate,
    exp.Or: _predicate,
    exp.Xor: _predicate,
    exp.Not: _predicate,
    exp.Between: _predicate,
    exp.In: _predicate,
    exp.NullSafeEQ: _never_null_predicate,
    exp.Is: _never_null_predicate,
    exp.Count: _count,
    exp.Sum: _sum,
    exp.Avg: _avg,
    exp.Min: _min_max,
    exp.Max: _min_max,
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
}
