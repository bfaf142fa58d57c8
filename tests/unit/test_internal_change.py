"""Which statements change the internal catalog (engine/statements/sql.py internal_change): the
ones a store several frontends share refuses (engine/statements/shared_store.py, 5300)."""

from __future__ import annotations

import pytest

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.session import SessionContext
from drydock.engine.statements import shared_store
from drydock.engine.statements.sql import internal_change
from drydock.server.session import parse


def _ctx(database: str | None = "d", catalog: str = "internal") -> SessionContext:
    return SessionContext(
        user="root", host="127.0.0.1", connection_id=1, database=database, catalog=catalog
    )


@pytest.mark.parametrize(
    ("sql", "change"),
    [
        ("CREATE DATABASE x", "CREATE DATABASE x"),
        ("DROP SCHEMA IF EXISTS x", "DROP SCHEMA x"),
        ("CREATE TABLE t (a INT)", "CREATE TABLE d.t"),
        ("CREATE TABLE x.t AS SELECT 1", "CREATE TABLE x.t"),
        ("CREATE TABLE internal.x.t (a INT)", "CREATE TABLE x.t"),
        ("CREATE VIEW v AS SELECT 1", "CREATE VIEW d.v"),
        ("DROP TABLE IF EXISTS x.t, x.u", "DROP TABLE x.t"),
        ("ALTER TABLE t ADD COLUMN b INT", "ALTER TABLE d.t"),
        ("TRUNCATE TABLE t", "TRUNCATE TABLE d.t"),
        ("INSERT INTO t VALUES (1)", "INSERT INTO d.t"),
        ("INSERT INTO t SELECT * FROM lc.db.src", "INSERT INTO d.t"),
        ("REPLACE INTO t VALUES (1)", "INSERT INTO d.t"),
        ("UPDATE t SET a = 1", "UPDATE d.t"),
        ("DELETE FROM t WHERE a = 1", "DELETE FROM d.t"),
        # nothing internal is made or changed
        ("SELECT 1", ""),
        ("SELECT * FROM t", ""),
        ("SELECT * FROM information_schema.TABLES", ""),
        ("SELECT * FROM lc.db.items", ""),
        ("CREATE TEMPORARY TABLE t (a INT)", ""),  # one session's, whatever the store
        ("INSERT INTO lc.db.items VALUES (1)", ""),  # a catalog table: 1036 READ_ONLY_CATALOG
    ],
)
def test_internal_changes_are_named(sql: str, change: str) -> None:
    assert internal_change(parse(sql).expression, _ctx()) == change


def test_the_session_catalog_decides_an_unqualified_name() -> None:
    create = parse("CREATE TABLE t (a INT)").expression
    assert internal_change(create, _ctx(catalog="lc")) == ""
    assert internal_change(create, _ctx(database="information_schema")) == (
        "CREATE TABLE information_schema.t"
    )


class _Store:
    def __init__(self, shared: bool) -> None:
        self.shared = shared


def test_only_a_shared_store_refuses() -> None:
    shared_store.refuse_internal_change(_Store(False), "CREATE TABLE d.t")  # type: ignore[arg-type]
    shared_store.refuse_internal_change(_Store(True), "")  # type: ignore[arg-type]
    with pytest.raises(DrydockError) as info:
        shared_store.refuse_internal_change(_Store(True), "CREATE TABLE d.t")  # type: ignore[arg-type]
    assert info.value.code == Errors.INTERNAL_CATALOG_PER_FRONTEND.code == 5300
    assert str(info.value).startswith("CREATE TABLE d.t refused:")
