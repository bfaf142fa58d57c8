"""The metadata store a frontend opens: SQLite in the data directory, or PostgreSQL by URL."""

from __future__ import annotations

from pathlib import Path

from drydock.engine.store.metastore import MetadataStore, MetadataStoreUnavailable, MetaStore


def open_store(target: str, data_dir: Path) -> MetadataStore:
    """``target`` empty: SQLite in ``data_dir``; a ``postgresql://`` (or ``postgres://``) URL:
    PostgreSQL."""
    if not target:
        return MetaStore(data_dir / "meta.sqlite")
    if target.startswith(("postgresql://", "postgres://")):
        try:
            from drydock.engine.store.metastore_pg import (
                PostgresStore,
            )  # psycopg is needed only for this store
        except ImportError:
            raise MetadataStoreUnavailable(
                "a postgresql:// metadata store needs psycopg: pip install 'drydock[postgresql]'"
            ) from None

        return PostgresStore(target)
    raise MetadataStoreUnavailable(
        "metadata store must be empty (SQLite in the data directory) "
        "or a postgresql://user@host:port/db URL"
    )
