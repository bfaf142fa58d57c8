"""The metadata store: SQLite in WAL mode with synchronous=FULL, the journal of every durable fact.

Every durable transition goes through :meth:`MetaStore.compare_and_set`, which updates a row only
if its ``revision`` still is the one the caller read, and bumps it in the same transaction. Schema
changes are numbered migrations applied once, in order, at open.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Each entry: (version, statements). Append only; never edit an applied migration.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            """CREATE TABLE config (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                revision INTEGER NOT NULL DEFAULT 0,
                updated_at REAL NOT NULL
            )""",
        ],
    ),
    (
        2,
        [
            # Accounts: 'name'@'host'; host may be a pattern with % and _ (MySQL/Doris rules).
            """CREATE TABLE users (
                name TEXT NOT NULL,
                host TEXT NOT NULL,
                auth_string TEXT NOT NULL,
                created_at REAL NOT NULL,
                revision INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (name, host)
            )""",
            "CREATE TABLE roles (name TEXT PRIMARY KEY, created_at REAL NOT NULL)",
            # grantee is 'user:<name>@<host>' or 'role:<name>'; '*' marks an open level.
            """CREATE TABLE grants (
                grantee TEXT NOT NULL,
                catalog TEXT NOT NULL,
                db TEXT NOT NULL,
                tbl TEXT NOT NULL,
                privilege TEXT NOT NULL,
                PRIMARY KEY (grantee, catalog, db, tbl, privilege)
            )""",
            """CREATE TABLE role_members (
                role TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
                user_name TEXT NOT NULL,
                user_host TEXT NOT NULL,
                PRIMARY KEY (role, user_name, user_host),
                FOREIGN KEY (user_name, user_host) REFERENCES users(name, host) ON DELETE CASCADE
            )""",
        ],
    ),
    (
        3,
        [
            # External catalogs. Ids are durable and never reused (index jobs refer to them);
            # the internal catalog is id 0 and has no row.
            """CREATE TABLE catalogs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL UNIQUE,
                type TEXT NOT NULL,
                properties TEXT NOT NULL,
                comment TEXT NOT NULL DEFAULT '',
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                revision INTEGER NOT NULL DEFAULT 0
            )""",
        ],
    ),
]


class StaleRevision(Exception):
    """A compare-and-set found a different revision (or no row): someone else moved first."""


class MetaStore:
    def __init__(self, path: Path | str):
        self.path = str(path)
        # One connection shared by all threads, serialised by a lock: SQLite serialises writers
        # anyway and this keeps every transition a single ordered transaction.
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    # -- schema ------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT max(version) AS v FROM schema_version").fetchone()
            current = row["v"] or 0
            for version, statements in MIGRATIONS:
                if version <= current:
                    continue
                for statement in statements:
                    db.execute(statement)
                db.execute("INSERT INTO schema_version(version) VALUES (?)", (version,))

    @property
    def schema_version(self) -> int:
        row = self.query_one("SELECT max(version) AS v FROM schema_version")
        return int(row["v"]) if row else 0

    # -- transactions ------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT; rolls back on any exception."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        with self._lock:
            return self._db.execute(sql, params).fetchone()

    def compare_and_set(
        self,
        db: sqlite3.Connection,
        table: str,
        key: Mapping[str, Any],
        revision: int,
        changes: Mapping[str, Any],
    ) -> int:
        """Inside a transaction: update ``table`` where key matches and revision == ``revision``.

        Returns the new revision; raises :class:`StaleRevision` if no row matched.
        """
        sets = ", ".join(f"{col} = ?" for col in changes)
        where = " AND ".join(f"{col} = ?" for col in key)
        sql = f"UPDATE {table} SET {sets}, revision = revision + 1 WHERE {where} AND revision = ?"
        cursor = db.execute(sql, (*changes.values(), *key.values(), revision))
        if cursor.rowcount != 1:
            raise StaleRevision(f"{table} {dict(key)} is not at revision {revision}")
        return revision + 1

    def close(self) -> None:
        with self._lock:
            self._db.close()
