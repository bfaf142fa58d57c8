"""JSON documents as MySQL 8 reads and prints them, for the Python JSON functions
(engine/sql/mysql_json.py, engine/sql/mysql_json_modify.py) and the wire's JSON columns.

MySQL stores JSON normalized (MySQL 8.0 manual 13.5 "The JSON Data Type"): an object's keys are
unique (the last duplicate wins) and sorted, shorter keys first, then by their bytes; it prints
a document with one space after each ``,`` and ``:`` (``{"a": 1, "b": [1, 2]}``). MariaDB keeps
the written key order; drydock follows MySQL 8.

A function's error is raised as :class:`JsonError`, whose text names an ``Errors`` entry and its
parameters; engine/sql/duckdb_errors.py turns the DuckDB error that carries it back into that
typed MySQL error (3141 invalid JSON text, 3143 invalid path, …).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

ERROR_PREFIX = "drydock JSON error "
ERROR_PATTERN = re.compile(re.escape(ERROR_PREFIX) + r"(?P<name>[A-Z_]+) (?P<params>\{.*\})")


class JsonError(ValueError):
    """A MySQL JSON error: ``name`` is the ``Errors`` entry, ``params`` its template's values."""

    def __init__(self, name: str, **params: Any) -> None:
        super().__init__(f"{ERROR_PREFIX}{name} {json.dumps(params)}")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(sorted(dict(pairs).items(), key=lambda kv: _key_order(kv[0])))


def _key_order(key: str) -> tuple[int, bytes]:
    raw = key.encode("utf-8")
    return len(raw), raw


def normalized(value: Any) -> Any:
    """``value`` with every object's keys in MySQL's order (for values built in Python)."""
    if isinstance(value, dict):
        return _object([(k, normalized(v)) for k, v in value.items()])
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def parse(text: str, argument: int, function: str) -> Any:
    """The document ``text`` (argument ``argument`` of ``function``), normalized; 3141 if it is
    not JSON."""
    try:
        return json.loads(text, object_pairs_hook=_object)
    except ValueError as exc:
        reason = getattr(exc, "msg", "The document is not valid JSON")
        position = getattr(exc, "pos", 0)
        raise JsonError(
            "INVALID_JSON_TEXT",
            argument=argument,
            function=function,
            reason=reason,
            position=position,
        ) from None


def valid(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _number(value: float) -> str:
    if math.isinf(value) or math.isnan(value):
        return "null"
    return repr(value).replace("e+", "e")  # MySQL prints 1e20, not 1e+20


def dumps(value: Any) -> str:
    """``value`` as MySQL prints a JSON value: ``{"a": 1, "b": [1, 2]}``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{dumps(str(k))}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def mysql_text(text: str) -> str:
    """A JSON text (DuckDB prints ``{"a":1}``) as MySQL prints it; text that is not JSON is
    returned as it is."""
    try:
        return dumps(json.loads(text, object_pairs_hook=_object))
    except ValueError:
        return text
