from drydock.regression.framework import suite
from drydock.regression.suites.lance_data import lance_warehouse, wait_for_job, write_documents

Q = "'[1.5, -0.5, 2.0, 0.0, 1.0, -1.0, 0.5, 0.25]'"


@suite("test_search", "p0,external,nonConcurrent")
def body(s):  # type: ignore[no-untyped-def]
    """Search with the indexes drydock builds: ANN top-k, filtered and range search, full text."""
    warehouse = lance_warehouse(s, "search_suite")
    write_documents(f"{warehouse}/db/docs.lance")
    s.sql("DROP CATALOG IF EXISTS reg_search")
    s.sql(f"CREATE CATALOG reg_search PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    for statement in (
        "CREATE INDEX emb_idx ON reg_search.db.docs (embedding) USING ANN PROPERTIES ("
        "'index_type' = 'IVF_PQ', 'metric' = 'l2', 'num_partitions' = '4', "
        "'num_sub_vectors' = '4')",
        "CREATE INDEX body_idx ON reg_search.db.docs (body) USING INVERTED "
        "PROPERTIES ('support_phrase' = 'true')",
        "CREATE INDEX id_idx ON reg_search.db.docs (id) USING BTREE",
    ):
        job = s.sql(statement)[0][0]
        s.assertEquals("COMMITTED", wait_for_job(s, job)["State"])
    # every partition probed and a wide re-rank: the answers are the exact top k
    s.sql("SET ivf_nprobe = 4")
    s.sql("SET vector_refine_factor = 200")
    s.qt_top_k(
        f"SELECT id, round(l2_distance_approximate(embedding, {Q}), 4) AS d "
        f"FROM reg_search.db.docs ORDER BY l2_distance_approximate(embedding, {Q}) LIMIT 5"
    )
    s.assertEquals([], s.sql("SHOW WARNINGS"))
    s.qt_exact(
        f"SELECT id, round(l2_distance(embedding, {Q}), 4) AS d "
        "FROM reg_search.db.docs ORDER BY d LIMIT 5"
    )
    s.qt_filtered(
        f"SELECT id, category FROM reg_search.db.docs WHERE category = 3 "
        f"ORDER BY l2_distance_approximate(embedding, {Q}) LIMIT 5"
    )
    s.qt_range(
        f"SELECT id FROM reg_search.db.docs WHERE l2_distance_approximate(embedding, {Q}) < 4.75 "
        f"ORDER BY l2_distance_approximate(embedding, {Q}) LIMIT 100"
    )
    s.qt_aggregate_over_top_k(
        f"SELECT category, count(*) FROM (SELECT id, category FROM reg_search.db.docs "
        f"ORDER BY l2_distance_approximate(embedding, {Q}) LIMIT 20) t GROUP BY category "
        "ORDER BY category"
    )
    s.qt_full_text("SELECT count(*) FROM reg_search.db.docs WHERE MATCH (body) AGAINST ('zebra')")
    s.qt_boolean(
        "SELECT count(*) FROM reg_search.db.docs "
        "WHERE MATCH (body) AGAINST ('+zebra -apple' IN BOOLEAN MODE)"
    )
    s.sql(
        "SELECT id FROM reg_search.db.docs "
        f"ORDER BY l2_distance_approximate(embedding, {Q}) DESC LIMIT 1"
    )
    s.qt_exact_note("SHOW WARNINGS")
    with s.test() as t:
        t.sql(f"SELECT id FROM reg_search.db.docs ORDER BY l2_distance_approximate(embedding, {Q})")
        t.exception("needs a LIMIT")
    with s.test() as t:
        t.sql(
            "SELECT id FROM reg_search.db.docs "
            "ORDER BY l2_distance_approximate(embedding, '[1, 2]') LIMIT 3"
        )
        t.exception("8")
    with s.test() as t:
        t.sql("SELECT id FROM reg_search.db.docs WHERE MATCH (category) AGAINST ('x')")
        t.exception("has no INVERTED index")
    s.sql("DROP CATALOG reg_search")
