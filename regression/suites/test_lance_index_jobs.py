from drydock.regression.framework import suite
from drydock.regression.suites.lance_data import lance_warehouse, wait_for_job, write_vectors

ANN = (
    "PROPERTIES ('index_type' = 'IVF_PQ', 'metric' = 'l2', 'num_partitions' = '4', "
    "'num_sub_vectors' = '4', 'sample_rate' = '16', 'max_iters' = '5')"
)


@suite("test_lance_index_admission", "p0,external,nonConcurrent")
def admission(s):  # type: ignore[no-untyped-def]
    warehouse = lance_warehouse(s, "admission_suite")
    write_vectors(f"{warehouse}/db/vs.lance")
    s.sql("DROP CATALOG IF EXISTS reg_adm")
    s.sql(f"CREATE CATALOG reg_adm PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    # docs/doris-compatibility.md, defect 6: assert PENDING only with the dispatcher paused
    s.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'true')")
    try:
        job = s.sql(f"CREATE INDEX idx ON reg_adm.db.vs (embedding) USING ANN {ANN}")[0][0]
        rows = s.sql_return_maparray(f"SHOW LANCE INDEX JOB {job}")
        s.assertEquals("PENDING", rows[0]["State"])
        s.assertEquals("NOT_REQUIRED", rows[0]["RefreshState"])
        with s.test() as t:
            t.sql(f"CREATE INDEX idx ON reg_adm.db.vs (embedding) USING ANN {ANN}")
            t.exception(f"lance index 'idx' is fenced by unresolved job {job}")
        with s.test() as t:
            t.sql(
                "CREATE INDEX bad ON reg_adm.db.vs (embedding) USING ANN PROPERTIES ('index_type' "
                "= 'IVF_PQ', "
                "'num_partitions' = '4', 'num_sub_vectors' = '4', 'bogus' = '1')"
            )
            t.exception("Unknown property 'bogus' for Lance ANN index")
        with s.test() as t:
            t.sql("CREATE INDEX bad ON reg_adm.db.vs (category) USING ANN " + ANN)
            t.exception("ANN index column must be array type")
        with s.test() as t:
            t.sql("CREATE INDEX __lance_x ON reg_adm.db.vs (id) USING BTREE")
            t.exception("uses the reserved '__lance_' prefix")
        with s.test() as t:
            t.sql("CREATE INDEX b ON reg_adm.db.vs (id) USING BTREE PROPERTIES ('a' = 'b')")
            t.exception("BTREE indexes do not support properties")
        with s.test() as t:
            t.sql(f"RESOLVE LANCE INDEX JOB {job} AS FORCE_RELEASE COMMENT 'not yet'")
            t.exception("cannot be resolved: not in UNKNOWN state")
        with s.test() as t:
            t.sql("RESOLVE LANCE INDEX JOB 5 AS FORCE COMMENT 'x'")
            t.exception("line 1:29 mismatched input 'FORCE' expecting FORCE_RELEASE")
        with s.test() as t:
            t.sql("RESOLVE LANCE INDEX JOB 987654 AS FORCE_RELEASE COMMENT 'x'")
            t.exception("Lance index job not found: 987654")
        with s.test() as t:
            t.sql("SHOW LANCE INDEX JOBS WHERE TableName = 'vs' OR State = 'PENDING'")
            t.exception("Only allow compound predicate with operator AND")
        pending = s.sql(
            "SHOW LANCE INDEX JOBS FROM reg_adm.db WHERE TableName = 'vs' AND State = 'pending'"
        )
        s.assertEquals([job], [r[0] for r in pending])
        s.sql(f"CANCEL LANCE INDEX JOB {job}")
        s.assertEquals(
            "NOT_COMMITTED", s.sql_return_maparray(f"SHOW LANCE INDEX JOB {job}")[0]["State"]
        )
        # the gate
        s.sql("ADMIN SET FRONTEND CONFIG ('enable_lance_index_mutation' = 'false')")
        with s.test() as t:
            t.sql("DROP INDEX IF EXISTS idx ON reg_adm.db.vs")
            t.exception(
                "DROP INDEX is disabled for Lance catalog tables (enable_lance_index_mutation = "
                "false)"
            )
    finally:
        s.sql("ADMIN SET FRONTEND CONFIG ('enable_lance_index_mutation' = 'true')")
        s.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'false')")
    s.sql("DROP CATALOG reg_adm")


@suite("test_lance_index_build", "p0,external")
def build(s):  # type: ignore[no-untyped-def]
    warehouse = lance_warehouse(s, "build_suite")
    write_vectors(f"{warehouse}/db/vs.lance")
    s.sql("DROP CATALOG IF EXISTS reg_build")
    s.sql(f"CREATE CATALOG reg_build PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    job = s.sql(f"CREATE INDEX vec_idx ON reg_build.db.vs (embedding) USING ANN {ANN}")[0][0]
    done = wait_for_job(s, job)
    s.assertEquals("COMMITTED", done["State"])
    s.assertEquals("DONE", done["RefreshState"])
    s.assertEquals("NO", done["PossibleLive"])
    s.assertEquals("NATIVE_OK", done["ResultCode"])
    scalar = s.sql("CREATE INDEX id_idx ON reg_build.db.vs (id) USING BTREE")[0][0]
    s.assertEquals("COMMITTED", wait_for_job(s, scalar)["State"])
    indexes = {r["Key_name"]: r for r in s.sql_return_maparray("SHOW INDEX FROM reg_build.db.vs")}
    s.assertEquals({"id_idx", "vec_idx"}, set(indexes))
    s.assertEquals(2000, indexes["vec_idx"]["Indexed_rows"])
    noop = s.sql("CREATE INDEX IF NOT EXISTS id_idx ON reg_build.db.vs (id) USING BTREE")
    s.assertEquals([], noop)  # an IF NOT EXISTS no-op answers zero rows
    dropped = s.sql("DROP INDEX id_idx ON reg_build.db.vs")[0][0]
    s.assertEquals("COMMITTED", wait_for_job(s, dropped)["State"])
    s.sql("DROP CATALOG reg_build")
