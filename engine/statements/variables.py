"""SET (user and system variables, NAMES, CHARACTER SET, TRANSACTION) and SHOW VARIABLES / STATUS.

Values are never evaluated in Python: a literal (or a bare word, as MySQL reads ``SET x = ON``) is
taken as written; anything else is computed by DuckDB as ``SELECT <value>`` through the plain-SQL
pipeline, with the privileges of that SELECT (engine/statements/sql.py).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable
from typing import Any

from mysql_mimic.errors import MysqlError
from mysql_mimic.intercept import setitem_kind
from mysql_mimic.variables import DEFAULT
from sqlglot import exp

from drydock.engine.support import like
from drydock.engine.search import settings as search_settings
from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.sql.session_variables import (
    CHARSET_VARIABLES,
    COLLATION_VARIABLES,
    GLOBAL_CONFIG,
    character_set,
    collation,
    execution_time_value,
    sql_mode_for_set,
    switch_value,
)
from drydock.engine.sql.user_variables import is_user_variable, set_user_variable

# Evaluates one expression with DuckDB (as ``SELECT <expression>``), returning its value.
Evaluate = Callable[[exp.Expr], Any]

TRANSACTION_CHARACTERISTICS = {
    "READ WRITE": ("transaction_read_only", False),
    "READ ONLY": ("transaction_read_only", True),
    "ISOLATION LEVEL REPEATABLE READ": ("transaction_isolation", "REPEATABLE-READ"),
    "ISOLATION LEVEL READ COMMITTED": ("transaction_isolation", "READ-COMMITTED"),
    "ISOLATION LEVEL READ UNCOMMITTED": ("transaction_isolation", "READ-UNCOMMITTED"),
    "ISOLATION LEVEL SERIALIZABLE": ("transaction_isolation", "SERIALIZABLE"),
}


# Sets a global variable (SET GLOBAL x = v; v is DEFAULT or a normalized value): the caller checks
# the privilege and keeps the value (engine/statements/sql.py).
SetGlobal = Callable[[str, Any], None]


def set_statement(
    statement: exp.Set, ctx: SessionContext, evaluate: Evaluate, set_global: SetGlobal | None = None
) -> Result:
    """SET, item by item, in order (as MySQL does: an error stops at that item)."""
    for item in statement.expressions:
        if not isinstance(item, exp.SetItem):
            raise Errors.STATEMENT_NOT_ALLOWED.error(what=f"SET {item.sql(dialect='mysql')[:64]}")
        assignment = item.this
        if isinstance(assignment, exp.EQ) and is_user_variable(assignment.left):
            set_user_variable(ctx, assignment.left.name, value_of(assignment.right, evaluate))
            continue
        kind = setitem_kind(item)
        if kind == "VARIABLE":
            _set_system_variable(item, ctx, evaluate, set_global)
        elif kind == "CHARACTER SET":
            _set_charset(item, ctx)
        elif kind == "NAMES":
            set_names(ctx, item.name, item.text("collate") or None)
        elif kind == "TRANSACTION":
            _set_transaction(item, ctx)
        else:
            raise Errors.STATEMENT_NOT_ALLOWED.error(what=f"SET {kind}")
    return Result.ok()


def value_of(expression: exp.Expr, evaluate: Evaluate) -> Any:
    """A SET right-hand side: a literal as written, anything else computed by DuckDB."""
    known, value = literal_value(expression)
    return value if known else evaluate(expression)


def _set_system_variable(
    item: exp.SetItem, ctx: SessionContext, evaluate: Evaluate, set_global: SetGlobal | None = None
) -> None:
    assignment = item.this
    left, right = assignment.left, assignment.right
    if isinstance(left, exp.SessionParameter):
        scope = (left.text("kind") or "SESSION").upper()
    else:
        scope = (item.text("kind") or "SESSION").upper()
    written = left.name
    name = written.lower()
    if scope not in ("SESSION", "LOCAL") and not (
        scope == "GLOBAL" and set_global is not None and name in GLOBAL_CONFIG
    ):
        raise Errors.NOT_SUPPORTED.error(
            what=f"SET {scope} {name}; only session variables can be set"
        )
    if (
        isinstance(right, exp.Var)
        and right.name.upper() == "DEFAULT"
        or isinstance(right, exp.Column)
        and right.name.upper() == "DEFAULT"
        and not right.table
    ):
        value: Any = DEFAULT
    elif isinstance(right, (exp.Column, exp.Var)) and not right.args.get("table"):
        value = right.name  # SET sql_mode = TRADITIONAL, SET autocommit = ON: a bare word
    else:
        value = value_of(right, evaluate)
    if value is not DEFAULT:
        value = _normalized(name, value, _schema_type(ctx, name))
    if scope == "GLOBAL" and set_global is not None:
        set_global(name, value)
        return
    try:
        ctx.variables.set(name, value)
    except MysqlError as exc:
        raise (
            Errors.WRONG_VALUE_FOR_VAR.error(name=name, value=value)
            if exc.code != 1193
            else Errors.UNKNOWN_SYSTEM_VARIABLE.error(name=written)
        ) from None


def _schema_type(ctx: SessionContext, name: str) -> Any:
    """The type a system variable is declared with (None for an unknown name: SET answers 1193)."""
    schema = getattr(ctx.variables, "schema", None) or {}
    declared = schema.get(name)
    return declared[0] if declared else None


def _normalized(name: str, value: Any, declared_type: Any = None) -> Any:
    if name == "sql_mode":
        return sql_mode_for_set(value)
    if name == "max_execution_time":
        return execution_time_value(value)
    if name in search_settings.VARIABLES:
        return search_settings.value_for_set(name, value)
    if name in CHARSET_VARIABLES and value is not None:
        return character_set(str(value), name).name
    if name in COLLATION_VARIABLES and value is not None:
        return collation(str(value)).name
    if isinstance(value, decimal.Decimal):
        value = float(value)
    if declared_type is bool and value is not None:
        return switch_value(name, value)
    return value


def set_names(ctx: SessionContext, charset_name: str, collate: str | None) -> None:
    """SET NAMES cs [COLLATE co]: names are case-insensitive and checked before anything is set."""
    charset: Any
    collation_name: Any
    if charset_name.upper() == "DEFAULT":
        charset = collation_name = DEFAULT
    else:
        found = character_set(charset_name)
        collation_name = collation(collate, found).name if collate else found.default_collation.name
        charset = found.name
    for variable in ("character_set_client", "character_set_connection", "character_set_results"):
        ctx.variables.set(variable, charset)
    ctx.variables.set("collation_connection", collation_name)


def _set_charset(item: exp.SetItem, ctx: SessionContext) -> None:
    """SET CHARACTER SET cs: checked like SET NAMES."""
    if item.name.upper() == "DEFAULT":
        name: Any = DEFAULT
        connection: Any = DEFAULT
    else:
        name = character_set(item.name).name
        connection = ctx.variables.get("character_set_database")
    ctx.variables.set("character_set_client", name)
    ctx.variables.set("character_set_results", name)
    ctx.variables.set("character_set_connection", connection)


def _set_transaction(item: exp.SetItem, ctx: SessionContext) -> None:
    for characteristic in (e.name.upper() for e in item.expressions):
        if characteristic not in TRANSACTION_CHARACTERISTICS:
            raise Errors.STATEMENT_NOT_ALLOWED.error(what=f"SET TRANSACTION {characteristic}")
        variable, value = TRANSACTION_CHARACTERISTICS[characteristic]
        ctx.variables.set(variable, value)


def show_variables(statement: exp.Show, ctx: SessionContext) -> Result:
    """SHOW [SESSION] VARIABLES [LIKE 'p']: the session's values."""
    rows = [(k, None if v is None else _display(v)) for k, v in ctx.variables.list()]
    pattern = statement.text("like")
    if pattern:
        rows = [(k, v) for k, v in rows if like.like(k, pattern)]
    return Result(
        columns=["Variable_name", "Value"],
        rows=rows,
        column_types={"Variable_name": "VARCHAR", "Value": "VARCHAR"},
    )


def show_status(statement: exp.Show, ctx: SessionContext) -> Result:
    """SHOW [SESSION] STATUS [LIKE 'p']: the session's TLS status, as MySQL names it (empty values
    on a plain-text connection)."""
    cipher, version = ctx.tls_cipher or ("", "")
    rows = [("Ssl_cipher", cipher), ("Ssl_version", version)]
    pattern = statement.text("like")
    if pattern:
        rows = [(k, v) for k, v in rows if like.like(k, pattern)]
    return Result(
        columns=["Variable_name", "Value"],
        rows=rows,
        column_types={"Variable_name": "VARCHAR", "Value": "VARCHAR"},
    )


def filtered(shown: Result, where: exp.Expr) -> exp.Expr:
    """SHOW VARIABLES / STATUS WHERE …: the rows as a VALUES table, filtered by the WHERE in a
    SELECT that goes through the plain-SQL pipeline (so a subquery in the WHERE is authorized like
    any other) and keeps the SHOW's column names."""
    rows = [
        tuple(exp.Literal.string(str(v)) if v is not None else exp.null() for v in row)
        for row in shown.rows
    ] or [tuple(exp.null() for _ in shown.columns)]
    values = exp.values(
        [exp.Tuple(expressions=list(r)) for r in rows], alias="_show", columns=shown.columns
    )
    select = exp.select(*(exp.column(c) for c in shown.columns)).from_(values)
    if not shown.rows:
        select = select.where(exp.false())
    return select.where(where.this.copy())


def _display(value: Any) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    return str(value)


def literal_value(expression: exp.Expr) -> tuple[bool, Any]:
    """(True, value) when ``expression`` is a plain literal; MySQL's types: an integer, a decimal
    (1.5), a double (1e3), a string or NULL."""
    node, sign = expression, 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.this
        try:
            if re.fullmatch(r"[0-9]+", text):
                return True, sign * int(text)
            if re.fullmatch(r"[0-9]*\.[0-9]*", text):
                return True, sign * decimal.Decimal(text)
            return True, sign * float(text)
        except (ValueError, decimal.InvalidOperation):
            return False, None
    if sign == -1:
        return False, None
    if isinstance(node, exp.Literal):
        return True, node.this
    if isinstance(node, exp.Null):
        return True, None
    if isinstance(node, exp.Boolean):
        return True, int(bool(node.this))
    return False, None
