"""Which leading words make a statement drydock's: derived from the grammar (drydock.lark).

A text is routed to the grammar when its first words match one of these prefixes; everything else
is plain SQL for the passthrough. Each prefix is the start of a statement rule's leading run of
keywords, up to and including its first word that plain SQL does not also use there
(:data:`SHARED_WORDS`): ``ADMIN …`` is drydock's from its first word, ``SHOW CREATE TABLE``
only from its third (``SHOW CREATE VIEW`` is plain SQL). A statement added to the grammar is
routed to it without a list to keep.
"""

from __future__ import annotations

import re

from lark import Lark

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
