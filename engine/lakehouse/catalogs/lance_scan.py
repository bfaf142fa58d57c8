"""The filter DuckDB pushes into a Lance scan, respelt so that Lance's scalar indexes answer it.

DuckDB hands a registered pyarrow Dataset its filter as a ``pyarrow.compute.Expression`` (facts
in docs/upstream-facts.md). Lance plans a BTREE/BITMAP lookup for ``(id == 5)`` and ranges in that
form, but not for DuckDB's IN, which arrives as ``if_else(is_valid(id), is_in(id, {value_set=…}),
null)`` (the NULL-preserving form), nor for anything combined with it: such a filter is evaluated
row by row over a full scan. Given the same predicate as Lance SQL (``id IN (…)``, ``NOT``,
``IS NULL``, ``AND``/``OR``) Lance answers it from the index.

pyarrow offers no way to walk an Expression, so its text is read: a small grammar of exactly the
forms DuckDB produces for integer columns — comparisons with an integer constant, AND, OR, NOT,
IS [NOT] NULL and the IN form above. Whatever is read is rebuilt as an Expression (constants typed
as their column) and used only if it *equals* the pushed one, so a misreading can never change an
answer; anything else (strings, floats, dates, long IN lists that pyarrow prints abridged, a name
that is not a plain identifier) is passed on unchanged, as before. The rebuilt tree is then spelt
as Lance SQL with the same semantics: Arrow's comparisons, Kleene AND/OR and ``invert`` are SQL's,
and DuckDB's IN form is SQL's ``IN`` for a list without NULL (DuckDB never pushes an IN whose list
holds NULL).

Strings are left alone on purpose: under drydock's case- and accent-insensitive default collation
DuckDB pushes no string comparison at all, and the exact comparisons it does push (``COLLATE
utf8mb4_bin``) already reach Lance in a form its index planner reads.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pds

if TYPE_CHECKING:
    import lance

_TOKEN = re.compile(r"\s*(?:(-?\d+)|([A-Za-z_]\w*)|(==|!=|<=|>=|[<>(),{}\[\]:=]))", re.ASCII)
_COMPARISONS: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "==": ("=", operator.eq),
    "!=": ("<>", operator.ne),
    "<": ("<", operator.lt),
    "<=": ("<=", operator.le),
    ">": (">", operator.gt),
    ">=": (">=", operator.ge),
}
_INT64 = (-(1 << 63), (1 << 63) - 1)


class Unreadable(ValueError):
    """The pushed filter is not one of the forms this module reads; it is passed on unchanged."""


@dataclass(frozen=True)
class Compare:
    column: str
    op: str  # Arrow's spelling: == != < <= > >=
    value: int


@dataclass(frozen=True)
class Logical:
    op: str  # and | or
    left: Node
    right: Node


@dataclass(frozen=True)
class Not:
    operand: Node


@dataclass(frozen=True)
class NullTest:
    column: str
    is_null: bool


@dataclass(frozen=True)
class InList:
    column: str
    values: tuple[int, ...]


Node = Compare | Logical | Not | NullTest | InList


# -- reading the Expression's text
# --------------------------------------------------------------------------
class _Tokens:
    def __init__(self, text: str):
        self._items = list(_tokenize(text))
        self._at = 0

    def peek(self, ahead: int = 0) -> str | None:
        at = self._at + ahead
        return self._items[at] if at < len(self._items) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise Unreadable("unexpected end")
        self._at += 1
        return token

    def expect(self, *tokens: str) -> None:
        for token in tokens:
            if self.take() != token:
                raise Unreadable(f"expected {token}")

    def word(self) -> str:
        token = self.take()
        if not (token[0].isalpha() or token[0] == "_"):
            raise Unreadable("expected a name")
        return token

    def integer(self) -> int:
        token = self.take()
        if not token.lstrip("-").isdigit():
            raise Unreadable("expected an integer")
        value = int(token)
        if not _INT64[0] <= value <= _INT64[1]:
            raise Unreadable("integer out of range")
        return value

    def done(self) -> bool:
        return self._at == len(self._items)


def _tokenize(text: str) -> Iterator[str]:
    at, end = 0, len(text.rstrip())
    while at < end:
        match = _TOKEN.match(text, at)
        if match is None:
            raise Unreadable(f"unexpected text at {at}")
        yield match.group(match.lastindex or 0)
        at = match.end()


def read(text: str) -> Node:
    """The tree of an Expression's text, or :class:`Unreadable`."""
    tokens = _Tokens(text)
    node = _read(tokens)
    if not tokens.done():
        raise Unreadable("trailing text")
    return node


def _read(tokens: _Tokens) -> Node:
    head = tokens.take()
    if head == "(":
        if tokens.peek(1) in _COMPARISONS:
            column, op = tokens.word(), tokens.take()
            node: Node = Compare(column, op, tokens.integer())
        else:
            left = _read(tokens)
            op = tokens.take()
            if op not in ("and", "or"):
                raise Unreadable("expected and/or")
            node = Logical(op, left, _read(tokens))
        tokens.expect(")")
        return node
    if head == "invert":
        tokens.expect("(")
        inner = _read(tokens)
        tokens.expect(")")
        return Not(inner)
    if head == "is_null":
        tokens.expect("(")
        column = tokens.word()
        tokens.expect(",", "{", "nan_is_null", "=", "false", "}", ")")
        return NullTest(column, True)
    if head == "is_valid":
        tokens.expect("(")
        column = tokens.word()
        tokens.expect(")")
        return NullTest(column, False)
    if head == "if_else":
        return _read_in(tokens)
    raise Unreadable(f"unknown form {head}")


def _read_in(tokens: _Tokens) -> InList:
    """``if_else(is_valid(c), is_in(c, {value_set=T:[v, …], null_matching_behavior=MATCH}),
    null[bool])`` — DuckDB's IN, which keeps SQL's NULL for a NULL row."""
    tokens.expect("(", "is_valid", "(")
    column = tokens.word()
    tokens.expect(")", ",", "is_in", "(")
    if tokens.word() != column:
        raise Unreadable("is_in of another column")
    tokens.expect(",", "{", "value_set", "=")
    tokens.word()  # the value type; the rebuilt Expression checks it against the column's
    tokens.expect(":", "[")
    values = [tokens.integer()]
    while tokens.peek() == ",":
        tokens.take()
        values.append(tokens.integer())
    tokens.expect("]", ",", "null_matching_behavior", "=", "MATCH", "}", ")", ",")
    tokens.expect("null", "[", "bool", "]", ")")
    return InList(column, tuple(values))


# -- checking the reading, and spelling it for Lance
# --------------------------------------------------------
def rebuild(node: Node, schema: pa.Schema) -> pc.Expression:
    """The Expression ``node`` reads as, constants typed as their columns; :class:`Unreadable` for
    a column that is not a top-level integer column of ``schema``."""
    if isinstance(node, Logical):
        left, right = rebuild(node.left, schema), rebuild(node.right, schema)
        return left & right if node.op == "and" else left | right
    if isinstance(node, Not):
        return ~rebuild(node.operand, schema)
    field, kind = _integer_column(node.column, schema)
    if isinstance(node, NullTest):
        return field.is_null() if node.is_null else field.is_valid()
    if isinstance(node, Compare):
        return _COMPARISONS[node.op][1](field, pa.scalar(node.value, kind))
    member = pc.is_in(field, value_set=pa.array(node.values, kind))
    return pc.if_else(field.is_valid(), member, pa.scalar(None, pa.bool_()))


def _integer_column(name: str, schema: pa.Schema) -> tuple[pc.Expression, pa.DataType]:
    index = schema.get_field_index(name)  # -1 for a missing or repeated name
    if index < 0 or not pa.types.is_integer(schema.field(index).type):
        raise Unreadable(f"{name} is not an integer column")
    return pc.field(name), schema.field(index).type


def lance_name(name: str) -> str:
    """A column name as Lance's filter parser reads it: backquoted, a backquote doubled."""
    return "`" + name.replace("`", "``") + "`"


def lance_sql(node: Node) -> str:
    """``node`` as a Lance SQL filter with the same semantics (names always backquoted)."""
    if isinstance(node, Logical):
        return f"({lance_sql(node.left)} {node.op.upper()} {lance_sql(node.right)})"
    if isinstance(node, Not):
        return f"(NOT {lance_sql(node.operand)})"
    name = lance_name(node.column)
    if isinstance(node, NullTest):
        return f"({name} IS {'' if node.is_null else 'NOT '}NULL)"
    if isinstance(node, Compare):
        return f"({name} {_COMPARISONS[node.op][0]} {node.value})"
    return f"({name} IN ({', '.join(str(v) for v in node.values)}))"


def index_filter(pushed: Any, schema: pa.Schema) -> Any:
    """What to give ``LanceDataset.scanner(filter=…)`` for DuckDB's ``pushed`` filter: Lance SQL
    that its index planner reads, or ``pushed`` itself when it is not a form read here."""
    if not isinstance(pushed, pc.Expression):
        return pushed
    try:
        node = read(str(pushed))
        if not rebuild(node, schema).equals(pushed):
            return pushed
    except Unreadable:
        return pushed
    return lance_sql(node)


def indexed_scanner(ds: lance.LanceDataset, *args: Any, **kwargs: Any) -> Any:
    """``ds.scanner(...)`` with the filter respelt by :func:`index_filter`."""
    if kwargs.get("filter") is not None:
        kwargs["filter"] = index_filter(kwargs["filter"], ds.schema)
    return ds.scanner(*args, **kwargs)


class IndexedScan(pds.Dataset):
    """A Lance dataset as DuckDB scans it: still a pyarrow Dataset (DuckDB keeps pushing projections
    and filters into ``scanner``), with the pushed filter respelt for Lance's scalar indexes."""

    def __init__(self, ds: lance.LanceDataset):  # pyarrow's own __init__ is for its C++ datasets
        self.lance_dataset = ds

    @property
    def schema(self) -> pa.Schema:  # type: ignore[override]
        return self.lance_dataset.schema

    def scanner(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return indexed_scanner(self.lance_dataset, *args, **kwargs)

    def count_rows(self, **kwargs: Any) -> int:  # type: ignore[override]
        return int(self.lance_dataset.count_rows(**kwargs))
