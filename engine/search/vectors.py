"""Constant query vectors read from the AST, for the search planner.

:func:`query_vector` reads the forms a user writes a query vector in — an array literal
``[0.1, -0.2]``, a string ``'[0.1,-0.2]'`` (one bound parameter) or ``STRING_TO_VECTOR('[…]')`` —
with the rules the SQL functions follow (engine/search/vector_functions.py): the same typed
errors for text that is no vector, a NULL, NaN or infinite element, an element past float32's
range, and a dimension that differs from the column's (the message names both).
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.grammar.sql import DIALECT

_FLOAT32_MAX = float(np.finfo(np.float32).max)
# '[' numbers separated by commas ']', white space anywhere between the tokens
_NUMBER = r"\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|nan|inf|infinity)\s*"
_VECTOR_TEXT = re.compile(rf"\[(?:{_NUMBER}(?:,{_NUMBER})*)?\]", re.IGNORECASE)
_SHOWN = 100  # characters of a bad value an error message repeats


def parse_vector_text(text: str) -> list[float]:
    """``'[1, -2.5, 3e2]'`` → [1.0, -2.5, 300.0]; text of any other form is Errors.INVALID_VECTOR,
    as is a NaN or infinite element, one past float32's range, or no element at all."""
    return list(_parsed(text))


@functools.lru_cache(maxsize=64)  # one statement reads its query vector several times
def _parsed(text: str) -> tuple[float, ...]:
    stripped = text.strip()
    if not _VECTOR_TEXT.fullmatch(stripped):
        raise Errors.INVALID_VECTOR.error(value=text[:_SHOWN])
    inner = stripped[1:-1].strip()
    values = [float(part) for part in inner.split(",")] if inner else []
    _check(values, text)
    return tuple(values)


def _check(values: list[float], shown: str) -> None:
    if not values or not all(math.isfinite(v) and abs(v) <= _FLOAT32_MAX for v in values):
        raise Errors.INVALID_VECTOR.error(value=shown[:_SHOWN])


def query_vector(node: exp.Expr, dimension: int | None) -> np.ndarray | None:
    """The float32 vector ``node`` spells, or None when it is not a constant vector (a column, a
    call of anything else). ``dimension``: the column's, checked when given."""
    values = constant_values(node)
    if values is None:
        return None
    if dimension is not None and len(values) != dimension:
        raise Errors.VECTOR_DIMENSIONS_DIFFER.error(
            first="column",
            first_dim=dimension,
            second="query vector",
            second_dim=len(values),
        )
    return np.asarray(values, dtype=np.float32)


def constant_values(node: exp.Expr) -> list[float] | None:
    """The elements (float64, as written) of the constant vector ``node`` spells, None when it
    spells none; the errors of :func:`query_vector` but for the dimension."""
    if isinstance(node, exp.Paren):
        return constant_values(node.this)
    if isinstance(node, exp.Array):
        return _array_values(node)
    if isinstance(node, exp.Literal) and node.is_string:
        return parse_vector_text(node.name)
    if (
        isinstance(node, exp.Anonymous)
        and str(node.name).upper() in ("STRING_TO_VECTOR", "TO_VECTOR")
        and len(node.expressions) == 1
    ):
        argument = node.expressions[0]
        if isinstance(argument, exp.Literal) and argument.is_string:
            return parse_vector_text(argument.name)
        if isinstance(argument, exp.Null):
            raise Errors.INVALID_VECTOR.error(value="NULL")
    return None


def _array_values(node: exp.Array) -> list[float] | None:
    values: list[float] = []
    for element in node.expressions:
        value = _number(element)
        if value is None:
            if isinstance(element, exp.Null):
                raise Errors.INVALID_VECTOR.error(value=node.sql(dialect=DIALECT)[:_SHOWN])
            return None  # an element that is no constant number: not a constant vector
        values.append(value)
    _check(values, node.sql(dialect=DIALECT))
    return values


def _number(node: exp.Expr) -> float | None:
    if isinstance(node, exp.Neg):
        inner = _number(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Paren):
        return _number(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.name)
        except ValueError:
            return None
    return None
