"""A learnt statement shape never means what a full parse of the same text does not (issue 23).

A shape (grammar/statement_shapes.py) is learnt from one text and filled with another's names and
strings. Lark decides on token types only, so a fill is right exactly when the transformer
(grammar/to_statement.py ``ToStatement``) builds a statement from the parse's structure and never
from a value. It did not: IF EXISTS / IF NOT EXISTS became the strings "IF_EXISTS" /
"IF_NOT_EXISTS", tested with ``in``, so a catalog, role or index *named* IF_EXISTS switched the flag
on in a full parse, while the shape learnt from ``DROP CATALOG x`` kept it off — and the same text
meant one thing or the other depending on which spelling of it had been seen before.

Every statement family of the round-trip corpus is checked here against slot values that spell every
word the grammar has — every terminal's name and literal, every rule's name, every run of keywords
in a rule joined (IF_NOT_EXISTS, OR_REPLACE) — in upper, lower and mixed case, with and without
underscores: each value, in each slot, must give the statement a full Lark parse gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.grammar import parser, shapes
from drydock.grammar.lark_parser import PARSER
from drydock.grammar.owned_prefixes import owns
from drydock.grammar import sql as sql_grammar
from drydock.grammar.statement_shapes import Slot, StatementShapeCache, same_statement
from drydock.server import session
from tests.conftest import ServerProcess
from tests.grammar.test_grammar_roundtrip import CORPUS

_GRAMMAR = PARSER  # the grammar object itself is what the values come from
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_QUOTES = {"sq": "'", "dq": '"', "bt": "`"}


def _grammar_words() -> set[str]:
    """Every terminal's name and literal, every rule's name, every run of two or three keywords
    written together in a rule (IF_EXISTS, IF_NOT_EXISTS, OR_REPLACE, GRANT_OPTION), joined with
    underscores."""
    words: set[str] = set()
    keywords = {}
    for terminal in _GRAMMAR.terminals:
        words.add(terminal.name)
        if terminal.pattern.type == "str":
            words.add(terminal.pattern.value)
            keywords[terminal.name] = terminal.pattern.value
    for rule in _GRAMMAR.rules:
        words.add(str(rule.origin.name))
        run: list[str] = []
        for symbol in (*rule.expansion, None):
            if symbol is not None and symbol.name in keywords:
                run.append(keywords[symbol.name])
                continue
            words.update(
                "_".join(run[a:b])
                for a in range(len(run))
                for b in range(a + 2, min(a + 3, len(run)) + 1)
            )
            run = []
    return words


def _mixed(word: str) -> str:
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(word))


def _spellings(words: set[str]) -> list[str]:
    out: set[str] = set()
    for word in words:
        for base in {word, word.replace("_", "")} - {""}:
            out.update((base.upper(), base.lower(), _mixed(base)))
    return sorted(out)


WORDS = _grammar_words()
SPELLINGS = _spellings(WORDS)
_KEYWORDS = {t.pattern.value.upper() for t in _GRAMMAR.terminals if t.pattern.type == "str"}
# A word slot takes a bare word (a keyword there is no slot: the text is of another shape, which the
# shape never answers); a quoted slot takes anything without its quote or a backslash.
WORD_VALUES = [v for v in SPELLINGS if _WORD.fullmatch(v) and v.upper() not in _KEYWORDS]
QUOTED_VALUES = SPELLINGS + [
    v.replace("_", " ") for v in SPELLINGS if "_" in v.strip("_") and (v.isupper() or v.islower())
]

# The corpus's families, and the flag families spelt the other ways round too.
FAMILIES = [t for t in CORPUS if owns(t)] + [
    "DROP CATALOG IF EXISTS IF_EXISTS",
    "DROP ROLE 'r'",
    "DROP ROLE IF EXISTS 'r'",
    "DROP INDEX i ON t",
    "CREATE ROLE IF NOT EXISTS r",
    "CREATE CATALOG IF NOT EXISTS c PROPERTIES ('type' = 'lance')",
    "CREATE INDEX i ON t (a) USING ann",
    "CREATE INDEX IF NOT EXISTS i ON t (a)",
    "DROP USER u@h",
    "CREATE USER u",
    "ALTER USER u IDENTIFIED BY 'p'",
]


def test_the_values_spell_every_terminal_and_the_reported_flags() -> None:
    for terminal in _GRAMMAR.terminals:
        assert terminal.name in WORDS
    for value in (
        "IF_EXISTS",
        "if_exists",
        "iF_ExIsTs",
        "IFEXISTS",
        "IF_NOT_EXISTS",
        "ifnotexists",
        "OR_REPLACE",
        "FORCE_RELEASE",
        "IDENTIFIER",
        "DROP",
        "drop",
    ):
        assert value in SPELLINGS
    assert "IF_EXISTS" in WORD_VALUES and "if not exists" in QUOTED_VALUES


def _full(text: str) -> object:
    """What Lark alone answers for ``text``: the statement, or how it failed."""
    try:
        return parser._parse_owned(text)  # noqa: SLF001 - the reference every shape must agree with
    except DrydockError as exc:
        return ("error", exc.code, exc.message)
    except Exception as exc:  # noqa: BLE001 - a transformer that crashes on a name is a finding too
        return ("crash", type(exc).__name__)


def _learn(text: str) -> tuple[StatementShapeCache, str, list[Slot], Any]:
    """The shape of ``text`` as the cache learns it (probe parse, checked fill), whatever the
    statement carries: the secret policy that keeps some families out of the cache is not the
    point."""
    cache = parser._shapes()  # noqa: SLF001
    keyed = cache.key(text)
    assert keyed is not None, text
    key, slots = keyed
    variant = cache._variant(text, slots, parser._parse_owned(text))  # noqa: SLF001
    return cache, key, slots, variant


def _with(text: str, slots: list[Slot], values: list[str]) -> str:
    out, last = [], 0
    for slot, value in zip(slots, values, strict=True):
        quote = _QUOTES.get(slot.kind, "")
        out += [text[last : slot.start], quote, value, quote]
        last = slot.end
    out.append(text[last:])
    return "".join(out)


def _shaped(cache: StatementShapeCache, key: str, variant: Any, text: str) -> Any:
    """What the learnt shape answers for ``text``, or None when it does not answer it (another
    shape, or a slot the shape keeps as written holds another value)."""
    keyed = cache.key(text)
    if keyed is None or keyed[0] != key:
        return None
    values = [s.value for s in keyed[1]]
    if not all(values[i] == value for i, value in variant.fixed):
        return None
    return variant.fill(values)


@pytest.mark.parametrize("template", FAMILIES)
def test_no_slot_value_gives_a_shape_another_meaning(template: str) -> None:
    """Text i puts value (i + j) of the list into slot j: every value meets every slot once."""
    cache, key, slots, variant = _learn(template)
    if not slots or variant is None:  # no shape: every text of this one is parsed in full
        return
    lists = [WORD_VALUES if s.kind == "word" else QUOTED_VALUES for s in slots]
    differ = []
    for i in range(max(len(values) for values in lists)):
        text = _with(
            template, slots, [values[(i + j) % len(values)] for j, values in enumerate(lists)]
        )
        shaped = _shaped(cache, key, variant, text)
        if shaped is None:
            continue
        full = _full(text)
        if not same_statement(shaped, full):
            differ.append((text, shaped, full))
    assert not differ, f"{len(differ)} texts a shape answers differently, e.g. {differ[:3]}"


@pytest.mark.parametrize(
    "template,flag",
    [
        ("DROP CATALOG {}", "if_exists"),
        ("DROP ROLE {}", "if_exists"),
        ("DROP INDEX {} ON t", "if_exists"),
        ("DROP USER {}", "if_exists"),
        ("CREATE ROLE {}", "if_not_exists"),
        ("CREATE INDEX {} ON t (a) USING ann", "if_not_exists"),
        ("CREATE USER {}", "if_not_exists"),
        (
            "CREATE CATALOG {} PROPERTIES ('type' = 'paimon')",
            "if_not_exists",
        ),  # 'lance' spells LANCE
    ],
)
def test_a_name_that_spells_a_clause_is_a_name_through_every_path(template: str, flag: str) -> None:
    """The report's statements, through parser.parse after the shape is learnt (so with whatever
    guards the cache has), and through Lark alone: a name, never the clause it spells."""
    parser.clear_cache()
    try:
        for name in ("x1", "x2", "x3"):  # learnt on the second sighting, used on the third
            parser.parse(template.format(name))
        assert parser._shapes().hits == 1  # noqa: SLF001
        for name in (
            "IF_EXISTS",
            "if_exists",
            "If_Exists",
            "IFEXISTS",
            "IF_NOT_EXISTS",
            "ifNotExists",
            "`IF_EXISTS`",
            "`IF EXISTS`",
            "`IF_NOT_EXISTS`",
        ):
            text = template.format(name)
            for statement in (parser.parse(text), parser._parse_owned(text)):  # noqa: SLF001
                assert getattr(statement, flag) is False, (text, statement)
                named = (
                    statement.user.name
                    if isinstance(statement, (ast.DropUser, ast.CreateUser))
                    else statement.name
                )  # type: ignore[attr-defined]
                assert named == name.strip("`"), (text, statement)
    finally:
        parser.clear_cache()


def test_a_value_sensitive_transformer_is_never_answered_by_its_shape() -> None:
    """The cache's own guard, whatever the transformer: one that (wrongly) reads a flag from a name
    the way _ToStatement once did still never has its shape answer a name that spells the clause."""

    def parse(text: str) -> ast.Statement:
        name = text.split()[-1]
        return ast.DropCatalog(name=name, if_exists=name.upper().replace("_", "") == "IFEXISTS")

    keywords = frozenset({"DROP", "CATALOG", "IF", "EXISTS"})
    cache = StatementShapeCache(parse, keywords, (), parser.reserved_spellings())
    for text in ("DROP CATALOG x1", "DROP CATALOG x2"):
        keyed = cache.key(text)
        assert keyed is not None
        cache.learn(text, keyed, parse(text))
    assert cache.learnt == 1
    assert cache.lookup(cache.key("DROP CATALOG x3")) == ast.DropCatalog(name="x3")  # type: ignore[arg-type]
    for name in (
        "IF_EXISTS",
        "if_exists",
        "IfExists",
        "ifexists",
        "`if exists`",
        "if_not_exists",
        "STRING",
    ):
        assert cache.lookup(cache.key(f"DROP CATALOG {name}")) is None  # type: ignore[arg-type]
    # a one-word rule names a kind of value, a common name: no reason to lose the shape for it
    assert cache.lookup(cache.key("DROP CATALOG name")) == ast.DropCatalog(name="name")  # type: ignore[arg-type]


# -- the passthrough's query shapes (grammar/shapes.py) -------------------------------------------
# The other shape cache: plain-SQL queries keyed by their literals (numbers, plain strings), learnt
# on first sight, bound per execution with their values and their column labels. A string's value
# is bound only where sqlglot never looks into it; the labels (grammar/sql.py label_projections)
# once did: SELECT 'ALL' read its own string as the ALL modifier, lost its label in a full parse and
# kept it through the shape of SELECT 'a'. Values: every keyword of the passthrough's tokenizer.
SQL_WORDS = sorted(
    {
        w
        for k in sql_grammar.DIALECT.tokenizer_class.KEYWORDS
        for w in (k.upper(), k.lower())
        if "'" not in w and "\\" not in w
    }
    | {"DISTINCTROW", "HIGH_PRIORITY", "SQL_CALC_FOUND_ROWS", "", " ", "  x"}
)


@pytest.mark.parametrize(
    "template",
    [
        "SELECT '{v}'",
        "SELECT '{v}', 1 + 1",
        "SELECT '{v}' AS x, CONCAT('{v}', a) FROM t WHERE b = '{v}'",
        "SELECT a FROM t WHERE a IN ('{v}', 'b') ORDER BY a LIMIT 3",
    ],
)
def test_no_string_value_gives_a_query_shape_another_meaning(template: str) -> None:
    session.SHAPES.clear()
    try:
        session.parse(template.format(v="a"))
        key = shapes.shape_of(template.format(v="a"))
        assert key is not None and session.SHAPES.get(key[0])[1] is not None
        differ = []
        for value in SQL_WORDS:
            text = template.format(v=value)
            bound = session.parse(text, 50_000).expression  # type: ignore[attr-defined]
            fresh = sql_grammar.parse(text)
            if bound != fresh or any(
                bound.sql(dialect=d) != fresh.sql(dialect=d)
                for d in ("duckdb", sql_grammar.DIALECT)
            ):
                differ.append((text, bound.sql(dialect="duckdb"), fresh.sql(dialect="duckdb")))
        assert not differ, (
            f"{len(differ)} texts a query shape answers differently, e.g. {differ[:3]}"
        )
    finally:
        session.SHAPES.clear()


# -- over the wire ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("shape_meaning") / "data").start()
    yield proc
    proc.stop()


def _answer(server: ServerProcess, sql: str) -> tuple[Any, ...]:
    """The rows, or the error (code, message) that ``sql`` gets."""
    with server.connect() as conn, conn.cursor() as cur:
        try:
            cur.execute(sql)
            return ("ok", tuple(cur.fetchall()))
        except pymysql.err.MySQLError as exc:
            return ("error", exc.args[0], exc.args[1])


def test_drop_catalog_if_exists_means_the_catalog_named_so_once_the_shape_is_learnt(
    server: ServerProcess, tmp_path: Path
) -> None:
    """The report: DROP CATALOG x taught the shape, then DROP CATALOG IF_EXISTS answered 1105 while
    the never-seen spelling drop catalog IF_EXISTS answered OK (it read IF EXISTS in the name)."""
    for name in ("x", "x", "x2", "x3"):
        assert _answer(server, f"DROP CATALOG {name}")[0] == "error"
    learnt = _answer(server, "DROP CATALOG IF_EXISTS")
    never_seen = _answer(server, "drop catalog IF_EXISTS")
    assert learnt == never_seen
    assert learnt[0] == "error" and "IF_EXISTS" in learnt[2]  # no catalog of that name: as for x
    # and with a catalog of that name, both spellings drop it, and only it
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    for spelling in ("DROP CATALOG IF_EXISTS", "drop catalog IF_EXISTS"):
        server.query(
            f"CREATE CATALOG IF_EXISTS PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
        )
        assert ("IF_EXISTS",) in [row[1:2] for row in server.query("SHOW CATALOGS")]
        assert _answer(server, spelling)[0] == "ok"
        assert ("IF_EXISTS",) not in [row[1:2] for row in server.query("SHOW CATALOGS")]
        assert _answer(server, spelling) == learnt


def test_create_role_if_not_exists_is_a_role_name_over_the_wire(server: ServerProcess) -> None:
    for name in ("r1", "r2", "r3"):
        server.query(f"CREATE ROLE {name}")
    assert _answer(server, "CREATE ROLE IF_NOT_EXISTS")[0] == "ok"
    again = _answer(server, "CREATE ROLE IF_NOT_EXISTS")  # the role exists now: no IF NOT EXISTS
    assert again[0] == "error"
    assert _answer(server, "create role IF_NOT_EXISTS") == again


def test_a_string_that_spells_a_select_modifier_keeps_its_label_over_the_wire(
    server: ServerProcess,
) -> None:
    """MySQL labels SELECT 'ALL' ALL; a full parse read the string as the ALL modifier and left
    DuckDB's name, while the shape learnt from SELECT 'a' labelled it: two names for one text."""

    def label(sql: str) -> str:
        with server.connect() as conn, conn.cursor() as cur:
            cur.execute(sql)
            return str(cur.description[0][0])

    assert label("SELECT 'a'") == "a"
    for text in ("SELECT 'ALL'", "select 'ALL'", "SELECT 'distinct'", "Select 'distinct'"):
        assert label(text) == text.split("'")[1]


@pytest.mark.parametrize(
    "name", ["withdrawals", "selection", "select_log", "With_x", "SELECTED.t", "with$"]
)
def test_a_table_name_never_decides_what_desc_means(name: str) -> None:
    """DESC followed by a query is EXPLAIN (the passthrough's); DESC of a table whose name merely
    starts with select or with is drydock's DESCRIBE, as DESC of any other name."""
    for text in (f"DESC {name}", f"describe {name}"):
        assert owns(text)
        assert parser.parse(text) == ast.Describe(parts=tuple(name.split(".")))
    for query in (
        "DESC SELECT 1",
        "desc select*from t",
        "DESC WITH c AS (SELECT 1) SELECT * FROM c",
        "DESC (SELECT 1)",
    ):
        assert not owns(query)
