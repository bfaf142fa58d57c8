"""MySQL's JSON search functions DuckDB has not (or has with another meaning), as DuckDB scalar
functions written here in Python: JSON_CONTAINS_PATH and JSON_CONTAINS (MySQL 8.0 manual 12.18.3).

DuckDB has ``json_contains`` too, but it finds the candidate anywhere below the target
(``json_contains('{"a": {"b": 1}}', '1')`` is true; MySQL answers 0) and never looks inside an
array for a non-array candidate's match in an object member. MySQL's rules are recursive, which
a DuckDB macro cannot be, so these are Python functions: they read no table and call nothing, so
they add no way around privileges (engine/sql/mysql_functions.py rewrites the calls to them).

Paths are MySQL's (12.18.2 "JSON Path Syntax"): ``$``, ``.key``, ``."quoted key"``, ``[n]``,
``[last]``, ``[last-n]``, ``[*]``, ``.*`` and ``**``. ``[n]`` on a value that is not an array
selects the value itself for n = 0, as MySQL 8 does.
"""

from __future__ import annotations

import json
import re
from typing import Any

import duckdb

from drydock.engine.sql.mysql_json_doc import JsonError, parse
from drydock.engine.sql.python_functions import register

CONTAINS = "mysql_json_contains"
CONTAINS_PATH = "mysql_json_contains_path"

_STEP = re.compile(
    r"""\s*(?:
        \.\s*(?P<star>\*)
      | \.\s*"(?P<quoted>(?:[^"\\]|\\.)*)"
      | \.\s*(?P<key>[A-Za-z_$][A-Za-z0-9_$]*)
      | \[\s*(?P<index>\*|last(?:\s*-\s*[0-9]+)?|[0-9]+)\s*\]
      | (?P<deep>\*\*)
    )""",
    re.VERBOSE,
)


def _bad_path(position: int) -> JsonError:
    return JsonError("INVALID_JSON_PATH", position=position)


def steps(path: str) -> list[tuple[str, Any]]:
    """``path``'s legs: ("member", key or None for .*), ("index", '3'|'last-1'|'*'),
    ("deep", None); 3143 when it is no MySQL path."""
    text = path.strip()
    if not text.startswith("$"):
        raise _bad_path(0)
    steps: list[tuple[str, Any]] = []
    at = 1
    while at < len(text):
        match = _STEP.match(text, at)
        if match is None or match.end() == at:
            raise _bad_path(at)
        at = match.end()
        if match["star"]:
            steps.append(("member", None))
        elif match["quoted"] is not None:
            steps.append(("member", json.loads(f'"{match["quoted"]}"')))
        elif match["key"]:
            steps.append(("member", match["key"]))
        elif match["index"]:
            steps.append(("index", match["index"].replace(" ", "")))
        else:
            steps.append(("deep", None))
    if steps and steps[-1][0] == "deep":
        raise _bad_path(len(text))
    return steps


def _index(spec: str, length: int) -> int | None:
    """Position ``spec`` ('3', 'last', 'last-1') names in an array of ``length``, or None."""
    if spec.startswith("last"):
        position = length - 1 - (int(spec[5:]) if len(spec) > 4 else 0)
    else:
        position = int(spec)
    return position if 0 <= position < length else None


def _step(values: list[Any], step: tuple[str, Any]) -> list[Any]:
    kind, arg = step
    found: list[Any] = []
    for value in values:
        if kind == "member" and isinstance(value, dict):
            found.extend(value.values() if arg is None else [value[arg]] if arg in value else [])
        elif kind == "index":
            items = value if isinstance(value, list) else [value]  # a scalar is its own [0]
            if arg == "*":
                found.extend(items if isinstance(value, list) else [])
            else:
                position = _index(arg, len(items))
                found.extend([] if position is None else [items[position]])
        elif kind == "deep":
            found.extend(_descendants(value))
    return found


def _descendants(value: Any) -> list[Any]:
    """``value`` and everything below it (what ``**`` stands for)."""
    out = [value]
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    )
    for child in children:
        out.extend(_descendants(child))
    return out


def select(document: Any, path: str) -> list[Any]:
    """The values ``path`` selects in the parsed ``document``."""
    values = [document]
    for step in steps(path):
        values = _step(values, step)
        if not values:
            break
    return values


def contains(target: Any, candidate: Any) -> bool:
    """MySQL 12.18.3 JSON_CONTAINS: scalars equal; an array candidate's every element in the
    target array; a non-array candidate in some element of a target array; an object candidate's
    every key in the target object with its value contained in the target's."""
    if isinstance(target, list):
        if isinstance(candidate, list):
            return all(contains(target, c) for c in candidate)
        return any(contains(t, candidate) for t in target)
    if isinstance(target, dict):
        return isinstance(candidate, dict) and all(
            k in target and contains(target[k], v) for k, v in candidate.items()
        )
    if isinstance(candidate, (list, dict)):
        return False
    if isinstance(target, bool) or isinstance(candidate, bool):
        return type(target) is type(candidate) and target == candidate
    return bool(target == candidate)


def _document(text: str, argument: int, function: str) -> Any:
    return parse(text, argument, function)


def json_contains(target: str | None, candidate: str | None, path: str | None) -> int | None:
    if target is None or candidate is None or path is None:
        return None
    document = _document(target, 1, "json_contains")
    wanted = _document(candidate, 2, "json_contains")
    if any(ch in path for ch in "*"):
        raise JsonError("JSON_PATH_WILDCARD")
    found = select(document, path)
    if not found:
        return None
    return int(contains(found[0], wanted))


def json_contains_path(document: str | None, mode: str | None, paths: list[str | None]) -> Any:
    if document is None or mode is None or any(p is None for p in paths):
        return None
    parsed = _document(document, 1, "json_contains_path")
    one = mode.strip().lower()
    if one not in ("one", "all"):
        raise JsonError("JSON_BAD_ONE_OR_ALL", function="json_contains_path")
    hits = [bool(select(parsed, str(p))) for p in paths]
    return int(any(hits) if one == "one" else all(hits))


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Register the functions on ``con`` (its cursors see them). Idempotent."""
    register(con, CONTAINS, json_contains, ["VARCHAR", "VARCHAR", "VARCHAR"], "INTEGER")
    register(con, CONTAINS_PATH, json_contains_path, ["VARCHAR", "VARCHAR", "VARCHAR[]"], "INTEGER")
