"""The grammar's fast path (the statement built while the LALR parser reduces, no parse tree)
answers exactly what the tree + transformer path answers: the same statement object for every
example of every statement family and for thousands of statements derived from the grammar's own
rules, and the same error for every text that does not parse."""

from __future__ import annotations

import random

import pytest
from lark import UnexpectedInput

from drydock.engine.errors import DrydockError
from drydock.grammar import parser as grammar
from drydock.grammar.lark_parser import PARSER, inline_parser
from drydock.grammar.syntax_errors import syntax_error
from drydock.grammar.to_statement import ToStatement
from tests.wire.test_fuzz import EXAMPLES, STATEMENT_RULES, WAREHOUSE_PLACEHOLDER, derive


def by_tree(sql: str) -> object:
    """The path every statement took before the fast path (and every error still takes)."""
    try:
        tree = PARSER.parse(sql)
    except UnexpectedInput as exc:
        return ("error", syntax_error(exc, sql).message)
    return ToStatement().transform(tree)


def by_fast_path(sql: str) -> object:
    try:
        return grammar._parse_owned(sql)
    except DrydockError as exc:
        return ("error", exc.message)


def derived(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        rule = rng.choice(STATEMENT_RULES)
        text = derive(rule, lambda n: rng.randrange(n), rng.choice).replace(
            WAREHOUSE_PLACEHOLDER, "/wh"
        )
        out.append(text)
    return out


@pytest.mark.parametrize("sql", [s for family in EXAMPLES.values() for s in family])
def test_every_example_parses_to_the_same_statement(sql: str) -> None:
    assert inline_parser().parse(sql) == by_tree(sql)


def test_derived_statements_and_their_mutations_answer_the_same() -> None:
    rng = random.Random(13)
    texts = derived(3000, seed=13)
    statements = errors = 0
    for text in texts:
        words = text.split()
        mutated = (
            " ".join(w for w in words if rng.random() > 0.15) if len(words) > 2 else text + " )"
        )
        for sql in (text, mutated):
            expected = by_tree(sql)
            assert by_fast_path(sql) == expected, sql
            if isinstance(expected, tuple):
                errors += 1
            else:
                statements += 1
    assert statements > 1000 and errors > 300  # both paths were exercised
