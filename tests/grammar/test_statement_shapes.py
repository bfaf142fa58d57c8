"""Shapes of drydock's own statements (grammar/statement_shapes.py): a text answered from its shape
is the statement a full Lark parse gives, type for type, for every statement family and for values
chosen to break it (keywords, escapes, quotes, digits, non-ASCII, probe look-alikes)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drydock.engine.errors import DrydockError
from drydock.grammar import parser
from drydock.grammar.owned_prefixes import owns
from drydock.grammar.statement_shapes import PROBE_PREFIX, same_statement
from tests.grammar.test_grammar_roundtrip import CORPUS


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    parser.clear_cache()
    yield
    parser.clear_cache()


def _full(text: str) -> object:
    """What Lark alone answers: the statement, or the error's (code, message)."""
    try:
        return parser._parse_owned(text)  # noqa: SLF001 - the reference the shapes must agree with
    except DrydockError as exc:
        return (exc.code, exc.message)


def _through_shapes(text: str) -> object:
    try:
        return parser.parse(text)
    except DrydockError as exc:
        return (exc.code, exc.message)


def _agree(text: str) -> None:
    expected, got = _full(text), _through_shapes(text)
    assert same_statement(got, expected), (text, got, expected)


def _with_values(text: str, values: list[str]) -> str:
    """``text`` with its slots (as keyed) set to ``values``, quotes kept."""
    keyed = parser._shapes().key(text)  # noqa: SLF001
    assert keyed is not None
    out, last = [], 0
    for slot, value in zip(keyed[1], values, strict=False):
        quote = {"sq": "'", "dq": '"', "bt": "`"}.get(slot.kind, "")
        out += [text[last : slot.start], quote, value, quote]
        last = slot.end
    out.append(text[last:])
    return "".join(out)


OWNED = [t for t in CORPUS if owns(t)]


@pytest.mark.parametrize("text", OWNED)
def test_every_statement_family_parses_the_same_through_its_shape(text: str) -> None:
    keyed = parser._shapes().key(text)  # noqa: SLF001
    if keyed is None:
        _agree(text)
        return
    rng = random.Random(text)
    for _ in range(2):  # learnt on the second sighting
        parser.parse(text)
    for _ in range(6):
        values = [
            rng.choice(["n", "x_1", "Tbl$", "_u", "a" * 40]) + str(rng.randrange(100))
            if s.kind == "word"
            else f"v{rng.randrange(1000)} w"
            for s in keyed[1]
        ]
        _agree(_with_values(text, values))
    _agree(text)


def test_an_index_admission_is_parsed_by_lark_only_for_its_first_texts() -> None:
    cache = parser._shapes()  # noqa: SLF001
    texts = [
        f"CREATE INDEX idx_{i} ON lc.db.t{i} (emb) USING ANN "
        f'PROPERTIES ("index_type" = "IVF_PQ", "num_partitions" = "{i}")'
        for i in range(20)
    ]
    statements = [parser.parse(t) for t in texts]
    assert cache.learnt == 1 and cache.hits == 18
    assert [s.name for s in statements] == [f"idx_{i}" for i in range(20)]  # type: ignore[union-attr]
    assert statements[7].properties == (("index_type", "IVF_PQ"), ("num_partitions", "7"))  # type: ignore[union-attr]
    for text, statement in zip(texts, statements, strict=True):
        assert same_statement(statement, _full(text))


def test_a_value_the_grammar_changes_is_kept_as_written_in_the_shape() -> None:
    """USING names the index kind, upper-cased by the grammar: a shape learnt from BTREE is not
    used for btree (that text gets its own variant) and never answers BTREE for INVERTED."""
    for _ in range(2):
        parser.parse("CREATE INDEX a ON c.db.t (id) USING BTREE")
    assert parser.parse("CREATE INDEX b ON c.db.t (id) USING INVERTED").using == "INVERTED"  # type: ignore[union-attr]
    assert parser.parse("CREATE INDEX b ON c.db.t (id) USING btree").using == "BTREE"  # type: ignore[union-attr]
    assert parser._shapes().hits == 0  # noqa: SLF001


def test_keywords_escapes_and_probe_lookalikes_are_not_slots() -> None:
    cache = parser._shapes()  # noqa: SLF001
    for text in (
        f"CREATE INDEX {PROBE_PREFIX}1x ON c.db.t (id) USING BTREE",  # the probe prefix itself
        "CREATE INDEX a ON c.db.t (id) USING BTREE /* \x00word */",
    ):
        assert cache.key(text) is None
    key, slots = cache.key("SHOW TABLES FROM `a``b`.db LIKE 'it''s' -- c\n")  # type: ignore[misc]
    assert [s.value for s in slots] == ["db"]  # doubled quotes and comments stay as written
    key, slots = cache.key("SHOW DATABASES LIKE 'a\\'b' ")  # type: ignore[misc]
    assert slots == []
    key, slots = cache.key("create index I on c.db.t (id) using btree")  # type: ignore[misc]
    assert key.startswith("create index \x00word on ")


def test_statements_with_secrets_never_teach_a_shape() -> None:
    texts = [
        "CREATE USER 'u{0}'@'%' IDENTIFIED BY 'hunter{0}'",
        'CREATE CATALOG c{0} PROPERTIES ("type" = "lance", "s3.secret_key" = "hunter{0}")',
    ]
    for template in texts:
        for i in range(3):
            parser.parse(template.format(i))
    cache = parser._shapes()  # noqa: SLF001
    assert cache.learnt == 0 and "hunter" not in repr(cache._shapes)  # noqa: SLF001
    # a learnt shape may answer a text that carries a secret; the text is not kept by its shape
    for _ in range(2):
        parser.parse('ALTER CATALOG c SET PROPERTIES ("comment" = "x")')
    shaped = parser.parse('ALTER CATALOG c SET PROPERTIES ("token" = "hunter9")')
    assert same_statement(shaped, _full('ALTER CATALOG c SET PROPERTIES ("token" = "hunter9")'))
    assert all("hunter9" not in repr(parser._cache.peek(k)) for k in parser._cache)  # noqa: SLF001


def test_the_shapes_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from drydock.grammar import statement_shapes

    monkeypatch.setattr(statement_shapes, "MAX_SHAPES", 4)
    monkeypatch.setattr(parser, "_shape_cache", None)  # built anew, with the bound above
    for i in range(12):
        for _ in range(2):
            parser.parse(f"SHOW TABLES FROM c.db{'.x' * i}" if i < 3 else f"KILL {i}")
            parser.parse(f"CREATE INDEX n{i} ON c.db.t (id) USING BTREE" + " " * i)
    cache = parser._shapes()  # noqa: SLF001
    assert len(cache._shapes) <= 4 and len(cache._seen) <= 4  # noqa: SLF001


# Values meant to break the shape: keywords (of the grammar and not), digits first, quotes and
# backslashes, non-ASCII, spaces, the probe prefix, empty.
_NASTY_WORDS = st.one_of(
    st.sampled_from(
        [
            "index",
            "ON",
            "using",
            "Btree",
            "ann",
            "IF",
            "not",
            "exists",
            "or",
            "replace",
            "from",
            "db",
            "t",
            "like",
            "where",
            "and",
            "1a",
            "a1",
            "$x",
            "_",
            "x.y",
            "zqprobe0x",
            "ZQPROBE3X",
            "lance",
            "true",
            "null",
            "é",
            "a b",
            "`",
            "'",
            '"',
            "--",
            "#",
            "/*",
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
)
_TEMPLATES = [t for t in OWNED if (parser._shapes().key(t) or ("", []))[1]]  # noqa: SLF001


@settings(
    max_examples=400,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(template=st.sampled_from(_TEMPLATES), data=st.data())
def test_any_values_in_a_learnt_shape_parse_as_lark_parses_them(
    template: str, data: st.DataObject
) -> None:
    for _ in range(2):
        parser.parse(template)
    keyed = parser._shapes().key(template)  # noqa: SLF001
    assert keyed is not None
    values = [data.draw(_NASTY_WORDS) for _ in keyed[1]]
    _agree(_with_values(template, values))
