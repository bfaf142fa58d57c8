from drydock.regression.framework import suite
from drydock.regression.suites.lance_data import lance_warehouse, write_vectors


@suite("test_lance_procedures", "p0,external")
def body(s):  # type: ignore[no-untyped-def]
    warehouse = lance_warehouse(s, "procedures_suite")
    path = f"{warehouse}/db/t.lance"
    write_vectors(path, rows=300, dim=4)
    import lance

    dataset = lance.dataset(path)
    for _ in range(3):  # a few more versions (appends) to compact and expire
        dataset.insert(dataset.to_table(limit=10))
    s.sql("DROP CATALOG IF EXISTS reg_proc")
    s.sql(f"CREATE CATALOG reg_proc PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    procedures = [r["Procedure"] for r in s.sql_return_maparray("SHOW PROCEDURES FROM reg_proc")]
    for name in (
        "sys.compact",
        "sys.expire_snapshots",
        "sys.remove_orphan_files",
        "sys.create_tag",
    ):
        s.assertTrue(name in procedures, name)
    # positional and named forms validate and run identically
    s.sql("CALL reg_proc.sys.create_tag('db.t', 'v_first', 1)")
    s.sql("CALL reg_proc.sys.create_tag(table => 'db.t', tag => 'v_latest')")
    s.qt_tags("SELECT count(*) FROM reg_proc.db.t@tag('v_first')")
    with s.test() as t:
        t.sql("CALL reg_proc.sys.create_tag(table => 'db.t', 'oops')")
        t.exception("named and positional arguments cannot be mixed")
    with s.test() as t:
        t.sql("CALL reg_proc.sys.create_tag(table => 'db.t')")
        t.exception("missing required argument 'tag'")
    with s.test() as t:
        t.sql("CALL reg_proc.sys.no_such_procedure('db.t')")
        t.exception("PROCEDURE no_such_procedure does not exist")
    with s.test() as t:
        t.sql("CALL reg_proc.sys.rollback_to(table => 'db.t', snapshot_id => 1)")
        t.exception("use rollback_to_as_latest")
    compacted = s.sql_return_maparray("CALL reg_proc.sys.compact(table => 'db.t')")
    s.assertEquals(1, len(compacted))
    s.qt_rows_after_compact("SELECT count(*) FROM reg_proc.db.t")
    expired = s.sql_return_maparray(
        "CALL reg_proc.sys.expire_snapshots(table => 'db.t', retain_max => 1)"
    )
    s.assertEquals(1, len(expired))
    s.qt_tag_survives(
        "SELECT count(*) FROM reg_proc.db.t@tag('v_first')"
    )  # tagged versions are kept
    s.sql("CALL reg_proc.sys.delete_tag(table => 'db.t', tag => 'v_first')")
    s.sql("DROP CATALOG reg_proc")
