"""DuckDB SQL templates with the user's own sub-trees put in their places: the one way the
rewrites of MySQL functions (engine/sql/mysql_functions.py and its siblings) build DuckDB
expressions. A template is DuckDB SQL written in drydock; ``{i}`` marks where the i-th argument
sub-tree goes, moved as a tree (never re-parsed as text)."""

from __future__ import annotations

import functools
from typing import Any

import sqlglot
from sqlglot import exp

TS = "TRY_CAST({0} AS TIMESTAMP)"  # a value read as MySQL reads a DATETIME argument


@functools.cache
def template(text: str) -> Any:
    return sqlglot.parse_one(text, read="duckdb")


def instantiate(text: str, args: list[exp.Expr]) -> exp.Expr:
    """``text`` (a template) with ``{i}`` bound to the i-th argument sub-tree."""
    placeholders = [f"__drydock_arg{i}" for i in range(len(args))]
    node = template(text.format(*placeholders)).copy()
    by_name = dict(zip(placeholders, args))
    for column in list(node.find_all(exp.Column)):
        arg = by_name.get(column.name)
        if arg is not None and not column.table:
            column.replace(arg.copy())
    return node
