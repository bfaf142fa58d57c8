"""MySQL's JSON attribute and search functions (MySQL 8.0 manual 12.18.3, 12.18.5) as DuckDB
scalar functions in Python: JSON_LENGTH, JSON_DEPTH, JSON_KEYS, JSON_TYPE, JSON_UNQUOTE,
JSON_SEARCH, JSON_OVERLAPS and MEMBER OF.

DuckDB lacks JSON_LENGTH, JSON_DEPTH, JSON_UNQUOTE, JSON_SEARCH and JSON_OVERLAPS; its
``json_keys`` answers ``[]`` for an array (MySQL: NULL) and its ``json_type`` names DuckDB types
(``UBIGINT``, ``VARCHAR``; MySQL: ``INTEGER``, ``STRING``). JSON values compare as MySQL's do:
numbers by value (1 = 1.0), a boolean never equals a number.
"""

from __future__ import annotations

import re
from typing import Any

from drydock.engine.sql.mysql_json import _index, _step, select, steps
from drydock.engine.sql.mysql_json_doc import JsonError, dumps, parse

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _no_wildcards(path: str) -> str:
    if any(kind == "deep" or arg is None or arg == "*" for kind, arg in steps(path)):
        raise JsonError("JSON_PATH_WILDCARD")
    return path


def _at_path(document: str, path: str, function: str) -> list[Any]:
    return select(parse(document, 1, function), _no_wildcards(path))


def json_length(document: str | None, path: str | None) -> int | None:
    if document is None or path is None:
        return None
    found = _at_path(document, path, "json_length")
    if not found:
        return None
    return len(found[0]) if isinstance(found[0], (dict, list)) else 1


def _depth(value: Any) -> int:
    children = value.values() if isinstance(value, dict) else value
    if not isinstance(value, (dict, list)) or not children:
        return 1
    return 1 + max(_depth(child) for child in children)


def json_depth(document: str | None) -> int | None:
    return None if document is None else _depth(parse(document, 1, "json_depth"))


def json_keys(document: str | None, path: str | None) -> str | None:
    if document is None or path is None:
        return None
    found = _at_path(document, path, "json_keys")
    if not found or not isinstance(found[0], dict):
        return None
    return dumps(list(found[0]))


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "OBJECT"
    if isinstance(value, list):
        return "ARRAY"
    if isinstance(value, bool):
        return "BOOLEAN"
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return "UNSIGNED INTEGER" if value > 2**63 - 1 else "INTEGER"
    if isinstance(value, float):
        return "DOUBLE"
    return "STRING"


def json_type(document: str | None) -> str | None:
    return None if document is None else _type_name(parse(document, 1, "json_type"))


def json_unquote(text: str | None, is_json: bool | None) -> str | None:
    """A JSON string's content; other text as it is. A JSON-typed argument that is no string
    (``JSON_UNQUOTE(JSON_EXTRACT(doc, '$.obj'))``) prints as MySQL prints JSON."""
    if text is None:
        return None
    if is_json:
        value = parse(text, 1, "json_unquote")
        return value if isinstance(value, str) else dumps(value)
    quoted = len(text) >= 2 and text.startswith('"') and text.endswith('"')
    if not quoted:
        return text
    value = parse(text, 1, "json_unquote")
    return value if isinstance(value, str) else text


def equal(a: Any, b: Any) -> bool:
    """MySQL's JSON equality: numbers by value, booleans only with booleans, containers
    element by element."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _overlap(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return any(equal(x, y) for x in a for y in b)
    if isinstance(a, dict) and isinstance(b, dict):
        return any(k in b and equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return any(equal(x, b) for x in a)
    if isinstance(b, list):
        return any(equal(a, y) for y in b)
    return equal(a, b)


def json_overlaps(a: str | None, b: str | None) -> int | None:
    if a is None or b is None:
        return None
    return int(_overlap(parse(a, 1, "json_overlaps"), parse(b, 2, "json_overlaps")))


def member_of(value: str | None, array: str | None) -> int | None:
    """``value MEMBER OF(array)``: ``value`` is the JSON of the SQL value (a string is a JSON
    string); a non-array ``array`` is a one-element array (autowrap)."""
    if value is None or array is None:
        return None
    candidate = parse(value, 1, "member of")
    target = parse(array, 2, "member of")
    items = target if isinstance(target, list) else [target]
    return int(any(equal(candidate, item) for item in items))


def _leg_text(key: str) -> str:
    return f".{key}" if _IDENTIFIER.fullmatch(key) else "." + dumps(key)


def _located(document: Any, path: str) -> list[tuple[Any, str]]:
    """(value, its path in MySQL's notation) for each value ``path`` selects, in document
    order; the wildcard legs are expanded to each member's and element's own path."""
    found: list[tuple[Any, str]] = [(document, "$")]
    for kind, arg in steps(path):
        after: list[tuple[Any, str]] = []
        for value, where in found:
            if kind == "deep":
                after.extend(_descendants(value, where))
            elif kind == "member" and arg is None and isinstance(value, dict):
                after.extend((v, where + _leg_text(k)) for k, v in value.items())
            elif kind == "index" and arg == "*" and isinstance(value, list):
                after.extend((v, f"{where}[{i}]") for i, v in enumerate(value))
            elif kind == "index" and arg != "*" and not isinstance(value, list):
                after.extend((v, where) for v in _step([value], (kind, arg)))
            elif kind == "index" and arg != "*":
                position = _index(arg, len(value))
                if position is not None:
                    after.append((value[position], f"{where}[{position}]"))
            elif kind == "member" and arg is not None:
                after.extend((v, where + _leg_text(arg)) for v in _step([value], (kind, arg)))
        found = after
    return found


def _descendants(value: Any, where: str) -> list[tuple[Any, str]]:
    out = [(value, where)]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_descendants(child, where + _leg_text(key)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out.extend(_descendants(child, f"{where}[{i}]"))
    return out


def _like_tokens(pattern: str, escape: str) -> list[str | None]:
    """A LIKE pattern as tokens: a character to match, '' for _ (any one), None for % (any
    run); ``escape`` makes the next character literal."""
    tokens: list[str | None] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern):
            tokens.append(pattern[i + 1])
            i += 2
            continue
        tokens.append(None if ch == "%" else "" if ch == "_" else ch)
        i += 1
    return tokens


def like(text: str, tokens: list[str | None]) -> bool:
    """Whether ``text`` matches the LIKE ``tokens``, case-sensitively (JSON strings compare as
    utf8mb4_bin in MySQL). Greedy with one resume point per %: O(len(text) * len(tokens)),
    never a backtracking regular expression (the pattern is the user's)."""
    t = p = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(tokens) and tokens[p] is not None and tokens[p] in ("", text[t]):
            t, p = t + 1, p + 1
        elif p < len(tokens) and tokens[p] is None:
            star_p, star_t = p, t
            p += 1
        elif star_p >= 0:
            star_t += 1
            t, p = star_t, star_p + 1
        else:
            return False
    return all(token is None for token in tokens[p:])


def json_search(
    document: str | None,
    mode: str | None,
    search: str | None,
    escape: str | None,
    paths: list[str | None],
) -> str | None:
    """JSON_SEARCH: the path of the first ('one') or every ('all') string that matches the LIKE
    pattern ``search`` (one path as a JSON string, several as an array), NULL when none does."""
    if document is None or mode is None or search is None or any(p is None for p in paths):
        return None
    doc = parse(document, 1, "json_search")
    one = mode.strip().lower()
    if one not in ("one", "all"):
        raise JsonError("JSON_BAD_ONE_OR_ALL", function="json_search")
    tokens = _like_tokens(search, escape or "\\")
    hits: list[str] = []
    for path in paths or ["$"]:
        for value, where in _located(doc, str(path)):
            for leaf, leaf_where in _descendants(value, where):
                if isinstance(leaf, str) and like(leaf, tokens) and leaf_where not in hits:
                    hits.append(leaf_where)
    if not hits:
        return None
    if one == "one" or len(hits) == 1:
        return dumps(hits[0])
    return dumps(hits)


def json_extract(document: str | None, paths: list[str | None]) -> str | None:
    """JSON_EXTRACT: one path without wildcards answers the value it selects; several paths or
    a wildcard answer the array of every value selected (NULL when none is)."""
    if document is None or any(p is None for p in paths):
        return None
    doc = parse(document, 1, "json_extract")
    found: list[Any] = []
    wrapped = len(paths) > 1
    for path in paths:
        legs = steps(str(path))
        wrapped = wrapped or any(k == "deep" or a is None or a == "*" for k, a in legs)
        found.extend(select(doc, str(path)))
    if not found:
        return None
    return dumps(found) if wrapped else dumps(found[0])
