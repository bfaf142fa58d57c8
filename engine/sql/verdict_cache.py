"""DuckDB's own parse of a statement's final text checked against what was authorized
(:func:`verify`, engine/sql/sql_relations.py ``verify_with_duckdb``), and the cache of the texts
that passed (the verdict cache)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlglot import exp

from drydock.engine.sql.sql_relations import RESERVED_PREFIX, verify_with_duckdb
from drydock.engine.support.lru import Lru
from drydock.grammar.lexer import constants_abstracted


class _VerdictCache:
    """Final texts (with their authorized relation sets) DuckDB's parse already confirmed."""

    def __init__(self, size: int = 2048, max_text: int = 8192):
        self._max_text = max_text
        self._items: Lru[tuple[str, frozenset[tuple[str, str]]], None] = Lru(size)
        self._lock = threading.Lock()

    def hit(self, key: tuple[str, frozenset[tuple[str, str]]]) -> bool:
        with self._lock:
            return self._items.touch(key)

    def add(self, key: tuple[str, frozenset[tuple[str, str]]]) -> None:
        if len(key[0]) > self._max_text:
            return
        with self._lock:
            self._items.put(key, None)


_VERIFIED = _VerdictCache()


def verdict_text(sql: str) -> str:
    """``sql`` with each plain number and string constant replaced by a marker (grammar/lexer.py
    ``constants_abstracted``); a string naming a reserved relation is kept as written (DuckDB
    reads a string in FROM as a replacement scan, and drydock's own bindings pass the check by
    name)."""
    return constants_abstracted(sql, RESERVED_PREFIX)


def verify(
    expression: exp.Expr,
    sql: str,
    authorized: set[tuple[str, str]],
    serialize: Callable[[str], str],
) -> None:
    """DuckDB's own parse of every query in the final text ``sql`` names only what was
    authorized (engine/sql/sql_relations.py); DuckDB serializes SELECTs only, so each query part
    of an INSERT/CREATE/UPDATE/DELETE is checked on its own. A verdict depends only on the
    text and the authorized set, so passing ones are remembered (bounded LRU), keyed by the
    text with its constants abstracted (:func:`verdict_text`)."""
    key_set = frozenset(authorized)
    for query in _query_parts(expression):
        text = sql if query is expression else query.sql(dialect="duckdb")
        key = (verdict_text(text), key_set)
        if _VERIFIED.hit(key):
            continue
        verify_with_duckdb(serialize, text, authorized)
        _VERIFIED.add(key)


def _query_parts(expression: exp.Expr) -> list[exp.Expr]:
    """The outermost queries in ``expression``: itself when it is one, else each query (SELECT,
    set operation, subquery) not nested in another."""
    if isinstance(expression, _QUERIES):
        return [expression]
    if isinstance(expression, exp.Describe):
        return _query_parts(expression.this)
    parts: list[exp.Expr] = []
    for node in expression.iter_expressions():
        parts.extend(_query_parts(node))
    return parts


_QUERIES = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)
