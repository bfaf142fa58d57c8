"""Privilege checks every command uses.

Until users and grants land (issue 3) the only account that can log in is ``root``, which holds
every privilege; any other identity holds none. The API is the one later commands rely on.
"""

from __future__ import annotations

from engine.errors import Errors
from engine.session import SessionContext

ROOT = "root"


class Privileges:
    def has_global(self, ctx: SessionContext, privilege: str) -> bool:
        return ctx.user == ROOT

    def require_global(self, ctx: SessionContext, privilege: str) -> None:
        if not self.has_global(ctx, privilege):
            raise Errors.SPECIFIC_ACCESS_DENIED.error(priv=privilege)
