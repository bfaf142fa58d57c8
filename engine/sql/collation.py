"""MySQL's collations on DuckDB (MySQL 8.0 manual 10.3, 10.10.1).

MySQL 8's default collation ``utf8mb4_0900_ai_ci`` compares strings without regard to case or
accents: ``'abc' = 'ABC'`` and ``'é' = 'e'`` are true, and GROUP BY / DISTINCT put such values
in one group. drydock's DuckDB database runs with :data:`DEFAULT` as its default collation
(engine/sql/query.py), which does the same for every comparison, GROUP BY, DISTINCT, ORDER BY, join
and IN, on internal tables and on Lance/Paimon scans alike.

A binary comparison is asked for as in MySQL: ``COLLATE utf8mb4_bin`` (any ``*_bin``, or
``binary``) compares code points; ``BINARY x`` casts to bytes. ``*_ci`` names give the default,
``*_as_ci`` keeps accents. Unknown names are MySQL's 1273.

What stays different (README): PRIMARY KEY / UNIQUE indexes compare binary ('a' and 'A' are two
keys), and a string equality on a Lance/Paimon column is evaluated by DuckDB after the scan
rather than pushed into it.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.errors import Errors

DEFAULT = "noaccent.nocase"
_BINARY = "binary"
_CASE_ONLY = "nocase"


def duckdb_collation(name: str) -> str:
    """The DuckDB collation of a MySQL collation name."""
    lowered = name.lower()
    if lowered == "binary" or lowered.endswith("_bin"):
        return _BINARY
    if lowered.endswith("_as_ci"):
        return _CASE_ONLY
    if lowered.endswith("_ci"):
        return DEFAULT
    raise Errors.UNKNOWN_COLLATION.error(name=name)


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(duckdb_collation(name), quoted=True)


def translate(expression: exp.Expr) -> exp.Expr:
    """``x COLLATE <mysql name>`` → DuckDB's collation, in place (column definitions too)."""
    for node in list(expression.find_all(exp.Collate, exp.CollateColumnConstraint)):
        target = node.expression if isinstance(node, exp.Collate) else node.this
        if target is None:
            continue
        name = (
            target.name
            if isinstance(target, (exp.Var, exp.Identifier, exp.Column, exp.Literal))
            else ""
        )
        if not name:
            raise Errors.UNKNOWN_COLLATION.error(name=target.sql(dialect="mysql")[:64])
        if isinstance(node, exp.Collate):
            node.set("expression", _identifier(name))
        else:
            node.set("this", _identifier(name))
    return expression
