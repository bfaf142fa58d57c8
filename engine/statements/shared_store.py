"""Internal tables on a metadata store several frontends share: refused, with one error.

Each frontend keeps its internal catalog (``CREATE TABLE`` without a catalog) in its own DuckDB
file. On a PostgreSQL store several frontends serve the same users, so an internal table created
through one would exist on that frontend only: behind a load balancer it would appear and vanish,
and two frontends could hold two different tables under one name. One internal catalog per store
would need DuckLake (catalog in PostgreSQL), which has no build for the DuckDB drydock runs on
(docs/upstream-facts.md). So on a shared store every statement that creates, changes or fills an
internal table or database is refused (5300) and points to Lance or Paimon catalog tables, which
every frontend reads from the same warehouse.

What stays allowed: SELECT without tables, information_schema reads, SHOW statements, reads,
index jobs and procedures on catalog tables, and ``CREATE TEMPORARY TABLE`` (one session's by
nature; not refused on this ground — drydock does not support it on either store yet). Which
statements count is decided by ``internal_change`` (engine/statements/sql.py) for plain SQL and by
engine/statements/internal_index.py for CREATE / DROP INDEX.
"""

from __future__ import annotations

from drydock.engine.errors import Errors
from drydock.engine.store.metastore import MetadataStore


def refuse_internal_change(store: MetadataStore, what: str) -> None:
    """Raise 5300 when ``what`` (a statement's internal-catalog change, e.g. ``CREATE TABLE
    db.t``; empty: none) would run on a store several frontends share."""
    if what and store.shared:
        raise Errors.INTERNAL_CATALOG_PER_FRONTEND.error(what=what)
