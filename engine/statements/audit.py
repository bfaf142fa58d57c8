"""SHOW AUDIT [LIMIT n]: the newest audit records (ADMIN only)."""

from __future__ import annotations

import datetime as dt

from engine import ast
from engine.core import Engine
from engine.results import Result
from engine.session import SessionContext

COLUMNS = ["Time", "User", "Host", "ConnectionId", "Kind", "Object", "Outcome", "ErrorCode",
           "DurationMs", "Statement"]


def show_audit(engine: Engine, stmt: ast.ShowAudit, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, "ADMIN_PRIV")
    rows = [
        (dt.datetime.fromtimestamp(r.time).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], r.user, r.host,
         r.connection_id, r.kind, r.object, r.outcome, r.error_code, r.duration_ms, r.statement)
        for r in reversed(engine.audit.tail(stmt.limit))
    ]
    return Result(columns=COLUMNS, rows=rows)
