"""The grammar: which statements it owns, what they parse to, and ANTLR-style 1064 texts."""

from __future__ import annotations

import pytest

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.grammar.lexer import unquote
from drydock.grammar.owned_prefixes import leading_words, owns
from drydock.grammar.parser import parse

PARSES = [
    ('ADMIN SET FRONTEND CONFIG ("a" = "b")', ast.AdminSetFrontendConfig((("a", "b"),))),
    (
        "admin set frontend config ('a'='1', \"b\" = 2);",
        ast.AdminSetFrontendConfig((("a", "1"), ("b", "2"))),
    ),
    ("ADMIN SET FRONTEND CONFIG ('flag' = true)", ast.AdminSetFrontendConfig((("flag", "true"),))),
    ("ADMIN SHOW FRONTEND CONFIG", ast.AdminShowFrontendConfig()),
    ("Admin Show Frontend Config Like 'lance%'", ast.AdminShowFrontendConfig(like="lance%")),
    ("/* lead */ ADMIN SHOW FRONTEND CONFIG -- tail\n", ast.AdminShowFrontendConfig()),
    ("# hash comment\nADMIN SHOW FRONTEND CONFIG", ast.AdminShowFrontendConfig()),
    ("SHOW WARNINGS", ast.ShowDiagnostics(errors_only=False)),
    ("show warnings limit 3", ast.ShowDiagnostics(errors_only=False, offset=0, limit=3)),
    ("SHOW WARNINGS LIMIT 1, 2", ast.ShowDiagnostics(errors_only=False, offset=1, limit=2)),
    ("SHOW ERRORS", ast.ShowDiagnostics(errors_only=True)),
    ("SHOW COUNT(*) WARNINGS", ast.ShowDiagnostics(errors_only=False, count_only=True)),
    ("show count ( * ) errors", ast.ShowDiagnostics(errors_only=True, count_only=True)),
    ("KILL 7", ast.Kill(7)),
    ("kill connection 7", ast.Kill(7)),
    ("KILL QUERY 7;", ast.Kill(7, query_only=True)),
]


@pytest.mark.parametrize("sql,expected", PARSES)
def test_statement_parses_to_its_object(sql: str, expected: ast.Statement) -> None:
    assert parse(sql) == expected


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "SET NAMES utf8",
        "INSERT INTO t VALUES (1)",
        "SHOW VARIABLES LIKE 'x'",
        "show create view v",
        "administer",
        "DESCRIBE SELECT 1",
    ],
)
def test_passthrough_statements_are_not_owned(sql: str) -> None:
    assert not owns(sql)
    assert parse(sql) is None


ERRORS = [
    (
        "ADMIN SHOW FRONTEND CONFIG LIK 'x'",
        "line 1:27 mismatched input 'LIK' expecting {';', <EOF>, LIKE}",
    ),
    ("admin show frontend confog", "line 1:20 mismatched input 'confog' expecting CONFIG"),
    ('ADMIN SET FRONTEND CONFIG "k" = "v"', "line 1:26 mismatched input '\"k\"' expecting '('"),
    ("ADMIN SET FRONTEND CONFIG", "line 1:25 mismatched input '<EOF>' expecting '('"),
    ('ADMIN SET FRONTEND CONFIG ("a" "b")', "line 1:31 mismatched input '\"b\"' expecting '='"),
    ("KILL abc", "line 1:5 mismatched input 'abc' expecting {CONNECTION, INT, QUERY}"),
    ("SHOW WARNINGS\n  LIMIT x", "line 2:8 mismatched input 'x' expecting INT"),
    ("SHOW WARNINGS extra", "line 1:14 mismatched input 'extra' expecting {';', <EOF>, LIMIT}"),
    ("ADMIN SHOW FRONTEND CONFIG !", "line 1:27 token recognition error at: '!'"),
]


@pytest.mark.parametrize("sql,message", ERRORS)
def test_syntax_errors_are_1064_with_antlr_text(sql: str, message: str) -> None:
    with pytest.raises(DrydockError) as info:
        parse(sql)
    assert info.value.code == 1064
    assert info.value.sqlstate == "42000"
    assert info.value.message == message
    assert "\x1b" not in info.value.message  # no ANSI escapes


def test_string_literals_unescape_like_mysql() -> None:
    assert unquote("'it''s'") == "it's"
    assert unquote(r"'a\'b\\c\n'") == "a'b\\c\n"
    assert unquote('"say ""hi"""') == 'say "hi"'


def test_leading_words_skip_comments_and_whitespace() -> None:
    assert leading_words("  /* x */ -- y\n show  Warnings limit 1") == ("SHOW", "WARNINGS", "LIMIT")
