"""grammar/lexer.py as every reader of statement text uses it: one rule for ``--``, tokens under
each sql_mode, literal values, and the readers built on it (the parser's leading words, SET's
items, redaction) agreeing with it."""

from __future__ import annotations

import re

import pytest

from drydock.grammar import lexer
from drydock.grammar.owned_prefixes import leading_words
from drydock.grammar import sql as sql_grammar
from drydock.grammar.redact import redact_sql

_NBE = lexer.TextMode(backslash_escapes=False)
_ANSI = lexer.TextMode(ansi_quotes=True)


@pytest.mark.parametrize("follower", [" ", "\t", "\r", "\x01", "\x0b", "\x0c", "\x1f", "\x7f"])
def test_dashes_then_a_space_or_control_character_start_a_comment(follower: str) -> None:
    sql = f"SELECT 1 --{follower}; SELECT 'x'\nFROM t; SELECT 2"
    assert lexer.split_statements(sql) == [
        f"SELECT 1 --{follower}; SELECT 'x'\nFROM t;",
        " SELECT 2",
    ]
    assert lexer.comment_end(sql, 9) is not None
    assert lexer.after_comments(f"--{follower}x\nSELECT") == len(f"--{follower}x\n")


def test_dashes_at_the_end_of_a_line_or_the_text_start_a_comment() -> None:
    assert lexer.split_statements("SELECT 1 --\n; SELECT 2 --") == [
        "SELECT 1 --\n;",
        " SELECT 2 --",
    ]
    assert [t.text for t in lexer.tokenize("1 ---")] == ["1", "-"]  # '-', then '--' at the end


@pytest.mark.parametrize("follower", ["x", "(", "1", "\u3000", "\u00a0"])
def test_dashes_before_anything_else_are_minus_signs(follower: str) -> None:
    sql = f"SELECT 1 --{follower}; SELECT 2"
    assert lexer.split_statements(sql) == [f"SELECT 1 --{follower};", " SELECT 2"]
    assert lexer.comment_end(sql, 9) is None
    assert [t.text for t in lexer.tokenize(f"1 --{follower}")][:3] == ["1", "-", "-"]


def test_every_reader_takes_the_same_dash_rule() -> None:
    # the parser's leading words, the shape scanners' pattern and redaction read "--\x0b" as a
    # comment and "--x" as minus signs, as the splitter does
    assert leading_words("--\x0bx\nKILL 5", 2) == ("KILL",)
    assert leading_words("--x\nKILL 5", 1) == ()
    assert re.fullmatch(lexer.LINE_COMMENT, "--\x0b x") is not None
    assert re.fullmatch(lexer.LINE_COMMENT, "--x") is None
    assert redact_sql("SET PASSWORD --\x0b'\n= 'abc'") == "SET PASSWORD --\x0b'\n= '***'"


def test_tokens_under_each_mode() -> None:
    sql = "SELECT 'a\\'b', \"c\", `d``e`"
    default = lexer.tokenize(sql)
    assert [(t.kind, t.value) for t in default[1:] if t.kind != "op"] == [
        ("string", "a'b"),
        ("string", "c"),
        ("quoted", "d`e"),
    ]
    ansi = lexer.tokenize(sql, _ANSI)
    assert [t.kind for t in ansi if t.kind != "op"] == ["word", "string", "quoted", "quoted"]
    with pytest.raises(lexer.Untokenizable):  # 'a\' ends the literal; b', … is left open
        lexer.tokenize(sql, _NBE)
    assert lexer.tokenize("SELECT 'a\\'", _NBE)[1].value == "a\\"


def test_literal_values() -> None:
    assert lexer.unquote("'a''b\\n\\%'") == "a'b\n\\%"
    assert lexer.unquote("N'x\\\\'") == "x\\"
    assert lexer.unquote("'a\\\\b'", escapes=False) == "a\\\\b"
    assert lexer.unquote("`a``b`", escapes=False) == "a`b"


def test_executable_comments_are_code_and_others_are_not() -> None:
    assert [t.text for t in lexer.tokenize("SELECT 1 /*!50000 , 2 */ /* , 3 */ # , 4")] == [
        "SELECT",
        "1",
        ",",
        "2",
    ]
    with pytest.raises(lexer.Untokenizable):
        lexer.tokenize("SELECT 1 /*/")


def test_set_items_split_outside_quotes_and_comments() -> None:
    items = sql_grammar._top_level_items("a = 'x,''y', b = `c,d` /* , */, e = f(1, 2)")  # noqa: SLF001
    assert items == ["a = 'x,''y'", "b = `c,d` /* , */", "e = f(1, 2)"]
