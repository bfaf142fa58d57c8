"""grammar/lexer.py: the end of a statement's text (trailing whitespace, ';' and comments cut)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar import lexer

_PIECES = st.sampled_from(["SELECT", " ", "  ", "\t", "\n", "\u3000", ";", "'", '"', "`", "--", "-- ", "#", "/*",
                           "*/", "/*+", "a", "1", "(", ")", ",", "=", "x'", "\\", "é"])


@settings(max_examples=3000, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(text=st.lists(_PIECES, max_size=12).map("".join))
def test_the_quick_trailing_end_agrees_with_the_scan(text: str) -> None:
    assert lexer._trailing_end(text) == lexer._scanned_trailing_end(text)  # noqa: SLF001


def test_trailing_noise_is_cut_and_the_rest_kept() -> None:
    assert lexer.statement_text("  SELECT 1  ") == "SELECT 1"
    assert lexer.statement_text("SELECT 1; -- done\n") == "SELECT 1"
    assert lexer.statement_text("SELECT 'a   ") == "SELECT 'a   "  # an open quote keeps its spaces
    assert lexer.statement_text("SELECT `a ` ") == "SELECT `a `"
