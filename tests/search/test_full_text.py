"""Full-text search over the wire on INVERTED indexes: MySQL's MATCH … AGAINST (natural language
and boolean mode, its BM25 score selected and ordered by) and Doris' MATCH_ANY / MATCH_ALL /
MATCH_PHRASE, checked against pylance's own answers and the words of each row."""

from __future__ import annotations

import lance
import pytest
from lance import query as lq

from tests.conftest import ServerProcess
from tests.search.conftest import SearchData, error, run


def dataset(data: SearchData) -> lance.LanceDataset:
    return lance.dataset(str(data.warehouse / "db" / "docs.lance"))


def rows_with(data: SearchData, *words: str, every: bool = False) -> set[int]:
    test = all if every else any
    return {i for i, b in enumerate(data.body) if test(w in b.split() for w in words)}


def test_match_against_filters_and_scores_like_pylance(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    found, warnings = run(
        search_server,
        "SELECT id, MATCH (body) AGAINST ('zebra w5') AS score FROM lc.db.docs "
        "WHERE MATCH (body) AGAINST ('zebra w5') ORDER BY score DESC, id LIMIT 10",
    )
    assert warnings == []
    expected = dataset(search_data).to_table(
        full_text_query=lq.MatchQuery("zebra w5", "body"), columns=["id"]
    )
    scores = dict(zip(expected["id"].to_pylist(), expected["_score"].to_pylist(), strict=True))
    best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    assert [r[0] for r in found] == [k for k, _ in best]
    for row_id, score in found:
        assert score == pytest.approx(scores[row_id], rel=1e-5)


def test_every_match_without_limit(search_server: ServerProcess, search_data: SearchData) -> None:
    found, _ = run(search_server, "SELECT id FROM lc.db.docs WHERE MATCH (body) AGAINST ('harbor')")
    assert {r[0] for r in found} == rows_with(search_data, "harbor")


def test_other_conditions_and_aggregates(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    found, _ = run(
        search_server,
        "SELECT count(*) FROM lc.db.docs WHERE MATCH (body) AGAINST ('river') "
        "AND category < 10 AND body NOT LIKE '%stone%'",
    )
    expected = {
        i
        for i in rows_with(search_data, "river")
        if search_data.category[i] < 10 and "stone" not in search_data.body[i]
    }
    assert found == [(len(expected),)]


def test_boolean_mode(search_server: ServerProcess, search_data: SearchData) -> None:
    found, _ = run(
        search_server,
        "SELECT id FROM lc.db.docs WHERE MATCH (body) AGAINST ('+zebra -apple' IN BOOLEAN MODE)",
    )
    assert {r[0] for r in found} == rows_with(search_data, "zebra") - rows_with(
        search_data, "apple"
    )


def test_star_does_not_show_the_score(search_server: ServerProcess) -> None:
    with search_server.connect() as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT *, MATCH (body) AGAINST ('ember') AS s FROM lc.db.docs d "
            "WHERE MATCH (body) AGAINST ('ember') LIMIT 1"
        )
        assert [c[0] for c in cur.description] == ["id", "category", "body", "emb", "s"]


def test_errors(search_server: ServerProcess) -> None:
    code, message = error(
        search_server, "SELECT id FROM lc.db.plain WHERE MATCH (body) AGAINST ('zebra')"
    )
    assert code == 1191 and "INVERTED" in message and "lc.db.plain" in message
    code, message = error(
        search_server, "SELECT MATCH (body) AGAINST ('zebra') FROM lc.db.docs LIMIT 1"
    )
    assert code == 1235 and "WHERE" in message
    code, message = error(
        search_server,
        "SELECT id FROM lc.db.docs WHERE id = 1 OR MATCH (body) AGAINST ('zebra')",
    )
    assert code == 1235
    code, _ = error(search_server, "SELECT id FROM lc.db.docs WHERE MATCH (body) AGAINST (id)")
    assert code in (1064, 1210)  # the search text must be a string (the parser may say so first)
    code, _ = error(
        search_server, "SELECT id FROM lc.db.docs WHERE MATCH (body, body) AGAINST ('x')"
    )
    assert code == 1210


def test_doris_match_predicates(search_server: ServerProcess, search_data: SearchData) -> None:
    any_, _ = run(search_server, "SELECT id FROM lc.db.docs WHERE body MATCH_ANY 'grove frost'")
    assert {r[0] for r in any_} == rows_with(search_data, "grove", "frost")
    all_, _ = run(search_server, "SELECT id FROM lc.db.docs WHERE body MATCH_ALL 'grove frost'")
    assert {r[0] for r in all_} == rows_with(search_data, "grove", "frost", every=True)
    phrase, _ = run(
        search_server, "SELECT id FROM lc.db.docs WHERE body MATCH_PHRASE 'frost island'"
    )
    assert {r[0] for r in phrase} == {
        i for i, b in enumerate(search_data.body) if "frost island" in b
    }
    scored, _ = run(
        search_server,
        "SELECT id, MATCH (body) AGAINST ('stone') AS s FROM lc.db.docs "
        "WHERE body MATCH_ANY 'stone' ORDER BY s DESC LIMIT 3",
    )
    assert len(scored) == 3 and all(r[1] > 0 for r in scored)


def test_phrase_needs_positions(search_server: ServerProcess) -> None:
    code, message = error(
        search_server, "SELECT id FROM lc.db.dots WHERE body MATCH_PHRASE 'frost island'"
    )
    assert code == 1191 and "positions" in message and '"support_phrase" = "true"' in message
    found, _ = run(search_server, "SELECT count(*) FROM lc.db.dots WHERE body MATCH_ALL 'frost'")
    assert found[0][0] > 0  # words alone need no positions


def test_full_text_then_nearest_is_exact_over_the_matches(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    import numpy as np

    from tests.search.conftest import vector_text

    q = search_data.vectors[44]
    found, warnings = run(
        search_server,
        f"SELECT id FROM lc.db.docs WHERE body MATCH_ANY 'cloud' "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 3",
    )
    cloud = np.array(["cloud" in b.split() for b in search_data.body])
    assert [r[0] for r in found] == list(
        np.argsort(search_data.exact_l2(q, cloud), kind="stable")[:3]
    )
    assert "also searched by full text" in warnings[0][2]
