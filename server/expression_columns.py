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
- date parts are BIGINT of their digits and a sign (YEAR 5, MONTH/DAY 3, DAYOFWEEK 2), DATE()
  and LAST_DAY() DATE, DATE_FORMAT with a constant format the widest text it prints;
- flags: NOT_NULL when the value can never be NULL, UNSIGNED, BINARY for numbers and temporals
  (their character set is binary) and binary strings, BLOB for the BLOB types. An expression
  never carries NUM (libmysqlclient sets it itself). A grouped query sends its columns from a
  temporary table, whose fields do not carry BINARY, unless an index of its one table starts
  with the GROUP BY columns and no other order is asked for (MySQL then reads the rows grouped:
  engine/sql/result_origins.py decides).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mysql_mimic.types import ColumnType
from sqlglot import exp

from drydock.engine.sql.mysql_functions import MYSQL_CALL
from drydock.server.function_columns import FUNCTION_RULES, date_arithmetic
from drydock.server.mysql_types import (
    DIV_PRECISION_INCREMENT,
    MAX_PRECISION,
    MAX_SCALE,
    NOT_FIXED_DEC,
    NULL,
    MySQLType,
    Rule,
    Typing,
    boolean,
    decimal,
    double,
    integer,
    integer_digits,
    string,
)

ColumnTypes = Callable[[exp.Column], "MySQLType | None"]


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
        # a call engine/sql/mysql_functions.py rewrote is typed as the client wrote it
        meta = getattr(node, "_meta", None)
        if meta and MYSQL_CALL in meta:
            node = meta[MYSQL_CALL]
        rule = _RULES.get(type(node))
        return rule(self, node) if rule is not None else None

    def operands(self, nodes: list[exp.Expr]) -> list[MySQLType] | None:
        found = [self.of(n) for n in nodes]
        return None if any(t is None for t in found) else found  # type: ignore[return-value]

    def column(self, node: exp.Expr) -> MySQLType | None:
        assert isinstance(node, exp.Column)
        return self._column_type(node)


# -- literals and columns -------------------------------------------------------------------------
def _literal(typing: Typing, node: exp.Expr) -> MySQLType | None:
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


def _neg(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    if arg is not None and arg.type == ColumnType.TIME:  # Item_func_num1: a TIME is a DOUBLE
        return double(arg.nullable)
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return arg
    return replace(arg, length=arg.length + 1, unsigned=False)  # room for the sign


# -- arithmetic -----------------------------------------------------------------------------------
_TIME_INT_DIGITS = 7  # MySQL's TIME_INT_DIGITS: HHHMMSS of 838:59:59


def _number(t: MySQLType | None) -> MySQLType | None:
    """An operand of arithmetic, SUM or AVG as MySQL 8 reads it: a TIME is the number HHMMSS[.f]
    (Item::numeric_context_result_type: an integer, or DECIMAL(7+fsp, fsp) with a fraction;
    engine/sql/time_contexts.py computes it)."""
    if t is None or t.type != ColumnType.TIME:
        return t
    digits = _TIME_INT_DIGITS + t.decimals
    if t.decimals:
        return decimal(digits, t.decimals, t.nullable)
    return integer(digits + 1, digits, t.nullable)


def _numbers(typing: Typing, node: exp.Expr) -> tuple[MySQLType, MySQLType] | None:
    found = typing.operands([node.this, node.expression])
    if found is None:
        return None
    a, b = _number(found[0]), _number(found[1])
    if a is None or b is None or not all(t.is_exact or t.is_real or t.is_null for t in (a, b)):
        return None
    return a, b


def _additive(typing: Typing, node: exp.Expr) -> MySQLType | None:
    sides = [node.this, node.expression]
    intervals = [side for side in sides if isinstance(side, exp.Interval)]
    if intervals:  # `x + INTERVAL n unit`: date arithmetic on the other side
        others = [side for side in sides if not isinstance(side, exp.Interval)]
        if len(others) != 1:
            return None
        return date_arithmetic(typing, others[0], intervals[0].this, intervals[0].text("unit"))
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
    precision = max(integer_digits(a), integer_digits(b)) + 1 + scale
    return _exact(a, b, precision, scale, nullable)


def _multiply(typing: Typing, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    nullable = a.nullable or b.nullable
    if a.is_real or b.is_real:
        return double(nullable)
    precision = min(a.precision + b.precision, MAX_PRECISION)
    scale = min(a.decimals + b.decimals, MAX_SCALE)
    return _exact(a, b, precision, scale, nullable)


def _exact(a: MySQLType, b: MySQLType, precision: int, scale: int, nullable: bool) -> MySQLType:
    """An exact result of two exact operands: an integer when both are, else a DECIMAL."""
    if a.is_integer and b.is_integer:
        unsigned = a.unsigned or b.unsigned
        return integer(precision + (0 if unsigned else 1), precision, nullable, unsigned)
    return decimal(precision, scale, nullable, a.unsigned and b.unsigned)


def _divide(typing: Typing, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    if a.is_real or b.is_real:
        return double(True)
    precision = a.precision + b.decimals + DIV_PRECISION_INCREMENT
    return decimal(precision, a.decimals + DIV_PRECISION_INCREMENT, True, a.unsigned and b.unsigned)


def _integer_divide(typing: Typing, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null or pair[0].is_real:
        return None
    a, b = pair
    length = a.length - (a.decimals + 1 if a.decimals else 0)
    unsigned = a.unsigned or b.unsigned
    return integer(length, length - (0 if unsigned else 1), True, unsigned)


def _modulo(typing: Typing, node: exp.Expr) -> MySQLType | None:
    pair = _numbers(typing, node)
    if pair is None or pair[0].is_null or pair[1].is_null:
        return None
    a, b = pair
    if a.is_real or b.is_real:
        return double(True)
    scale = max(a.decimals, b.decimals)
    precision = max(integer_digits(a), integer_digits(b)) + scale
    if a.is_integer and b.is_integer:
        return integer(precision + (0 if a.unsigned else 1), precision, True, a.unsigned)
    return decimal(precision, scale, True, a.unsigned)


def _bitwise(typing: Typing, node: exp.Expr) -> MySQLType | None:
    args = [a for a in (node.this, node.args.get("expression")) if a is not None]
    found = typing.operands(args)
    if found is None:
        return None
    return integer(21, 20, any(t.nullable for t in found), unsigned=True)


# -- comparisons and logic ------------------------------------------------------------------------
def _predicate(typing: Typing, node: exp.Expr) -> MySQLType | None:
    args = [a for a in node.iter_expressions() if not isinstance(a, exp.Null)]
    nulls = any(isinstance(a, exp.Null) for a in node.iter_expressions())
    found = typing.operands(args)
    if found is None:
        return None
    return boolean(nulls or any(t.nullable for t in found))


def _never_null_predicate(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return boolean(False)


def _true_false(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return boolean(False)


# -- aggregates -----------------------------------------------------------------------------------
def _count(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return integer(21, 20, False)


def _argument(node: exp.Expr) -> exp.Expr:
    """An aggregate's argument: SUM(DISTINCT x) is typed as SUM(x)."""
    inner = node.this
    if isinstance(inner, exp.Distinct) and len(inner.expressions) == 1:
        return inner.expressions[0]
    return inner


def _sum(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = _number(typing.of(_argument(node)))
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return double(True)
    return decimal(arg.precision + 22, arg.decimals, True)  # DECIMAL_LONGLONG_DIGITS more


def _avg(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = _number(typing.of(_argument(node)))
    if arg is None or not (arg.is_exact or arg.is_real):
        return None
    if arg.is_real:
        return double(True)
    step = DIV_PRECISION_INCREMENT
    return decimal(arg.precision + step, arg.decimals + step, True)


def _min_max(typing: Typing, node: exp.Expr) -> MySQLType | None:
    arg = typing.of(node.this)
    return replace(arg, nullable=True) if arg is not None else None


def _column(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return typing.column(node)


def _inner(typing: Typing, node: exp.Expr) -> MySQLType | None:
    return typing.of(node.this)


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
    **FUNCTION_RULES,
}
