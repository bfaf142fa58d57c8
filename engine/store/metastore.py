"""The metadata store, the journal of every durable fact: an interface and its SQLite
implementation.

Every durable transition goes through :meth:`MetadataStore.compare_and_set`, which updates a row
only
if its ``revision`` still is the one the caller read, and bumps it in the same transaction. Schema
changes are numbered migrations applied once, in order, at open.

Two implementations share this module's migrations and SQL: :class:`MetaStore`, SQLite in WAL mode
with synchronous=FULL inside the data directory (the embedded default), and
:class:`engine.store.metastore_pg.PostgresStore` (PostgreSQL via psycopg 3, for several frontends).
The SQL
the callers write is the common dialect of both: ``?`` placeholders, ``ON CONFLICT`` upserts,
``RETURNING`` for generated ids.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

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
    (
        4,
        [
            # Lance index jobs (docs/doris-compatibility.md). AUTOINCREMENT: ids are monotonic
            # and never reused, even after retention deletes a record.
            """CREATE TABLE lance_index_jobs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                catalog_id INTEGER NOT NULL,
                catalog_name TEXT NOT NULL,
                db TEXT NOT NULL,
                tbl TEXT NOT NULL,
                index_name TEXT NOT NULL,
                index_key TEXT NOT NULL,
                locator TEXT NOT NULL,
                operation TEXT NOT NULL,
                index_type TEXT NOT NULL,
                column_name TEXT NOT NULL,
                properties TEXT NOT NULL,
                if_not_exists INTEGER NOT NULL,
                if_exists INTEGER NOT NULL,
                creator TEXT NOT NULL,
                state TEXT NOT NULL,
                refresh_state TEXT NOT NULL,
                completion_reason TEXT NOT NULL DEFAULT 'NONE',
                result_code TEXT,
                message TEXT NOT NULL DEFAULT '',
                external_metadata_advanced INTEGER,
                possible_live_owned INTEGER NOT NULL DEFAULT 0,
                termination_proof TEXT NOT NULL DEFAULT 'NONE',
                backend_id TEXT NOT NULL DEFAULT '',
                process_epoch TEXT NOT NULL DEFAULT '',
                invocation_id TEXT NOT NULL DEFAULT '',
                index_uuid TEXT NOT NULL DEFAULT '',
                deadline_ms INTEGER,
                admitted_version INTEGER NOT NULL,
                schema_contract TEXT NOT NULL,
                schema_contract_version INTEGER NOT NULL,
                force_released INTEGER NOT NULL DEFAULT 0,
                force_actor TEXT NOT NULL DEFAULT '',
                force_time REAL,
                force_note TEXT NOT NULL DEFAULT '',
                force_warning TEXT NOT NULL DEFAULT '',
                progress TEXT NOT NULL DEFAULT '',
                refresh_failed_at REAL,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                revision INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX lance_index_jobs_state ON lance_index_jobs(state, refresh_state)",
        ],
    ),
    (
        5,
        [
            # Index worker processes, written before the worker is released (its fork barrier):
            # after a restart they tell a live worker (same pid and start time) from a reused pid.
            """CREATE TABLE lance_index_workers (
                job_id INTEGER NOT NULL,
                invocation_id TEXT NOT NULL,
                pid INTEGER NOT NULL,
                start_ticks INTEGER,
                cgroup TEXT NOT NULL,
                epoch TEXT NOT NULL,
                PRIMARY KEY (job_id, invocation_id)
            )""",
        ],
    ),
    (
        6,
        [
            # Admission-time decisions travel with the job (issue 13): the ANN bounds the job was
            # validated against, and the count of failed dispatch preparations while PENDING.
            "ALTER TABLE lance_index_jobs ADD COLUMN max_num_partitions INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE lance_index_jobs ADD COLUMN max_num_sub_vectors INTEGER NOT NULL DEFAULT "
            "0",
            "ALTER TABLE lance_index_jobs ADD COLUMN dispatch_attempts INTEGER NOT NULL DEFAULT 0",
            # Earlier records: the validated values themselves are within the bounds they were
            # admitted under, so they are a safe (tight) bound; a missing value is never used by
            # the build, and takes Doris' default (docs/doris-compatibility.md).
            """UPDATE lance_index_jobs SET
                max_num_partitions = COALESCE(CASE WHEN json_valid(properties)
                    THEN json_extract(properties, '$.params.num_partitions') END, 4096),
                max_num_sub_vectors = COALESCE(CASE WHEN json_valid(properties)
                    THEN json_extract(properties, '$.params.num_sub_vectors') END, 256)""",
        ],
    ),
    (
        7,
        [
            # The host a worker runs on (engine/support/host.py): its pid proves something only
            # there, so
            # a frontend on another host sharing the store never proves it gone. '' = this host
            # (every record before this migration was written by a single-host SQLite store).
            "ALTER TABLE lance_index_workers ADD COLUMN host TEXT NOT NULL DEFAULT ''",
        ],
    ),
    (
        8,
        [
            # Several frontends on one store (issue 16). Every frontend heartbeats its row; exactly
            # one holds the dispatcher lease, whose epoch only grows: it is the fencing token every
            # dispatcher transition checks in its own transaction.
            """CREATE TABLE frontends (
                name TEXT PRIMARY KEY,
                host TEXT NOT NULL,
                query_port INTEGER NOT NULL,
                process_epoch TEXT NOT NULL,
                started_at REAL NOT NULL,
                last_heartbeat REAL NOT NULL,
                epoch INTEGER NOT NULL DEFAULT 0
            )""",
            """CREATE TABLE dispatcher_lease (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                holder TEXT NOT NULL,
                epoch INTEGER NOT NULL,
                expires_at REAL NOT NULL
            )""",
            "INSERT INTO dispatcher_lease (id, holder, epoch, expires_at) VALUES (1, '', 0, 0)",
            # Job rows carry the sequence number of the write that last changed them: a frontend
            # catches up with the others by reading the rows past the last number it applied.
            "CREATE TABLE change_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
            "INSERT INTO change_counters (name, value) VALUES ('jobs', 0)",
            "ALTER TABLE lance_index_jobs ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX lance_index_jobs_change_seq ON lance_index_jobs(change_seq)",
            # The frontend that spawned a worker: after a restart it proves its own earlier workers
            # gone even as a follower (only it can, from the worker's host).
            "ALTER TABLE lance_index_workers ADD COLUMN frontend TEXT NOT NULL DEFAULT ''",
            # A running build's progress, readable by every frontend (the leader writes it).
            """CREATE TABLE lance_index_job_progress (
                job_id INTEGER PRIMARY KEY,
                text TEXT NOT NULL,
                updated_at REAL NOT NULL
            )""",
        ],
    ),
]

# Tables whose rows some frontend keeps in memory: a write to one is announced to the others
# (PostgreSQL NOTIFY; see ``MetadataStore.listen``), which reload what they cached.
ANNOUNCED_TABLES = frozenset(
    {"config", "users", "roles", "grants", "role_members", "catalogs", "lance_index_jobs"}
)


class StaleRevision(Exception):
    """A compare-and-set found a different revision (or no row): someone else moved first."""


class MetadataStoreUnavailable(Exception):
    """The configured store cannot be opened or reached; the message never holds a password."""


class StoreRow(Protocol):
    """A result row: by position or by column name, ``keys()`` in column order (sqlite3.Row's
    API)."""

    def __getitem__(self, key: int | str, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...
    def keys(self) -> list[str]: ...


class StoreConnection(Protocol):
    """What a transaction body sees: ``execute`` with ``?`` placeholders."""

    def execute(self, sql: str, params: Any = (), /) -> Any: ...


class MetadataStore:
    """The interface every caller codes against; ``transaction()`` serialises writers store-wide."""

    description = ""  # where the store lives, safe to print (no secrets)

    @contextmanager
    def transaction(self) -> Iterator[StoreConnection]:
        raise NotImplementedError
        yield  # pragma: no cover

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    def query_one(self, sql: str, params: tuple[Any, ...] = ()) -> Any | None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # Several frontends may share a store that says so (PostgreSQL); SQLite lives in the data
    # directory, which is one process's own.
    shared = False

    def now(self) -> float:
        """The store's clock (seconds since the epoch): leases compare times written by several
        hosts."""
        return time.time()

    def listen(self, on_change: Callable[[frozenset[str] | None], None]) -> None:
        """Call ``on_change(tables)`` after another frontend commits a write to any of
        :data:`ANNOUNCED_TABLES`; ``None`` when announcements may have been missed (reload all).
        A store no other frontend can write has nothing to announce."""

    def compare_and_set(
        self,
        db: StoreConnection,
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


class MetaStore(MetadataStore):
    """SQLite in the data directory (WAL, synchronous=FULL)."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self.description = f"sqlite:{self.path}"
        # One write connection shared by all threads, serialised by a lock: SQLite serialises
        # writers anyway and this keeps every transition a single ordered transaction.
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._writer: int | None = (
            None  # thread id inside transaction(), which reads its own writes
        )
        self._migrate()
        # Reads outside a transaction use their own connection: WAL lets them see the last commit
        # while a writer waits for its fsync, instead of queueing behind it.
        self._reader = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._reader.row_factory = sqlite3.Row
        self._reader_lock = threading.Lock()

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

    # -- transactions ------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT; rolls back on any exception."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            outer, self._writer = self._writer, threading.get_ident()
            try:
                yield self._db
                self._db.execute("COMMIT")  # a failed COMMIT leaves the transaction open
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            finally:
                self._writer = outer

    def _read_connection(self) -> tuple[sqlite3.Connection, Any]:
        if self._writer == threading.get_ident() or not hasattr(self, "_reader"):
            return self._db, self._lock  # inside a transaction (or migrating): see its own writes
        return self._reader, self._reader_lock

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        db, lock = self._read_connection()
        with lock:
            return db.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        db, lock = self._read_connection()
        with lock:
            return db.execute(sql, params).fetchone()

    def close(self) -> None:
        with self._reader_lock:
            self._reader.close()
        with self._lock:
            self._db.close()
