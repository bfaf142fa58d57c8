"""One result column's type as MySQL sends it (:class:`MySQLType`: type code, display length,
decimals, nullability, sign, character set), the constructors MySQL's resolve_type rules use
(BIGINT, DECIMAL of a precision and scale, DOUBLE, VAR_STRING of n characters), and the shape of
a typing rule (server/expression_columns.py, server/function_columns.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

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


class Typing(Protocol):
    """What a rule asks of the typing it runs in (server/expression_columns.py)."""

    def of(self, node: exp.Expr) -> MySQLType | None: ...

    def operands(self, nodes: list[exp.Expr]) -> list[MySQLType] | None: ...

    def column(self, node: exp.Expr) -> MySQLType | None: ...


Rule = Callable[[Typing, exp.Expr], "MySQLType | None"]


def integer_digits(t: MySQLType) -> int:
    return t.precision - t.decimals
