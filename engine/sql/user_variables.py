"""MySQL user variables (``@name``): per-session values, substituted into statements as literals.

Names are case-insensitive (keys lower-cased on the SessionContext). A value reaches a statement
only as one escaped literal node, never as text pasted into SQL.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.session import SessionContext


MAX_SIGNED_BIGINT = 2**63 - 1


def literal(value: Any) -> str:
    """A Python value as a MySQL literal that can never end early."""
    if value is None:
        return "NULL"
    if value is True:
        return "TRUE"
    if value is False:
        return "FALSE"
    if isinstance(value, int) and value > MAX_SIGNED_BIGINT:  # MySQL reads it as BIGINT UNSIGNED
        return f"CAST({value} AS UNSIGNED)"
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, float):  # inf / nan have no MySQL literal: a cast, never a bare name
        if not math.isfinite(value):
            return f"CAST('{value!r}' AS DOUBLE)"
        text = repr(value)  # an exponent makes it a DOUBLE literal ('41.0' would be a DECIMAL)
        return text if "e" in text else text + "e0"
    if isinstance(value, (bytes, bytearray)):
        return "X'" + bytes(value).hex() + "'" if value else "''"
    if isinstance(value, (dt.datetime, dt.date, dt.time, dt.timedelta)):
        value = str(value)
    text = str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0")
    return "'" + text + "'"


# -- user variables -------------------------------------------------------------------------------
def get_user_variable(ctx: SessionContext, name: str) -> Any:
    """The value of ``@name``; NULL (None) when it was never set, as in MySQL."""
    return ctx.user_variables.get(name.lower())


def set_user_variable(ctx: SessionContext, name: str, value: Any) -> None:
    ctx.user_variables[name.lower()] = user_value(value)


def user_value(value: Any) -> Any:
    """A value as a MySQL user variable holds it: integer, decimal, double, string, bytes or NULL.
    Booleans are integers and temporal values are strings, as in MySQL."""
    if value is None or isinstance(value, (str, bytes, decimal.Decimal, float)):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, dt.timedelta):
        return _timedelta_text(value)
    return str(value)


def _timedelta_text(value: dt.timedelta) -> str:
    total = abs(value)
    hours, rest = divmod(total.days * 86400 + total.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    text = f"{'-' if value < dt.timedelta(0) else ''}{hours:02d}:{minutes:02d}:{seconds:02d}"
    return text + (f".{total.microseconds:06d}" if total.microseconds else "")


def literal_expression(value: Any) -> exp.Expr:
    """A user variable's value as one sqlglot literal node, read back from the escaped MySQL literal
    of server/prepared.py (so a value can never become anything but a value)."""
    return sqlglot.parse_one(literal(value), read="mysql")


def is_user_variable(node: exp.Expr) -> bool:
    return isinstance(node, exp.Parameter) and isinstance(
        node.this, (exp.Var, exp.Identifier, exp.Literal)
    )


def substitute_user_variables(expression: exp.Expr, ctx: SessionContext) -> exp.Expr:
    """``@name`` → its value as a literal, in a copy of ``expression`` (unchanged when it has no
    user variable). A bare ``@v`` select item keeps ``@v`` as its column name, as in MySQL."""
    if not any(is_user_variable(node) for node in expression.find_all(exp.Parameter)):
        return expression
    into = expression.args.get("into")
    if isinstance(into, exp.Into) and any(
        is_user_variable(p) for p in into.find_all(exp.Parameter)
    ):
        raise Errors.NOT_SUPPORTED.error(
            what="SELECT ... INTO @variable; use SET @variable = (SELECT ...)"
        )

    def replace(node: exp.Expr) -> exp.Expr:
        if not is_user_variable(node):
            return node
        if isinstance(node.parent, exp.PropertyEQ) and node.arg_key == "this":
            raise Errors.NOT_SUPPORTED.error(
                what="assigning a user variable inside an expression (:=); use SET @variable = ..."
            )
        value = literal_expression(get_user_variable(ctx, node.name))
        if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
            return exp.alias_(value, exp.to_identifier(node.sql(dialect="mysql"), quoted=True))
        return value

    return expression.transform(replace)
