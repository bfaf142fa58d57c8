"""EXPLAIN <query> (and DESCRIBE <query>): MySQL's tabular EXPLAIN, one row per table reference,
with what drydock knows of how each is read — a Lance table's indexes, the index a search or a
pushed filter uses — and, as a Note per Lance table (MySQL's EXPLAIN also adds a Note 1003),
Lance's own plan: the index, partitions probed, refine factor, prefilter.

The query is bound and checked by DuckDB exactly as when it runs (engine/sql/query.py, with no
rows searched), so an EXPLAIN fails as its query would.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.core import Engine
from drydock.engine.results import Diagnostic, Result
from drydock.engine.lakehouse.catalogs.lance_types import lance_dataset_of
from drydock.engine.search.indexes import indexes_of
from drydock.engine.search.lance_filter import conjuncts, lance_filter
from drydock.engine.search.planner import Prepared
from drydock.engine.search.table_search import TableSearch
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql.external_binding import time_travel
from drydock.engine.sql.sql_relations import Reference

COLUMNS = [
    "id",
    "select_type",
    "table",
    "partitions",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "filtered",
    "Extra",
]
PLAN_NOTE = 1003  # MySQL's code for the Note EXPLAIN adds


def explain_rows(
    engine: Engine,
    statement: exp.Describe,
    references: list[Reference],
    checked: Result,
    ctx: SessionContext,
) -> Result:
    """The EXPLAIN of ``statement`` (already bound and checked: ``checked``)."""
    prepared: Prepared = checked.plan if isinstance(checked.plan, Prepared) else Prepared()
    selects = list(statement.this.find_all(exp.Select))
    rows: list[tuple[Any, ...]] = []
    notes: list[Diagnostic] = list(prepared.notes)
    for ref in references:
        node = ref.node
        select = node.find_ancestor(exp.Select)
        number = selects.index(select) + 1 if select in selects else 1
        select_type = _select_type(node, number, len(selects))
        table = node.alias_or_name
        search = prepared.searches.get(id(node))
        dataset = None
        if ref.catalog.lower() != INTERNAL:
            dataset = search.dataset if search is not None else _dataset(engine, ref, ctx)
        if dataset is None:  # an internal or a non-Lance table: read whole as far as we know
            scan = (number, select_type, table, None, "ALL", None, None, None, None, None, 100.0)
            rows.append((*scan, _where_note(select)))
            continue
        plan = search.plan_text() if search is not None else _scan_plan(dataset, select, node)
        rows.append(_lance_row(number, select_type, table, dataset, search, select, plan))
        notes.append(Diagnostic("Note", PLAN_NOTE, f"{ref.catalog}.{ref.db}.{ref.table}: {plan}"))
    return Result(columns=list(COLUMNS), rows=rows, warnings=notes)


def _select_type(node: exp.Expr, number: int, selects: int) -> str:
    if selects == 1:
        return "SIMPLE"
    if number == 1:
        return "PRIMARY"
    return "DERIVED" if node.find_ancestor(exp.From, exp.Join, exp.CTE) is not None else "SUBQUERY"


def _where_note(select: exp.Select | None) -> str | None:
    return "Using where" if select is not None and select.args.get("where") else None


def _dataset(engine: Engine, ref: Reference, ctx: SessionContext) -> Any:
    view = engine.metadata.scan(ctx, ref.catalog, ref.db, ref.relation, time_travel(ref.node))
    return lance_dataset_of(view)


def _lance_row(
    number: int,
    select_type: str,
    table: str,
    dataset: Any,
    search: TableSearch | None,
    select: exp.Select | None,
    plan: str,
) -> tuple[Any, ...]:
    indexes = indexes_of(dataset)
    rows: int | None
    key: str | None
    possible = ",".join(i.name for i in indexes) or None
    if search is not None and search.vector is not None:
        kind, key, rows = "index", search.vector.index.name, search.vector.k
    elif search is not None and search.text_index is not None:
        kind, key, rows = "fulltext", search.text_index.name, search.limit
    else:
        # Lance's plan names a scalar index it uses as "ScalarIndexQuery: query=[…]@id_idx(BTree)"
        scalar = [i.name for i in indexes if f"@{i.name}(" in plan]
        kind = "range" if scalar else "ALL"
        key, rows = ",".join(scalar) or None, int(dataset.count_rows())
    extra = search.summary() if search is not None else _where_note(select)
    return (number, select_type, table, None, kind, possible, key, None, None, rows, 100.0, extra)


def _scan_plan(dataset: Any, select: exp.Select | None, table: exp.Table) -> str:
    """Lance's plan for reading ``table`` with the WHERE conditions Lance can apply."""
    where = select.args.get("where") if select is not None else None
    schema = dataset.schema
    alias = table.alias_or_name.lower()

    def field_of(column: exp.Column) -> str | None:
        if column.table and column.table.lower() != alias:
            return None
        return next((f.name for f in schema if f.name.lower() == column.name.lower()), None)

    pushed = [
        t
        for c in conjuncts(where.this if where is not None else None)
        if (t := lance_filter(c, schema, field_of)) is not None
    ]
    arguments: dict[str, Any] = {}
    if pushed:
        arguments["filter"] = " AND ".join(f"({p})" for p in pushed)
    return str(dataset.scanner(**arguments).explain_plan()).rstrip()
