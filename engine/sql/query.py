"""The SQL passthrough: statements the grammar does not own run on DuckDB.

The statement arrives as a sqlglot MySQL AST (the server parsed it); here it is adapted to what
drydock serves — ``FROM DUAL`` dropped, ``information_schema`` pointed at the MySQL-shaped views,
``CREATE/DROP DATABASE`` mapped to DuckDB schemas — then generated as DuckDB SQL and run on the
session's own cursor. Each session has its own DuckDB cursor so sessions never share a
transaction or a current schema, and :meth:`QuerySession.interrupt` cancels a running statement.
"""

from __future__ import annotations

import re
import secrets
import threading
from pathlib import Path
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from drydock.engine.support.lru import Lru
from drydock.grammar.lexer import constants_abstracted
from drydock.engine.session import INTERNAL
from drydock.engine.sql import (
    collation,
    duckdb_errors,
    info_schema,
    mysql_ddl,
    mysql_dml,
    mysql_functions,
    result_origins,
)
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql.table_traits import TableTraits, Traits
from drydock.engine.sql.transactions import SessionTransaction
from drydock.engine.lakehouse.catalogs.base import TimeTravel
from drydock.engine.sql.deadlines import DEADLINES, Deadline
from drydock.engine.errors import DrydockError, Errors, scrub_paths
from drydock.engine.results import Diagnostic, Result, RowStream
from drydock.engine.session import SessionContext
from drydock.engine.sql.sql_relations import Reference, catalog_of, verify_with_duckdb

_ROW_COUNT_STATEMENTS = (exp.Insert, exp.Update, exp.Delete)


class QueryEngine:
    """Owns the internal catalog's DuckDB database (one file in the data directory)."""

    def __init__(
        self,
        path: Path | str,
        memory_limit: str = "",
        temp_directory: Path | str | None = None,
        max_temp_directory_size: str = "",
    ):
        # Bounds of every statement together (README "Statement bounds"): DuckDB's memory, and a
        # bounded spill directory; set before the configuration is locked below.
        settings = {
            "memory_limit": memory_limit,
            "max_temp_directory_size": max_temp_directory_size,
            "temp_directory": str(temp_directory) if temp_directory is not None else "",
        }
        self._db = duckdb.connect(str(path), config={k: v for k, v in settings.items() if v})
        catalog = self._db.execute("SELECT current_database()").fetchone()
        if catalog is None or catalog[0] != INTERNAL:
            raise RuntimeError(f"internal catalog file must be named {INTERNAL}.duckdb")
        info_schema.install(self._db)
        mysql_functions.install(self._db)
        # Sandbox: SQL may not read or write server files, attach databases or load extensions
        # (read_csv('/etc/...'), COPY ... TO, ATTACH, INSTALL), and no session may undo that.
        self._db.execute("SET enable_external_access = false")
        # Memory one large statement took goes back to the OS within seconds (DuckDB's allocator
        # otherwise keeps its thread caches and dirty pages; bench/bench_statement_stall.py).
        self._db.execute("SET allocator_background_threads = true")
        self._db.execute("SET allocator_flush_threshold = '16MiB'")
        # MySQL's default collation compares without case or accents (engine/sql/collation.py).
        self._db.execute(f"SET GLOBAL default_collation = '{collation.DEFAULT}'")
        self._db.execute("SET lock_configuration = true")
        self._lock = threading.Lock()
        self.traits = TableTraits()  # engine/sql/table_traits.py, shared by every session

    def session(self) -> QuerySession:
        with self._lock:
            return QuerySession(self._db.cursor(), self.traits)

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """A metadata query on a short-lived cursor of its own."""
        with self._lock:
            cursor = self._db.cursor()
        try:
            return cursor.execute(sql, params or []).fetchall()
        finally:
            cursor.close()

    def databases(self) -> list[str]:
        return [
            r[0]
            for r in self.fetch(
                "SELECT schema_name FROM duckdb_schemas() WHERE database_name = ? AND schema_name "
                "NOT IN "
                f"{info_schema.HIDDEN_SCHEMAS} ORDER BY 1",
                [INTERNAL],
            )
        ]

    def tables(self, db: str) -> list[tuple[str, str]]:
        """(name, 'BASE TABLE' | 'VIEW') of an internal database."""
        return [
            (r[0], r[1])
            for r in self.fetch(
                "SELECT table_name, table_type FROM mysql_is.main.tables WHERE table_schema = ? "
                "ORDER BY 1",
                [db],
            )
        ]

    def columns(self, db: str, table: str) -> list[tuple[str, str, str, Any]]:
        """(name, column_type, is_nullable, default) of an internal table, in order."""
        return [
            (r[0], r[1], r[2], r[3])
            for r in self.fetch(
                "SELECT column_name, column_type, is_nullable, column_default FROM "
                "mysql_is.main.columns "
                "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                [db, table],
            )
        ]

    def column_details(self, db: str, table: str) -> list[tuple[Any, ...]]:
        """SHOW FULL COLUMNS of an internal table, in order: (Field, Type, Collation, Null, Key,
        Default as DuckDB keeps it, Extra, Privileges, Comment)."""
        return [
            tuple(r)
            for r in self.fetch(
                "SELECT column_name, column_type, collation_name, is_nullable, column_key, "
                "column_default, extra, "
                "privileges, column_comment FROM mysql_is.main.columns "
                "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                [db, table],
            )
        ]

    def close(self) -> None:
        self._db.close()


# External tables stay registered on a session's cursor between statements (registering costs about
# as much as scanning a small table): id(arrow object) → (object, name), least recently used first.
# The connector hands out one object per pinned version, so a REFRESH yields a new object and a new
# registration; an object no longer handed out is simply evicted.
BOUND_EXTERNAL_PER_SESSION = 8

# Rows per fetch of a streamed result: DuckDB's vector size. fetchmany(2048) costs ~1.1 µs a row
# (3 columns), less than fetchall (~1.7 µs) or an Arrow reader turned into tuples (~1.8 µs);
# and a result that fits in one batch is answered exactly as before, in one piece.
STREAM_BATCH_ROWS = 2048
_RESERVED_PREFIX = "__drydock_"


class _VerdictCache:
    """Final texts (with their authorized relation sets) DuckDB's parse already confirmed."""

    def __init__(self, size: int = 2048, max_text: int = 8192):
        self._max_text = max_text
        self._items: Lru[tuple[str, frozenset[tuple[str, str]]], None] = Lru(size)
        self._lock = threading.Lock()

    def hit(self, key: tuple[str, frozenset[tuple[str, str]]]) -> bool:
        with self._lock:
            return self._items.touch(key)

    def add(self, key: tuple[str, frozenset[tuple[str, str]]]) -> None:
        if len(key[0]) > self._max_text:
            return
        with self._lock:
            self._items.put(key, None)


_VERIFIED = _VerdictCache()


def verdict_text(sql: str) -> str:
    """``sql`` with each plain number and string constant replaced by a marker (grammar/lexer.py
    ``constants_abstracted``); a string naming a reserved relation is kept as written (DuckDB
    reads a string in FROM as a replacement scan, and drydock's own bindings pass the check by
    name)."""
    return constants_abstracted(sql, _RESERVED_PREFIX)


class QuerySession:
    def __init__(self, cursor: duckdb.DuckDBPyConnection, traits: TableTraits | None = None):
        self._cursor = cursor
        self._traits = traits or TableTraits()
        self._schema: str | None = "main"
        self.transaction = SessionTransaction(cursor)
        # registered Arrow objects by id, each with its name; the oldest is unregistered past the
        # bound
        self._bound: Lru[int, tuple[Any, str]] = Lru(
            BOUND_EXTERNAL_PER_SESSION,
            on_evict=lambda _id, entry: self._cursor.unregister(entry[1]),
        )
        # max_execution_time (engine/sql/deadlines.py): the armed deadline of the running statement,
        # and whether it fired (an InterruptException is then 3024, not KILL QUERY's 1317)
        self._deadline_lock = threading.Lock()
        self._deadline: Deadline | None = None
        self._deadline_token: object = None
        self._deadline_fired = False

    def interrupt(self) -> None:
        """KILL QUERY (server/connection.py): DuckDB stops the running statement within
        milliseconds, between two vectors; it then fails with 1317."""
        self._cursor.interrupt()

    def limit_time(self, milliseconds: int) -> None:
        """Interrupt this session's statement once it has run ``milliseconds`` (0: no limit);
        replaces any earlier limit. :meth:`end_time_limit` disarms it: a statement whose rows are
        fetched after :meth:`run` returns must keep it armed until its last row."""
        with self._deadline_lock:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._deadline_fired = False
            if milliseconds <= 0:
                return
            token = object()  # this statement's: a deadline popped just before it was cancelled
            self._deadline_token = token  # (the thread already holds it) must not fire on the next
            self._deadline = DEADLINES.arm(
                milliseconds / 1000, lambda: self._deadline_passed(token)
            )

    def end_time_limit(self) -> None:
        with self._deadline_lock:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

    def _deadline_passed(self, token: object) -> bool:
        """On the deadlines thread: interrupt, and keep interrupting (every 0.1 s) until the
        statement ends and disarms the deadline."""
        with self._deadline_lock:
            if self._deadline is None or self._deadline_token is not token:
                return False
            self._deadline_fired = True
            self._cursor.interrupt()
            return True

    def interrupted_error(self) -> DrydockError:
        """The error of a statement DuckDB reports as interrupted: 3024 when its max_execution_time
        passed, else KILL QUERY's 1317."""
        with self._deadline_lock:
            fired = self._deadline_fired
        return Errors.EXECUTION_TIME_EXCEEDED.error() if fired else Errors.QUERY_INTERRUPTED.error()

    def release(self) -> None:
        """Drop what the cursor keeps of its last statement (DuckDB holds the last prepared
        statement until the next one): run after a large statement."""
        try:
            self._cursor.execute("SELECT 1").fetchall()
        except duckdb.Error:
            pass

    def close(self) -> None:
        self._bound.clear()
        self._cursor.close()

    def _register(self, arrow_object: Any) -> str:
        """The name ``arrow_object`` is registered under on this cursor (registered if needed).

        Names are random: SQL text can never name them (adapt() refuses the prefix anyway)."""
        hit = self._bound.get(id(arrow_object))
        if hit is not None and hit[0] is arrow_object:
            return hit[1]
        name = f"{_RESERVED_PREFIX}ext_{secrets.token_hex(8)}"
        self._cursor.register(name, arrow_object)
        self._bound.put(id(arrow_object), (arrow_object, name))
        return name

    def run(
        self,
        expression: exp.Expr,
        ctx: SessionContext,
        references: list[Reference],
        visibility: Visibility | None = None,
        resolver: Resolver | None = None,
        stream: bool = False,
    ) -> Result:
        """Run a statement whose relations engine/sql/sql_relations.py resolved (and the caller
        authorized): internal references are qualified completely, external ones bound to
        Arrow objects, and DuckDB's own parse of the final text is checked against them.

        ``stream``: a result set larger than one batch comes back as its first batch plus
        ``Result.stream`` (the rest, fetched while the server sends; the cursor serves nothing
        else until it is read or closed). Otherwise every row is fetched here."""
        self.transaction.check_usable()
        self.limit_time(0)  # nothing of an earlier statement's deadline is left (armed in _execute)
        try:
            result = self._run(expression, ctx, references, visibility, resolver, stream)
        except BaseException as exc:
            self.end_time_limit()  # no deadline interrupt may reach the check below
            # engine/sql/transactions.py: DuckDB aborts the whole one
            self.transaction.after_failure()
            if isinstance(exc, duckdb.InterruptException):  # KILL QUERY that landed on one of the
                raise self.interrupted_error() from None  # statement's own checks (_verify, …)
            raise
        if result.stream is None:
            self.end_time_limit()  # the rows are fetched: the statement is over
        return result  # streamed: the deadline stays armed until the last batch (_next_batch)

    def _run(
        self,
        expression: exp.Expr,
        ctx: SessionContext,
        references: list[Reference],
        visibility: Visibility | None,
        resolver: Resolver | None,
        stream: bool = False,
    ) -> Result:
        planned = result_origins.plan(expression, ctx)  # before adapt() rewrites table names
        adapt(expression, ctx, visibility)
        counted = self._count_pushdown(expression, ctx, resolver)
        if counted is not None:
            return counted
        registered: list[str] = []
        try:
            # Tables first: the information_schema binding adds placeholder tables of its own.
            authorized = self._bind_references(references, resolver)
            self._bind_info_schema(expression, ctx, resolver, registered)
            key = self._complete_insert(expression)
            if (
                isinstance(expression, exp.Update)
                and isinstance(expression.this, exp.Table)
                and expression.this.text("catalog").lower() == INTERNAL
            ):
                mysql_dml.on_update_columns(expression, self._table_traits(expression.this))
            sql = expression.sql(dialect="duckdb")
            self._verify(expression, sql, authorized)
            result = self._execute(expression, sql, ctx, key, stream=stream and not registered)
            result_origins.attach(result, planned)
            return result
        finally:
            for name in registered:
                self._cursor.unregister(name)

    def _bind_references(
        self, references: list[Reference], resolver: Resolver | None
    ) -> set[tuple[str, str]]:
        """Qualify internal references as ``internal.db.t``; point every external one at an Arrow
        object registered on this cursor. The resolver pins one version per table reference
        (FOR VERSION/TIME AS OF or latest), and a table named twice in one statement is resolved
        once, so a statement reads one consistent version of each table. Returns the internal
        (db, table) pairs, lower-cased."""
        internal: set[tuple[str, str]] = set()
        pinned: dict[tuple[str, str, str, TimeTravel | None], str] = {}
        for ref in references:
            table = ref.node
            if ref.catalog.lower() == INTERNAL:
                if table.args.get("version") is not None:
                    raise Errors.TIME_TRAVEL_INVALID.error(
                        detail="FOR ... AS OF is only supported on Lance and Paimon tables"
                    )
                table.set("catalog", exp.to_identifier(INTERNAL))
                table.set("db", exp.to_identifier(ref.db))
                internal.add((ref.db.lower(), ref.table.lower()))
                continue
            if resolver is None:
                raise Errors.UNKNOWN_CATALOG.error(name=ref.catalog)
            travel = _time_travel(table)
            key = (ref.catalog.lower(), ref.db, ref.relation, travel)
            name = pinned.get(key, "")
            if not name:
                name = pinned[key] = self._register(
                    resolver(ref.catalog, ref.db, ref.relation, travel)
                )
            if not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("this", exp.to_identifier(name))
            table.set("db", None)
            table.set("catalog", None)
            table.set("version", None)
        return internal

    def _verify(self, expression: exp.Expr, sql: str, authorized: set[tuple[str, str]]) -> None:
        """DuckDB's own parse of every query in the final text ``sql`` names only what was
        authorized (engine/sql/sql_relations.py); DuckDB serializes SELECTs only, so each query part
        of an INSERT/CREATE/UPDATE/DELETE is checked on its own. A verdict depends only on the
        text and the authorized set, so passing ones are remembered (bounded LRU), keyed by the
        text with its constants abstracted (:func:`verdict_text`)."""
        key_set = frozenset(authorized)
        for query in _query_parts(expression):
            text = sql if query is expression else query.sql(dialect="duckdb")
            key = (verdict_text(text), key_set)
            if _VERIFIED.hit(key):
                continue
            verify_with_duckdb(self._serialize, text, authorized)
            _VERIFIED.add(key)

    def _complete_insert(self, expression: exp.Expr) -> mysql_dml.AutoIncrement | None:
        """An INSERT into an internal table: its conflict target, and ``RETURNING`` the
        AUTO_INCREMENT column when the sequence gives values (engine/sql/mysql_dml.py)."""
        if not isinstance(expression, exp.Insert):
            return None
        table = mysql_dml.target_table(expression)
        if table is None or table.text("catalog").lower() != INTERNAL:
            return None
        schema = table.text("db")
        mysql_dml.complete(expression, self._cursor, schema)
        key = mysql_dml.auto_increment(expression, self._table_traits(table))
        if key is not None and key.generates:
            expression.set("returning", exp.Returning(expressions=[exp.column(key.column)]))
        return key

    def _table_traits(self, table: exp.Table) -> Traits:
        return self._traits.get(
            self._cursor, table.text("db"), table.name, cache=not self.transaction.open
        )

    # -- transactions (engine/sql/transactions.py)
    # ----------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self.transaction.open

    def begin(self) -> None:
        self.transaction.begin()

    def commit(self) -> None:
        try:
            self.transaction.commit()
        finally:
            self._traits.changed()  # DDL it held is now visible to every session (or gone)

    def rollback(self) -> None:
        self.transaction.rollback()
        self._traits.changed()

    def _serialize(self, sql: str) -> str:
        rows = self._cursor.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()  # drained
        return str(rows[0][0]) if rows else '{"error": true}'

    def _count_pushdown(
        self, expression: exp.Expr, ctx: SessionContext, resolver: Resolver | None
    ) -> Result | None:
        """``SELECT count(*) FROM <one external table>`` (nothing else) answered from the pinned
        version's metadata, as Doris does for external tables (its count push-down): Lance keeps
        row counts (net of deletions) in the manifest, so no column is read. Any other shape, or
        a table object without ``count_rows``, runs on DuckDB as usual."""
        table = _count_star_table(expression, ctx)
        if table is None or resolver is None:
            return None
        db = table.text("db") or ctx.database
        if not db:
            raise Errors.NO_DB_SELECTED.error()
        count_rows = getattr(
            resolver(catalog_of(table, ctx), db, table.name, _time_travel(table)),
            "count_rows",
            None,
        )
        if count_rows is None:
            return None
        try:
            rows = int(count_rows())
        except (OSError, ValueError, RuntimeError) as exc:  # what pylance raises for I/O and data
            raise Errors.QUERY_FAILED.error(detail=_first_line(exc)) from None
        select = expression.expressions[0]
        name = select.alias if isinstance(select, exp.Alias) else "count_star()"  # DuckDB's name
        return Result(columns=[name], rows=[(rows,)], column_types={name: "BIGINT"})

    def _bind_info_schema(
        self,
        expression: exp.Expr,
        ctx: SessionContext,
        resolver: Resolver | None,
        registered: list[str],
    ) -> None:
        """information_schema.SCHEMATA/TABLES/COLUMNS of an external catalog (left in place by
        :func:`adapt`): rows from the catalog, registered as Arrow, read through a subquery with
        the internal views' exact columns. Registered for this statement only (``registered``)."""
        for table in list(expression.find_all(exp.Table)):
            catalog = _external_info_schema_catalog(table, ctx)
            if catalog is None:
                continue
            if resolver is None:
                raise Errors.UNKNOWN_CATALOG.error(name=catalog)
            name = table.name.lower()
            source = f"{_RESERVED_PREFIX}is_{len(registered)}"
            self._cursor.register(source, resolver(catalog, "information_schema", name, None))
            registered.append(source)
            select = sqlglot.parse_one(
                info_schema.EXTERNAL_SELECT[name].format(source=source), read="duckdb"
            )
            table.replace(
                exp.Subquery(
                    this=select,
                    alias=exp.TableAlias(this=exp.to_identifier(table.alias or table.name)),
                )
            )

    def _execute(
        self,
        expression: exp.Expr,
        sql: str,
        ctx: SessionContext,
        key: mysql_dml.AutoIncrement | None = None,
        stream: bool = False,
    ) -> Result:
        self._use(ctx.database if ctx.catalog.lower() == INTERNAL else None)
        notes = self._if_exists_notes(expression, ctx)
        with self.duckdb_errors(expression, ctx):
            after = (
                mysql_ddl.sequences_of(self._cursor, expression)
                if isinstance(expression, exp.Drop)
                else expression.meta.get("create_after") or []
            )
            self.limit_time(
                ctx.time_limit_ms
            )  # max_execution_time: SELECTs only (engine/statements/sql.py)
            self._run_statement(sql, expression.meta.get("create_first") or [], after)
            if _is_ddl(expression):
                self._traits.changed()  # engine/sql/table_traits.py
        # DuckDB streams a query's result: most of its work (and its interruption, its running out
        # of memory) may happen in the fetch, which answers the same errors
        with self.duckdb_errors(expression, ctx):
            description = self._cursor.description
            if key is not None:
                return self._auto_increment_result(expression, key)
            if isinstance(expression, _ROW_COUNT_STATEMENTS):
                rows = (
                    self._cursor.fetchall()
                )  # drained: DuckDB refuses new work while a result is open
                return Result.ok(affected_rows=int(rows[0][0]) if rows else 0)
            if not description or _is_ddl(expression):
                if description:
                    self._cursor.fetchall()  # drain: DuckDB refuses new work while a result is open
                return Result.ok(warnings=notes)
            result = Result(
                columns=[d[0] for d in description],
                column_types={d[0]: str(d[1]) for d in description},
            )
            if not stream:
                result.rows = self._cursor.fetchall()
                return result
            # DuckDB produces the rows as they are fetched: one batch now; when that does not
            # exhaust the result, the rest is read batch by batch while the server sends
            # (server/connection.py), so neither the rows nor their packets exist all at once.
            result.rows = self._cursor.fetchmany(STREAM_BATCH_ROWS)
        if len(result.rows) == STREAM_BATCH_ROWS:
            result.stream = RowStream(
                len(result.rows), lambda: self._next_batch(expression, ctx), self._close_stream
            )
        return result

    def _next_batch(self, expression: exp.Expr, ctx: SessionContext) -> list[tuple[Any, ...]]:
        """The next batch of a streamed result ([] at its end, which ends its time limit). DuckDB
        runs the query as it is fetched, so its runtime errors (a failed cast on row 1,000,000)
        and interruptions (KILL QUERY, max_execution_time) are raised here, mid-result."""
        try:
            if ctx.cancel.is_set():  # KILL QUERY while the previous batch was sent (nothing ran
                raise Errors.QUERY_INTERRUPTED.error()  # in DuckDB for its interrupt to stop)
            with self.duckdb_errors(expression, ctx):
                batch = self._cursor.fetchmany(STREAM_BATCH_ROWS)
        except BaseException:
            self.end_time_limit()  # no deadline interrupt may reach the rollback
            # engine/sql/transactions.py: DuckDB aborts the whole one
            self.transaction.after_failure()
            raise
        if not batch:
            self.end_time_limit()
        return batch

    def _close_stream(self) -> None:
        """A streamed result dropped before its end: its time limit ends, DuckDB's result goes."""
        self.end_time_limit()
        self.release()

    @contextmanager
    def duckdb_errors(self, expression: exp.Expr, ctx: SessionContext) -> Iterator[None]:
        """DuckDB's exceptions raised while a statement runs or its rows are fetched → MySQL's
        errors (engine/sql/duckdb_errors.py); an interrupt is 3024 or 1317
        (:meth:`interrupted_error`)."""
        try:
            yield
        except duckdb.ParserException as exc:
            raise Errors.PARSE.error(detail=_first_line(exc)) from None
        except duckdb.InterruptException:
            raise self.interrupted_error() from None
        except duckdb.CatalogException as exc:
            missing = _MISSING_TABLE.match(_first_line(exc))
            if missing:
                raise Errors.UNKNOWN_TABLE.error(
                    table=_qualified(missing.group(1), expression, ctx)
                ) from None
            raise duckdb_errors.translate(
                exc, _error_context(expression, ctx)
            ) or Errors.QUERY_FAILED.error(detail=_first_line(exc)) from None
        except (
            duckdb.Error
        ) as exc:  # MySQL's code and wording where known (engine/sql/duckdb_errors.py)
            raise duckdb_errors.translate(
                exc, _error_context(expression, ctx)
            ) or Errors.QUERY_FAILED.error(detail=_first_line(exc)) from None

    def _auto_increment_result(self, insert: exp.Expr, key: mysql_dml.AutoIncrement) -> Result:
        """The OK of an INSERT into a table with an AUTO_INCREMENT column
        (engine/sql/mysql_dml.py)."""
        rows = self._cursor.fetchall()  # RETURNING the column's values, or the row count
        affected = len(rows) if key.generates else (int(rows[0][0]) if rows else 0)
        table = mysql_dml.target_table(insert) if isinstance(insert, exp.Insert) else None
        gap = mysql_dml.catch_up(key, self._cursor, table) if table is not None else None
        warnings = [] if gap is None else [Errors.AUTO_INCREMENT_BEHIND.warning(gap=gap)]
        return Result.ok(
            affected_rows=affected,
            warnings=warnings,
            last_insert_id=mysql_dml.first_generated(key, rows) if key.generates else 0,
        )

    def _run_statement(self, sql: str, before: list[str], after: list[str]) -> None:
        """``sql`` with the statements it needs before (an AUTO_INCREMENT column's sequence) and
        after (DROP TABLE: that sequence), all in one transaction: nothing is left half done."""
        if not before and not after:
            self._cursor.execute(sql)
            return
        own = not self.transaction.open
        if own:
            self._cursor.execute("BEGIN TRANSACTION")
        try:
            for statement in [*before, sql, *after]:
                self._cursor.execute(statement)
        except BaseException:
            if own:
                self._cursor.execute("ROLLBACK")
            raise
        if own:
            self._cursor.execute("COMMIT")

    def _use(self, database: str | None) -> None:
        target = database if database and database.lower() != "information_schema" else "main"
        if target == self._schema:
            return
        try:
            self._cursor.execute(f"USE {INTERNAL}.{quoted(target)}")
        except duckdb.Error:
            raise Errors.UNKNOWN_DATABASE.error(db=target) from None
        self._schema = target

    def _if_exists_notes(self, expression: exp.Expr, ctx: SessionContext) -> list[Diagnostic]:
        """MySQL's Notes for IF [NOT] EXISTS statements that turn out to be no-ops."""
        if not isinstance(expression, (exp.Create, exp.Drop)) or not expression.args.get("exists"):
            return []
        kind = str(expression.args.get("kind", "")).upper()
        tables = expression.args.get("tables") or []  # DROP TABLE a, b keeps them in "tables"
        target = tables[0] if isinstance(expression, exp.Drop) and tables else expression.this
        if kind == "SCHEMA":
            name = target.name if isinstance(target, exp.Table) else str(target.name)
            exists = self.schema_exists(name)
            if isinstance(expression, exp.Create) and exists:
                return [Errors.DB_CREATE_EXISTS.note(db=name)]
            if isinstance(expression, exp.Drop) and not exists:
                return [Errors.DB_DROP_EXISTS.note(db=name)]
        elif kind == "TABLE":
            table = target.this if isinstance(target, exp.Schema) else target
            if not isinstance(table, exp.Table):
                return []
            schema = table.text("db") or ctx.database or "main"
            exists = self.table_exists(schema, table.name)
            if isinstance(expression, exp.Create) and exists:
                return [Errors.TABLE_EXISTS.note(table=table.name)]
            if isinstance(expression, exp.Drop) and not exists:
                return [Errors.BAD_TABLE.note(table=f"{schema}.{table.name}")]
        return []

    def drop_index(self, schema: str, name: str) -> None:
        """DROP INDEX of an internal table's index (engine/statements/internal_index.py checked
        the privilege and that the index belongs to the table)."""
        self.transaction.check_usable()
        try:
            self._cursor.execute(f"DROP INDEX {INTERNAL}.{quoted(schema)}.{quoted(name)}")
        except duckdb.Error as exc:
            self.transaction.after_failure()
            raise Errors.QUERY_FAILED.error(detail=_first_line(exc)) from None

    def table_exists(self, schema: str, name: str) -> bool:
        rows = self._cursor.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
            "AND table_name = ?",
            [INTERNAL, schema, name],
        ).fetchall()
        return bool(rows and rows[0][0])

    def schema_exists(self, name: str) -> bool:
        rows = self._cursor.execute(
            "SELECT count(*) FROM duckdb_schemas() WHERE database_name = ? AND schema_name = ?",
            [INTERNAL, name],
        ).fetchall()
        return bool(rows and rows[0][0])


_MISSING_TABLE = re.compile(r'Catalog Error: Table with name "?([^"\s!]+)"? does not exist')


def _qualified(name: str, expression: exp.Expr, ctx: SessionContext) -> str:
    """MySQL names a missing table ``db.table`` (1146); DuckDB's message may omit the schema."""
    if "." in name:
        return name
    for table in expression.find_all(exp.Table):
        if table.name == name and table.text("db"):
            return f"{table.text('db')}.{name}"
    return f"{ctx.database}.{name}" if ctx.database else name


def _error_context(expression: exp.Expr, ctx: SessionContext) -> duckdb_errors.Context:
    """The table a statement writes (MySQL names keys ``table.PRIMARY``) for error messages."""
    target = (
        expression.this
        if isinstance(expression, (exp.Insert, exp.Update, exp.Delete, exp.Create))
        else None
    )
    if isinstance(target, exp.Schema):
        target = target.this
    return duckdb_errors.Context(
        table=target.name if isinstance(target, exp.Table) else "",
        database=ctx.database or "",
        drop=isinstance(expression, exp.Drop),
    )


def _first_line(exc: Exception) -> str:
    """The first line of a DuckDB/library error, with server paths removed (engine/errors.py)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return scrub_paths(text)


def _query_parts(expression: exp.Expr) -> list[exp.Expr]:
    """The outermost queries in ``expression``: itself when it is one, else each query (SELECT,
    set operation, subquery) not nested in another."""
    if isinstance(expression, _QUERIES):
        return [expression]
    if isinstance(expression, exp.Describe):
        return _query_parts(expression.this)
    parts: list[exp.Expr] = []
    for node in expression.iter_expressions():
        parts.extend(_query_parts(node))
    return parts


_QUERIES = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)


def _is_ddl(expression: exp.Expr) -> bool:
    """Statements that answer an OK packet whatever DuckDB returns (TRUNCATE returns a count)."""
    return isinstance(expression, (exp.Create, exp.Drop, exp.Alter, exp.Command, exp.TruncateTable))


# (sees everything, visible databases, visible (database, table) pairs) — Privileges.visibility
Visibility = tuple[bool, set[str], set[tuple[str, str]]]
# (catalog, db, table, time travel) → an Arrow object DuckDB can scan
Resolver = Callable[[str, str, str, TimeTravel | None], Any]


def _time_travel(table: exp.Table) -> TimeTravel | None:
    version = table.args.get("version")
    if not isinstance(version, exp.Version):
        return None
    value = version.expression
    kind = version.text("this").upper()
    if not isinstance(value, exp.Literal):
        raise Errors.TIME_TRAVEL_INVALID.error(
            detail="FOR ... AS OF needs a literal version, time or tag"
        )
    if kind == "TIMESTAMP":
        return TimeTravel(timestamp=value.name)
    if value.is_string:
        return TimeTravel(tag=value.name)
    return TimeTravel(version=int(value.name))


_COUNT_SELECT_ARGS = {"expressions", "from_"}
_COUNT_TABLE_ARGS = {"this", "db", "catalog", "alias", "version"}


def _count_star_table(expression: exp.Expr, ctx: SessionContext) -> exp.Table | None:
    """The table of ``SELECT count(*) [AS a] FROM [c.][d.]t [AS x] [FOR ... AS OF ...]`` when it
    is an external table and the statement has no other clause, else None."""
    if (
        not isinstance(expression, exp.Select)
        or {k for k, v in expression.args.items() if v} != _COUNT_SELECT_ARGS
    ):
        return None
    if len(expression.expressions) != 1:
        return None
    projection = expression.expressions[0]
    count = projection.this if isinstance(projection, exp.Alias) else projection
    if (
        type(count) is not exp.Count
        or not isinstance(count.this, exp.Star)
        or any(count.this.args.values())
    ):
        return None
    if {k for k, v in count.args.items() if v} - {"this", "big_int"}:
        return None
    source = expression.args["from_"].this
    if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier):
        return None
    if {k for k, v in source.args.items() if v} - _COUNT_TABLE_ARGS or source.alias_column_names:
        return None
    if (
        catalog_of(source, ctx).lower() == INTERNAL
        or source.text("db").lower() == "information_schema"
    ):
        return None
    return source


def _external_info_schema_catalog(table: exp.Table, ctx: SessionContext) -> str | None:
    """The external catalog whose information_schema.SCHEMATA/TABLES/COLUMNS ``table`` reads
    (``[c.]information_schema.t``, c defaulting to the session's catalog), or None."""
    if (
        table.text("db").lower() != "information_schema"
        or table.name.lower() not in info_schema.EXTERNAL
    ):
        return None
    catalog = table.text("catalog") or ctx.catalog
    if catalog.lower() in (INTERNAL, info_schema.ATTACHED_NAME):
        return None
    return catalog


# information_schema tables whose rows name databases/tables, and the columns that do.
_FILTERED = {
    "schemata": ("schema_name", None),
    "tables": ("table_schema", "table_name"),
    "columns": ("table_schema", "table_name"),
    "statistics": ("table_schema", "table_name"),
    "key_column_usage": ("table_schema", "table_name"),
    "table_constraints": ("table_schema", "table_name"),
}


def _visible_rows(name: str, visibility: Visibility) -> exp.Expr:
    """``(SELECT * FROM mysql_is.main.<name> WHERE <the rows this user may see>)``."""
    sees_all, dbs, tables = visibility
    source = exp.select("*").from_(exp.table_(name, db="main", catalog=info_schema.ATTACHED_NAME))
    if sees_all:
        return source
    db_col, table_col = _FILTERED[name]
    terms = [f"{db_col} = 'information_schema'"]
    if dbs:
        terms.append(f"{db_col} IN ({', '.join(_sql_string(d) for d in sorted(dbs))})")
    for db, table in sorted(tables):
        if table_col is None:
            terms.append(f"{db_col} = {_sql_string(db)}")
        else:
            terms.append(f"({db_col} = {_sql_string(db)} AND {table_col} = {_sql_string(table)})")
    return source.where(" OR ".join(terms), dialect="duckdb")


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def adapt(
    expression: exp.Expr, ctx: SessionContext, visibility: Visibility | None = None
) -> exp.Expr:
    """MySQL AST → the AST drydock runs on DuckDB (see module docstring), in place."""
    if (
        isinstance(expression, (exp.Create, exp.Drop))
        and expression.args.get("kind", "").upper() == "DATABASE"
    ):
        expression.set("kind", "SCHEMA")
        if isinstance(expression, exp.Drop):
            expression.set("cascade", True)  # MySQL's DROP DATABASE drops the tables in it
    if (
        isinstance(expression, exp.Create)
        and str(expression.args.get("kind", "")).upper() == "TABLE"
    ):
        table = expression.find(exp.Table)
        schema = (table.text("db") if table is not None else "") or ctx.database or "main"
        expression.meta["create_first"], expression.meta["create_after"] = (
            mysql_ddl.adapt_create_table(expression, schema)
        )
    in_info_schema = (ctx.database or "").lower() == "information_schema"
    if ctx.catalog.lower() != INTERNAL:
        # DATABASE() is the session's database in its external catalog; DuckDB's CURRENT_SCHEMA()
        # would answer the internal schema the cursor happens to be on (JDBC's getTables uses it).
        for node in list(expression.find_all(exp.CurrentSchema)):
            node.replace(exp.Literal.string(ctx.database) if ctx.database else exp.null())
    for table in list(expression.find_all(exp.Table)):
        db = table.text("db").lower()
        name = table.name
        if (
            isinstance(expression, exp.Select)
            and not db
            and name.upper() == "DUAL"
            and not table.args.get("catalog")
        ):
            _drop_dual(table)
            continue
        if db == "information_schema" or (
            in_info_schema and not db and not table.args.get("catalog")
        ):
            if _external_info_schema_catalog(table, ctx) is not None:
                # answered from the external catalog's metadata (QuerySession._bind_info_schema)
                continue
            if visibility is not None and name.lower() in _FILTERED:
                alias = table.alias or name
                table.replace(
                    exp.Subquery(
                        this=_visible_rows(name.lower(), visibility),
                        alias=exp.TableAlias(this=exp.to_identifier(alias)),
                    )
                )
                continue
            table.set("catalog", exp.to_identifier(info_schema.ATTACHED_NAME))
            table.set("db", exp.to_identifier("main"))
            table.set("this", exp.to_identifier(name.lower()))
    return expression


def _drop_dual(table: exp.Table) -> None:
    parent: Any = table.parent
    if isinstance(parent, exp.From):
        select = parent.parent
        if isinstance(select, exp.Select):
            select.set("from_", None)
