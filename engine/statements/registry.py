"""Each statement class's handler and audit target, registered where the handler is written.

engine/ast.py cannot import the handlers (it is below them), so a handler registers itself on
its class: ``@handles(ast.ShowEngines, columns=…)`` above the function, with ``audit=`` saying
what the statement acts on when that is more than nothing and ``columns=`` its result's columns
when they never vary. A class registered twice is an error at import;
tests/unit/test_statement_table.py holds every class to exactly one registration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from drydock.engine import ast
from drydock.engine.session import SessionContext

Handler = Callable[[Any, Any, SessionContext], Any]
# What a statement acts on, for its audit record: 'catalog.db.table', "'user'@'host'", a catalog.
AuditTarget = Callable[[Any, SessionContext], str]

H = TypeVar("H", bound=Handler)


@dataclass(frozen=True)
class Registration:
    handler: Handler
    audit_target: AuditTarget | None = None
    columns: tuple[str, ...] | None = None  # the result's columns, when they never vary


HANDLERS: dict[type[ast.Statement], Registration] = {}


def handles(
    cls: type[ast.Statement],
    *,
    audit: AuditTarget | None = None,
    columns: Sequence[str] | None = None,
) -> Callable[[H], H]:
    """Register the decorated function as ``cls``'s handler, ``audit`` as what it acts on and
    ``columns`` as its result's columns where they are fixed (tests/sql/test_statement_columns.py
    runs each to hold it to them)."""
    if cls.by_session:
        raise TypeError(f"{cls.__name__} is run by the server session, not by a handler")

    def register(handler: H) -> H:
        if cls in HANDLERS:
            raise TypeError(
                f"{cls.__name__} already has a handler: {HANDLERS[cls].handler.__qualname__}"
            )
        fixed = tuple(columns) if columns is not None else None
        HANDLERS[cls] = Registration(handler, audit, fixed)
        return handler

    return register


# -- audit targets shared by several statements -------------------------------------------------
def qualified_table(parts: tuple[str, ...], ctx: SessionContext) -> str:
    """``[[catalog.]db.]table`` as written → 'catalog.db.table', completed from the session."""
    if len(parts) == 3:
        return ".".join(parts)
    if len(parts) == 2:
        return f"{ctx.catalog}.{parts[0]}.{parts[1]}"
    return f"{ctx.catalog}.{ctx.database}.{parts[0]}"


def table_target(statement: Any, ctx: SessionContext) -> str:
    return qualified_table(statement.table, ctx) if statement.table else ""


def user_target(statement: Any, ctx: SessionContext) -> str:
    return f"'{statement.user.name}'@'{statement.user.host}'"


def name_target(statement: Any, ctx: SessionContext) -> str:
    return str(statement.name)


def job_target(statement: Any, ctx: SessionContext) -> str:
    return f"job {statement.job_id}"
