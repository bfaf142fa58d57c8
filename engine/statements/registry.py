"""Each statement class's handler and audit target, registered where the handler is written.

engine/ast.py cannot import the handlers (it is below them), so a handler registers itself on
its class: ``@handles(ast.ShowEngines)`` above the function, with ``audit=`` saying what the
statement acts on when that is more than nothing. A class registered twice is an error at import;
tests/unit/test_statement_table.py holds every class to exactly one registration.
"""

from __future__ import annotations

from collections.abc import Callable
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


HANDLERS: dict[type[ast.Statement], Registration] = {}


def handles(cls: type[ast.Statement], *, audit: AuditTarget | None = None) -> Callable[[H], H]:
    """Register the decorated function as ``cls``'s handler (and ``audit`` as its target)."""
    if cls.by_session:
        raise TypeError(f"{cls.__name__} is run by the server session, not by a handler")

    def register(handler: H) -> H:
        if cls in HANDLERS:
            raise TypeError(f"{cls.__name__} already has a handler: "
                            f"{HANDLERS[cls].handler.__qualname__}")
        HANDLERS[cls] = Registration(handler, audit)
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
