"""SHOW AUDIT [LIMIT n]: the newest audit records, across rotated files (ADMIN only)."""

from __future__ import annotations

import datetime as dt

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.statements.registry import handles

# Statement stays last. Count: failed logins one Login record stands for (user is the first
# name tried, LastUser the last); 1 for every other record.
COLUMNS = [
    "Time",
    "User",
    "Host",
    "ConnectionId",
    "Kind",
    "Object",
    "Outcome",
    "ErrorCode",
    "DurationMs",
    "Count",
    "LastUser",
    "Statement",
]


@handles(ast.ShowAudit, columns=COLUMNS)
def show_audit(engine: Engine, stmt: ast.ShowAudit, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    rows = [
        (
            dt.datetime.fromtimestamp(r.time).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
            r.user,
            r.host,
            r.connection_id,
            r.kind,
            r.object,
            r.outcome,
            r.error_code,
            r.duration_ms,
            r.count,
            r.last_user,
            r.statement,
        )
        for r in reversed(engine.audit.tail(stmt.limit))
    ]
    return Result(columns=COLUMNS, rows=rows)
