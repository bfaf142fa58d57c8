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

from collections.abc import Callable

from drydock.engine import ast
from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.sql.user_variables import get_user_variable
from drydock.grammar.lexer import DEFAULT_MODE, TextMode, canonical
from drydock.grammar.owned_prefixes import leading_words
from drydock.server.prepared import bind_parameters, count_placeholders

MAX_PREPARED_STATEMENTS = 16382  # MySQL's default max_prepared_stmt_count (per session here)
_NOT_PREPARABLE = {("PREPARE",), ("EXECUTE",), ("DEALLOCATE",), ("DROP", "PREPARE")}


# -- PREPARE / EXECUTE / DEALLOCATE PREPARE
# ---------------------------------------------------------
SyntaxCheck = Callable[[str], None]  # raises the statement's 1064 / 1065, as running it would


def prepare(
    ctx: SessionContext, stmt: ast.Prepare, check_syntax: SyntaxCheck, mode: TextMode = DEFAULT_MODE
) -> Result:
    """``mode``: how the session's sql_mode reads text now; the prepared text is read under it
    (as MySQL parses it at PREPARE) and kept respelt for the default mode (grammar/lexer.py)."""
    key = stmt.name.lower()
    # MySQL deallocates a statement of the same name first, even when the new one then fails.
    ctx.prepared_statements.pop(key, None)
    text = stmt.text if stmt.from_variable is None else _variable_text(ctx, stmt.from_variable)
    assert text is not None
    text = canonical(text, mode)
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
        raise Errors.PARSE.error(
            detail="You have an error in your SQL syntax; check the manual that "
            "corresponds to your MySQL server version for the right syntax "
            "to use near 'NULL' at line 1"
        )
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
