"""MySQL JSON function calls rewritten to the Python functions of engine/sql/mysql_json_modify.py
and engine/sql/mysql_json_info.py (:func:`rewrite`), and those functions registered on DuckDB
(:func:`install`).

A document or path argument is passed as its text; a value argument (JSON_SET's values, MEMBER
OF's left side) as DuckDB's ``to_json`` of it, which is MySQL's conversion of an SQL value to
JSON: a string becomes a JSON string, a JSON value stays itself, NULL is ``null``. Like
engine/sql/mysql_json.py's functions, these read no table and call nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.sql import mysql_json_info as info
from drydock.engine.sql import mysql_json_modify as modify
from drydock.engine.sql.python_functions import register

MODIFY = "mysql_json_modify"
REMOVE = "mysql_json_remove"
MERGE = "mysql_json_merge"

# name → (function, parameter types, return type)
_FUNCTIONS: dict[str, tuple[Callable[..., Any], list[str], str]] = {
    MODIFY: (modify.json_modify, ["VARCHAR", "VARCHAR", "VARCHAR[]", "VARCHAR[]"], "JSON"),
    REMOVE: (modify.json_remove, ["VARCHAR", "VARCHAR[]"], "JSON"),
    MERGE: (modify.json_merge, ["VARCHAR", "VARCHAR[]"], "JSON"),
    "mysql_json_length": (info.json_length, ["VARCHAR", "VARCHAR"], "INTEGER"),
    "mysql_json_depth": (info.json_depth, ["VARCHAR"], "INTEGER"),
    "mysql_json_keys": (info.json_keys, ["VARCHAR", "VARCHAR"], "JSON"),
    "mysql_json_type": (info.json_type, ["VARCHAR"], "VARCHAR"),
    "mysql_json_unquote": (info.json_unquote, ["VARCHAR", "BOOLEAN"], "VARCHAR"),
    "mysql_json_overlaps": (info.json_overlaps, ["VARCHAR", "VARCHAR"], "INTEGER"),
    "mysql_member_of": (info.member_of, ["VARCHAR", "VARCHAR"], "INTEGER"),
    "mysql_json_extract": (info.json_extract, ["VARCHAR", "VARCHAR[]"], "JSON"),
    "mysql_json_search": (
        info.json_search,
        ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR[]"],
        "JSON",
    ),
}


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Register the functions on ``con`` (its cursors see them). Idempotent."""
    for name, (function, parameters, returns) in _FUNCTIONS.items():
        register(con, name, function, parameters, returns)


def _text(arg: exp.Expr) -> exp.Expr:
    return exp.cast(arg.copy(), "VARCHAR")


def _json(arg: exp.Expr) -> exp.Expr:
    return exp.cast(exp.Anonymous(this="to_json", expressions=[arg.copy()]), "VARCHAR")


def _texts(args: list[exp.Expr]) -> exp.Expr:
    return exp.Array(expressions=[_text(a) for a in args])


def _call(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _typed_call(node: exp.Expr) -> tuple[str, list[exp.Expr]] | None:
    """The MySQL name and arguments of the JSON calls sqlglot parses into typed nodes."""
    named = {
        exp.JSONSet: "JSON_SET",
        exp.JSONRemove: "JSON_REMOVE",
        exp.JSONArrayAppend: "JSON_ARRAY_APPEND",
        exp.JSONArrayInsert: "JSON_ARRAY_INSERT",
        exp.JSONKeys: "JSON_KEYS",
        exp.JSONType: "JSON_TYPE",
        exp.JSONArrayContains: "MEMBER OF",
    }
    for kind, name in named.items():
        if type(node) is kind:
            rest = [node.args[k] for k in ("expression",) if node.args.get(k) is not None]
            return name, [node.this, *rest, *node.expressions]
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper(), list(node.expressions)
    return None


_MODIFIERS = {"JSON_SET", "JSON_INSERT", "JSON_REPLACE", "JSON_ARRAY_APPEND", "JSON_ARRAY_INSERT"}
_ARITY = {
    "JSON_REMOVE": (2, None),
    "JSON_MERGE_PATCH": (2, None),
    "JSON_MERGE_PRESERVE": (2, None),
    "JSON_MERGE": (2, None),
    "JSON_LENGTH": (1, 2),
    "JSON_DEPTH": (1, 1),
    "JSON_KEYS": (1, 2),
    "JSON_TYPE": (1, 1),
    "JSON_UNQUOTE": (1, 1),
    "JSON_QUOTE": (1, 1),
    "JSON_OVERLAPS": (2, 2),
    "MEMBER OF": (2, 2),
    "JSON_SEARCH": (3, None),
}


def _extract(node: exp.JSONExtract) -> exp.Expr | None:
    """JSON_EXTRACT / ``->`` in Python when DuckDB's would answer otherwise: a path sqlglot could
    not read (``[last]``, a bad one: 3143), several paths, or a wildcard (MySQL answers an
    array of the matches). A path computed at run time stays DuckDB's."""
    paths = [node.expression, *node.expressions]
    native = len(paths) == 1 and (
        isinstance(paths[0], exp.JSONPath)
        and not any(
            isinstance(p, (exp.JSONPathWildcard, exp.JSONPathRecursive, exp.JSONPathSlice))
            for p in paths[0].walk()
        )
    )
    if native or not all(isinstance(p, (exp.JSONPath, exp.Literal)) for p in paths):
        return None
    return _call("mysql_json_extract", _text(node.this), _texts(paths))


def rewrite(node: exp.Expr) -> exp.Expr | None:
    """The DuckDB expression for a MySQL JSON call drydock answers in Python, else None."""
    if type(node) is exp.JSONExtract:
        return _extract(node)
    found = _typed_call(node)
    if found is None:
        return None
    name, args = found
    if name in _MODIFIERS:
        if len(args) < 3 or len(args) % 2 == 0:
            raise Errors.WRONG_ARGUMENTS_TO_FUNCTION.error(name=name.lower())
        return _call(
            MODIFY,
            exp.Literal.string(name.lower()),
            _text(args[0]),
            _texts(args[1::2]),
            exp.Array(expressions=[_json(a) for a in args[2::2]]),
        )
    if name not in _ARITY:
        return None
    low, high = _ARITY[name]
    if len(args) < low or (high is not None and len(args) > high):
        raise Errors.WRONG_ARGUMENTS_TO_FUNCTION.error(name=name.lower())
    return _rewrite_one(name, args)


def _rewrite_one(name: str, args: list[exp.Expr]) -> exp.Expr:
    root = exp.Literal.string("$")
    if name == "JSON_REMOVE":
        return _call(REMOVE, _text(args[0]), _texts(args[1:]))
    if name.startswith("JSON_MERGE"):
        return _call(MERGE, exp.Literal.string(name.lower()), _texts(args))
    if name in ("JSON_LENGTH", "JSON_KEYS"):
        path = args[1] if len(args) > 1 else root
        return _call(f"mysql_{name.lower()}", _text(args[0]), _text(path))
    if name in ("JSON_DEPTH", "JSON_TYPE"):
        return _call(f"mysql_{name.lower()}", _text(args[0]))
    if name == "JSON_UNQUOTE":
        is_json = exp.EQ(
            this=exp.Anonymous(this="typeof", expressions=[args[0].copy()]),
            expression=exp.Literal.string("JSON"),
        )
        return _call("mysql_json_unquote", _text(args[0]), is_json)
    if name == "JSON_QUOTE":  # DuckDB's json_quote is right but typed JSON; MySQL's is a string
        return exp.cast(_call("json_quote", _text(args[0])), "VARCHAR")
    if name == "JSON_OVERLAPS":
        return _call("mysql_json_overlaps", _text(args[0]), _text(args[1]))
    if name == "MEMBER OF":
        return _call("mysql_member_of", _json(args[0]), _text(args[1]))
    escape = args[3] if len(args) > 3 else exp.null()
    return _call(
        "mysql_json_search",
        _text(args[0]),
        _text(args[1]),
        _text(args[2]),
        _text(escape),
        _texts(args[4:]),
    )
