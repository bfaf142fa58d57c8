"""The generated DuckDB text of a plain query, kept per statement shape (bench/README.md).

A query of a known shape (grammar/shapes.py) differs from the earlier ones only in its plain
literals, yet every execution copies, binds, resolves, authorizes, adapts and generates it again.
Here the final DuckDB text is kept as a *template*: the text cut at each literal slot's rendering,
so that an execution only fills in its own renderings and runs the text.

The key is everything generation reads besides the literals: the shape, each slot's value class
(:func:`value_class`), the session's catalog, database and account, every session variable, the
grant revision (engine/security/privileges.py: a GRANT / REVOKE / role change reloads) and the
DDL generation of the internal catalog (engine/sql/table_traits.py). Nothing is cached or used in
an open transaction (its own DDL is not yet in the generation).

The proof a template needs, made when its key is first seen (:func:`learn`): the statement is
generated twice more with a different, unique probe value in every slot (same value class), and
the three texts must be one template — each probe rendering found exactly once, the texts equal
everywhere else, and the real text equal to the template filled with the real renderings. A
value class holds values the adapters cannot tell apart: an integer of a given length (not 0),
a decimal of given lengths (not 0), a string of letters and single spaces (no digits, no LIKE
wildcards, no NULL/TRUE-like words), a digit string of a given length, a valid ``YYYY-MM-DD``
date. Anything else — a literal in the result's columns, session values (``@v``, ``USER()``),
external or information_schema relations, searches, runtime warnings, a statement that ran
something besides its text — is never cached (kept as ``None``: generated every time).

Security: the template is keyed on the grant revision and the account, and DuckDB's verdict on
the final text is still checked per execution (engine/sql/verdict_cache.py, a cache hit).
"""

from __future__ import annotations

import datetime
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from drydock.engine.errors import DrydockError
from drydock.engine.results import Result
from drydock.engine.support.lru import Lru
from drydock.grammar import shapes

# Switch: DRYDOCK_SHAPE_TEXT_CACHE=0 starts every engine with the cache off; tests and
# bench/bench_shape_cache.py flip ``TextCache.enabled`` on a live engine.
ENABLED_BY_DEFAULT = os.environ.get("DRYDOCK_SHAPE_TEXT_CACHE", "1") != "0"
MAX_TEMPLATES = 1024
# Errors of a cached run that are the statement's answer as they are: interrupted (KILL QUERY)
# or past max_execution_time. Any other error is worded by the full path instead.
FINAL_ERRORS = frozenset({1317, 3024})

ValueClass = tuple[Any, ...]


@dataclass(frozen=True)
class Template:
    parts: tuple[str, ...]  # the text between the slots' renderings, in text order
    order: tuple[int, ...]  # the slot rendered in each gap
    planned: Any  # result_origins' plan (defined), for the result's column definitions
    authorized: frozenset[tuple[str, str]]
    final: exp.Expr  # the generated statement of the learning run: error context only

    def fill(self, renderings: list[str]) -> str:
        out = [self.parts[0]]
        for slot, part in zip(self.order, self.parts[1:]):
            out.append(renderings[slot])
            out.append(part)
        return "".join(out)


@dataclass
class Generated:
    """What QuerySession._run generated for one statement, recorded just before it runs."""

    final: exp.Expr
    sql: str
    planned: Any
    authorized: frozenset[tuple[str, str]]
    clean: bool  # nothing but ``sql`` runs, and nothing per execution besides it was made


class DryRun(Exception):
    """Raised by a recording session in dry mode instead of running the generated text."""

    def __init__(self, generated: Generated):
        super().__init__("dry run")
        self.generated = generated


@dataclass
class Recorder:
    dry: bool
    generated: Generated | None = None

    def record(self, generated: Generated) -> None:
        if self.dry:
            raise DryRun(generated)
        self.generated = generated


class TextCache:
    """Key → :class:`Template` (or None: generated every time), one per QueryEngine."""

    def __init__(self, size: int = MAX_TEMPLATES):
        self.enabled = ENABLED_BY_DEFAULT
        self._items: Lru[tuple[Any, ...], Template | None] = Lru(size)
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: tuple[Any, ...]) -> tuple[bool, Template | None]:
        with self._lock:
            if not self._items.touch(key):
                return False, None
            return True, self._items.peek(key)

    def put(self, key: tuple[Any, ...], template: Template | None) -> None:
        with self._lock:
            self._items.put(key, template)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


# -- value classes ------------------------------------------------------------------------------
_LETTERS = re.compile(r"[^\W\d_]+(?: [^\W\d_]+)*")
_WORDS = frozenset({"null", "true", "false", "unknown", "on", "off", "yes", "no", "default"})
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ASCII_DIGITS = re.compile(r"[1-9][0-9]{0,8}")


def value_class(literal: exp.Literal) -> ValueClass | None:
    """The class of a slot's value (see the module doc), or None: not cacheable."""
    value = str(literal.this)
    if not literal.is_string:
        whole, dot, fraction = value.partition(".")
        if not _ASCII_DIGITS.fullmatch(whole) and not (dot and whole == "0"):
            return None  # 0, leading zeros, over 9 digits
        if dot:
            if not re.fullmatch(r"[0-9]{1,9}", fraction) or set(value) <= {"0", "."}:
                return None
            return ("d", len(whole), len(fraction))
        return ("i", len(whole))
    if _LETTERS.fullmatch(value):
        lowered = value.lower()
        if lowered in _WORDS or "schemata" in lowered:
            return None
        return ("t",)
    if _ASCII_DIGITS.fullmatch(value):
        return ("sd", len(value))
    if _DATE.fullmatch(value):
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return None
        return ("date",)
    return None


def _digits(n: int, k: int) -> str:
    return str(10 ** (n - 1) + (k * 2_654_435_761 + 12_345) % (9 * 10 ** (n - 1)))


def _letters(k: int) -> str:
    out = ""
    while True:
        out += "abcdefghijklmnopqrstuvwxyz"[k % 26]
        k //= 26
        if not k:
            return "zqprobe" + out + "zq"


def probe_value(cls: ValueClass, slot: int, probe_set: int) -> str:
    k = slot * 2 + probe_set + 1
    kind = cls[0]
    if kind == "i":
        return _digits(cls[1], k)
    if kind == "d":
        return _digits(cls[1], k) + "." + _digits(cls[2], k + 7)
    if kind == "t":
        return _letters(k)
    if kind == "sd":
        return _digits(cls[1], k)
    day = datetime.date(2091, 1, 1) + datetime.timedelta(days=k * 37)
    return day.isoformat()


def rendering(is_string: bool, value: str) -> str:
    """A slot's DuckDB rendering (the classes hold no quote or backslash)."""
    return f"'{value}'" if is_string else value


# -- the execution's side ---------------------------------------------------------------------
@dataclass
class Lookup:
    """One statement's slots and key; ``template`` set on a hit."""

    cache: TextCache
    key: tuple[Any, ...]
    slots: list[exp.Literal]
    classes: list[ValueClass]
    template: Template | None = None
    learning: bool = False  # a miss: the run is recorded and learnt from
    original: exp.Expr | None = None  # a copy as it arrived, to learn from on a miss
    recorder: Recorder = field(default_factory=lambda: Recorder(dry=False))

    def renderings(self) -> list[str]:
        return [rendering(s.is_string, str(s.this)) for s in self.slots]


def lookup(expression: exp.Expr, ctx: Any, revision: int) -> Lookup | None:
    """The cache's answer for ``expression`` (as it reaches engine/statements/sql.py run_query),
    or None when it is not a candidate. A miss starts recording the run's generated text."""
    query = ctx.query
    cache: TextCache | None = getattr(query, "text_cache", None)
    if cache is None or not cache.enabled:
        return None
    if query.recorder is not None:
        if query.recorder.dry:
            return None  # a learning run's own probe
        query.recorder = None  # left by a statement that failed before it learnt
    serial = expression.meta.get(shapes.SHAPE_SERIAL)
    if serial is None or type(expression) is not exp.Select or query.in_transaction:
        return None
    slots = _slots(expression, int(expression.meta.get(shapes.SHAPE_SLOTS, -1)))
    if slots is None:
        return None
    classes = []
    for node in slots:
        cls = value_class(node)
        if cls is None:
            return None
        classes.append(cls)
    try:
        variables = ctx.variables
        session = tuple(sorted(variables._values.items())) if variables is not None else ()
        key = (
            serial,
            tuple(classes),
            ctx.catalog,
            ctx.database,
            ctx.user,
            ctx.host,
            ctx.account_host,
            session,
            revision,
            query.ddl_generation,
        )
        hash(key)
    except (AttributeError, TypeError):  # a variables object of another kind, unhashable value
        return None
    known, template = cache.get(key)
    found = Lookup(cache, key, slots, classes, template)
    if template is None and not known:
        found.learning = True
        found.original = expression.copy()
        query.recorder = found.recorder
    return found if (template is not None or not known) else None


def _slots(expression: exp.Expr, count: int) -> list[exp.Literal] | None:
    if count < 0:
        return None
    found: list[exp.Literal | None] = [None] * count
    for node in expression.find_all(exp.Literal):
        slot = node.meta.get(shapes.SLOT)
        if slot is None:
            continue
        if found[slot] is not None:
            return None
        found[slot] = node
    if any(node is None for node in found):
        return None
    return found  # type: ignore[return-value]


def answer(found: Lookup | None, ctx: Any, stream: bool) -> Result | None:
    """The result of a hit, run from its filled template; None on a miss, or when the run
    failed with an error the full path words from its own tree (the statement only read, outside
    a transaction: it runs again that way). KILL QUERY and max_execution_time are final."""
    if found is None or found.template is None:
        return None
    sql = found.template.fill(found.renderings())
    found.cache.hits += 1
    try:
        return ctx.query.run_template(found.template, sql, ctx, stream)  # type: ignore[no-any-return]
    except DrydockError as error:
        if error.code in FINAL_ERRORS or ctx.query.in_transaction:
            raise
        return None


def learn(
    found: Lookup,
    ctx: Any,
    run: Callable[[exp.Expr], object],
    has_session_values: Callable[[exp.Expr], bool],
) -> None:
    """After a miss ran: keep its template when the proof holds, else None (never again).
    ``run`` runs a statement as engine/statements/sql.py run_query does (a probe stops at
    :class:`DryRun`); ``has_session_values``: whether binding session values changes a tree."""
    if not found.learning:
        return
    query = ctx.query
    query.recorder = None
    real = found.recorder.generated
    original = found.original
    template = None
    if (
        real is not None
        and real.clean
        and original is not None
        and not has_session_values(original)
        and not _in_projection(original)
    ):
        template = _prove(found, original, real, query, run)
    found.cache.put(found.key, template)


def _in_projection(expression: exp.Expr) -> bool:
    """A slot in the outermost SELECT's columns: their labels and types follow the values."""
    assert isinstance(expression, exp.Select)
    return any(
        node.meta.get(shapes.SLOT) is not None
        for projection in expression.expressions
        for node in projection.find_all(exp.Literal)
    )


def _prove(
    found: Lookup,
    original: exp.Expr,
    real: Generated,
    query: Any,
    run: Callable[[exp.Expr], object],
) -> Template | None:
    texts: list[tuple[str, list[str]]] = []
    for probe_set in (0, 1):
        tree = original.copy()
        slots = _slots(tree, len(found.slots))
        if slots is None:
            return None
        renderings = []
        for i, (node, cls) in enumerate(zip(slots, found.classes)):
            value = probe_value(cls, i, probe_set)
            node.set("this", value)
            renderings.append(rendering(node.is_string, value))
        generated = _generate(query, tree, run)
        if generated is None or not generated.clean:
            return None
        texts.append((generated.sql, renderings))
    if texts[0][1] == texts[1][1] or any(
        a == b for a, b in zip(texts[0][1], texts[1][1])
    ):  # two probes of one slot must differ
        return None
    strings = [node.is_string for node in found.slots]
    cut = _cut(*texts[0], strings)
    if cut is None or _cut(*texts[1], strings) != cut:
        return None
    template = Template(cut[0], cut[1], real.planned, real.authorized, real.final)
    if template.fill(found.renderings()) != real.sql:
        return None
    return template


def _generate(query: Any, tree: exp.Expr, run: Callable[[exp.Expr], object]) -> Generated | None:
    """What the statement pipeline generates for ``tree``, nothing run."""
    query.recorder = Recorder(dry=True)
    try:
        run(tree)
    except DryRun as dry:
        return dry.generated
    except Exception:  # noqa: BLE001 - a probe that fails to generate only means no template
        return None
    finally:
        query.recorder = None
    return None


def _cut(
    sql: str, renderings: list[str], strings: list[bool]
) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``sql`` cut at each rendering, found exactly once (a number as a whole token)."""
    places: list[tuple[int, int, int]] = []
    for slot, (text, is_string) in enumerate(zip(renderings, strings)):
        pattern = re.escape(text) if is_string else rf"(?<![\w.]){re.escape(text)}(?![\w.])"
        hits = [m.start() for m in re.finditer(pattern, sql)]
        if len(hits) != 1:
            return None
        places.append((hits[0], hits[0] + len(text), slot))
    places.sort()
    parts, order, last = [], [], 0
    for start, end, slot in places:
        if start < last:
            return None
        parts.append(sql[last:start])
        order.append(slot)
        last = end
    parts.append(sql[last:])
    return tuple(parts), tuple(order)
