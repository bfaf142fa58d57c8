"""Shapes of drydock's own statements: one Lark parse per shape, names and strings bound per text.

Every index admission is a CREATE INDEX with a name of its own, so the exact-text cache in
grammar/parser.py never hits it, and Lark's LALR loop (100–350 µs of the GIL per statement) was
the largest single cost of an admission. A statement's *shape* is its text with each plain name and
each plain quoted string taken out as a slot value; keywords, numbers, symbols, comments and
everything else stay as written. A :class:`Shape` is the parse of one text of that shape with each
slot at a known place in the statement; a later text of the same shape gets a copy with its own
values there, without Lark.

Why a slot's value cannot change the parse:

- a word that is no keyword of the grammar lexes as IDENTIFIER wherever it stands (the contextual
  lexer always accepts IDENTIFIER: lark_parser.KeepWordTerminals); a word that spells a keyword, in
  any case, is never a slot, nor is one any other word-like terminal would match;
- a quoted string without escapes or doubled quotes is one SINGLE_QUOTED / DOUBLE_QUOTED token, a
  backticked name without doubled backticks one BACKTICKED token, whatever it holds;
- LALR decides on token types only, so every text of a shape has the same reductions;
- the transformer builds a statement from those reductions, never from a value: an optional
  clause (IF EXISTS, IF NOT EXISTS) is an object of its own (parser._Clause), not a string a name
  could equal;
- what the transformer does with such a token is checked on the first text of a shape: the text is
  parsed again with a unique probe value in every slot, each probe must come back unchanged in a
  field of its own (a slot the transformer changes — upper-cases, reads as a number — becomes part
  of the shape, kept as written), and the shape filled with the original values must equal the
  original parse, type for type.

The probe checks one value per slot; the last point must hold for all of them, and once did not
(``"IF_EXISTS" in items`` read a catalog named IF_EXISTS as the clause, so the full parse of DROP
CATALOG IF_EXISTS and the shape learnt from DROP CATALOG x meant two statements). So, besides, a
shape never answers a text whose slot value *spells* one of the grammar's own words — a terminal's
name or literal, a rule's name of several words, a run of keywords joined, a string the transformer
loads (grammar/parser.py ``reserved_spellings``) — in any case, with or without underscores or
spaces: :meth:`StatementShapeCache.lookup` leaves it to the full parse, and it teaches no shape.
Those are the values a transformer could mistake for structure; tests/security/
test_shape_meaning.py fills every family's shape with each of them and compares with Lark.

Anything else (a text that mentions the probe prefix, a statement that may carry a secret or is
never cached, a probe that does not parse) is parsed in full every time, as before. Only parses are
kept, with probe values in them: no client's names or strings are held here.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, NamedTuple

from lark import Token

from drydock.engine.support.lru import Lru
from drydock.grammar.lexer import BLOCK_COMMENT, LINE_COMMENT, QUOTED
from drydock.engine import ast

# One pass over the text; the first alternative that matches at a position wins, in the order
# Lark's longest match decides there. Named groups are the slots; every other match (and what no
# alternative starts with: spaces, symbols) stays as written.
_TOKENS = re.compile(
    r"""(?P<sq>'[^'\\]*')(?!')"""  # plain single-quoted string
    r"""|(?P<dq>"[^"\\]*")(?!")"""  # plain double-quoted string
    r"""|(?P<bt>`[^`]+`)(?!`)"""  # plain backticked name
    rf"""|{QUOTED["'"]}|{QUOTED['"']}|{QUOTED["`"]}"""  # with escapes: as written
    rf"""|{BLOCK_COMMENT}|{LINE_COMMENT}"""  # comments and hints: as written
    rf"""|@(?:{QUOTED["`"]}|{QUOTED["'"]}|{QUOTED['"']}|[A-Za-z0-9_$.]*)"""  # @variables
    r"""|[0-9][A-Za-z0-9_$.]*"""  # numbers (and whatever a digit starts): as written
    r"""|(?P<word>[A-Za-z_$][A-Za-z0-9_$]*)""",  # a name, unless it spells a keyword
    re.DOTALL,  # whatever no alternative starts with (spaces, symbols) is skipped: kept as written
)
PROBE_PREFIX = "zqprobe"
_PROBE_IN = re.compile(PROBE_PREFIX + r"([0-9]+)x", re.IGNORECASE)
MAX_SHAPE_CHARS = 4096
MAX_SLOTS = 64
MAX_SHAPES = 512
MAX_VARIANTS = 8  # per shape: variants that keep different slots as written
_PROBE_ROUNDS = 3
_QUOTES = {"sq": "'", "dq": '"', "bt": "`"}
_MARKS = {kind: "\x00" + kind for kind in ("word", "sq", "dq", "bt")}


class Slot(NamedTuple):  # a tuple: one is made per name or string of every keyed text
    kind: str  # word, sq, dq or bt
    start: int
    end: int
    value: str  # the name or the string, without its quotes


def slots_of(
    text: str, keywords: frozenset[str], word_terminals: tuple[re.Pattern[str], ...]
) -> tuple[str, list[Slot]] | None:
    """(shape key, slots) of ``text``, or None when the text is not keyed."""
    if len(text) > MAX_SHAPE_CHARS or "\x00" in text or PROBE_PREFIX in text.lower():
        return None
    parts: list[str] = []
    slots: list[Slot] = []
    last = 0
    for m in _TOKENS.finditer(text):
        kind = m.lastgroup
        if kind is None:
            continue
        start, end = m.span()
        if kind == "word":
            value = text[start:end]
            if value.upper() in keywords or (
                word_terminals and any(p.fullmatch(value) for p in word_terminals)
            ):
                continue
        else:
            value = text[start + 1 : end - 1]
        parts.append(text[last:start])
        parts.append(_MARKS[kind])
        slots.append(Slot(kind, start, end, value))
        last = end
        if len(slots) > MAX_SLOTS:
            return None
    parts.append(text[last:])
    return "".join(parts), slots


def spelling(value: str) -> str:
    """How a slot value is compared with the grammar's own words: case, underscores and spaces aside
    (``If_Exists``, ``IFEXISTS`` and ``'if exists'`` all spell IF_EXISTS)."""
    return value.upper().replace("_", "").replace(" ", "")


def _probe(index: int) -> str:
    return f"{PROBE_PREFIX}{index}x"


def _probe_text(text: str, slots: list[Slot], fixed: set[int]) -> str:
    parts: list[str] = []
    last = 0
    for i, slot in enumerate(slots):
        if i in fixed:
            continue
        quote = _QUOTES.get(slot.kind, "")
        parts += [text[last : slot.start], quote, _probe(i), quote]
        last = slot.end
    parts.append(text[last:])
    return "".join(parts)


Filler = Callable[[list[str]], Any]


class _NotShapeable(Exception):
    """The statement holds a value the filler cannot rebuild (a lexer token, a foreign type)."""


def _compile(
    node: Any, probes: dict[str, int], found: set[int], tainted: set[int]
) -> tuple[Filler | None, Any]:
    """(filler, node): a filler when ``node`` holds probes (it builds the node with the values),
    else None (the node is shared as is: statements are immutable)."""
    if isinstance(node, str):
        index = probes.get(str(node))
        if index is None:
            # a value made from a probe (upper-cased, joined): that slot is kept as written
            tainted.update(int(n) for n in _PROBE_IN.findall(node))
            return None, node
        cls = type(node)
        if issubclass(cls, Token):
            raise _NotShapeable("a lexer token in a statement")
        found.add(index)
        return (
            (lambda values: values[index]) if cls is str else (lambda values: cls(values[index]))
        ), node
    if isinstance(node, tuple):
        parts = [_compile(item, probes, found, tainted) for item in node]
        if all(f is None for f, _ in parts):
            return None, node
        makers = [f if f is not None else (lambda values, item=item: item) for f, item in parts]
        return (lambda values: tuple(make(values) for make in makers)), node
    if is_dataclass(node) and not isinstance(node, type):
        klass = type(node)
        if not all(f.init for f in fields(node)):
            raise _NotShapeable(f"{klass.__name__} has fields its constructor does not take")
        names = [f.name for f in fields(node)]
        parts = [_compile(getattr(node, name), probes, found, tainted) for name in names]
        if all(f is None for f, _ in parts):
            return None, node
        return _dataclass_filler(node, names, parts), node
    if node is None or isinstance(node, (bool, int, float)):
        return None, node
    raise _NotShapeable(f"a {type(node).__name__} in a statement")


def _dataclass_filler(
    node: Any, names: list[str], parts: list[tuple[Filler | None, Any]]
) -> Filler:
    klass = type(node)
    dynamic = [
        (name, fill) for name, (fill, _) in zip(names, parts, strict=True) if fill is not None
    ]
    if hasattr(klass, "__post_init__") or not hasattr(node, "__dict__"):
        makers = [f if f is not None else (lambda values, item=item: item) for f, item in parts]
        return lambda values: klass(
            **{n: make(values) for n, make in zip(names, makers, strict=True)}
        )
    static = dict(node.__dict__)

    def build(values: list[str]) -> Any:
        # what the frozen dataclass's __init__ would do (it has no __post_init__), without its
        # per-field object.__setattr__: the other fields are the template's, the slots the values
        statement = object.__new__(klass)
        attributes = statement.__dict__
        attributes.update(static)
        for name, fill in dynamic:
            attributes[name] = fill(values)
        return statement

    return build


def _constant(statement: Any) -> Filler:
    return lambda _values: statement


def same_statement(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``==`` alone takes a quoted string for a
    name)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_statement(x, y) for x, y in zip(a, b, strict=True))
    if is_dataclass(a):
        return all(same_statement(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return bool(a == b)


@dataclass(frozen=True)
class Variant:
    fixed: tuple[tuple[int, str], ...]  # slots kept as written: (index, value)
    fill: Filler


class StatementShapeCache:
    """Shape key → the variants learnt for it, for the statements the grammar owns (bounded LRU,
    thread-safe). Not grammar/shapes.py's QueryShapeCache: that one keeps sqlglot parses of
    plain SQL with literal slots; this one statement objects with name and string slots."""

    def __init__(
        self,
        parse: Callable[[str], ast.Statement],
        keywords: frozenset[str],
        word_terminals: tuple[re.Pattern[str], ...],
        reserved: frozenset[str] = frozenset(),
    ):
        self._parse = parse
        self._keywords = keywords
        self._word_terminals = word_terminals
        self._reserved = frozenset(spelling(word) for word in reserved)  # module doc
        self._shapes: Lru[str, tuple[Variant, ...]] = Lru(MAX_SHAPES)
        self._seen: Lru[str, bool] = Lru(MAX_SHAPES)  # keys seen once, not yet probed
        self._lock = threading.Lock()
        self.hits = 0  # tests read these
        self.learnt = 0

    def key(self, text: str) -> tuple[str, list[Slot]] | None:
        return slots_of(text, self._keywords, self._word_terminals)

    def lookup(self, keyed: tuple[str, list[Slot]]) -> ast.Statement | None:
        key, slots = keyed
        with self._lock:
            variants = self._shapes.get(key)
            if variants is None:
                return None
        values = [s.value for s in slots]
        if self._spells_a_word(values):
            return None  # a value that spells a word of the grammar: only a full parse decides it
        for variant in variants:
            if all(values[i] == value for i, value in variant.fixed):
                try:
                    statement = variant.fill(values)
                # a statement class that refuses a value: parse in full
                except Exception:  # noqa: BLE001
                    return None
                self.hits += 1
                return statement  # type: ignore[no-any-return]
        return None

    def _spells_a_word(self, values: list[str]) -> bool:
        # one spelling() of all the values at once (no value holds a NUL: slots_of): about half
        # the time of one per value, on the path of every text a shape answers
        return bool(self._reserved) and not self._reserved.isdisjoint(
            spelling("\x00".join(values)).split("\x00")
        )

    def learn(self, text: str, keyed: tuple[str, list[Slot]], statement: ast.Statement) -> None:
        """After a full parse of ``text``: learn its shape if it provably is one (module doc)."""
        key, slots = keyed
        if self._spells_a_word([s.value for s in slots]):
            return  # such a text is never answered by a shape (lookup): it teaches none either
        with self._lock:  # a shape seen once may never come back: probe it on its second sighting
            if self._seen.pop(key) is None:
                self._seen.put(key, True)
                return
        variant = self._variant(text, slots, statement)
        if variant is None:
            return
        with self._lock:
            known = self._shapes.peek(key) or ()
            if len(known) >= MAX_VARIANTS:
                return
            self._shapes.put(key, (*known, variant))
            self.learnt += 1

    def _variant(self, text: str, slots: list[Slot], statement: ast.Statement) -> Variant | None:
        fixed: set[int] = set()
        values = [s.value for s in slots]
        for _ in range(_PROBE_ROUNDS):
            try:
                probed = self._parse(_probe_text(text, slots, fixed))
            # a probe that does not parse: this text is not a shape
            except Exception:  # noqa: BLE001
                return None
            probes = {_probe(i): i for i in range(len(slots)) if i not in fixed}
            found: set[int] = set()
            tainted: set[int] = set()
            try:
                fill, _ = _compile(probed, probes, found, tainted)
            except _NotShapeable:
                return None
            missing = (set(probes.values()) - found) | tainted
            if missing:  # changed by the transformer (or not in the statement): keep as written
                fixed |= missing
                continue
            filler: Filler = fill if fill is not None else _constant(probed)
            try:
                if not same_statement(filler(values), statement):
                    return None
            except Exception:  # noqa: BLE001 - a statement class that refuses the values back
                return None
            return Variant(tuple(sorted((i, values[i]) for i in fixed)), filler)
        return None

    def clear(self) -> None:
        with self._lock:
            self._shapes.clear()
            self._seen.clear()
            self.hits = self.learnt = 0
