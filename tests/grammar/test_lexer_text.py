"""grammar/lexer.py: the end of a statement's text (trailing whitespace, ';' and comments cut)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drydock.grammar import lexer

_PIECES = st.sampled_from(
    [
        "SELECT",
        " ",
        "  ",
        "\t",
        "\n",
        "\u3000",
        ";",
        "'",
        '"',
        "`",
        "--",
        "-- ",
        "#",
        "/*",
        "*/",
        "/*+",
        "a",
        "1",
        "(",
        ")",
        ",",
        "=",
        "x'",
        "\\",
        "é",
    ]
)


@settings(
    max_examples=3000,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(text=st.lists(_PIECES, max_size=12).map("".join))
def test_the_quick_trailing_end_agrees_with_the_scan(text: str) -> None:
    assert lexer._trailing_end(text) == lexer._scanned_trailing_end(text)  # noqa: SLF001


def test_trailing_noise_is_cut_and_the_rest_kept() -> None:
    assert lexer.statement_text("  SELECT 1  ") == "SELECT 1"
    assert lexer.statement_text("SELECT 1; -- done\n") == "SELECT 1"
    assert lexer.statement_text("SELECT 'a   ") == "SELECT 'a   "  # an open quote keeps its spaces
    assert lexer.statement_text("SELECT `a ` ") == "SELECT `a `"


_NBE = lexer.TextMode(backslash_escapes=False)
_ANSI = lexer.TextMode(ansi_quotes=True)
_BOTH = lexer.TextMode(backslash_escapes=False, ansi_quotes=True)


def test_the_text_mode_of_a_stored_sql_mode() -> None:
    assert lexer.text_mode("") == lexer.DEFAULT_MODE
    assert lexer.text_mode("STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES") == _NBE
    assert lexer.text_mode("ANSI_QUOTES,NO_ENGINE_SUBSTITUTION") == _ANSI
    assert lexer.text_mode("ANSI_QUOTES,NO_BACKSLASH_ESCAPES") == _BOTH


def test_split_statements_ends_literals_as_the_mode_does() -> None:
    text = "SELECT 'a\\'; SELECT 'b'"
    assert lexer.split_statements(text) == [text]  # \' escapes: one literal
    assert lexer.split_statements(text, _NBE) == ["SELECT 'a\\';", " SELECT 'b'"]
    text = 'SELECT "a\\"; SELECT 2'
    assert lexer.split_statements(text) == [text]
    assert lexer.split_statements(text, _ANSI) == ['SELECT "a\\";', " SELECT 2"]  # an identifier
    assert lexer.split_statements("SELECT 'a\\'; -- '\n", _NBE) == ["SELECT 'a\\';"]


def test_canonical_respells_the_same_tokens_for_the_default_mode() -> None:
    assert lexer.canonical("SELECT 'x\\' UNION", lexer.DEFAULT_MODE) == "SELECT 'x\\' UNION"
    assert (
        lexer.canonical("SELECT 'x\\' UNION SELECT 1 -- '", _NBE)
        == "SELECT 'x\\\\' UNION SELECT 1 -- '"
    )
    assert (
        lexer.canonical("SELECT 'it''s', \"a\\b\", `c\\d`", _NBE)
        == "SELECT 'it''s', \"a\\\\b\", `c\\d`"
    )
    assert (
        lexer.canonical('SELECT "a""b", "c`d", \'e"f\'', _ANSI) == "SELECT `a\"b`, `c``d`, 'e\"f'"
    )
    assert lexer.canonical('SELECT "a\\" FROM t', _BOTH) == "SELECT `a\\` FROM t"
    # comments stay as written; an executable comment's body is SQL
    assert (
        lexer.canonical("SELECT 1 /* 'a\\' */ -- 'b\\'\n", _NBE)
        == "SELECT 1 /* 'a\\' */ -- 'b\\'\n"
    )
    assert lexer.canonical("SELECT /*!50000 'a\\' */", _NBE) == "SELECT /*!50000 'a\\\\' */"
    # unterminated literals stay unterminated
    assert lexer.canonical("SELECT 'a\\", _NBE) == "SELECT 'a\\\\"
    assert lexer.canonical('SELECT "a', _ANSI) == "SELECT `a"


@settings(
    max_examples=2000,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(
    text=st.lists(_PIECES, max_size=14).map("".join),
    mode=st.sampled_from([lexer.DEFAULT_MODE, _NBE, _ANSI, _BOTH]),
)
def test_a_respelt_text_splits_where_its_mode_splits_it(text: str, mode: lexer.TextMode) -> None:
    """Every reader after the respelling uses the default rules: they must find the same
    statements the mode finds in the original."""
    spans = lexer.statement_spans(text, mode)
    respelt = [lexer.canonical(text[a:b], mode) for a, b in spans]
    assert lexer.split_statements(lexer.canonical(text, mode)) == respelt


def test_placeholders_are_found_as_the_mode_reads_literals() -> None:
    text = "SELECT 'a\\', ? -- '"
    assert lexer.placeholder_positions(text) == []  # \' escapes: the ? is inside the literal
    assert lexer.placeholder_positions(text, _NBE) == [13]
    assert lexer.placeholder_positions(lexer.canonical(text, _NBE)) == [14]  # what the server binds
