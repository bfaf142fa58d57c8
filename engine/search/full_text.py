"""Full-text predicates as Lance full-text queries (BM25 over an INVERTED index).

- Doris: ``col MATCH_ANY 'a b'`` (any word), ``MATCH_ALL`` (every word), ``MATCH_PHRASE`` (the
  words adjacent and in order; the index must keep positions: ``"support_phrase" = "true"`` when
  it was created, as Doris asks).
- MySQL: ``MATCH (col) AGAINST ('a b')`` is natural-language search (any word, ranked);
  ``IN BOOLEAN MODE`` reads ``+word`` (must), ``-word`` (must not), ``word`` (should) and
  ``"a phrase"`` (optionally with ``+``/``-``). Its value in the select list is the BM25 score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from drydock.engine.errors import Errors

ANY, ALL, PHRASE = "ANY", "ALL", "PHRASE"
NATURAL, BOOLEAN = "NATURAL", "BOOLEAN"
# One term of a boolean-mode search string (the content of the AGAINST literal): an optional
# + or -, then a double-quoted phrase or a word.
_BOOLEAN_TERM = re.compile(r'([+-]?)(?:"([^"]*)"|([^\s"]+))')


@dataclass(frozen=True)
class TextQuery:
    """One full-text search: its column, its words and how they combine."""

    column: str
    text: str
    kind: str  # ANY | ALL | PHRASE (Doris) or NATURAL | BOOLEAN (MySQL's modes)

    @property
    def needs_positions(self) -> bool:
        return self.kind == PHRASE or (self.kind == BOOLEAN and '"' in self.text)

    def lance_query(self) -> Any:
        """The query object pylance's scanner takes as ``full_text_query``."""
        from lance import query as lq

        if self.kind == ALL:
            return lq.MatchQuery(self.text, self.column, operator=lq.FullTextOperator.AND)
        if self.kind == PHRASE:
            return lq.PhraseQuery(self.text, self.column)
        if self.kind == BOOLEAN:
            return _boolean(self.text, self.column)
        return lq.MatchQuery(self.text, self.column)

    def shown(self) -> str:
        return f"{self.kind} '{self.text}' on `{self.column}`"


def _boolean(text: str, column: str) -> Any:
    from lance import query as lq

    clauses: list[tuple[Any, Any]] = []
    for sign, phrase, word in _BOOLEAN_TERM.findall(text):
        occur = {"+": lq.Occur.MUST, "-": lq.Occur.MUST_NOT}.get(sign, lq.Occur.SHOULD)
        if phrase:
            clauses.append((occur, lq.PhraseQuery(phrase, column)))
        else:
            term = word.rstrip("*")  # MySQL's prefix marker: the stemmed word is matched instead
            if not term or not any(c.isalnum() for c in term):
                raise Errors.SEARCH_ARGUMENT.error(
                    where="AGAINST",
                    detail=f"'{word}' is not a word (boolean mode reads +word, -word, word and "
                    '"a phrase")',
                )
            clauses.append((occur, lq.MatchQuery(term, column)))
    if not clauses:
        raise Errors.SEARCH_ARGUMENT.error(where="AGAINST", detail="the search string has no words")
    if all(occur == lq.Occur.MUST_NOT for occur, _ in clauses):
        # MySQL: a search that only excludes matches nothing
        clauses.append((lq.Occur.MUST, lq.MatchQuery("", column)))
    return lq.BooleanQuery(clauses)
