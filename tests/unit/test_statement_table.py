"""Meta-test: the places of a statement. Every statement class of engine/ast.py is built by grammar
rules of drydock.lark (through the transformer method of the rule's name) and run by exactly one
handler registered on it (engine/statements/registry.py), unless the server session runs it; every
statement rule of the grammar builds a class. Also what a class declares: how it runs, whether it
is audited, and what its audit record names."""

from __future__ import annotations

import inspect
import typing

import pytest

from drydock.engine import ast
from drydock.engine.session import SessionContext
from drydock.engine.statements import HANDLERS
from drydock.engine.statements.audit_object import audit_object
from drydock.engine.statements.registry import handles
from drydock.grammar import parser
from drydock.grammar.lark_parser import PARSER
from drydock.grammar.to_statement import ToStatement
from drydock.grammar.owned_prefixes import owns, statement_rules
from drydock.server import session
from tests.grammar.test_grammar_roundtrip import CORPUS

RULES = statement_rules(PARSER)


def statement_classes() -> set[type[ast.Statement]]:
    return {
        c
        for _, c in inspect.getmembers(ast, inspect.isclass)
        if issubclass(c, ast.Statement) and c is not ast.Statement and c.__module__ == ast.__name__
    }


def built_by(rule: str) -> type[ast.Statement]:
    """The class the transformer method named after ``rule`` returns (its annotation)."""
    method = getattr(ToStatement, rule)
    built = typing.get_type_hints(method)["return"]
    assert isinstance(built, type) and issubclass(built, ast.Statement), rule
    return built


def test_every_statement_class_has_exactly_one_place_to_run() -> None:
    for cls in statement_classes():
        if cls.by_session:
            assert cls not in HANDLERS, cls  # the server session runs it (server/sql_prepared.py)
        else:
            assert cls in HANDLERS, f"no @handles({cls.__name__}) in engine/statements"
    assert set(HANDLERS) <= statement_classes()


def test_a_second_handler_for_a_class_is_refused() -> None:
    with pytest.raises(TypeError, match="already has a handler"):
        handles(ast.ShowEngines)(lambda engine, statement, ctx: None)
    with pytest.raises(TypeError, match="server session"):
        handles(ast.Prepare)
    assert HANDLERS[ast.ShowEngines].handler.__name__ == "show_engines"


def test_every_statement_rule_builds_a_class_and_every_class_has_a_rule() -> None:
    built = {rule: built_by(rule) for rule in RULES}
    # SqlStatement is the passthrough's: grammar/sql.py parses what the grammar does not own.
    assert statement_classes() - set(built.values()) == {ast.SqlStatement}
    assert isinstance(session.parse("SELECT 1"), ast.SqlStatement)
    for text in CORPUS:  # what each rule really builds is what its method declares
        if not owns(text):
            continue
        rule = PARSER.parse(text).children[0].data
        assert type(parser.parse(text)) is built[rule], text


def test_every_statement_declares_how_it_runs() -> None:
    for cls in statement_classes():
        assert isinstance(cls.inline, bool) and isinstance(cls.audited, bool), cls
        assert cls.pool in ("statements", "maintenance"), cls
        assert not (cls.inline and cls.pool != "statements"), cls
        assert not (cls.by_session and (cls.inline or cls.audited)), cls


def test_changing_statements_are_audited_and_reads_are_not() -> None:
    for cls in (
        ast.CreateUser,
        ast.GrantPrivileges,
        ast.CreateCatalog,
        ast.CreateIndex,
        ast.CallProcedure,
        ast.Kill,
        ast.SetPassword,
        ast.AdminSetFrontendConfig,
    ):
        assert cls.audited, cls
    for cls in (ast.ShowDiagnostics, ast.ShowTables, ast.ShowLanceIndexJobs, ast.Describe):
        assert not cls.audited, cls
    for cls in (ast.CallProcedure, ast.CreateIndex, ast.DropIndex, ast.Refresh):
        assert cls.pool == "maintenance", cls
    for cls in (ast.Prepare, ast.ExecutePrepared, ast.DeallocatePrepare):
        assert cls.by_session, cls


AUDIT_OBJECTS = [
    ("CREATE INDEX i ON t (a) USING ann", "ctl.db.t"),
    ("CREATE INDEX i ON d.t (a) USING ann", "ctl.d.t"),
    ("DROP INDEX i ON c.d.t", "c.d.t"),
    ("CALL sys.compact(table => 'd.t')", "ctl.d.t"),
    ("CALL c.sys.compact('d.t')", "c.d.t"),
    ("CALL sys.expire_snapshots(older_than => '2024-01-01')", "ctl"),
    ("CREATE USER 'u'@'h' IDENTIFIED BY 'p'", "'u'@'h'"),
    ("DROP USER 'u'", "'u'@'%'"),
    ("ALTER USER 'u'@'h' IDENTIFIED BY 'p'", "'u'@'h'"),
    ("CREATE CATALOG c PROPERTIES ('type' = 'lance')", "c"),
    ("DROP CATALOG c", "c"),
    ("ALTER CATALOG c RENAME d", "c"),
    ("ALTER CATALOG c SET PROPERTIES ('k' = 'v')", "c"),
    ("RESOLVE LANCE INDEX JOB 7 AS FORCE_RELEASE COMMENT 'x'", "job 7"),
    ("CANCEL LANCE INDEX JOB 8", "job 8"),
    ("USE d", "ctl.d"),
    ("SHOW TABLES", ""),
    ("KILL 3", ""),
    ("INSERT INTO d.t VALUES (1)", "ctl.d.t"),
]


@pytest.mark.parametrize("text,expected", AUDIT_OBJECTS)
def test_the_audit_names_what_the_statement_acts_on(text: str, expected: str) -> None:
    ctx = SessionContext(user="u", host="h", connection_id=1, catalog="ctl", database="db")
    assert audit_object(session.parse(text), ctx) == expected
