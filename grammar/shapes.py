"""Statement shapes: one parse per shape of a plain-SQL query, literal values bound per execution.

Clients repeat statements that differ only in their literal values (``… WHERE id = 17``,
``… WHERE id = 18``). :func:`shape_of` reads a statement text once (linear, no sqlglot) and gives
its *shape key* — the text with each plain number (``17``, ``1.5``) and each plain single-quoted
string (``'abc'``, no backslash, no doubled quote, no introducer) replaced by a marker — and the
literals it took out. A :class:`Shape` is the parse of one text of that shape with every literal
at a known place in the tree; an execution copies the tree and sets its own values there, and
its own column labels.

A shape is only kept when that is provably the parse: a text of the shape with a different,
unique probe value in every slot is parsed too, the slots are found by those values (exactly one
node each, a plain ``Literal`` in a context whose parse never depends on the value), and the
shape filled with the original values must equal the original parse (tree and generated SQL).
Anything else — a literal the parser turns into something other than a ``Literal`` (JSON paths,
time formats, intervals, ``DECIMAL(10,2)``), a shape that is not a query — is parsed in full
every time, as before. Labels (grammar/sql.py ``label_projections``) are text spans of the
statement: the shape keeps each label as a template over its slots.

Each shape's tree is marked (``SHAPE_SERIAL``, ``SHAPE_SLOTS`` on the root, ``SLOT`` on each
slot's Literal; copies keep them) so that engine/sql/text_cache.py can find the slots again after
the statement's handler has worked on its copy.

Security: what is cached here is a parse only. Every execution still binds session values, resolves
and authorizes the relations and verifies DuckDB's parse of the final text; a literal can never
name a relation or a function.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from drydock.engine.support.lru import Lru
from drydock.grammar import sql as sql_grammar
from drydock.grammar.lexer import BLOCK_COMMENT, LINE_COMMENT, QUOTED

# MySQL lexical units, in the order the scanner tries them. Words include digits, so ``t1``,
# ``1abc`` (a MySQL identifier) and ``x.5`` are never numbers; a number is a whole word.
_MYSQL_TOKENS = re.compile(
    QUOTED["'"]  # single-quoted string (escapes, doubled quotes)
    + "|"
    + QUOTED['"']  # double-quoted string / identifier: kept as written
    + "|"
    + QUOTED["`"]  # quoted identifier
    + "|"
    + BLOCK_COMMENT  # block comment or hint
    + "|"
    + LINE_COMMENT
    + r"|[\w$@.]+",  # a word (identifier, keyword, number, @var, a.b)
    re.DOTALL,
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD_CHAR = re.compile(r"[\w$@.]")
MARKER = "\x00"  # never in a statement we key (texts containing it are not keyed)
MAX_KEY_CHARS = 8192
MAX_LITERALS = 256
# Marks left on a shape's tree (copied with it) for engine/sql/text_cache.py: the root carries
# the shape's serial number and slot count, each slot's Literal node its slot number.
SHAPE_SERIAL = "shape_serial"
SHAPE_SLOTS = "shape_slots"
SLOT = "shape_slot"
_SERIALS = itertools.count(1)


@dataclass(frozen=True)
class Literal:
    start: int
    end: int
    is_string: bool
    value: str  # the literal's value: the number as written, the string without quotes


def shape_of(text: str) -> tuple[str, list[Literal]] | None:
    """(shape key, literals) of ``text``, or None when the text is not keyed (see module doc)."""
    if len(text) > MAX_KEY_CHARS or MARKER in text:
        return None
    parts: list[str] = []
    literals: list[Literal] = []
    last = 0
    for m in _MYSQL_TOKENS.finditer(text):
        token = m.group(0)
        first = token[0]
        if first == "'":
            inner = token[1:-1]
            if (
                len(token) < 2
                or token[-1] != "'"
                or "\\" in inner
                or "'" in inner
                or (m.start() and _WORD_CHAR.match(text, m.start() - 1))
            ):
                continue  # escapes, introducers (_utf8'x', X'ff'), unterminated: kept as written
            literals.append(Literal(m.start(), m.end(), True, inner))
        elif first.isdigit() and _NUMBER.fullmatch(token):
            literals.append(Literal(m.start(), m.end(), False, token))
        else:
            continue
        parts.append(text[last : m.start()])
        parts.append(MARKER + ("s" if literals[-1].is_string else "n"))
        last = m.end()
        if len(literals) > MAX_LITERALS:
            return None
    parts.append(text[last:])
    return "".join(parts), literals


def render(literal_is_string: bool, value: str) -> str:
    return f"'{value}'" if literal_is_string else value


# -- shapes -------------------------------------------------------------------------------------
Path = tuple[tuple[str, int], ...]  # (arg name, index in a list arg or -1) from the root


@dataclass(frozen=True)
class Label:
    """Projection ``index`` of the outermost SELECT is labelled by ``parts``: text, or a slot
    number ``(i, raw)`` — the slot's text as written (raw) or its value."""

    index: int
    parts: tuple[str | tuple[int, bool], ...]


@dataclass(frozen=True)
class Shape:
    tree: exp.Expr  # shared, never mutated: executions work on a copy
    slots: tuple[Path, ...]
    labels: tuple[Label, ...]
    tokens: int  # sqlglot tokens of every text of the shape (the parse budget applies to them)

    def bind(self, literals: list[Literal], text: str) -> exp.Expr:
        """A copy of the tree carrying ``literals`` (of ``text``), with their labels."""
        tree = self.tree.copy()
        for path, literal in zip(self.slots, literals):
            node = _at(tree, path)
            node.set("this", literal.value)
        if self.labels:
            select = sql_grammar.outermost_select(tree)
            assert select is not None
            for label in self.labels:
                alias = select.expressions[label.index]
                alias.set(
                    "alias",
                    exp.to_identifier(
                        "".join(
                            p
                            if isinstance(p, str)
                            else (
                                text[literals[p[0]].start : literals[p[0]].end]
                                if p[1]
                                else literals[p[0]].value
                            )
                            for p in label.parts
                        ),
                        quoted=True,
                    ),
                )
        return tree


def _at(tree: exp.Expr, path: Path) -> exp.Expr:
    node: Any = tree
    for key, index in path:
        node = node.args[key]
        if index >= 0:
            node = node[index]
    return node


def _path(node: exp.Expr) -> Path:
    steps: list[tuple[str, int]] = []
    while node.parent is not None:
        key = node.arg_key
        assert key is not None  # a node with a parent hangs under one of its keys
        value = node.parent.args[key]
        steps.append((key, value.index(node) if isinstance(value, list) else -1))
        node = node.parent
    return tuple(reversed(steps))


# A string literal's value is bound only where the parse never looks into it.
_STRING_PARENTS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
    exp.Tuple,
    exp.Paren,
    exp.Alias,
    exp.Select,
    exp.Coalesce,
    exp.If,
    exp.Case,
    exp.Concat,
    exp.Ordered,
)
# Numbers: anywhere except where they are part of a type or an interval.
_NUMBER_EXCLUDED_PARENTS = (exp.DataType, exp.DataTypeParam, exp.Interval)
_PROBE_NUMBER = 918_273_600_000


def _probe(i: int, literal: Literal) -> Literal:
    if literal.is_string:
        return Literal(0, 0, True, f"zqprobe{i}zq")
    whole = str(_PROBE_NUMBER + i)
    return Literal(0, 0, False, whole + ".5" if "." in literal.value else whole)


def _probe_text(text: str, literals: list[Literal]) -> tuple[str, list[Literal]]:
    parts, probes, last, offset = [], [], 0, 0
    for i, literal in enumerate(literals):
        probe = _probe(i, literal)
        raw = render(probe.is_string, probe.value)
        parts.append(text[last : literal.start])
        start = literal.start + offset
        probes.append(Literal(start, start + len(raw), probe.is_string, probe.value))
        parts.append(raw)
        offset += len(raw) - (literal.end - literal.start)
        last = literal.end
    parts.append(text[last:])
    return "".join(parts), probes


def build(
    text: str,
    literals: list[Literal],
    parsed: exp.Expr,
    parse: Callable[[str], tuple[exp.Expr, int]],
) -> Shape | None:
    """The shape of ``text`` (already parsed as ``parsed``), or None when it cannot be one. Never
    raises: the statement itself parsed, so whatever goes wrong here only means no shape."""
    try:
        return _build(text, literals, parsed, parse)
    except Exception:  # noqa: BLE001 - see the docstring
        return None


def _build(
    text: str,
    literals: list[Literal],
    parsed: exp.Expr,
    parse: Callable[[str], tuple[exp.Expr, int]],
) -> Shape | None:
    if not isinstance(parsed, (exp.Select, exp.Union, exp.Intersect, exp.Except)):
        return None
    probe_text, probes = _probe_text(text, literals)
    probe_tree, tokens = parse(probe_text)
    by_value: dict[tuple[bool, str], list[exp.Literal]] = {}
    for node in probe_tree.find_all(exp.Literal):
        by_value.setdefault((node.is_string, node.this), []).append(node)
    slots: list[Path] = []
    for probe in probes:
        nodes = by_value.get((probe.is_string, probe.value), [])
        if len(nodes) != 1 or type(nodes[0]) is not exp.Literal:
            return None
        parent = nodes[0].parent
        if probe.is_string and not isinstance(parent, _STRING_PARENTS):
            return None
        if not probe.is_string and isinstance(parent, _NUMBER_EXCLUDED_PARENTS):
            return None
        slots.append(_path(nodes[0]))
    shape = Shape(probe_tree, tuple(slots), _labels(probe_tree, probe_text, probes), tokens)
    for i, path in enumerate(slots):
        _at(probe_tree, path).meta[SLOT] = i
    probe_tree.meta[SHAPE_SERIAL] = next(_SERIALS)
    probe_tree.meta[SHAPE_SLOTS] = len(slots)
    bound = shape.bind(literals, text)
    if (
        bound != parsed
        or bound.sql(dialect=sql_grammar.DIALECT) != parsed.sql(dialect=sql_grammar.DIALECT)
        or bound.sql(dialect="duckdb") != parsed.sql(dialect="duckdb")
    ):
        return None
    return shape


def _labels(tree: exp.Expr, text: str, probes: list[Literal]) -> tuple[Label, ...]:
    select = sql_grammar.outermost_select(tree)
    if select is None:
        return ()
    labels: list[Label] = []
    raws = [(i, text[p.start : p.end], p.value) for i, p in enumerate(probes)]
    for index, projection in enumerate(select.expressions):
        alias = projection.args.get("alias") if isinstance(projection, exp.Alias) else None
        if not (isinstance(alias, exp.Identifier) and alias.quoted):
            continue
        label = projection.alias
        if not any(value in label for _, _, value in raws):
            continue
        parts: list[str | tuple[int, bool]] = [label]
        for i, raw, value in raws:  # raw text first: a string's value is inside its raw text
            parts = _split(parts, raw, (i, True))
        for i, _, value in raws:
            parts = _split(parts, value, (i, False))
        labels.append(Label(index, tuple(p for p in parts if p != "")))
    return tuple(labels)


def _split(
    parts: list[str | tuple[int, bool]], needle: str, slot: tuple[int, bool]
) -> list[str | tuple[int, bool]]:
    out: list[str | tuple[int, bool]] = []
    for part in parts:
        if not isinstance(part, str) or needle not in part:
            out.append(part)
            continue
        pieces = part.split(needle)
        for j, piece in enumerate(pieces):
            if j:
                out.append(slot)
            out.append(piece)
    return out


class QueryShapeCache:
    """Shape key → :class:`Shape` (or None: the shape is parsed in full every time), for plain-SQL
    queries. Bounded LRU, shared by all sessions: a shape is a parse, the same for every user.
    (grammar/statement_shapes.py StatementShapeCache does the same for the statements the
    grammar owns, whose slots are names and strings.)"""

    def __init__(self, size: int = 1024):
        self._items: Lru[str, Shape | None] = Lru(size)
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[bool, Shape | None]:
        with self._lock:
            if not self._items.touch(key):
                return False, None
            return True, self._items.peek(key)

    def put(self, key: str, shape: Shape | None) -> None:
        with self._lock:
            self._items.put(key, shape)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
