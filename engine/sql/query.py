"""The SQL passthrough: statements the grammar does not own run on DuckDB.

The statement arrives as a sqlglot MySQL AST (the server parsed it); here it is adapted to what
drydock serves — ``FROM DUAL`` dropped, ``information_schema`` pointed at the MySQL-shaped views,
``CREATE/DROP DATABASE`` mapped to DuckDB schemas — then generated as DuckDB SQL and run on the
session's own cursor. Each session has its own DuckDB cursor so sessions never share a
transaction or a current schema, and :meth:`QuerySession.interrupt` cancels a running statement.

Here: :class:`QueryEngine` (the internal DuckDB database) and :class:`QuerySession`, whose steps
live by concern in engine/sql/adapt.py (MySQL AST → DuckDB's), engine/sql/count_pushdown.py,
engine/sql/external_binding.py (relations bound on the cursor), engine/sql/verdict_cache.py
(DuckDB's parse of the final text checked, passing verdicts kept), engine/sql/execution.py (run,
results, streaming, errors), engine/sql/deadlines.py (max_execution_time) and
engine/sql/dictionary_hooks.py (the data dictionary's enforcement, ALTER and DDL hooks).
engine/sql/text_cache.py keeps the final text of a query per statement shape: ``_run`` records
what it generated for a learning run, :meth:`QuerySession.run_template` runs a filled template.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.search import vector_functions
from drydock.engine.support.lru import Lru
from drydock.engine.session import INTERNAL
from drydock.engine.sql import (
    collation,
    group_by_keys,
    dml_counts,
    exact_avg,
    time_operands,
    typed_operands,
    info_schema,
    mysql_alter,
    mysql_dml,
    mysql_functions,
    replace_rows,
    result_origins,
)
from drydock.engine.sql.adapt import Visibility, adapt
from drydock.engine.sql.count_pushdown import count_pushdown
from drydock.engine.sql.dictionary_hooks import DictionaryHooks
from drydock.engine.sql.external_binding import (
    BOUND_EXTERNAL_PER_SESSION,
    ExternalBinding,
    Resolver,
)
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.sql.table_traits import TableTraits
from drydock.engine.sql.savepoints import RecordingCursor, WriteClock
from drydock.engine.sql.transactions import SessionTransaction, is_read
from drydock.engine.sql.deadlines import Deadline
from drydock.engine.errors import DrydockError
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.sql.sql_relations import Reference
from drydock.engine.sql.verdict_cache import verify
from drydock.engine.sql import text_cache
from drydock.engine.sql.session_variables import sql_mode_names
from drydock.engine.search.planner import prepare
from drydock.engine.search.table_search import SearchSettings
from drydock.engine.sql.external_binding import time_travel


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
        dictionary_store.ensure(self._db)  # engine/dictionary/store.py
        info_schema.install(self._db)
        mysql_functions.install(self._db)
        vector_functions.install(self._db)
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
        # commits of writes by every session: a savepoint's replay is refused after one
        # (engine/sql/savepoints.py)
        self.writes = WriteClock()
        self.texts = text_cache.TextCache()  # generated DuckDB texts per shape, every session's

    def session(self) -> QuerySession:
        with self._lock:
            return QuerySession(self._db.cursor(), self.traits, self.writes, self.texts)

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


class QuerySession(ExternalBinding, DictionaryHooks):
    def __init__(
        self,
        cursor: duckdb.DuckDBPyConnection,
        traits: TableTraits | None = None,
        writes: WriteClock | None = None,
        texts: text_cache.TextCache | None = None,
    ):
        # what a statement of an explicit transaction executes is logged for ROLLBACK TO
        # SAVEPOINT (engine/sql/savepoints.py)
        self._cursor = RecordingCursor(cursor)
        self._traits = traits or TableTraits()
        self._writes = writes or WriteClock()
        self._ddl_in_transaction = False  # the open transaction changed definitions (execution.py)
        self._begun_at = -1  # TableTraits.generation when the open transaction began
        self._schema: str | None = "main"
        self.transaction = SessionTransaction(self._cursor, self._writes)
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
        # engine/sql/text_cache.py: the shared cache, and the recorder of a learning run
        self.text_cache = texts
        self.recorder: text_cache.Recorder | None = None

    @property
    def ddl_generation(self) -> int:
        return self._traits.generation

    def interrupt(self) -> None:
        """KILL QUERY (server/connection.py): DuckDB stops the running statement within
        milliseconds, between two vectors; it then fails with 1317."""
        self._cursor.interrupt()

    def close(self) -> None:
        self._bound.clear()
        self._cursor.close()

    def run(
        self,
        expression: exp.Expr,
        ctx: SessionContext,
        references: list[Reference],
        visibility: Visibility | None = None,
        resolver: Resolver | None = None,
        stream: bool = False,
        search: SearchSettings | None = None,
    ) -> Result:
        """Run a statement whose relations engine/sql/sql_relations.py resolved (and the caller
        authorized): internal references are qualified completely, external ones bound to
        Arrow objects, and DuckDB's own parse of the final text is checked against them.

        ``stream``: a result set larger than one batch comes back as its first batch plus
        ``Result.stream`` (the rest, fetched while the server sends; the cursor serves nothing
        else until it is read or closed). Otherwise every row is fetched here."""
        if self.recorder is not None and self.recorder.dry:  # text_cache.py's probe: never runs
            return self._run(expression, ctx, references, visibility, resolver, stream, search)
        return self._guarded(
            expression,
            lambda: self._run(expression, ctx, references, visibility, resolver, stream, search),
        )

    def run_template(
        self, template: text_cache.Template, sql: str, ctx: SessionContext, stream: bool
    ) -> Result:
        """A SELECT whose text engine/sql/text_cache.py filled in: verified and run as
        :meth:`run` runs a generated one."""
        final = template.final

        def execute() -> Result:
            verify(final, sql, set(template.authorized), self._serialize)  # a verdict cache hit
            result = self._execute(final, sql, ctx, None, stream=stream)
            result_origins.attach(result, template.planned)
            return result

        return self._guarded(final, execute)

    def _guarded(self, expression: exp.Expr, body: Callable[[], Result]) -> Result:
        self.transaction.check_usable()
        self.limit_time(0)  # nothing of an earlier statement's deadline is left (armed in _execute)
        # a write outside a transaction commits: counted for other sessions' savepoints
        autocommitted = not self.transaction.open and not is_read(expression)
        self.transaction.statement_started(self._schema, expression)
        self._refusable = None
        try:
            with self._writes.committing() if autocommitted else nullcontext():
                result = body()
            self.transaction.statement_succeeded(expression)
        except BaseException as exc:
            self.end_time_limit()  # no deadline interrupt may reach the check below
            # engine/sql/transactions.py: DuckDB aborts the whole one
            self.transaction.statement_failed()
            self._spend_after_refusal(exc)  # AUTO_INCREMENT values InnoDB keeps spent
            if isinstance(exc, duckdb.InterruptException):  # KILL QUERY that landed on one of the
                raise self.interrupted_error() from None  # statement's own checks (verify, …)
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
        search: SearchSettings | None = None,
    ) -> Result:
        planned = result_origins.plan(expression, ctx)  # before adapt() rewrites table names
        self._create_like(expression, ctx)  # CREATE TABLE … LIKE: dictionary_hooks.py
        adapt(expression, ctx, visibility)
        # Searches run on pylance first (engine/search/planner.py); DuckDB reads what they found.
        searched = None
        if search is not None:
            explaining = isinstance(expression, exp.Describe)  # EXPLAIN: nothing is searched
            searched = prepare(
                expression, references, _view_of(resolver), search, run=not explaining
            )
        answered = self._searched_result(expression, searched, planned)  # external_binding.py
        if answered is not None:
            return answered
        if searched is None:
            counted = count_pushdown(expression, ctx, resolver)
            if counted is not None:
                result_origins.attach(counted, planned)  # COUNT(*)'s MySQL type
                return counted
        registered: list[str] = []
        try:
            # Tables first: the information_schema binding adds placeholder tables of its own.
            authorized = self._bind_references(references, resolver, searched, registered)
            altered = mysql_alter.alter_target(expression)  # qualified now
            if altered is not None and isinstance(expression, exp.Alter):
                done = self._alter(expression, altered, ctx)  # engine/sql/mysql_alter.py
                if done is not None:
                    return done
            if isinstance(expression, exp.Drop):  # DROP TABLE a, b: one by one, all or none
                dropped = self._drop_tables(expression, ctx)  # engine/sql/dictionary_hooks.py
                if dropped is not None:
                    return dropped
            planned = result_origins.define(planned, self._table_definition)
            self._bind_info_schema(expression, ctx, resolver, registered)
            key = self._complete_insert(expression)
            self._note_insert(expression, key)  # a refusal spends its values (_guarded)
            time_operands.rewrite(  # literals compared with a TIME column, read as MySQL's
                expression,
                self._table_traits,
                lambda probe: self._probe_types(probe, authorized, expression, ctx),
                sql_mode_names(ctx),
            )
            enforced = self._enforce(expression, ctx, authorized)  # before DuckDB runs it
            group_by_keys.complete(expression, self._table_traits)  # functional dependence
            if expression.find(exp.Avg) is not None:  # MySQL's exact AVG of exact numbers
                exact_avg.rewrite(
                    expression, lambda probe: self._probe_types(probe, authorized, expression, ctx)
                )
            if typed_operands.wanted(expression):  # DATE + INTERVAL, exact / of columns
                typed_operands.rewrite(
                    expression, lambda probe: self._probe_types(probe, authorized, expression, ctx)
                )
            changed_rows = dml_counts.changed_rows_query(expression)  # UPDATE's OK packet
            if (
                isinstance(expression, exp.Update)
                and isinstance(expression.this, exp.Table)
                and expression.this.text("catalog").lower() == INTERNAL
            ):
                mysql_dml.on_update_columns(expression, self._table_traits(expression.this))
            expression = vector_functions.qualify(expression)
            sql = expression.sql(dialect="duckdb")
            verify(expression, sql, authorized, self._serialize)
            if changed_rows is not None:  # reads what the UPDATE reads: verified the same way
                counting = vector_functions.qualify(changed_rows)
                changed_sql = counting.sql(dialect="duckdb")
                verify(counting, changed_sql, authorized, self._serialize)
                expression.meta["changed_rows_sql"] = changed_sql
            if self.recorder is not None:  # engine/sql/text_cache.py learns (a probe stops here)
                clean = not registered and not enforced and searched is None
                clean = clean and changed_rows is None and key is None
                self.recorder.record(
                    text_cache.Generated(expression, sql, planned, frozenset(authorized), clean)
                )
            result = self._execute(expression, sql, ctx, key, stream=stream and not registered)
            result_origins.attach(result, planned)
            result.warnings[:0] = enforced
            if searched is not None:
                result.warnings.extend(searched.notes)
                result.plan = searched
            return result
        finally:
            self._release_registered(registered)  # engine/sql/external_binding.py

    def _probe_types(
        self, probe: exp.Select, authorized: Any, expression: exp.Expr, ctx: SessionContext
    ) -> list[str] | None:
        """The DuckDB types of ``probe``'s columns (engine/sql/exact_avg.py), bound by DESCRIBE
        (no rows read) after the same verification as any statement; None when it does not
        bind. In a transaction a failed bind aborts it, so its error is the statement's."""
        sql = probe.sql(dialect="duckdb")
        try:
            verify(probe, sql, authorized, self._serialize)
        except DrydockError:
            return None  # the statement's own verification decides
        if self.transaction.open:
            with self.duckdb_errors(expression, ctx):
                rows = self._cursor.execute(f"DESCRIBE {sql}").fetchall()
        else:
            try:
                rows = self._cursor.execute(f"DESCRIBE {sql}").fetchall()
            except duckdb.Error:
                return None
        return [str(row[1]) for row in rows]

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
        traits = self._table_traits(table)
        if expression.args.get("alternative") == "REPLACE":  # engine/sql/replace_rows.py
            expression.meta["replace"] = replace_rows.plan(
                traits.definition, bool(traits.referenced_by), self._cursor, schema, table.name
            )
        key = mysql_dml.auto_increment(expression, traits)
        if key is not None and key.generates:  # the rows REPLACE stages return it (replace_rows)
            expression.set("returning", exp.Returning(expressions=[exp.column(key.column)]))
        if key is not None:
            self._cursor.note_sequence(key.sequence)  # a savepoint's replay gives the same ids
        return key

    # -- transactions (engine/sql/transactions.py)
    # ----------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self.transaction.open

    def begin(self) -> None:
        if not self.transaction.open:  # read before BEGIN: a later change makes it stale
            self._begun_at = self._traits.generation
        self.transaction.begin()

    def commit(self) -> None:
        try:
            self.transaction.commit()
        finally:
            self._traits.changed()  # DDL it held is now visible to every session (or gone)
            self._ddl_in_transaction = False

    def rollback(self) -> None:
        self.transaction.rollback()
        self._traits.changed()
        self._ddl_in_transaction = False

    def savepoint(self, name: str) -> None:
        self.transaction.savepoint(name)

    def release_savepoint(self, name: str) -> None:
        self.transaction.release_savepoint(name)

    def rollback_to_savepoint(self, name: str) -> None:
        try:
            self.transaction.rollback_to_savepoint(name, self._schema)
        finally:
            self._traits.changed()  # DDL after the savepoint is gone

    def _serialize(self, sql: str) -> str:
        rows = self._cursor.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()  # drained
        return str(rows[0][0]) if rows else '{"error": true}'


def _view_of(resolver: Resolver | None) -> Callable[[Reference], Any] | None:
    """What DuckDB scans for an external reference: its pinned (or time-travelled) version."""
    if resolver is None:
        return None

    def view(ref: Reference) -> Any:
        return resolver(ref.catalog, ref.db, ref.relation, time_travel(ref.node))

    return view
