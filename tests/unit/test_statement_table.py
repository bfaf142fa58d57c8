"""Meta-test: every statement class has a grammar rule that builds it, a handler, and valid
metadata (how it runs, whether it is audited) — adding a statement touches few places."""

from __future__ import annotations

from pathlib import Path

from drydock.engine import ast
from drydock.engine.statements import HANDLERS

ROOT = Path(__file__).resolve().parents[2]


def statement_classes() -> list[type[ast.Statement]]:
    return [c for c in vars(ast).values()
            if isinstance(c, type) and issubclass(c, ast.Statement) and c is not ast.Statement]


def test_every_statement_has_a_handler() -> None:
    missing = [c.__name__ for c in statement_classes() if c not in HANDLERS and
               c not in (ast.Prepare, ast.ExecutePrepared, ast.DeallocatePrepare)]
    assert missing == []


def test_every_statement_is_built_by_a_parser() -> None:
    grammar_source = (ROOT / "grammar" / "parser.py").read_text()
    session_source = (ROOT / "server" / "session.py").read_text()
    for cls in statement_classes():
        name = f"ast.{cls.__name__}"
        built = any(f"{name}{end}" in source for end in ("(", ")") for source in (grammar_source, session_source))
        assert built, f"no parser builds {cls.__name__}"


def test_every_statement_declares_how_it_runs() -> None:
    for cls in statement_classes():
        assert isinstance(cls.inline, bool) and isinstance(cls.audited, bool), cls
        assert cls.pool in ("statements", "maintenance"), cls
        assert not (cls.inline and cls.pool != "statements"), cls


def test_changing_statements_are_audited_and_reads_are_not() -> None:
    for cls in (ast.CreateUser, ast.GrantPrivileges, ast.CreateCatalog, ast.CreateIndex,
                ast.CallProcedure, ast.Kill, ast.SetPassword, ast.AdminSetFrontendConfig):
        assert cls.audited, cls
    for cls in (ast.ShowDiagnostics, ast.ShowTables, ast.ShowLanceIndexJobs, ast.Describe):
        assert not cls.audited, cls
    for cls in (ast.CallProcedure, ast.CreateIndex, ast.DropIndex, ast.Refresh):
        assert cls.pool == "maintenance", cls
