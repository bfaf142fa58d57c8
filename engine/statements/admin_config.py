"""ADMIN SET FRONTEND CONFIG / ADMIN SHOW FRONTEND CONFIG."""

from __future__ import annotations

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.support.like import LikePattern
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.statements.registry import handles

SHOW_COLUMNS = ["Key", "Value", "Type", "IsMutable", "MasterOnly", "Comment"]


@handles(ast.AdminSetFrontendConfig)
def admin_set_frontend_config(
    engine: Engine, stmt: ast.AdminSetFrontendConfig, ctx: SessionContext
) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    # Validate every pair before changing anything: a statement either applies whole or not at all.
    fields = [(engine.config.field(name), value) for name, value in stmt.pairs]
    for field, value in fields:
        field.parse(value)
    for field, value in fields:
        engine.config.set(field.name, value)
    return Result.ok()


@handles(ast.AdminShowFrontendConfig, columns=SHOW_COLUMNS)
def admin_show_frontend_config(
    engine: Engine, stmt: ast.AdminShowFrontendConfig, ctx: SessionContext
) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    rows = engine.config.rows()
    if stmt.like is not None:
        pattern = LikePattern(stmt.like)
        rows = [r for r in rows if pattern.fullmatch(r[0])]
    return Result(columns=SHOW_COLUMNS, rows=list(rows))


def like_to_regex(like: str) -> LikePattern:
    """Deprecated name kept for callers not yet moved to :class:`engine.support.like.LikePattern`
    (no regex any more: ``.fullmatch(text)`` runs the linear matcher)."""
    return LikePattern(like)
