"""engine/support/names.py: the one identifier check for index, tag and branch names; privilege
targets."""

from __future__ import annotations

import pytest

from drydock.engine import ast
from drydock.engine.support.names import name_problem, shown
from drydock.engine.security.privileges import ANY, GrantScope, real_name, stored_name
from drydock.engine.session import SessionContext
from drydock.engine.statements.users import grant_scope_of
from drydock.grammar.parser import parse


@pytest.mark.parametrize(
    "name", ["i", "idx_1", "a" * 64, "v1.0", "with space", "日本語", "*", "a.b"]
)
def test_valid_names(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(
    "name,problem",
    [
        ("", "must not be empty"),
        ("a" * 65, "is too long (at most 64 characters)"),
        (".", "must not be '.' or '..'"),
        ("..", "must not be '.' or '..'"),
        ("a/b", "must not contain '/' or '\\'"),
        ("../x", "must not contain '/' or '\\'"),
        ("a\\b", "must not contain '/' or '\\'"),
        ("a\x00b", "must not contain NUL or other control characters"),
        ("a\nb", "must not contain NUL or other control characters"),
        ("a\x7f", "must not contain NUL or other control characters"),
        ("trailing ", "must not end with a space"),
    ],
)
def test_invalid_names(name: str, problem: str) -> None:
    assert name_problem(name) == problem


def test_shown_escapes_control_characters_and_cuts_long_names() -> None:
    assert shown("a\x00b") == "'a\\x00b'"
    assert shown("x" * 100) == "'" + "x" * 64 + "…'"


def _target(sql_target: str) -> GrantScope:
    stmt = parse(f"GRANT SELECT ON {sql_target} TO 'bob'@'%'")
    assert isinstance(stmt, ast.GrantPrivileges)
    return grant_scope_of(
        stmt.target, SessionContext(user="root", host="127.0.0.1", connection_id=1)
    )


def test_a_backticked_star_is_a_table_name_and_a_bare_star_the_wildcard() -> None:
    named, wildcard = _target("db.`*`"), _target("db.*")
    assert wildcard == GrantScope("internal", "db", ANY)
    assert named != wildcard and named.level == "table"
    assert named.covers("internal", "db", "*") and not named.covers("internal", "db", "t")
    assert wildcard.covers("internal", "db", "t")
    assert str(named) == "internal.db.`*`"


def test_stored_names_are_injective_and_never_the_wildcard() -> None:
    for name in ("*", "\\*", "\\\\*", "t", "\\"):
        assert stored_name(name) != ANY and real_name(stored_name(name)) == name
    assert real_name(ANY) is None
