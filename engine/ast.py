"""Statement objects: what the grammar produces and the engine executes.

Plain frozen dataclasses with declared fields, one per statement; no behaviour here. The engine
finds a statement's code by the statement's family module (engine/statements/<family>.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    pass


# -- admin ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AdminSetFrontendConfig(Statement):
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class AdminShowFrontendConfig(Statement):
    like: str | None = None


# -- diagnostics (SHOW WARNINGS / ERRORS) -----------------------------------------------------
@dataclass(frozen=True)
class ShowDiagnostics(Statement):
    errors_only: bool  # SHOW ERRORS vs SHOW WARNINGS
    count_only: bool = False  # SHOW COUNT(*) WARNINGS
    offset: int = 0
    limit: int | None = None


# -- session ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kill(Statement):
    connection_id: int
    query_only: bool = False
