"""engine/lakehouse/catalogs/lance_scan.py: DuckDB's pushed filters reach Lance's scalar indexes,
with the same answers as without the index (NULL rows, IN with NULL, NOT IN, the NOCASE collation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import lance
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from drydock.engine.lakehouse.catalogs.lance_scan import index_filter, indexed_scanner
from drydock.engine.lakehouse.catalogs.lance_types import Float16AsFloat32, for_duckdb
from drydock.engine.sql.collation import DEFAULT as DEFAULT_COLLATION

ROWS = 3000
SCHEMA = pa.schema(
    [("id", pa.int64()), ("category", pa.int32()), ("tag", pa.string()), ("v", pa.float16())]
)


def table() -> pa.Table:
    ids = [None if i % 97 == 0 else i for i in range(ROWS)]
    return pa.table(
        {
            "id": ids,
            "category": [None if i % 31 == 0 else i % 7 for i in range(ROWS)],
            "tag": [("News", "news", "NÉWS", "sports", None)[i % 5] for i in range(ROWS)],
            "v": pa.array(np.arange(ROWS, dtype=np.float16) % 3),
        },
        schema=SCHEMA,
    )


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """(indexed, plain): the same rows; BTREE on id and tag and BITMAP on category, or none."""
    root: Path = tmp_path_factory.mktemp("lance_scan")
    indexed = lance.write_dataset(table(), root / "indexed.lance")
    indexed.create_scalar_index("id", "BTREE")
    indexed.create_scalar_index("category", "BITMAP")
    indexed.create_scalar_index("tag", "BTREE")
    plain = lance.write_dataset(table(), root / "plain.lance")
    return lance.dataset(root / "indexed.lance"), plain


class PlanSpy(Float16AsFloat32):
    """What for_duckdb gives DuckDB for these datasets (they have a half-float column), keeping the
    plan of the Lance scanner each scan makes."""

    def __init__(self, ds: Any):
        super().__init__(ds)
        self.plans: list[str] = []

    def scanner(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.plans.append(indexed_scanner(self.lance_dataset, *args, **kwargs).explain_plan())
        return super().scanner(*args, **kwargs)


def duckdb_over(scan: Any) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{DEFAULT_COLLATION}'")  # as drydock runs DuckDB
    con.register("t", scan)
    return con


WHERES = [
    "id = 777",
    "id BETWEEN 500 AND 509",
    "id IN (5, 777, 1234, 2999, 97)",  # 97 is a NULL row's position: not a value
    "id NOT IN (5, 777, 1234)",
    "id IN (5, NULL, 777)",
    "id NOT IN (5, NULL)",
    "id IS NULL",
    "id IS NOT NULL AND id < 20",
    "id = 5 OR category = 3",
    "(id < 100 OR id > 2900) AND category IN (1, 2)",
    "NOT (id = 5 OR category = 3)",
    "category <> 3 AND id >= 2990",
    "category IS NULL OR id = 12",
    "tag = 'news'",  # the default collation: News, news and NÉWS all match
    "tag = 'News' AND id < 50",
    "tag IN ('news', 'SPORTS')",
    "tag COLLATE utf8mb4_bin = 'News'",
]


def duckdb_where(where: str) -> str:
    return where.replace("COLLATE utf8mb4_bin", 'COLLATE "binary"')


@pytest.mark.parametrize("where", WHERES)
def test_answers_are_the_same_with_and_without_the_index(datasets: Any, where: str) -> None:
    indexed, plain = datasets
    sql = f"SELECT id, category, tag FROM t WHERE {duckdb_where(where)}"
    with_index = sorted(duckdb_over(for_duckdb(indexed)).execute(sql).fetchall(), key=repr)
    assert with_index == sorted(duckdb_over(for_duckdb(plain)).execute(sql).fetchall(), key=repr)
    # and as DuckDB answers on its own, without any push-down
    con = duckdb_over(for_duckdb(plain))
    materialized = for_duckdb(plain).scanner().to_reader().read_all()
    con.register("m", materialized)
    assert with_index == sorted(con.execute(sql.replace("FROM t", "FROM m")).fetchall(), key=repr)
    assert with_index or where == "id NOT IN (5, NULL)"  # the others match some rows


def test_the_nocase_collation_finds_news_in_every_case(datasets: Any) -> None:
    indexed, _ = datasets
    con = duckdb_over(for_duckdb(indexed))
    found = con.execute(
        "SELECT tag COLLATE \"binary\" AS exact, count(*) FROM t WHERE tag = 'news' GROUP BY exact"
    )
    assert sorted(found.fetchall()) == sorted([("NÉWS", 600), ("News", 600), ("news", 600)])


@pytest.mark.parametrize(
    "where",
    [
        "id = 777",
        "id BETWEEN 500 AND 509",
        "id IN (5, 777, 1234)",
        "id NOT IN (5, 777)",
        "id IS NULL",
        "id = 5 OR category = 3",
        "category IN (1, 2) AND id < 100",
        "category = 4",
    ],
)
def test_indexed_filters_are_answered_by_the_index(datasets: Any, where: str) -> None:
    indexed, _ = datasets
    spy = PlanSpy(indexed)
    duckdb_over(spy).execute(f"SELECT id FROM t WHERE {where}").fetchall()
    [plan] = spy.plans
    assert "ScalarIndexQuery" in plan, plan


def test_without_the_rewrite_duckdbs_in_misses_the_index(datasets: Any) -> None:
    """The reason for lance_scan.py: Lance reads DuckDB's IN form row by row."""
    indexed, _ = datasets
    pushed = pc.if_else(
        pc.field("id").is_valid(),
        pc.is_in(pc.field("id"), value_set=pa.array([5, 777])),
        pa.scalar(None, pa.bool_()),
    )
    assert "ScalarIndexQuery" not in indexed.scanner(filter=pushed).explain_plan()
    assert index_filter(pushed, indexed.schema) == "(`id` IN (5, 777))"
    assert "ScalarIndexQuery" in indexed.scanner(filter="(`id` IN (5, 777))").explain_plan()


@pytest.mark.parametrize(
    "pushed",
    [
        pc.field("tag") == "news",  # strings are passed on as they came
        pc.field("v") == pa.scalar(1.0, pa.float32()),
        pc.field("id") == pa.scalar(5, pa.int32()),  # not the column's type
        pc.is_in(pc.field("id"), value_set=pa.array([1, 2])),  # not DuckDB's NULL-keeping form
        pc.if_else(  # a value set with NULL: NOT would differ from SQL's
            pc.field("id").is_valid(),
            pc.is_in(pc.field("id"), value_set=pa.array([1, None], pa.int64())),
            pa.scalar(None, pa.bool_()),
        ),
        pc.if_else(  # pyarrow prints a long list abridged
            pc.field("id").is_valid(),
            pc.is_in(pc.field("id"), value_set=pa.array(range(40), pa.int64())),
            pa.scalar(None, pa.bool_()),
        ),
        pc.field("missing") == 5,
    ],
)
def test_filters_it_does_not_read_are_passed_on_unchanged(datasets: Any, pushed: Any) -> None:
    indexed, _ = datasets
    assert index_filter(pushed, indexed.schema) is pushed


def test_no_filter_stays_no_filter(datasets: Any) -> None:
    indexed, _ = datasets
    assert index_filter(None, indexed.schema) is None
