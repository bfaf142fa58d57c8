"""Routing: which leading words make a statement drydock's, derived from drydock.lark."""

from __future__ import annotations

import pytest

from drydock.grammar.lark_parser import PARSER
from drydock.grammar.owned_prefixes import OWNED_PREFIXES, owned_prefixes, owns, statement_rules

# What the hand-kept OWNED_PREFIXES of grammar/parser.py held when the grammar replaced it. The
# derived set must claim exactly these texts: a new owned prefix fails here, so that a routing
# change is always deliberate (add it below with the statement).
ROUTED = frozenset(
    {
        ("ADMIN",),
        ("SHOW", "WARNINGS"),
        ("SHOW", "ERRORS"),
        ("SHOW", "COUNT"),
        ("KILL",),
        ("CREATE", "USER"),
        ("DROP", "USER"),
        ("ALTER", "USER"),
        ("SET", "PASSWORD"),
        ("GRANT",),
        ("REVOKE",),
        ("CREATE", "ROLE"),
        ("DROP", "ROLE"),
        ("SHOW", "GRANTS"),
        ("SHOW", "ALL", "GRANTS"),
        ("SHOW", "ROLES"),
        ("SHOW", "AUDIT"),
        ("SHOW", "CREATE", "TABLE"),
        ("CREATE", "CATALOG"),
        ("DROP", "CATALOG"),
        ("ALTER", "CATALOG"),
        ("SHOW", "CATALOGS"),
        ("SHOW", "CREATE", "CATALOG"),
        ("SWITCH",),
        ("USE",),
        ("REFRESH",),
        ("SHOW", "DATABASES"),
        ("SHOW", "SCHEMAS"),
        ("SHOW", "TABLES"),
        ("SHOW", "FULL", "TABLES"),
        ("DESC",),
        ("SHOW", "COLUMNS"),
        ("SHOW", "FIELDS"),
        ("SHOW", "FULL", "COLUMNS"),
        ("SHOW", "FULL", "FIELDS"),
        ("SHOW", "EXTENDED"),
        ("SHOW", "INDEX"),
        ("SHOW", "INDEXES"),
        ("SHOW", "KEYS"),
        ("PREPARE",),
        ("EXECUTE",),
        ("DEALLOCATE",),
        ("DROP", "PREPARE"),
        ("CREATE", "INDEX"),
        ("CREATE", "OR", "REPLACE"),
        ("DROP", "INDEX"),
        ("SHOW", "LANCE"),
        ("RESOLVE",),
        ("CANCEL", "LANCE"),
        ("SHOW", "BACKENDS"),
        ("SHOW", "FRONTENDS"),
        ("CALL",),
        ("SHOW", "PROCEDURES"),
        ("SHOW", "PROCEDURE"),
        ("SHOW", "ENGINES"),
        ("SHOW", "STORAGE", "ENGINES"),
        ("SHOW", "CHARSET"),
        ("SHOW", "CHARACTER", "SET"),
        ("SHOW", "COLLATION"),
        ("SHOW", "PLUGINS"),
        ("SHOW", "PROCESSLIST"),
        ("SHOW", "FULL", "PROCESSLIST"),
        ("SHOW", "TABLE", "STATUS"),
        ("SHOW", "FUNCTION", "STATUS"),
        ("SHOW", "CREATE", "DATABASE"),
        ("SHOW", "CREATE", "SCHEMA"),
        ("SHOW", "TRIGGERS"),
        ("LOCK",),
        ("UNLOCK",),
        ("FLUSH",),
    }
)


def test_the_derived_prefixes_route_as_the_hand_copy_did() -> None:
    derived = set(OWNED_PREFIXES)
    assert ROUTED - derived == set(), "a statement would move to the passthrough"
    # DESCRIBE is the grammar's own spelling; owns() reads it as DESC, which ROUTED held.
    assert derived - ROUTED == {("DESCRIBE",)}, "a new owned prefix: add it to ROUTED if meant"


def test_every_statement_rule_has_a_prefix() -> None:
    """A statement rule that began with a name or a value would never be routed to the grammar."""
    lark = PARSER
    keywords = {
        t.name: str(t.pattern.value).upper()
        for t in lark.terminals
        if t.pattern.type == "str" and t.pattern.value.isalpha()
    }
    for name in statement_rules(lark):
        for rule in (r for r in lark.rules if r.origin.name == name):
            first = rule.expansion[0]
            assert first.is_term and first.name in keywords, name
            assert any(p[0] == keywords[first.name] for p in OWNED_PREFIXES), name
    assert owned_prefixes(PARSER) == OWNED_PREFIXES


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW CREATE VIEW v",
        "SHOW ALL TABLES",
        "SHOW FULL TABLE",
        "CREATE TABLE t (a INT)",
        "CREATE OR ALTER x",
        "DROP TABLE t",
        "ALTER TABLE t ADD c INT",
        "SET x = 1",
        "CANCEL x",
        "SHOW FUNCTIONS",
        "SHOW TABLE t",
        "SHOW STORAGE",
        "SHOW CHARACTER x",
        "SHOW VARIABLES",
    ],
)
def test_shared_words_alone_stay_with_the_passthrough(sql: str) -> None:
    assert not owns(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "ADMIN anything",
        "GRANT x",
        "REVOKE x",
        "KILL x",
        "CALL x",
        "RESOLVE x",
        "SWITCH",
        "USE",
        "SHOW CREATE TABLE",
        "SHOW ALL GRANTS",
        "SHOW FULL COLUMNS",
        "CREATE OR REPLACE x",
        "SHOW CHARACTER SET",
        "SHOW FUNCTION STATUS",
        "SHOW STORAGE ENGINES",
        "CANCEL LANCE x",
    ],
)
def test_a_prefix_claims_its_texts_even_when_they_do_not_parse(sql: str) -> None:
    """Owned from the prefix on: a misspelt rest is answered with the grammar's 1064 text."""
    assert owns(sql)
