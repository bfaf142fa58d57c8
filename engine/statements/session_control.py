"""KILL [CONNECTION | QUERY] <id>: only one's own connections, unless one holds ADMIN."""

from __future__ import annotations

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.security.privileges import Privilege
from drydock.engine.session import SessionContext
from drydock.engine.statements.registry import handles


@handles(ast.Kill)
def kill(engine: Engine, stmt: ast.Kill, ctx: SessionContext) -> Result:
    registry = engine.connections
    owner = registry.owner_of(stmt.connection_id) if registry else None
    if owner is None:
        raise Errors.UNKNOWN_THREAD.error(id=stmt.connection_id)
    if owner != ctx.user and not engine.privileges.has_global(ctx, Privilege.ADMIN):
        raise Errors.NOT_OWNER_OF_THREAD.error(id=stmt.connection_id)
    assert registry is not None
    registry.kill(stmt.connection_id, stmt.query_only)
    return Result.ok()
