"""compact's ``where`` (Paimon's Spark CompactProcedure): a SQL condition over partition columns
that selects the partitions to rewrite, e.g. ``where => 'dt = ''2024-01-01'''``.

Paimon accepts only partition predicates here ("Only partition predicate is supported"), so the
condition may use partition columns, literals, comparisons, IN (a literal list), BETWEEN,
IS [NOT] NULL and AND/OR/NOT — nothing else (no functions, no subqueries). It is parsed once with
drydock's SQL grammar, checked node by node, and evaluated by DuckDB (never in Python) against the
distinct partition values of the pinned snapshot, in a private in-memory DuckDB without external
access.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.errors import DrydockError
from drydock.engine.lakehouse.procedures.paimon_common import ResolvedPaimonTable, not_supported

_ALLOWED = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Boolean,
    exp.Null,
    exp.Paren,
    exp.And,
    exp.Or,
    exp.Not,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.In,
    exp.Between,
    exp.Is,
    exp.Neg,
    exp.NullSafeEQ,
)
_INDEX = "__drydock_partition"


def parse_where(target: ResolvedPaimonTable, text: str) -> exp.Expr:
    """The checked condition of ``where`` (see the module docstring)."""
    from drydock.grammar.sql import parse

    keys = list(target.table.partition_keys)
    try:
        statement = parse(f"SELECT 1 FROM t WHERE {text}")
    except DrydockError as exc:
        raise target.bad(f"'where' is not a valid condition: {exc.message}") from None
    if not isinstance(statement, exp.Select) or {k for k, v in statement.args.items() if v} != {
        "expressions",
        "from_",
        "where",
    }:
        raise target.bad("'where' must be one condition (no clauses or statements after it)")
    condition = statement.args["where"].this
    by_lower = {k.lower(): k for k in keys}
    for node in condition.walk():
        if not isinstance(node, _ALLOWED):
            raise target.bad(
                f"'where' may use partition columns, literals, comparisons, IN, BETWEEN, IS [NOT] "
                f"NULL and AND/OR/NOT only; found {node.key.upper()} in '{node.sql()[:80]}'"
            )
        if isinstance(node, exp.In) and (node.args.get("query") or node.args.get("unnest")):
            raise target.bad("'where' may not use a subquery")
        if isinstance(node, exp.Column):
            if node.table or node.name.lower() not in by_lower:
                which = (
                    f"({', '.join(keys)})" if keys else f"(and {target.display} is not partitioned)"
                )
                raise not_supported(
                    target.procedure,
                    f"'where' is not supported on column '{node.sql()}': only partition columns "
                    f"{which} select the partitions to compact",
                )
            node.set("this", exp.to_identifier(by_lower[node.name.lower()], quoted=True))
    return condition


def matching(
    target: ResolvedPaimonTable, condition: exp.Expr, partitions: set[tuple[Any, ...]]
) -> set[tuple[Any, ...]]:
    """The partitions (value tuples in partition-key order) for which ``condition`` is true."""
    import duckdb
    import pyarrow as pa

    ordered = sorted(partitions, key=str)
    keys = list(target.table.partition_keys)
    columns = {k: [p[i] for p in ordered] for i, k in enumerate(keys)}
    columns[_INDEX] = list(range(len(ordered)))
    values = pa.table(columns)
    connection = duckdb.connect(":memory:")
    try:
        connection.execute("SET enable_external_access = false")
        connection.register("partition_values", values)
        sql = f'SELECT "{_INDEX}" FROM partition_values WHERE {condition.sql(dialect="duckdb")}'
        rows = connection.execute(sql).fetchall()
    except duckdb.Error as exc:
        raise target.bad(
            f"'where' cannot be evaluated on the partition values: {str(exc).splitlines()[0][:200]}"
        ) from None
    finally:
        connection.close()
    return {ordered[r[0]] for r in rows}
