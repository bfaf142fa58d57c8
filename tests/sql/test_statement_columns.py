"""A statement whose registration declares its result columns (engine/statements/registry.py)
answers with exactly those, run on an engine as root."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.session import SessionContext
from drydock.engine.statements import HANDLERS, execute
from drydock.server.session import parse

# One text per class with declared columns; the meta-test below fails when a class is missing.
TEXTS = {
    ast.ShowEngines: "SHOW ENGINES",
    ast.ShowPlugins: "SHOW PLUGINS",
    ast.ShowProcesslist: "SHOW PROCESSLIST",
    ast.ShowTableStatus: "SHOW TABLE STATUS FROM d",
    ast.ShowRoutineStatus: "SHOW PROCEDURE STATUS",
    ast.AdminShowFrontendConfig: "ADMIN SHOW FRONTEND CONFIG",
    ast.ShowAudit: "SHOW AUDIT",
    ast.ShowBackends: "SHOW BACKENDS",
    ast.ShowFrontends: "SHOW FRONTENDS",
    ast.ShowCatalogs: "SHOW CATALOGS",
    ast.Describe: "DESCRIBE d.t",
    ast.ShowGrants: "SHOW GRANTS",
    ast.ShowCreateDatabase: "SHOW CREATE DATABASE d",
    ast.ShowTriggers: "SHOW TRIGGERS FROM d",
}
DECLARED = {cls: r.columns for cls, r in HANDLERS.items() if r.columns is not None}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], list[str]]]:
    engine = Engine(Path(tmp_path_factory.mktemp("columns")) / "data")
    ctx = SessionContext(
        user="root", host="127.0.0.1", connection_id=1, query=engine.query_session()
    )
    for sql in ("CREATE DATABASE d", "CREATE TABLE d.t (a INT)"):
        execute(engine, parse(sql), ctx, sql)

    def run_one(sql: str) -> list[str]:
        return execute(engine, parse(sql), ctx, sql).columns

    yield run_one
    engine.close()


def test_every_declaration_has_a_text() -> None:
    assert set(DECLARED) == set(TEXTS)


@pytest.mark.parametrize("cls", sorted(TEXTS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_the_declared_columns_are_the_result_columns(
    run: Callable[[str], list[str]], cls: type[ast.Statement]
) -> None:
    text = TEXTS[cls]
    assert type(parse(text)) is cls
    assert tuple(run(text)) == DECLARED[cls]
