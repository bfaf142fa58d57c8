"""Differential check: the relations drydock authorizes for a SELECT are the ones DuckDB reads
(plus, conservatively, those of CTEs DuckDB never plans because nothing uses them), for random
statements mixing CTEs (shadowing real names), subqueries, set operations and
joins over real tables. DuckDB's answer is ``duckdb.get_table_names`` on the original text
(scope-correct for SELECTs, see the DuckDB reference notes)."""

from __future__ import annotations

import duckdb
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drydock.engine.session import SessionContext
from drydock.engine.sql.sql_relations import resolve
from drydock.grammar import sql as sql_grammar

NAMES = ["a", "b", "c", "secret"]


@st.composite
def queries(draw: st.DrawFn, depth: int = 0) -> str:
    ctes: list[str] = []
    if depth < 2 and draw(st.booleans()):
        for _ in range(draw(st.integers(1, 2))):
            name = draw(st.sampled_from(NAMES))
            ctes.append(f"{name} AS ({draw(queries(depth + 1))})")
    sources = []
    for _ in range(draw(st.integers(1, 2))):
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            sources.append(f"({draw(queries(depth + 1))}) AS q{depth}{len(sources)}")
        else:
            name = draw(st.sampled_from(NAMES))
            sources.append(f"d.{name}" if draw(st.integers(0, 4)) == 0 else name)
    body = f"SELECT 1 AS x FROM {', '.join(sources)}"
    if depth < 2 and draw(st.integers(0, 3)) == 0:
        body += f" WHERE EXISTS ({draw(queries(depth + 1))})"
    if depth < 2 and draw(st.integers(0, 4)) == 0:
        body = f"{body} UNION ALL {draw(queries(depth + 1))}"
    recursive = "RECURSIVE " if ctes and draw(st.integers(0, 5)) == 0 else ""
    return (f"WITH {recursive}{', '.join(ctes)} " if ctes else "") + body


def drydock_relations(sql: str) -> set[str]:
    ctx = SessionContext(user="u", host="h", connection_id=1, database="d")
    refs = resolve(sql_grammar.parse(sql), ctx)
    return {f"{r.db}.{r.table}".lower() for r in refs}


def duckdb_relations(sql: str) -> set[str]:
    names = {n.replace('"', "") for n in duckdb.get_table_names(sql, qualified=True)}
    return {name if "." in name else f"d.{name}" for name in names}


@settings(max_examples=300, deadline=None)
@given(queries())
def test_authorized_relations_equal_what_duckdb_reads(sql: str) -> None:
    if " RECURSIVE " in f" {sql} ":
        return  # get_table_names does not model recursive self-references; covered below
    try:
        expected = duckdb_relations(sql)
    except duckdb.ParserException:
        assume(False)  # a shape DuckDB does not accept (e.g. UNION ALL WITH …) is no evidence
        return
    authorized = drydock_relations(sql)
    # DuckDB never plans an unused CTE, drydock checks privileges on every table the text names
    # (as MySQL does): without CTEs the sets are equal, with them drydock's may only be larger.
    assert expected <= authorized, sql
    if "WITH " not in sql:
        assert authorized == expected, sql


def test_known_shapes() -> None:
    cases = {
        "WITH t2 AS (SELECT * FROM t2) SELECT * FROM t2": {"d.t2"},
        "WITH x AS (SELECT 1) SELECT * FROM x": set(),
        "SELECT * FROM (WITH b AS (SELECT 1) SELECT * FROM b) q, b": {"d.b"},
        "WITH RECURSIVE r AS (SELECT * FROM s UNION ALL SELECT * FROM r) SELECT * FROM r": {"d.s"},
        "WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b, c": {"d.c"},
        "WITH b AS (SELECT * FROM a), a AS (SELECT 1) SELECT * FROM b": {"d.a"},
    }
    for sql, expected in cases.items():
        authorized = drydock_relations(sql)
    # DuckDB never plans an unused CTE, drydock checks privileges on every table the text names
    # (as MySQL does): without CTEs the sets are equal, with them drydock's may only be larger.
    assert expected <= authorized, sql
    if "WITH " not in sql:
        assert authorized == expected, sql
