"""Which leading words make a statement drydock's: derived from the grammar (drydock.lark).

A text is routed to the grammar when its first words match one of these prefixes; everything else
is plain SQL for the passthrough. Each prefix is the start of a statement rule's leading run of
keywords, up to and including its first word that plain SQL does not also use there
(:data:`SHARED_WORDS`): ``ADMIN …`` is drydock's from its first word, ``SHOW CREATE TABLE``
only from its third (``SHOW CREATE VIEW`` is plain SQL). A statement added to the grammar is
routed to it without a list to keep. :func:`owns` is that routing.
"""

from __future__ import annotations

import re

from lark import Lark

from drydock.grammar.lark_parser import PARSER
from drydock.grammar.lexer import after_comments

# Words that begin or continue plain-SQL statements too: a prefix does not stop at them, since
# ``SHOW``, ``CREATE OR`` or ``SHOW FULL`` alone would also claim the passthrough's statements.
SHARED_WORDS = frozenset(
    {
        "SHOW",
        "CREATE",
        "DROP",
        "ALTER",
        "SET",
        "CANCEL",
        "ALL",
        "TABLE",
        "FULL",
        "OR",
        "STORAGE",
        "CHARACTER",
        "FUNCTION",
    }
)

# owns() reads at most this many leading words.
MAX_WORDS = 3

_WORD = re.compile(r"[A-Za-z_]+")


def statement_rules(parser: Lark) -> list[str]:
    """The alternatives of the grammar's ``statement`` rule, in grammar order."""
    return [str(rule.expansion[0].name) for rule in parser.rules if rule.origin.name == "statement"]


def owned_prefixes(parser: Lark) -> tuple[tuple[str, ...], ...]:
    """Every statement rule's routing prefix (upper case), once each, in grammar order."""
    keywords = {
        t.name: str(t.pattern.value).upper()
        for t in parser.terminals
        if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value)
    }
    prefixes: list[tuple[str, ...]] = []
    for name in statement_rules(parser):
        for rule in parser.rules:  # one per expansion: optional parts are expanded by Lark
            if rule.origin.name != name:
                continue
            run: list[str] = []
            for symbol in rule.expansion:
                if not symbol.is_term or symbol.name not in keywords:
                    break  # a name, a value or punctuation: the keywords end here
                run.append(keywords[symbol.name])
                if run[-1] not in SHARED_WORDS or len(run) == MAX_WORDS:
                    break
            prefix = tuple(run)
            if prefix and prefix not in prefixes:
                prefixes.append(prefix)
    return tuple(prefixes)


# DESCRIBE/DESC followed by a query is EXPLAIN, which stays with the passthrough. Whole words only:
# DESC withdrawals or DESC selection.t describes a table, whose name must not decide the statement.
_DESCRIBE_QUERY = re.compile(r"\s*desc(ribe)?\s+((select|with)(?![A-Za-z0-9_$])|\()", re.IGNORECASE)

# Leading words of the statements the grammar owns (owned_prefixes() above); everything else
# is passthrough.
OWNED_PREFIXES: tuple[tuple[str, ...], ...] = owned_prefixes(PARSER)


def leading_words(sql: str, n: int = 3) -> tuple[str, ...]:
    """The first ``n`` words of ``sql`` upper-cased, skipping comments and whitespace."""
    words: list[str] = []
    pos = 0
    while len(words) < n:
        pos = after_comments(sql, pos)
        m = _WORD.match(sql, pos)
        if not m:
            break
        words.append(m.group(0).upper())
        pos = m.end()
    return tuple(words)


def owns(sql: str) -> bool:
    words = leading_words(sql)
    if words[:1] == ("DESCRIBE",):
        words = ("DESC", *words[1:])
    if words[:1] == ("DESC",) and _DESCRIBE_QUERY.match(sql):
        return False
    return any(
        words[: len(p)] == p for p in _PREFIXES_BY_FIRST_WORD.get(words[0] if words else "", ())
    )


_PREFIXES_BY_FIRST_WORD: dict[str, list[tuple[str, ...]]] = {}
for _prefix in OWNED_PREFIXES:
    _PREFIXES_BY_FIRST_WORD.setdefault(_prefix[0], []).append(_prefix)
