"""The data dictionary's hooks in a statement's run (engine/sql/query.py): MySQL's rules enforced
on INSERT / UPDATE / DELETE of an internal table with a definition (engine/sql/enforcement.py),
DROP TABLE of a referenced parent refused (3730), ALTER TABLE carried out on the definition
(engine/sql/mysql_alter.py), and DDL that changes a definition in the DDL's own transaction
(``change_definition``: CREATE/DROP INDEX, RENAME TABLE).

:class:`DictionaryHooks` is a part of QuerySession, which sets the state it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from drydock.engine.dictionary import changes
from drydock.engine.dictionary.model import ForeignKeyDef, TableDef
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.results import Diagnostic, OkInfo, Result
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql import (
    auto_increment_spend,
    enforce_checks,
    enforce_foreign_keys,
    enforce_values,
    enforcement,
    mysql_alter,
    mysql_ddl,
    mysql_dml,
)
from drydock.engine.sql.duckdb_errors import first_line
from drydock.engine.sql.execution import StatementExecution
from drydock.engine.sql.savepoints import WriteClock, sequence_state, set_sequence
from drydock.engine.sql.session_variables import MYSQL_DEFAULT_SQL_MODE
from drydock.engine.sql.table_traits import Traits
from drydock.engine.sql.verdict_cache import verify
from drydock.grammar.sql import DrydockMySQL


class DictionaryHooks(StatementExecution):
    """The dictionary's part of QuerySession (engine/sql/query.py), which sets these."""

    _writes: WriteClock
    _begun_at: int
    # the INSERT running, its AUTO_INCREMENT column and that sequence's state before it
    _refusable: tuple[exp.Insert, mysql_dml.AutoIncrement, tuple[Any, Any]] | None = None

    def _serialize(self, sql: str) -> str:
        raise NotImplementedError  # QuerySession's

    def _alter(self, alter: exp.Alter, table: exp.Table, ctx: SessionContext) -> Result | None:
        """An ALTER TABLE carried out on the table's definition, all in one transaction (the
        session's, or one of its own); None for a table without a definition."""
        outcomes: list[mysql_alter.Outcome | None] = []

        def work() -> None:
            with self.duckdb_errors(alter, ctx):
                outcomes.append(mysql_alter.run(self._cursor, alter, table))

        self._atomically(work)  # None: it read the dictionary only, and changed nothing
        outcome = outcomes[0]
        if outcome is None:
            return None
        self._traits.changed()  # engine/sql/table_traits.py
        info = OkInfo(records=outcome.records) if outcome.info else None
        return Result.ok(affected_rows=outcome.records, info=info)

    def _drop_tables(self, drop: exp.Drop, ctx: SessionContext) -> Result | None:
        """``DROP TABLE a, b, …`` of internal tables (DuckDB drops one object a statement), as
        MySQL: all or nothing — missing tables are error 1051 naming them all (nothing dropped),
        or with IF EXISTS a Note 1051 each while the others go — in one transaction, each
        table's AUTO_INCREMENT sequence and dictionary row with it. None for one table."""
        tables = drop.args.get("tables") or []
        if str(drop.args.get("kind") or "").upper() != "TABLE" or len(tables) < 2:
            return None
        if not all(
            isinstance(t, exp.Table) and t.text("catalog").lower() == INTERNAL for t in tables
        ):
            return None
        self._refuse_dropping_a_parent(drop, ctx)
        missing = [t for t in tables if not self.table_exists(t.text("db"), t.name)]
        gone = {id(t) for t in missing}
        names = [f"{t.text('db')}.{t.name}" for t in missing]
        if missing and not drop.args.get("exists"):
            raise Errors.BAD_TABLE.error(table=",".join(names))
        present = [t for t in tables if id(t) not in gone]

        def work() -> None:
            with self.duckdb_errors(drop, ctx):
                for table in present:
                    one = exp.Drop(
                        tables=[table.copy()], kind="TABLE", cascade=drop.args.get("cascade")
                    )
                    sequences = mysql_ddl.sequences_of(self._cursor, one)  # read before it goes
                    for statement in [
                        one.sql(dialect="duckdb"),
                        *sequences,
                        *mysql_ddl.definitions_dropped(one),
                    ]:
                        self._cursor.execute(statement)

        self._atomically(work)
        self._traits.changed()  # engine/sql/table_traits.py
        self._ddl_in_transaction = self._ddl_in_transaction or self.transaction.open
        return Result.ok(warnings=[Errors.BAD_TABLE.note(table=name) for name in names])

    def _create_like(self, create: exp.Expr, ctx: SessionContext) -> None:
        """CREATE TABLE t2 LIKE t1 of an internal table with a definition becomes the CREATE TABLE
        that definition declares under t2's name (engine/dictionary/changes.py), in place, before
        adapt(): DuckDB then holds t2's keys, checks, defaults and AUTO_INCREMENT as t1's, and
        the dictionary its definition, as MySQL copies them (no foreign keys)."""
        if not isinstance(create, exp.Create) or str(create.args.get("kind")).upper() != "TABLE":
            return
        like = create.find(exp.LikeProperty)
        target = create.this
        if not isinstance(like, exp.LikeProperty) or not isinstance(target, exp.Table):
            return
        source = like.this
        if ctx.catalog.lower() != INTERNAL or not isinstance(source, exp.Table):
            return
        if source.text("catalog") and source.text("catalog").lower() != INTERNAL:
            return
        db = source.text("db") or ctx.database or "main"
        definition = self._declared_traits(exp.table_(source.name, db=db)).definition
        schema = target.text("db") or ctx.database or "main"
        text = changes.like_create_sql(definition, schema, target.name) if definition else None
        if text is None:
            return  # no definition: DuckDB's types, as before
        declared = sqlglot.parse_one(text, read=DrydockMySQL)
        body = declared.this
        if not isinstance(declared, exp.Create) or not isinstance(body, exp.Schema):
            return
        create.set("this", exp.Schema(this=target, expressions=body.expressions))
        create.set("properties", declared.args.get("properties"))

    def _table_definition(self, table: exp.Table) -> TableDef | None:
        """The declared definition of an internal table, for its result columns."""
        return self._declared_traits(table).definition

    def _declared_traits(self, table: exp.Table) -> Traits:
        """What the dictionary declares of an internal table (engine/sql/table_traits.py). Inside a
        transaction that ran no DDL the committed definitions kept in the cache hold (a SELECT
        there pays no dictionary read), and what it reads is kept while no definition changed
        since it began (its snapshot is then the committed state); after DDL in it, its own
        are read."""
        open_ = self.transaction.open
        traits = self._traits.get(
            self._cursor,
            table.text("db"),
            table.name,
            cache=not (open_ and self._ddl_in_transaction),
            keep=not open_
            or (not self._ddl_in_transaction and self._begun_at == self._traits.generation),
        )
        return traits

    def _enforce(
        self, expression: exp.Expr, ctx: SessionContext, authorized: set[tuple[str, str]]
    ) -> list[Diagnostic]:
        """MySQL's strict-mode rules and foreign keys on an INSERT, UPDATE or DELETE of an
        internal table with a dictionary definition (engine/sql/enforcement.py): its warnings,
        or MySQL's error."""
        if isinstance(expression, exp.Drop):
            self._refuse_dropping_a_parent(expression, ctx)
            return []
        if isinstance(expression, exp.Insert):
            table = mysql_dml.target_table(expression)
        elif isinstance(expression, (exp.Update, exp.Delete)) and isinstance(
            expression.this, exp.Table
        ):
            table = expression.this
        else:
            return []
        if table is None or table.text("catalog").lower() != INTERNAL:
            return []
        traits = self._declared_traits(table)
        definition = traits.definition
        if definition is None:
            return []
        # the checks run parts of the statement (its subqueries, WHERE, SET values) in queries
        # of their own: DuckDB's parse of those parts is verified first, as the statement's is
        verify(expression, "", authorized, self._serialize)
        strict = enforce_values.strict(_session_variable(ctx, "sql_mode", MYSQL_DEFAULT_SQL_MODE))
        fk_checks = bool(_session_variable(ctx, "foreign_key_checks", True))
        if definition.checks:  # DuckDB's own CHECK error named as MySQL names it
            expression.meta["checks"] = enforce_checks.names(definition)
        with self.duckdb_errors(expression, ctx):
            if isinstance(expression, exp.Insert):
                if "replace" in expression.meta and fk_checks and traits.referenced_by:
                    expression.meta["replace_deleting"] = self._parent_delete(traits)
                return enforcement.enforce_insert(
                    expression, definition, self._cursor, strict, fk_checks
                )
            referencing = traits.referenced_by if fk_checks else ()
            if isinstance(expression, exp.Delete):
                enforcement.enforce_delete(expression, self._cursor, referencing, self._children_of)
                return []
            return enforcement.enforce_update(
                expression, definition, self._cursor, strict, fk_checks, referencing
            )

    def _parent_delete(self, traits: Traits) -> Callable[[str, Any], list[str]]:
        """What a REPLACE runs before deleting old rows of a table foreign keys reference: the
        children's actions, or 1451 (engine/sql/replace_rows.py)."""
        referencing = traits.referenced_by

        def before(condition: str, cursor: Any) -> list[str]:
            return enforce_foreign_keys.parent_delete(
                None, referencing, condition, cursor, self._children_of
            )

        return before

    def _note_insert(self, insert: exp.Expr, key: mysql_dml.AutoIncrement | None) -> None:
        """Before an INSERT into a table with an AUTO_INCREMENT column runs: its sequence as it
        is, for :meth:`_spend_after_refusal`."""
        self._refusable = None
        if key is not None and isinstance(insert, exp.Insert):
            self._refusable = (insert, key, sequence_state(self._cursor.raw, key.sequence))

    def _spend_after_refusal(self, exc: BaseException) -> None:
        """A refused INSERT spends the AUTO_INCREMENT values InnoDB would have reserved
        (engine/sql/auto_increment_spend.py), whichever side refused it: its sequence moves to
        where it was plus those values (never back: what DuckDB drew stays drawn)."""
        refusable, self._refusable = self._refusable, None
        if refusable is None or not isinstance(exc, DrydockError):
            return
        insert, key, before = refusable
        try:
            if self.transaction.open:  # an aborted transaction that could not be rebuilt
                self._cursor.raw.execute("SELECT 1").fetchall()
            count = auto_increment_spend.spent(insert, key, exc, self._cursor.raw)
            if count <= 0:
                return
            last = int(before[0]) if before[0] is not None else int(before[1]) - 1
            now = sequence_state(self._cursor.raw, key.sequence)
            if now[0] is None or int(now[0]) < last + count:
                set_sequence(self._cursor.raw, key.sequence, (last + count, before[1]))
        except duckdb.Error:
            pass  # the table or its transaction is gone: nothing to spend

    def _refuse_dropping_a_parent(self, drop: exp.Drop, ctx: SessionContext) -> None:
        """MySQL 3730: DROP TABLE of a table another table's foreign key references (unless that
        table goes in the same statement, or FOREIGN_KEY_CHECKS = 0)."""
        if str(drop.args.get("kind") or "").upper() != "TABLE":
            return
        if not _session_variable(ctx, "foreign_key_checks", True):
            return
        tables = [
            t
            for t in drop.args.get("tables") or [drop.this]
            if isinstance(t, exp.Table) and t.text("catalog").lower() == INTERNAL
        ]
        going = {(t.text("db").lower(), t.name.lower()) for t in tables}
        for table in tables:
            for child, key in self._declared_traits(table).referenced_by:
                if (child.schema.lower(), child.name.lower()) not in going:
                    raise Errors.FK_REFERENCED_TABLE_DROP.error(
                        table=table.name, name=key.name, child=child.name
                    )

    def _children_of(self, table: TableDef) -> tuple[tuple[TableDef, ForeignKeyDef], ...]:
        return self._traits.get(
            self._cursor, table.schema, table.name, cache=not self.transaction.open
        ).referenced_by

    def _table_traits(self, table: exp.Table) -> Traits:
        return self._traits.get(
            self._cursor, table.text("db"), table.name, cache=not self.transaction.open
        )

    def change_definition(self, build: Callable[[Any], list[str]]) -> None:
        """DDL that changes an internal table's definition in the data dictionary (CREATE/DROP
        INDEX, RENAME TABLE: engine/statements/internal_index.py): ``build`` reads what it needs
        on the session's cursor inside the transaction and returns the statements (DuckDB's own
        DDL and the store's, engine/dictionary/store.py) that run in it, all or nothing."""
        self.transaction.check_usable()
        own = not self.transaction.open
        ddl = exp.Alter()  # logged for a replay as DDL, which clears savepoints (transactions.py)
        self.transaction.statement_started(self._schema, ddl)
        try:
            with self._writes.committing() if own else nullcontext():
                self._atomically(lambda: self._execute_all(build(self._cursor)))
        except BaseException as exc:
            self.transaction.statement_failed()
            if isinstance(exc, duckdb.Error):
                raise Errors.QUERY_FAILED.error(detail=first_line(exc)) from None
            raise
        finally:
            self._traits.changed()
        self.transaction.statement_succeeded(ddl)

    def _execute_all(self, statements: list[str]) -> None:
        for statement in statements:
            self._cursor.execute(statement)


def _session_variable(ctx: SessionContext, name: str, default: Any) -> Any:
    try:
        value = ctx.variables.get(name) if ctx.variables is not None else None
    except Exception:  # noqa: BLE001 - a variables object without it: MySQL's default
        return default
    return default if value is None else value
