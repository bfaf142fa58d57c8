"""The search syntax of the passthrough parser (grammar/sql.py): array literals (vector values),
Doris' ``MATCH_ANY`` / ``MATCH_ALL`` / ``MATCH_PHRASE`` and MySQL's ``MATCH … AGAINST``; the
statement bytes reader (grammar/query_text.py) no longer takes ``MATCH_ANY '…'`` for a ``_any``
charset introducer; shapes and placeholders over the new syntax; and the planner's
query-vector reader (engine/search/vectors.py)."""

from __future__ import annotations

import numpy as np
import pytest
from mysql_mimic.charset import CharacterSet
from sqlglot import exp

from drydock.engine.errors import DrydockError
from drydock.engine.search import vector_functions
from drydock.engine.search.vectors import parse_vector_text, query_vector
from drydock.grammar import sql
from drydock.grammar.query_text import decode_statement
from drydock.grammar.shapes import build, shape_of
from drydock.server.prepared import bind_parameters


def _item(text: str) -> exp.Expr:
    select = sql.parse(f"SELECT {text} AS x FROM t")
    return select.expressions[0].this


def test_array_literals_are_arrays_and_subscripts_stay_subscripts() -> None:
    array = _item("[0.1, -0.2, 3]")
    assert isinstance(array, exp.Array)
    assert [e.sql() for e in array.expressions] == ["0.1", "-0.2", "3"]
    assert isinstance(array.expressions[1], exp.Neg)
    assert isinstance(_item("[]"), exp.Array) and not _item("[]").expressions
    subscript = _item("a[1]")
    assert isinstance(subscript, exp.Bracket)
    assert sql.parse("SELECT [1, -2.5] AS v").sql(sql.DIALECT) == "SELECT [1, -2.5] AS v"


@pytest.mark.parametrize(
    ("word", "kind"), [("MATCH_ANY", "ANY"), ("match_all", "ALL"), ("Match_Phrase", "PHRASE")]
)
def test_full_text_predicates_parse_as_text_match(word: str, kind: str) -> None:
    where = sql.parse(f"SELECT id FROM t WHERE body {word} 'big cat' AND id > 2").args["where"]
    match = where.this.this
    assert isinstance(match, sql.TextMatch)
    assert match.this.sql() == "body"
    assert match.expression == exp.Literal.string("big cat")
    assert match.args["kind"] == kind
    text = where.parent.sql(sql.DIALECT)
    assert f"body MATCH_{kind} 'big cat' AND id > 2" in text
    assert sql.parse(text) == where.parent  # the round trip


def test_a_placeholder_is_a_full_text_query_and_binds() -> None:
    match = sql.parse("SELECT id FROM t WHERE body MATCH_ANY ?").args["where"].this
    assert isinstance(match, sql.TextMatch) and isinstance(match.expression, exp.Placeholder)
    bound = bind_parameters("SELECT id FROM t WHERE body MATCH_ANY ?", ["it's"])
    match = sql.parse(bound).args["where"].this
    assert match.expression == exp.Literal.string("it's")


def test_match_words_stay_names_where_no_string_follows() -> None:
    select = sql.parse("SELECT a match_any FROM t")
    assert select.expressions[0].alias == "match_any"
    assert sql.parse("SELECT match_all FROM t").expressions[0].sql() == "match_all"


def test_text_match_never_becomes_duckdb_sql() -> None:
    statement = sql.parse("SELECT id FROM t WHERE body MATCH_ANY 'x'")
    with pytest.raises(ValueError):
        statement.sql(dialect="duckdb")
    with pytest.raises(DrydockError) as info:
        vector_functions.qualify(statement)
    assert info.value.code == 1191


@pytest.mark.parametrize("modifier", ["", " IN NATURAL LANGUAGE MODE", " IN BOOLEAN MODE"])
def test_match_against_keeps_its_modifier(modifier: str) -> None:
    where = sql.parse(f"SELECT * FROM t WHERE MATCH (a, b) AGAINST ('x'{modifier})").args["where"]
    match = where.this
    assert isinstance(match, exp.MatchAgainst)
    assert [c.sql() for c in match.expressions] == ["a", "b"]
    assert (match.args.get("modifier") or "") == modifier.strip()
    assert sql.parse(where.parent.sql(sql.DIALECT)) == where.parent


def test_match_any_is_no_charset_introducer() -> None:
    raw = b"SELECT * FROM t WHERE body MATCH_ANY 'caf\xc3\xa9' AND x = _latin1'caf\xe9'"
    assert decode_statement(CharacterSet.utf8mb4, raw) == (
        "SELECT * FROM t WHERE body MATCH_ANY 'café' AND x = 'café'"
    )


def test_shapes_bind_each_vectors_own_values() -> None:
    """A shape learnt from one vector literal, bound to another text's values, is that text's own
    parse (server/session.py takes this path for every repeated plain-SQL shape)."""
    texts = [
        "SELECT id, l2_distance(emb, [0.5, -1, 2]) FROM t ORDER BY 2 LIMIT 5",
        "SELECT id, l2_distance(emb, [1.5, -3, 7]) FROM t ORDER BY 2 LIMIT 5",
        "SELECT id, l2_distance(emb, '[0.5, -1, 2]') FROM t ORDER BY 2 LIMIT 5",
        "SELECT id, l2_distance(emb, '[4, 4]') FROM t ORDER BY 2 LIMIT 9",
        "SELECT id FROM t WHERE body MATCH_ANY 'big cat' LIMIT 5",
        "SELECT id FROM t WHERE body MATCH_ANY 'zebra' LIMIT 7",
    ]
    built = {}
    for text in texts:
        key, literals = shape_of(text)  # type: ignore[misc]
        if key not in built:
            built[key] = build(text, literals, sql.parse(text), sql.parse_counted)
        shape = built[key]
        if shape is None:
            continue  # parsed in full every time: always right
        bound = shape.bind(literals, text)
        assert bound == sql.parse(text), text
        assert bound.sql(sql.DIALECT) == sql.parse(text).sql(sql.DIALECT)
    assert any(shape is not None for shape in built.values())


def test_query_vector_reads_every_constant_form() -> None:
    for text in (
        "[0.5, -1, 2e0]",
        "'[0.5,-1,2]'",
        "STRING_TO_VECTOR('[0.5, -1, 2]')",
        "([.5,-1,2])",
    ):
        got = query_vector(_item(text), 3)
        assert got is not None and got.dtype == np.float32
        assert got.tolist() == [0.5, -1.0, 2.0]
    assert query_vector(_item("emb"), 3) is None
    assert query_vector(_item("[emb, 1]"), 2) is None
    assert parse_vector_text(" [1, 2.5e1 ] ") == [1.0, 25.0]


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        ("[1, 2]", 1210, "column has 3, query vector has 2"),
        ("'[1,nan,2]'", 6138, "'[1,nan,2]'"),
        ("'[1,inf,2]'", 6138, "valid vector"),
        ("[1, NULL, 2]", 6138, "NULL"),
        ("'1,2,3'", 6138, "'1,2,3'"),
        ("'[1,x,3]'", 6138, "'[1,x,3]'"),
        ("STRING_TO_VECTOR(NULL)", 6138, "NULL"),
        ("'[1e39, 1, 1]'", 6138, "valid vector"),
        ("[]", 6138, "valid vector"),
    ],
)
def test_query_vector_errors_are_typed(text: str, code: int, words: str) -> None:
    with pytest.raises(DrydockError) as info:
        query_vector(_item(text), 3)
    assert info.value.code == code
    assert words in info.value.message
