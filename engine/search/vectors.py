"""Temporary: the query-vector reader (replaced by the vector-values work at merge)."""

from __future__ import annotations

import json
import math

import numpy as np
from sqlglot import exp

from drydock.engine.errors import Errors


def query_vector(node: exp.Expr, dimension: int | None) -> np.ndarray | None:
    values: list[float] | None = None
    if isinstance(node, exp.Array):
        values = []
        for item in node.expressions:
            negative = isinstance(item, exp.Neg)
            inner = item.this if negative else item
            if not isinstance(inner, exp.Literal) or inner.is_string:
                return None
            values.append(-float(inner.name) if negative else float(inner.name))
    elif isinstance(node, exp.Literal) and node.is_string:
        try:
            parsed = json.loads(node.name)
        except ValueError:
            parsed = None
        if not isinstance(parsed, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in parsed
        ):
            raise Errors.SEARCH_ARGUMENT.error(where="vector", detail=node.name[:64])
        values = [float(v) for v in parsed]
    if values is None:
        return None
    if any(not math.isfinite(v) for v in values):
        raise Errors.SEARCH_ARGUMENT.error(where="vector", detail="NaN")
    if dimension is not None and len(values) != dimension:
        raise Errors.SEARCH_ARGUMENT.error(
            where="vector", detail=f"dimensions differ: {dimension} vs {len(values)}"
        )
    return np.asarray(values, dtype=np.float32)
