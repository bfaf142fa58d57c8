"""The metadata store on PostgreSQL (psycopg 3): the same migrations, CAS and durability as SQLite.

Selected by ``drydock serve --metadata-store postgresql://user@host:port/db`` (or ``[frontend]
metadata_store`` in the TOML file). Callers write the common dialect (``?`` placeholders,
``ON CONFLICT``, ``RETURNING``); this module turns ``?`` into psycopg's ``%s`` and SQLite column
types into PostgreSQL's (a SQLite ``REAL`` is a double, an ``INTEGER`` 64 bits).

Write transactions take a transaction-scoped advisory lock first, so writers are serialised across
every frontend sharing the store exactly as ``BEGIN IMMEDIATE`` serialises them on SQLite: the
check-then-insert sequences of admission (fences, quotas) stay correct with several frontends.
``synchronous_commit`` is forced on for the session: a COMMIT that returned is on disk.
A commit that wrote a table some frontend caches (``ANNOUNCED_TABLES``) also NOTIFYs the others,
in the same transaction, so they reload it (``listen``).

The connection URL may carry a password; it is kept only in memory and every message this module
produces names the store by :func:`redact`, which drops it. libpq's own ``PGPASSWORD`` and
``~/.pgpass`` work too and keep the password off the command line.
"""

from __future__ import annotations

import enum
import functools
import re
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

from drydock.engine.store.metastore import (
    ANNOUNCED_TABLES,
    MIGRATIONS,
    MetadataStore,
    MetadataStoreUnavailable,
)

logger = logging.getLogger(__name__)
CONNECT_TIMEOUT_SECONDS = 10
STATEMENT_TIMEOUT_SECONDS = 60  # drydock's statements are point reads and small batches


def redact(dsn: str) -> str:
    """``postgresql://user@host:port/db`` without the password (or any other parameter)."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "postgresql://(unparseable URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


def _scrub(text: str, dsn: str) -> str:
    """libpq may echo a malformed URL, or a token of it, back in its message: take the secret out.
    When the URL cannot be parsed, the password is not known for sure and the token libpq quotes
    may be (a piece of) it, so every quoted fragment goes too."""
    try:
        password, parsed = str(conninfo_to_dict(dsn).get("password") or ""), True
    except psycopg.Error:
        password, parsed = "", False
    secrets = sorted({s for s in (password, dsn, *_raw_passwords(dsn)) if s}, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, "***")
    text = re.sub(r"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)
    return text if parsed else re.sub(r'"[^"]*"', '"***"', text)


_URL_PASSWORD = re.compile(r"://[^:/@\s]*:(.*)@")  # the userinfo's password, up to the last '@'
_KEY_PASSWORD = re.compile(r"password\s*=\s*('(?:[^'\\]|\\.)*'?|[^\s&#]*)", re.IGNORECASE)


def _raw_passwords(dsn: str) -> list[str]:
    """The password as written in ``dsn`` (URL userinfo, ``?password=``, ``password=``), without
    parsing it: what libpq echoes from a URL it rejects is the raw text."""
    found = [m.group(1) for m in _URL_PASSWORD.finditer(dsn)]
    found += [m.group(1).strip("'") for m in _KEY_PASSWORD.finditer(dsn)]
    return [f for f in found if f]


class Row:
    """sqlite3.Row's API over a psycopg row: by position or by name, ``keys()`` in column order."""

    __slots__ = ("_index", "_names", "_values")

    def __init__(self, names: tuple[str, ...], index: dict[str, int], values: Sequence[Any]):
        self._names, self._index, self._values = names, index, tuple(values)

    def __getitem__(self, key: int | str) -> Any:
        return self._values[self._index[key] if isinstance(key, str) else key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: Any) -> Any:
    names = tuple(c.name for c in cursor.description or ())
    index = {n: i for i, n in enumerate(names)}
    return lambda values: Row(names, index, values)


@functools.lru_cache(maxsize=2048)
def to_postgres(sql: str) -> str:
    """``?`` → ``%s`` outside string literals; a literal ``%`` becomes ``%%`` (psycopg's escape)."""
    out: list[str] = []
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted  # '' inside a literal toggles twice: still inside
        if ch == "%":
            out.append("%%")
        elif ch == "?" and not quoted:
            out.append("%s")
        else:
            out.append(ch)
    return "".join(out)


def _param(value: Any) -> Any:
    # SQLite stores bools as 0/1 and str-enums as their text; PostgreSQL columns are BIGINT/TEXT.
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _params(params: Any) -> tuple[Any, ...]:
    return tuple(_param(v) for v in params)


# Migration 6 backfilled bounds for records written before it, using SQLite's JSON functions. A
# PostgreSQL store is created by this version, which runs migrations 4 and 6 together on an empty
# table, so there is nothing to backfill.
_POSTGRES_OVERRIDES = {(6, 3): "SELECT 1"}


def migration_for_postgres(version: int, position: int, statement: str) -> str:
    """SQLite DDL → PostgreSQL: 64-bit integers, doubles, identity columns (ids never reused)."""
    if (version, position) in _POSTGRES_OVERRIDES:
        return _POSTGRES_OVERRIDES[(version, position)]
    statement = statement.replace(
        "INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    )
    statement = re.sub(r"\bINTEGER\b", "BIGINT", statement)
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", statement)


CHANGES_CHANNEL = "drydock_changes"
LISTEN_POLL_SECONDS = 1.0
_WRITTEN_TABLE = re.compile(r"\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)


@functools.lru_cache(maxsize=2048)
def written_table(sql: str) -> str | None:
    """The table an INSERT/UPDATE/DELETE writes (the store's own callers' SQL, not client text)."""
    match = _WRITTEN_TABLE.match(sql)
    return match.group(1).lower() if match else None


class _Connection:
    """What a transaction body sees: ``execute(sql, params)`` in the common dialect. Remembers
    which announced tables it wrote, so the commit can tell the other frontends."""

    def __init__(self, conn: psycopg.Connection[Any]):
        self.raw = conn
        self.written: set[str] = set()

    def execute(self, sql: str, params: Any = ()) -> psycopg.Cursor[Any]:
        table = written_table(sql)
        if table in ANNOUNCED_TABLES:
            self.written.add(table)
        return self.raw.execute(to_postgres(sql), _params(params))  # type: ignore[arg-type]


class PostgresStore(MetadataStore):
    shared = True  # several frontends: writers serialised by the advisory lock, changes announced

    def __init__(self, dsn: str):
        self._dsn = dsn
        self.description = redact(dsn)
        self._lock = threading.RLock()  # one write connection, as on SQLite
        self._writer: int | None = None
        self._writer_pids: set[int] = set()  # backend pids of our writes: our own announcements
        self._closing = threading.Event()
        self._listener: threading.Thread | None = None
        self._db = self._connect()
        self._reader_lock = threading.Lock()
        self._reader = self._connect()
        self._migrate()

    def __repr__(self) -> str:
        return f"PostgresStore({self.description})"

    # -- connections --------------------------------------------------------------------------
    def _connect(self) -> psycopg.Connection[Any]:
        try:
            # Bounded waits: a dead server or network fails a statement (the connection is then
            # replaced) instead of hanging the thread that waits on it.
            conn = psycopg.connect(
                self._dsn,
                autocommit=True,
                row_factory=_row_factory,
                connect_timeout=CONNECT_TIMEOUT_SECONDS,
                application_name="drydock",
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
                tcp_user_timeout=30_000,
            )
            conn.execute("SET synchronous_commit = on")
            conn.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT_SECONDS}s'")
            return conn
        except psycopg.Error as exc:
            raise MetadataStoreUnavailable(
                f"metadata store {self.description} unavailable: {_scrub(str(exc), self._dsn)}"
            ) from None

    def _live(self, conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
        """A connection lost (server restart, network) is replaced before the next statement."""
        return self._connect() if conn.closed or conn.broken else conn

    def _writer_connection(self) -> psycopg.Connection[Any]:
        self._db = self._live(self._db)
        self._writer_pids.add(self._db.info.backend_pid)
        return self._db

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
            row = db.execute("SELECT max(version) AS v FROM schema_version").fetchone()
            current = (row["v"] if row else None) or 0
            for version, statements in MIGRATIONS:
                if version <= current:
                    continue
                for position, statement in enumerate(statements):
                    db.execute(migration_for_postgres(version, position, statement))
                db.execute("INSERT INTO schema_version(version) VALUES (?)", (version,))

    # -- transactions ---------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[_Connection]:
        """BEGIN; advisory lock (writers serialised across frontends); … COMMIT; rollback on
        error."""
        with self._lock:
            conn = self._writer_connection()
            try:
                conn.execute("BEGIN")
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")
            except psycopg.Error as exc:
                self._rollback(conn)
                raise MetadataStoreUnavailable(
                    f"metadata store {self.description}: {_scrub(str(exc), self._dsn)}"
                ) from None
            outer, self._writer = self._writer, threading.get_ident()
            try:
                body = _Connection(conn)
                yield body
                if body.written:  # delivered to the listeners when (and only if) this commits
                    conn.execute(
                        "SELECT pg_notify(%s, %s)",
                        (CHANGES_CHANNEL, ",".join(sorted(body.written))),
                    )
                conn.execute("COMMIT")
            except BaseException:
                self._rollback(conn)
                raise
            finally:
                self._writer = outer

    @staticmethod
    def _rollback(conn: psycopg.Connection[Any]) -> None:
        if conn.closed or conn.broken:
            return
        if conn.info.transaction_status != pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")

    def _read(self, sql: str, params: tuple[Any, ...], one: bool) -> Any:
        if self._writer == threading.get_ident():
            with self._lock:  # inside a transaction: see its own writes
                query = to_postgres(sql)
                cursor = self._db.execute(query, _params(params))  # type: ignore[arg-type]
                return cursor.fetchone() if one else cursor.fetchall()
        with self._reader_lock:
            self._reader = self._live(self._reader)
            query = to_postgres(sql)
            cursor = self._reader.execute(query, _params(params))  # type: ignore[arg-type]
            return cursor.fetchone() if one else cursor.fetchall()

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(self._read(sql, params, one=False))

    def query_one(self, sql: str, params: tuple[Any, ...] = ()) -> Any | None:
        return self._read(sql, params, one=True)

    def now(self) -> float:
        row = self.query_one("SELECT extract(epoch FROM clock_timestamp())::double precision AS t")
        return float(row["t"]) if row else time.time()

    # -- announcements --------------------------------------------------------------------------
    def listen(self, on_change: Callable[[frozenset[str] | None], None]) -> None:
        """A thread with a connection of its own LISTENs; each announcement of another frontend's
        commit calls ``on_change(tables)``. A lost connection is replaced and ``on_change(None)``
        called: what was announced meanwhile is unknown."""
        if self._listener is not None:
            return
        self._listener = threading.Thread(
            target=self._listen, args=(on_change,), name="store-listener", daemon=True
        )
        self._listener.start()

    def _listen(self, on_change: Callable[[frozenset[str] | None], None]) -> None:
        conn: psycopg.Connection[Any] | None = None
        while not self._closing.is_set():
            try:
                if conn is None or conn.closed or conn.broken:
                    conn = self._connect()
                    conn.execute(f"LISTEN {CHANGES_CHANNEL}")
                    on_change(None)  # anything may have changed while nobody listened
                for note in conn.notifies(timeout=LISTEN_POLL_SECONDS):
                    if note.pid not in self._writer_pids:
                        on_change(frozenset(note.payload.split(",")))
            except (psycopg.Error, MetadataStoreUnavailable) as exc:
                logger.warning(
                    "metadata store listener: %s; reconnecting", _scrub(str(exc), self._dsn)
                )
                if conn is not None:
                    conn.close()
                conn = None
                self._closing.wait(LISTEN_POLL_SECONDS)
            except Exception:  # noqa: BLE001 - a failing reload must not end the announcements
                logger.exception("metadata store listener: reload failed")
        if conn is not None:
            conn.close()

    def close(self) -> None:
        self._closing.set()
        if self._listener is not None:
            self._listener.join(timeout=LISTEN_POLL_SECONDS * 3)
        with self._reader_lock:
            self._reader.close()
        with self._lock:
            self._db.close()
