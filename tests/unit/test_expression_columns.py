"""MySQL's type of select-list expressions (server/expression_columns.py): type code, length,
decimals and flags as MySQL 8 sends them, from the MySQL AST."""

from __future__ import annotations

import pytest
import sqlglot
from mysql_mimic.types import ColumnType

from drydock.grammar.sql import DrydockMySQL
from drydock.engine.sql import exact_division
from drydock.engine.sql.mysql_functions import MYSQL_CALL
from drydock.server.declared_columns import BINARY, NOT_NULL, UNSIGNED
from drydock.server.expression_columns import ExpressionTyping
from drydock.server.mysql_types import MySQLType, integer

LONGLONG, NEWDECIMAL, VAR_STRING = ColumnType.LONGLONG, ColumnType.NEWDECIMAL, ColumnType.VAR_STRING
INT_COLUMN = integer(11, 10, nullable=True)  # an INT column as an operand


def _typed(expression: str, grouped: bool = False) -> MySQLType | None:
    select = sqlglot.parse_one(f"SELECT {expression}", dialect=DrydockMySQL)
    typing = ExpressionTyping(lambda column: INT_COLUMN if column.name == "n" else None, grouped)
    return typing.result(select.expressions[0])


def _definition(expression: str, grouped: bool = False) -> tuple[int, int, int, int]:
    found = _typed(expression, grouped)
    assert found is not None, expression
    return found.type, found.length, found.decimals, found.flags


@pytest.mark.parametrize(
    "expression, definition",
    [
        ("1 + 2", (LONGLONG, 3, 0, NOT_NULL | BINARY)),
        ("7 - 10", (LONGLONG, 4, 0, NOT_NULL | BINARY)),
        ("6 * 7", (LONGLONG, 3, 0, NOT_NULL | BINARY)),
        ("7 DIV 2", (LONGLONG, 1, 0, BINARY)),
        ("1.5 + 2.25", (NEWDECIMAL, 6, 2, NOT_NULL | BINARY)),
        ("0.1 + 0.2", (NEWDECIMAL, 5, 1, NOT_NULL | BINARY)),
        ("1 / 3", (NEWDECIMAL, 7, 4, BINARY)),  # nullable: division by zero is NULL
        ("1.0 / 3", (NEWDECIMAL, 8, 5, BINARY)),
        ("'a' = 'A'", (LONGLONG, 1, 0, NOT_NULL | BINARY)),
        ("NULL = NULL", (LONGLONG, 1, 0, BINARY)),
        ("NULL <=> NULL", (LONGLONG, 1, 0, NOT_NULL | BINARY)),
        ("5 & 3", (LONGLONG, 21, 0, NOT_NULL | UNSIGNED | BINARY)),
        ("COUNT(*)", (LONGLONG, 21, 0, NOT_NULL | BINARY)),
        ("SUM(n)", (NEWDECIMAL, 33, 0, BINARY)),
        ("AVG(n)", (NEWDECIMAL, 16, 4, BINARY)),
        ("MIN(n)", (LONGLONG, 11, 0, BINARY)),
        ("CONCAT('a', 'bc')", (VAR_STRING, 12, 31, 0)),
        ("CAST('12' AS SIGNED)", (LONGLONG, 2, 0, NOT_NULL | BINARY)),
        ("CAST(-1 AS UNSIGNED)", (LONGLONG, 20, 0, NOT_NULL | UNSIGNED | BINARY)),
        ("CAST(3.14159 AS DECIMAL(5,1))", (NEWDECIMAL, 7, 1, NOT_NULL | BINARY)),
        ("CAST(42 AS CHAR)", (VAR_STRING, 8, 31, 0)),
        ("CAST(1 AS CHAR(5))", (VAR_STRING, 20, 31, 0)),
        ("UPPER('abc')", (VAR_STRING, 12, 31, 0)),
        ("LPAD('7', 3, '0')", (VAR_STRING, 12, 31, 0)),
        ("IF(1 > 0, 'yes', 'no')", (VAR_STRING, 12, 31, NOT_NULL)),
        ("COALESCE(NULL, 5)", (LONGLONG, 2, 0, NOT_NULL | BINARY)),
    ],
)
def test_mysql_types_of_expressions(expression: str, definition: tuple[int, int, int, int]) -> None:
    assert _definition(expression) == definition


def test_a_grouped_query_sends_no_binary_flag_on_numbers() -> None:
    assert _definition("COUNT(*)", grouped=True) == (LONGLONG, 21, 0, NOT_NULL)


def test_an_unknown_column_or_function_leaves_the_type_unknown() -> None:
    assert _typed("x + 1") is None
    assert _typed("SOUNDEX('a')") is None
    # date arithmetic on a DATE/DATETIME/TIME operand keeps DuckDB's type, which is MySQL's
    assert _typed("DATE_ADD(n, INTERVAL 1 DAY)") is None


@pytest.mark.parametrize(
    "expression, definition",
    [
        ("YEAR('2024-02-29')", (LONGLONG, 5, 0, BINARY)),
        ("MONTH('2024-02-29')", (LONGLONG, 3, 0, BINARY)),
        ("DAYOFWEEK('2024-02-29')", (LONGLONG, 2, 0, BINARY)),
        ("LAST_DAY('2024-02-10')", (ColumnType.DATE, 10, 0, BINARY)),
        ("DATE_FORMAT('2024-02-29 13:14:15', '%Y/%m/%d %H:%i')", (VAR_STRING, 84, 31, 0)),
        ("DATE_FORMAT(n, '%W')", (VAR_STRING, 256, 31, 0)),
        ("DATE_FORMAT(n, '%Y-%m-%d %H:%i:%s')", (VAR_STRING, 24 * 4, 31, 0)),
        ("HOUR('10:00:00')", (LONGLONG, 4, 0, BINARY)),  # up to 838 hours and a sign
        ("TIME_TO_SEC('10:00:00')", (LONGLONG, 10, 0, BINARY)),
        ("TIME_FORMAT(n, '%H:%i:%s')", (VAR_STRING, 52, 31, 0)),
        ("DATEDIFF('2024-03-01', '2024-02-01')", (LONGLONG, 8, 0, BINARY)),
        # date arithmetic on a string: the string could hold any temporal, so VARCHAR(29)
        ("DATE_ADD('2024-01-31', INTERVAL 1 MONTH)", (VAR_STRING, 116, 31, 0)),
        ("DATE_SUB('2024-01-31 10:00:00', INTERVAL 1 HOUR)", (VAR_STRING, 116, 31, 0)),
        ("'2024-01-01 10:00:00' + INTERVAL 1 SECOND", (VAR_STRING, 116, 31, 0)),
    ],
)
def test_mysql_types_of_date_functions(
    expression: str, definition: tuple[int, int, int, int]
) -> None:
    assert _definition(expression) == definition


def test_information_functions_are_typed_as_the_call_they_replace() -> None:
    """LAST_INSERT_ID() becomes its value before the query runs (engine/statements/sql.py); the
    literal keeps the call, so the column is MySQL's BIGINT UNSIGNED(21) NOT NULL."""
    select = sqlglot.parse_one("SELECT LAST_INSERT_ID(), ROW_COUNT()", dialect=DrydockMySQL)
    call, row_count = select.expressions
    literal = sqlglot.exp.Literal.number(7)
    literal.meta[MYSQL_CALL] = call
    typing = ExpressionTyping(lambda column: None, False)
    found = typing.result(literal)
    assert found is not None
    assert (found.type, found.length, found.flags) == (LONGLONG, 21, NOT_NULL | UNSIGNED | BINARY)
    counted = typing.result(row_count)
    assert counted is not None and (counted.length, counted.flags) == (21, NOT_NULL | BINARY)


def test_an_exact_division_rewritten_for_duckdb_is_typed_as_written() -> None:
    """engine/sql/exact_division.py rewrites `1 / 3` into integer arithmetic and a CAST; the
    column is still MySQL's DECIMAL(7, 4) of the client's division."""
    select = sqlglot.parse_one("SELECT 1 / 3, 1.0 / 3", dialect=DrydockMySQL)
    exact_division.rewrite(select)
    typing = ExpressionTyping(lambda column: None, False)
    found = [typing.result(e) for e in select.expressions]
    assert all(isinstance(e, sqlglot.exp.Cast) for e in select.expressions)
    assert [(t.type, t.length, t.decimals) for t in found if t] == [
        (NEWDECIMAL, 7, 4),
        (NEWDECIMAL, 8, 5),
    ]
