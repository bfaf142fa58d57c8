"""Approximate top-k over the wire: pushed to the vector index, answers checked against numpy
brute force; filtered, range and time-travel searches; exact fallbacks with their Note; errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import ServerProcess
from tests.search.conftest import DIM, SearchData, error, run, vector_text

# every partition probed and a wide re-rank: the index then finds the exact top k
EXHAUSTIVE = ("SET ivf_nprobe = 8", "SET vector_refine_factor = 100")


def query_of(data: SearchData, i: int) -> np.ndarray:
    return (data.vectors[i] + np.float32(0.05)).astype(np.float32)


def test_top_k_equals_brute_force_with_exact_distances(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    for i in (3, 1500, 2999):
        q = query_of(search_data, i)
        found, warnings = run(
            search_server,
            *EXHAUSTIVE,
            f"SELECT id, l2_distance_approximate(emb, '{vector_text(q)}') AS d "
            "FROM lc.db.docs ORDER BY d LIMIT 10",
        )
        assert warnings == []  # the index answered: no Note
        exact = search_data.exact_l2(q)
        expected = np.argsort(exact, kind="stable")[:10]
        assert [r[0] for r in found] == list(expected)
        for row_id, distance in found:
            assert distance == pytest.approx(exact[row_id], rel=1e-9)  # Euclidean, not squared


def test_array_literal_and_both_argument_orders(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 42)
    literal = "[" + ", ".join(f"{float(x):.6f}" for x in q) + "]"
    a, _ = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, {literal}) LIMIT 5",
    )
    b, _ = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate({literal}, emb) LIMIT 5",
    )
    assert a == b and len(a) == 5 and a[0][0] == 42


def test_inner_product_descending_on_a_dot_index(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 7)
    found, warnings = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id, inner_product_approximate(emb, '{vector_text(q)}') AS s FROM lc.db.dots "
        "ORDER BY s DESC LIMIT 8",
    )
    assert warnings == []
    exact = search_data.exact_dot(q)
    assert [r[0] for r in found] == list(np.argsort(-exact, kind="stable")[:8])
    for row_id, score in found:
        assert score == pytest.approx(exact[row_id], rel=1e-9)


def test_recall_at_default_settings(search_server: ServerProcess, search_data: SearchData) -> None:
    rng = np.random.default_rng(11)
    hits = 0
    picks = rng.integers(0, len(search_data.vectors), 30)
    with search_server.connect() as conn, conn.cursor() as cur:
        for i in picks:
            q = query_of(search_data, int(i))
            cur.execute(
                "SELECT id FROM lc.db.docs "
                f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 10"
            )
            found = {r[0] for r in cur.fetchall()}
            hits += len(found & set(np.argsort(search_data.exact_l2(q))[:10]))
    assert hits / (10 * len(picks)) >= 0.9


def test_offset_reads_past_the_first_rows(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 99)
    found, _ = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') "
        "LIMIT 4 OFFSET 3",
    )
    assert [r[0] for r in found] == list(np.argsort(search_data.exact_l2(q), kind="stable")[3:7])


def test_prefilter_returns_k_rows_of_a_selective_filter(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 5)
    found, warnings = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id, category FROM lc.db.docs WHERE category = 17 AND id < 2500 "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 10",
    )
    assert warnings == []
    mask = (search_data.category == 17) & (np.arange(len(search_data.category)) < 2500)
    expected = np.argsort(search_data.exact_l2(q, mask), kind="stable")[:10]
    assert [r[0] for r in found] == list(expected)
    assert all(r[1] == 17 for r in found)


def test_range_search_with_order_and_limit(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 250)
    exact = search_data.exact_l2(q)
    radius = float(np.sort(exact)[6]) + 1e-3  # 7 rows inside
    found, warnings = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id FROM lc.db.docs WHERE l2_distance_approximate(emb, '{vector_text(q)}') "
        f"< {radius} ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 50",
    )
    assert warnings == []
    assert [r[0] for r in found] == list(np.argsort(exact, kind="stable")[:7])


def test_range_search_without_limit_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 250)
    exact = search_data.exact_l2(q)
    radius = float(np.sort(exact)[4]) + 1e-3
    found, warnings = run(
        search_server,
        f"SELECT id FROM lc.db.docs WHERE l2_distance_approximate(emb, '{vector_text(q)}') "
        f"<= {radius} ORDER BY id",
    )
    assert sorted(r[0] for r in found) == sorted(np.argsort(exact)[:5].tolist())
    assert [(w[0], w[1]) for w in warnings] == [("Note", 5200)]
    assert "without ORDER BY" in warnings[0][2]


def test_no_matching_index_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 77)
    expected = list(np.argsort(search_data.exact_l2(q), kind="stable")[:6])
    for table, why in (("plain", "no vector index"), ("dots", "(the column has emb_idx (dot))")):
        found, warnings = run(
            search_server,
            f"SELECT id FROM lc.db.{table} "
            f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 6",
        )
        assert [r[0] for r in found] == expected
        assert [(w[0], w[1]) for w in warnings] == [("Note", 5200)]
        assert why in warnings[0][2] and f"lc.db.{table}" in warnings[0][2]


def test_descending_l2_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 1)
    found, warnings = run(
        search_server,
        f"SELECT id FROM lc.db.docs "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') DESC LIMIT 3",
    )
    assert [r[0] for r in found] == list(np.argsort(-search_data.exact_l2(q), kind="stable")[:3])
    assert "farthest" in warnings[0][2]


def test_untranslatable_filter_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 10)
    found, warnings = run(
        search_server,
        f"SELECT id FROM lc.db.docs WHERE body LIKE 'zebra%' "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 5",
    )
    mask = np.array([b.startswith("zebra") for b in search_data.body])
    assert [r[0] for r in found] == list(
        np.argsort(search_data.exact_l2(q, mask), kind="stable")[:5]
    )
    assert "cannot be applied by Lance first" in warnings[0][2]


def test_search_result_is_a_relation(search_server: ServerProcess, search_data: SearchData) -> None:
    q = vector_text(query_of(search_data, 123))
    top = (
        f"SELECT id, category FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{q}') LIMIT 10"
    )
    with search_server.connect() as conn, conn.cursor() as cur:
        for sql in EXHAUSTIVE:
            cur.execute(sql)
        cur.execute(top)
        ids = [r[0] for r in cur.fetchall()]
        cur.execute("CREATE DATABASE IF NOT EXISTS rel")
        cur.execute("CREATE TABLE IF NOT EXISTS rel.labels (id BIGINT, label VARCHAR(20))")
        cur.execute("DELETE FROM rel.labels")
        cur.execute(f"INSERT INTO rel.labels VALUES ({ids[0]}, 'first'), ({ids[1]}, 'second')")
        cur.execute(
            f"WITH top AS ({top}) SELECT l.label FROM top JOIN rel.labels l ON l.id = top.id "
            "ORDER BY l.label"
        )
        assert cur.fetchall() == (("first",), ("second",))
        cur.execute(f"SELECT count(*), min(category) <= max(category) FROM ({top}) t")
        assert cur.fetchall() == ((10, 1),)


def test_time_travel_searches_the_version_named(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 1500)  # a row of version 2 only
    latest, _ = run(
        search_server,
        *EXHAUSTIVE,
        f"SELECT id FROM lc.db.docs_v ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') "
        "LIMIT 1",
    )
    first, _ = run(
        search_server,
        *EXHAUSTIVE,
        "SELECT id FROM lc.db.docs_v FOR VERSION AS OF 1 "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 1",
    )
    assert latest == [(1500,)]
    assert first[0][0] < 1000


def test_errors(search_server: ServerProcess, search_data: SearchData) -> None:
    q = vector_text(query_of(search_data, 0))
    code, message = error(
        search_server, f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{q}')"
    )
    assert code == 1235 and "needs a LIMIT" in message
    code, message = error(
        search_server,
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{q}') LIMIT 20000",
    )
    assert code == 1235 and "vector_search_max_k" in message
    code, message = error(
        search_server, f"SELECT l2_distance_approximate(emb, '{q}') FROM lc.db.docs LIMIT 3"
    )
    assert code == 1235 and "use l2_distance" in message
    code, message = error(
        search_server,
        "SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '[1,2,3]') LIMIT 3",
    )
    assert "16" in message and "3" in message
    code, message = error(
        search_server,
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(category, '{q}') LIMIT 3",
    )
    assert code == 1210 and "not a vector column" in message
    code, _ = error(search_server, "SET ivf_nprobe = 0")
    assert code == 1231


def test_session_variables_are_shown(search_server: ServerProcess) -> None:
    found, _ = run(search_server, "SHOW VARIABLES LIKE 'ivf_nprobe'")
    assert found and int(found[0][1]) >= 1
    found, _ = run(search_server, "SET hnsw_ef_search = 64", "SELECT @@hnsw_ef_search")
    assert found == [(64,)]


def test_dimension_is_checked_against_the_column(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    _code, message = error(
        search_server,
        "SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, "
        f"'{vector_text(np.zeros(DIM + 1, np.float32))}') LIMIT 3",
    )
    assert str(DIM) in message and str(DIM + 1) in message


def test_lower_distance_bound_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = query_of(search_data, 600)
    exact = search_data.exact_l2(q)
    order = np.argsort(exact, kind="stable")
    radius = float(exact[order[20]]) - 1e-4  # rows 20.. lie beyond it
    found, warnings = run(
        search_server,
        f"SELECT id FROM lc.db.docs WHERE l2_distance_approximate(emb, '{vector_text(q)}') "
        f"> {radius} ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 5",
    )
    assert [r[0] for r in found] == list(order[20:25])
    assert "beyond a bound" in warnings[0][2]


def test_explain_shows_the_index_and_lance_plan(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = vector_text(query_of(search_data, 3))
    with search_server.connect() as conn, conn.cursor() as cur:
        cur.execute(
            f"EXPLAIN SELECT id FROM lc.db.docs WHERE category = 4 "
            f"ORDER BY l2_distance_approximate(emb, '{q}') LIMIT 10"
        )
        assert [c[0] for c in cur.description][:3] == ["id", "select_type", "table"]
        row = cur.fetchall()[0]
        assert row[2] == "docs" and row[4] == "index" and row[6] == "emb_idx" and row[9] == 10
        assert "prefilter: (`category` = 4)" in row[11] and "nprobe=" in row[11]
        cur.execute("SHOW WARNINGS")
        notes = cur.fetchall()
        assert notes[0][1] == 1003 and "ANNSubIndex" in notes[0][2] and "emb_idx" in notes[0][2]
        cur.execute("EXPLAIN SELECT id FROM lc.db.docs WHERE MATCH (body) AGAINST ('zebra')")
        row = cur.fetchall()[0]
        assert row[4] == "fulltext" and row[6] == "body_idx"
        cur.execute("EXPLAIN SELECT id FROM lc.db.docs WHERE id = 77")
        row = cur.fetchall()[0]
        assert row[4] == "range" and row[6] == "id_idx" and "id_idx" in row[5]
        cur.execute("SHOW WARNINGS")
        assert "ScalarIndexQuery" in cur.fetchall()[0][2]


def test_unknown_vector_column_is_1054(search_server: ServerProcess) -> None:
    code, message = error(
        search_server,
        "SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(nope, '[1,2]') LIMIT 3",
    )
    assert code == 1054 and "nope" in message


def test_search_inside_a_join_is_exact_with_a_note(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = vector_text(query_of(search_data, 8))
    found, warnings = run(
        search_server,
        "SELECT a.id FROM lc.db.docs a JOIN lc.db.plain b ON a.id = b.id "
        f"ORDER BY l2_distance_approximate(a.emb, '{q}') LIMIT 2",
    )
    assert [r[0] for r in found] == list(
        np.argsort(search_data.exact_l2(query_of(search_data, 8)), kind="stable")[:2]
    )
    assert "more than one relation" in warnings[0][2]


def test_selective_prefilter_still_returns_k_rows(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    """One partition probed and a filter matching 12 rows: the search probes on until k rows are
    found, so all 10 come back."""
    q = query_of(search_data, 5)
    found, _ = run(
        search_server,
        "SET ivf_nprobe = 1",
        "SET vector_refine_factor = 0",
        f"SELECT id FROM lc.db.docs WHERE category = 9 AND id < 600 "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 10",
    )
    matching = (search_data.category == 9) & (np.arange(len(search_data.category)) < 600)
    assert matching.sum() == 12
    assert len(found) == 10 and all(matching[r[0]] for r in found)


def test_selected_distance_is_the_exact_functions_value_to_the_bit(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    for table, function, exact, order in (
        ("docs", "l2_distance_approximate", "l2_distance", ""),
        ("dots", "inner_product_approximate", "inner_product", "DESC"),
    ):
        q = vector_text(query_of(search_data, 31))
        found, warnings = run(
            search_server,
            f"SELECT {function}(emb, '{q}') AS a, {exact}(emb, '{q}') AS b FROM lc.db.{table} "
            f"ORDER BY a {order} LIMIT 5",
        )
        assert warnings == [] and len(found) == 5
        assert all(a == b for a, b in found), found


def test_star_shows_the_tables_columns_only(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    q = vector_text(query_of(search_data, 2))
    with search_server.connect() as conn, conn.cursor() as cur:
        for select in ("*", "d.*"):
            cur.execute(
                f"SELECT {select} FROM lc.db.docs d "
                f"ORDER BY l2_distance_approximate(d.emb, '{q}') LIMIT 2"
            )
            assert [c[0] for c in cur.description] == ["id", "category", "body", "emb"]
            assert len(cur.fetchall()) == 2
