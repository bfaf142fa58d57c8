"""Search planning: which parts of a SELECT the indexes of its Lance tables answer.

For each SELECT that uses a search function, on the statement's own AST, before DuckDB runs it:

- **Approximate top-k**: ``ORDER BY l2_distance_approximate(col, q) LIMIT k`` (ascending) or
  ``ORDER BY inner_product_approximate(col, q) DESC LIMIT k`` over one Lance table becomes a
  pylance nearest-neighbour search on the vector index of ``col`` whose metric matches; the other
  WHERE conditions go to Lance as a prefilter (engine/search/lance_filter.py), and a condition
  ``l2_distance_approximate(col, q) < r`` as its distance range. DuckDB then reads only the k rows
  found, computing the distance exactly (the approximate functions compute exact values).
- **Full text**: ``col MATCH_ANY|MATCH_ALL|MATCH_PHRASE '…'`` and ``MATCH (col) AGAINST ('…')``
  conditions of WHERE become a Lance full-text search on the INVERTED index of ``col``; the rows
  matched replace the table, the condition becomes TRUE, and ``MATCH … AGAINST`` in the select
  list or ORDER BY reads the BM25 score of the row.
- Where the index cannot answer what was asked (no index with the metric, a join, a condition
  Lance cannot apply first, a descending l2 order, …) the query is answered exactly, by DuckDB,
  with a Note in SHOW WARNINGS saying why. What cannot be answered at all (ORDER BY an
  approximate function without LIMIT, k above ``vector_search_max_k``, a full-text search on a
  column without an INVERTED index, an approximate function elsewhere) is a typed error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.lakehouse.catalogs.lance_types import lance_dataset_of
from drydock.engine.results import Diagnostic
from drydock.engine.search import full_text
from drydock.engine.search.indexes import indexes_of, inverted_index
from drydock.engine.search.lance_filter import conjuncts, lance_filter
from drydock.engine.search.table_search import SearchSettings, TableSearch
from drydock.engine.search.select_parts import (
    APPROXIMATE,
    SCORE_COLUMN,
    Scope,
    exclude_from_stars,
    field_name,
    limit_of,
    misplaced,
    ordering_key,
)
from drydock.engine.search.vector_plan import plan_vector
from drydock.engine.session import INTERNAL

from drydock.grammar.sql import TextMatch


# an external table reference (engine/sql/sql_relations.py Reference) → what DuckDB scans for it
# (its version pinned, time travel applied)
ViewOf = Callable[[Any], Any]


@dataclass
class Prepared:
    """What a statement's searches produced, by ``id`` of a table reference's exp.Table node:
    the rows each search found (DuckDB scans them instead of the table), the views the planner
    resolved (the statement binds the same), the Notes of searches answered exactly, and the
    searches themselves (EXPLAIN)."""

    results: dict[int, Any] = field(default_factory=dict)
    views: dict[int, Any] = field(default_factory=dict)
    notes: list[Diagnostic] = field(default_factory=list)
    searches: dict[int, TableSearch] = field(default_factory=dict)


def is_search_node(node: exp.Expr) -> bool:
    if isinstance(node, (TextMatch, exp.MatchAgainst)):
        return True
    return isinstance(node, exp.Anonymous) and node.name.lower() in APPROXIMATE


def prepare(
    expression: exp.Expr,
    references: list[Any],
    view_of: ViewOf | None,
    settings: SearchSettings,
    run: bool = True,
) -> Prepared | None:
    """Plan (and, with ``run``, execute; else bind to no rows, for EXPLAIN) every search of
    ``expression``, rewriting it in place; None when it has none. ``references`` are
    engine/sql/sql_relations.py's, authorized."""
    nodes = [n for n in expression.find_all(exp.Anonymous, exp.MatchAgainst, TextMatch)]
    nodes = [n for n in nodes if is_search_node(n)]
    if not nodes:
        return None
    planner = _Planner(references, view_of, settings)
    by_select: dict[int, tuple[exp.Select, list[exp.Expr]]] = {}
    for node in nodes:
        select = node.find_ancestor(exp.Select)
        if select is None:
            raise Errors.SEARCH_MISPLACED.error(detail=misplaced(node))
        by_select.setdefault(id(select), (select, []))[1].append(node)
    for select, found in by_select.values():
        planner.plan_select(select, found)
    for node_id, search in planner.table_searches.items():
        planner.prepared.results[node_id] = search.run() if run else search.empty()
    return planner.prepared


class _Planner:
    def __init__(self, references: list[Any], view_of: ViewOf | None, settings: SearchSettings):
        self.references = {id(ref.node): ref for ref in references}
        self.view_of = view_of
        self.settings = settings
        self.prepared = Prepared()
        self.table_searches: dict[int, TableSearch] = {}

    # -- tables -----------------------------------------------------------------------------------
    def reference(self, table: exp.Table) -> Any:
        return self.references.get(id(table))

    def dataset(self, table: exp.Table) -> Any:
        """The LanceDataset a table reference reads (pinned version, time travel applied), or
        None when it is not a Lance table. The view is kept so the statement binds the same."""
        ref = self.reference(table)
        if ref is None or ref.catalog.lower() == INTERNAL or self.view_of is None or ref.system:
            return None
        view = self.prepared.views.get(id(table))
        if view is None:
            view = self.prepared.views[id(table)] = self.view_of(ref)
        return lance_dataset_of(view)

    def shown(self, table: exp.Table) -> str:
        ref = self.reference(table)
        return f"{ref.catalog}.{ref.db}.{ref.table}" if ref is not None else table.sql("mysql")

    def search_of(self, table: exp.Table) -> TableSearch:
        search = self.table_searches.get(id(table))
        if search is None:
            search = TableSearch(self.shown(table), self.dataset(table), self.settings)
            self.table_searches[id(table)] = self.prepared.searches[id(table)] = search
        return search

    def note(self, table: str, reason: str) -> None:
        self.prepared.notes.append(Errors.SEARCH_EXACT.note(table=table, reason=reason))

    # -- one SELECT -----------------------------------------------------------------------------
    def plan_select(self, select: exp.Select, nodes: list[exp.Expr]) -> None:
        scope = Scope(select, self.dataset)
        text_nodes = [n for n in nodes if not isinstance(n, exp.Anonymous)]
        if text_nodes:
            self.plan_text(select, scope, text_nodes)
        vector_nodes = [n for n in nodes if isinstance(n, exp.Anonymous)]
        if vector_nodes:
            plan_vector(self, select, scope, vector_nodes)

    def plan_text(self, select: exp.Select, scope: Scope, nodes: list[exp.Expr]) -> None:
        where = select.args.get("where")
        items = conjuncts(where.this if where is not None else None)
        filtering = [n for n in nodes if any(n is item for item in items)]
        scoring = [n for n in nodes if not any(n is item for item in items)]
        found: dict[int, tuple[exp.Table, full_text.TextQuery]] = {}
        for node in filtering:
            query, column = _text_query(node)
            table = scope.owner(column)
            if table is None or not scope.filterable(table):
                raise Errors.SEARCH_MISPLACED.error(detail=misplaced(node))
            shown = f"{self.shown(table)}.`{query.column}`"
            dataset = self.dataset(table)
            if dataset is None:
                raise Errors.FULLTEXT_INDEX_MISSING.error(
                    detail=f"{shown}: only Lance tables have INVERTED indexes"
                )
            column_name = field_name(dataset.schema, query.column)
            if column_name is None:
                continue  # an unknown column: DuckDB names it (1054)
            query = full_text.TextQuery(column_name, query.text, query.kind)
            index = inverted_index(indexes_of(dataset), column_name)
            if index is None:
                raise Errors.FULLTEXT_INDEX_MISSING.error(
                    detail=f"{shown} has no INVERTED index (CREATE INDEX name ON "
                    f"{self.shown(table)} ({column_name}) USING INVERTED)"
                )
            if query.needs_positions and not index.with_position:
                raise Errors.FULLTEXT_INDEX_MISSING.error(
                    detail=f"a phrase search needs an INVERTED index with positions, and "
                    f"{index.name} on {shown} has none (create it with PROPERTIES "
                    '("support_phrase" = "true"))'
                )
            earlier = found.get(id(table))
            if earlier is not None and earlier[1] != query:
                raise Errors.SEARCH_MISPLACED.error(
                    detail=f"one full-text search per table: {earlier[1].shown()} and "
                    f"{query.shown()} both search {self.shown(table)}"
                )
            found[id(table)] = (table, query)
            search = self.search_of(table)
            search.text, search.text_index = query, index
            node.replace(exp.true())
        for node in scoring:
            if not isinstance(node, exp.MatchAgainst):
                raise Errors.SEARCH_MISPLACED.error(detail=misplaced(node))
            query, column = _text_query(node)
            table = scope.owner(column)
            twin = found.get(id(table)) if table is not None else None
            if (
                table is None
                or twin is None
                or twin[1].text != query.text
                or (twin[1].kind != query.kind or twin[1].column.lower() != query.column.lower())
            ):
                raise Errors.SEARCH_MISPLACED.error(detail=misplaced(node))
            self.search_of(table).score_column = SCORE_COLUMN
            node.replace(exp.column(SCORE_COLUMN, table=table.alias_or_name))
        for table, query in found.values():
            self._finish_text(select, scope, table)

    def _finish_text(self, select: exp.Select, scope: Scope, table: exp.Table) -> None:
        """The columns to read, the conditions Lance applies first, and the limit when the
        query keeps only the best matches."""
        search = self.search_of(table)
        schema = search.dataset.schema
        search.columns = scope.columns_read(table, schema)
        if search.score_column is not None:
            exclude_from_stars(select, table, search.score_column)
        where = select.args.get("where")
        items = [c for c in conjuncts(where.this if where else None) if c != exp.true()]
        translated = [lance_filter(c, schema, scope.field_of(table)) for c in items]
        pushed = [t for t in translated if t is not None]
        search.filter = " AND ".join(f"({t})" for t in pushed) or None
        limit = limit_of(select)
        if (
            limit is not None
            and len(scope.tables) == 1
            and len(pushed) == len(items)
            and _orders_by_score(select, table)
        ):
            search.limit = limit


def _text_query(node: exp.Expr) -> tuple[full_text.TextQuery, exp.Column]:
    if isinstance(node, TextMatch):
        column, literal, kind = node.this, node.expression, node.text("kind").upper()
        where = f"MATCH_{kind}"
    else:
        columns = node.expressions
        if len(columns) != 1:
            raise Errors.SEARCH_ARGUMENT.error(
                where="MATCH",
                detail="one column per MATCH: a Lance INVERTED index covers one column",
            )
        column, literal, where = columns[0], node.this, "AGAINST"
        modifier = str(node.args.get("modifier") or "").upper()
        kind = full_text.BOOLEAN if "BOOLEAN" in modifier else full_text.ANY
        if "EXPANSION" in modifier:
            raise Errors.SEARCH_ARGUMENT.error(
                where="AGAINST", detail="WITH QUERY EXPANSION is not supported"
            )
    if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
        raise Errors.SEARCH_ARGUMENT.error(where=where, detail="the first operand must be a column")
    if not isinstance(literal, exp.Literal) or not literal.is_string:
        raise Errors.SEARCH_ARGUMENT.error(where=where, detail="the search text must be a string")
    return full_text.TextQuery(column.name, literal.name, kind), column


def _orders_by_score(select: exp.Select, table: exp.Table) -> bool:
    ordered = ordering_key(select)
    if ordered is None:
        return False
    key, descending = ordered
    order = select.args["order"]
    return (
        descending
        and len(order.expressions) == 1  # a tie-breaker is DuckDB's to apply, over every match
        and isinstance(key, exp.Column)
        and key.name == SCORE_COLUMN
        and key.table.lower() == table.alias_or_name.lower()
    )
