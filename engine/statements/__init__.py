"""Statements: each statement object, the function that executes it, and :func:`execute`.

One module per statement family; every handler has the same shape —
authorize → validate → execute → Result (rows + warnings) — and registers itself on its statement
class with ``@handles`` (engine/statements/registry.py), with what the statement acts on.
:func:`execute` is the one way any statement runs: its handler, wrapped once in the audit and the
statement-duration metric.

May import: `drydock.engine`, `drydock.engine.core`, `drydock.engine.support`,
`drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`, `drydock.engine.lakehouse`, `drydock.engine.sql`,
`drydock.engine.dictionary`,
`drydock.engine.jobs`, `drydock.engine.jobs.control`, `drydock.engine.jobs.runtime`,
`drydock.engine.search`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.engine.results import Result
from drydock.engine.security.audit import DENIAL_CODES
from drydock.engine.session import SessionContext
from drydock.engine.sql import statement_info
from drydock.engine.statements.audit_object import audit_object, is_audited, statement_kind
from drydock.engine.statements.registry import HANDLERS

# Each family module registers its handlers on their statement classes as it is imported.
from drydock.engine.statements import (  # noqa: F401
    admin_config,
    audit,
    backends,
    catalogs,
    procedures,
    diagnostics,
    dump_statements,
    index_jobs,
    internal_catalog,
    metadata,
    server_info,
    session_control,
    sql,
    users,
)

if TYPE_CHECKING:
    from drydock.engine.core import Engine


def execute(
    engine: Engine, statement: ast.Statement, ctx: SessionContext, text: str = ""
) -> Result:
    """Run one statement: its handler (authorize → validate → execute), wrapped once in the audit
    (changing and denied statements; ``text`` is what the client sent, masked by the audit log)
    and the statement-duration metric."""
    handler = HANDLERS[type(statement)].handler
    started = time.monotonic()
    engine.questions += 1
    kind = statement_kind(statement)
    try:
        result = handler(engine, statement, ctx)
    except DrydockError as exc:
        _audit(engine, statement, ctx, kind, started, exc.code, text)
        raise
    finally:
        engine.metrics.statement_seconds.labels(kind).observe(time.monotonic() - started)
    _audit(engine, statement, ctx, kind, started, 0, text)
    statement_info.record(ctx, result)
    return result


def _audit(
    engine: Engine,
    statement: ast.Statement,
    ctx: SessionContext,
    kind: str,
    started: float,
    error_code: int,
    text: str,
) -> None:
    denied = error_code in DENIAL_CODES
    if not denied and not is_audited(statement):
        return
    engine.audit.record(
        user=ctx.user,
        host=ctx.host,
        connection_id=ctx.connection_id,
        kind=kind if is_audited(statement) or not denied else "Denied",
        obj=audit_object(statement, ctx),
        error_code=error_code,
        started=started,
        statement=text or getattr(statement, "text", ""),
    )
