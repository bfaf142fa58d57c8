"""SQL-level prepared statements and user variables, as MySQL has them.

The mariadb CLI (like any client without the binary protocol) prepares statements with SQL::

    SET @a = 1;
    PREPARE s FROM 'SELECT * FROM d.t WHERE a = ?';   -- or: PREPARE s FROM @sql_text
    EXECUTE s USING @a;
    DEALLOCATE PREPARE s;                             -- or: DROP PREPARE s

The state is per session, on its SessionContext: ``user_variables`` (``@name`` → value; names are
case-insensitive) and ``prepared_statements`` (statement name, case-insensitive → text).
EXECUTE binds the variables' values at the real ``?`` placeholders as escaped literals
(server/prepared.py — never pasted text) and the session then runs the bound text like any
statement it receives, so the prepared text may be anything drydock runs, owned or passthrough.

Errors (MySQL's): an unknown statement name is 1243, a wrong number of values 1210, PREPARE of
PREPARE/EXECUTE/DEALLOCATE 1295, more than MAX_PREPARED_STATEMENTS statements in a session 1461.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from engine import ast
from engine.errors import Errors
from engine.results import Result
from engine.session import SessionContext
from grammar.parser import leading_words
from server.prepared import bind_parameters, count_placeholders, literal

MAX_PREPARED_STATEMENTS = 16382  # MySQL's default max_prepared_stmt_count (per session here)
_NOT_PREPARABLE = {("PREPARE",), ("EXECUTE",), ("DEALLOCATE",), ("DROP", "PREPARE")}


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


def literal_expression(value: Any) -> exp.Expression:
    """A user variable's value as one sqlglot literal node, read back from the escaped MySQL literal
    of server/prepared.py (so a value can never become anything but a value)."""
    return sqlglot.parse_one(literal(value), read="mysql")


def is_user_variable(node: exp.Expression) -> bool:
    return isinstance(node, exp.Parameter) and isinstance(node.this, (exp.Var, exp.Identifier, exp.Literal))


def substitute_user_variables(expression: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """``@name`` → its value as a literal, in a copy of ``expression`` (unchanged when it has no
    user variable). A bare ``@v`` select item keeps ``@v`` as its column name, as in MySQL."""
    if not any(is_user_variable(node) for node in expression.find_all(exp.Parameter)):
        return expression
    into = expression.args.get("into")
    if isinstance(into, exp.Into) and any(is_user_variable(p) for p in into.find_all(exp.Parameter)):
        raise Errors.NOT_SUPPORTED.error(what="SELECT ... INTO @variable; use SET @variable = (SELECT ...)")

    def replace(node: exp.Expression) -> exp.Expression:
        if not is_user_variable(node):
            return node
        if isinstance(node.parent, exp.PropertyEQ) and node.arg_key == "this":
            raise Errors.NOT_SUPPORTED.error(
                what="assigning a user variable inside an expression (:=); use SET @variable = ...")
        value = literal_expression(get_user_variable(ctx, node.name))
        if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
            return exp.alias_(value, exp.to_identifier(node.sql(dialect="mysql"), quoted=True))
        return value

    return expression.transform(replace)


# -- PREPARE / EXECUTE / DEALLOCATE PREPARE ---------------------------------------------------------
SyntaxCheck = Callable[[str], None]  # raises the statement's 1064 / 1065, as running it would


def prepare(ctx: SessionContext, stmt: ast.Prepare, check_syntax: SyntaxCheck) -> Result:
    key = stmt.name.lower()
    # MySQL deallocates a statement of the same name first, even when the new one then fails.
    ctx.prepared_statements.pop(key, None)
    text = stmt.text if stmt.from_variable is None else _variable_text(ctx, stmt.from_variable)
    assert text is not None
    words = leading_words(text, 2)
    if words[:1] in _NOT_PREPARABLE or words[:2] in _NOT_PREPARABLE:
        raise Errors.UNSUPPORTED_PS.error()
    check_syntax(text)
    if len(ctx.prepared_statements) >= MAX_PREPARED_STATEMENTS:
        raise Errors.MAX_PREPARED_STMT_COUNT.error(limit=MAX_PREPARED_STATEMENTS)
    ctx.prepared_statements[key] = text
    return Result.ok()


def _variable_text(ctx: SessionContext, name: str) -> str:
    value = get_user_variable(ctx, name)
    if value is None:  # MySQL parses the text 'NULL'
        raise Errors.PARSE.error(detail="You have an error in your SQL syntax; check the manual that "
                                        "corresponds to your MySQL server version for the right syntax "
                                        "to use near 'NULL' at line 1")
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def bind(ctx: SessionContext, stmt: ast.ExecutePrepared) -> str:
    """EXECUTE s USING @a, ...: the prepared text with each value bound as an escaped literal."""
    text = ctx.prepared_statements.get(stmt.name.lower())
    if text is None:
        raise Errors.UNKNOWN_STMT_HANDLER.error(id=stmt.name, where="EXECUTE")
    values = [get_user_variable(ctx, name) for name in stmt.using]
    if count_placeholders(text) != len(values):
        raise Errors.WRONG_ARGUMENTS.error(where="EXECUTE")
    return bind_parameters(text, values)


def deallocate(ctx: SessionContext, stmt: ast.DeallocatePrepare) -> Result:
    if ctx.prepared_statements.pop(stmt.name.lower(), None) is None:
        raise Errors.UNKNOWN_STMT_HANDLER.error(id=stmt.name, where="DEALLOCATE PREPARE")
    return Result.ok()
