"""MySQL's JSON modification functions (MySQL 8.0 manual 12.18.4) as DuckDB scalar functions in
Python: JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_REMOVE,
JSON_MERGE_PRESERVE (JSON_MERGE) and JSON_MERGE_PATCH.

DuckDB's json extension has none of the first five and answers JSON_MERGE_PATCH in compact text;
its paths lack ``[last]``. The rules here are MySQL's: a path's last leg that names a missing
member or an index past the end adds the value (SET, INSERT); ``[0]`` on a value that is not an
array is that value itself and ``[n]`` past it wraps the value in an array first ("autowrap");
a path into a missing parent changes nothing; wildcards are refused (3149). A value argument is
the JSON of the SQL value (a string is a JSON string, a JSON value stays JSON), which the call's
rewrite computes with DuckDB's ``to_json`` (engine/sql/mysql_json_calls.py).
"""

from __future__ import annotations

from typing import Any

from drydock.engine.sql.mysql_json import _index, steps
from drydock.engine.sql.mysql_json_doc import JsonError, dumps, normalized, parse

Legs = list[tuple[str, Any]]


def _plain_legs(path: str) -> Legs:
    legs = steps(path)
    for kind, arg in legs:
        if kind == "deep" or arg is None or arg == "*":
            raise JsonError("JSON_PATH_WILDCARD")
    return legs


def _at(node: Any, legs: Legs, mode: str, value: Any) -> Any:
    """``node`` with ``value`` put at ``legs`` as ``mode`` ('set', 'insert', 'replace',
    'append') says; the unchanged ``node`` when the path's parent does not exist."""
    if not legs:
        if mode in ("set", "replace"):
            return value
        if mode == "append":
            return [*node, value] if isinstance(node, list) else [node, value]
        return node
    (kind, arg), rest = legs[0], legs[1:]
    if kind == "member":
        if not isinstance(node, dict):
            return node
        if arg in node:
            return {**node, arg: _at(node[arg], rest, mode, value)}
        if rest or mode not in ("set", "insert"):
            return node
        return normalized({**node, arg: value})
    items = node if isinstance(node, list) else [node]  # a non-array is its own [0]
    position = _index(arg, len(items))
    if position is not None:
        changed = list(items)
        changed[position] = _at(items[position], rest, mode, value)
        return changed if isinstance(node, list) else changed[0]
    if rest or mode not in ("set", "insert") or arg.startswith("last"):
        return node
    return [*items, value]


def _array_insert(node: Any, legs: Legs, value: Any) -> Any:
    """JSON_ARRAY_INSERT: ``value`` before the cell the last leg names (appended when past the
    end); nothing when the parent is not an array."""
    if len(legs) == 1:
        if not isinstance(node, list):
            return node
        arg = legs[0][1]
        position = _index(arg, len(node) + 1) if arg.startswith("last") else int(arg)
        position = len(node) if position is None else min(position, len(node))
        return [*node[:position], value, *node[position:]]
    kind, arg = legs[0]
    if kind == "member":
        if isinstance(node, dict) and arg in node:
            return {**node, arg: _array_insert(node[arg], legs[1:], value)}
        return node
    items = node if isinstance(node, list) else [node]
    position = _index(arg, len(items))
    if position is None:
        return node
    changed = list(items)
    changed[position] = _array_insert(items[position], legs[1:], value)
    return changed if isinstance(node, list) else changed[0]


def _remove(node: Any, legs: Legs) -> Any:
    (kind, arg), rest = legs[0], legs[1:]
    if kind == "member":
        if not isinstance(node, dict) or arg not in node:
            return node
        if not rest:
            return {k: v for k, v in node.items() if k != arg}
        return {**node, arg: _remove(node[arg], rest)}
    if not isinstance(node, list):
        return node
    position = _index(arg, len(node))
    if position is None:
        return node
    if not rest:
        return node[:position] + node[position + 1 :]
    changed = list(node)
    changed[position] = _remove(node[position], rest)
    return changed


def json_modify(
    function: str, document: str | None, paths: list[str | None], values: list[str | None]
) -> str | None:
    """JSON_SET / JSON_INSERT / JSON_REPLACE / JSON_ARRAY_APPEND / JSON_ARRAY_INSERT of
    ``document`` with the (path, value) pairs, in order; NULL for a NULL document or path."""
    if document is None or any(p is None for p in paths):
        return None
    name = function.lower()
    doc = parse(document, 1, name)
    mode = name.removeprefix("json_").removeprefix("array_")
    for i, (path, text) in enumerate(zip(paths, values)):
        value = None if text is None else parse(text, 3 + 2 * i, name)
        legs = _plain_legs(str(path))
        if mode == "insert" and name == "json_array_insert":
            if not legs or legs[-1][0] != "index":
                raise JsonError("JSON_PATH_NOT_ARRAY_CELL")
            doc = _array_insert(doc, legs, value)
        else:
            doc = _at(doc, legs, mode, value)
    return dumps(doc)


def json_remove(document: str | None, paths: list[str | None]) -> str | None:
    if document is None or any(p is None for p in paths):
        return None
    doc = parse(document, 1, "json_remove")
    for path in paths:
        legs = _plain_legs(str(path))
        if not legs:
            raise JsonError("JSON_VACUOUS_PATH")
        doc = _remove(doc, legs)
    return dumps(doc)


def _preserve(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and isinstance(b, dict):
        merged = dict(a)
        for key, value in b.items():
            merged[key] = _preserve(merged[key], value) if key in merged else value
        return normalized(merged)
    return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])


def _patch(target: Any, patch: Any) -> Any:
    """RFC 7396, as MySQL's JSON_MERGE_PATCH: a null member in the patch removes the key."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _patch(merged.get(key), value)
    return normalized(merged)


def json_merge(function: str, documents: list[str | None]) -> str | None:
    """JSON_MERGE_PRESERVE (NULL if any document is NULL) and JSON_MERGE_PATCH (a NULL so far
    stays NULL unless a later patch is not an object, which replaces it: MySQL's
    Item_func_json_merge_patch)."""
    name = function.lower()
    if name != "json_merge_patch":
        if any(d is None for d in documents):
            return None
        parsed = [parse(str(d), i + 1, name) for i, d in enumerate(documents)]
        result = parsed[0]
        for doc in parsed[1:]:
            result = _preserve(result, doc)
        return dumps(result)
    state: Any = None
    is_null = False
    for i, text in enumerate(documents):
        if text is None:
            is_null = True
            continue
        doc = parse(text, i + 1, name)
        if i == 0:
            state = doc
        elif is_null and isinstance(doc, dict):
            continue
        else:
            state, is_null = _patch(state, doc), False
    return None if is_null else dumps(state)
