from drydock.regression.framework import suite


@suite("test_frontend_config", "p0,nonConcurrent")
def body(s):  # type: ignore[no-untyped-def]
    rows = s.sql_return_maparray(
        "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_max_unresolved_per_table'"
    )
    s.assertEquals(
        ["Key", "Value", "Type", "IsMutable", "MasterOnly", "Comment"], list(rows[0].keys())
    )
    original = rows[0]["Value"]
    try:
        s.sql('ADMIN SET FRONTEND CONFIG ("lance_index_job_max_unresolved_per_table" = "3")')
        s.qt_after_set("ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_max_unresolved_per_table'")
        with s.test() as t:
            t.sql('ADMIN SET FRONTEND CONFIG ("lance_index_job_max_unresolved_per_table" = "0")')
            t.exception("must be a positive long")
        with s.test() as t:
            t.sql('ADMIN SET FRONTEND CONFIG ("lance_index_max_num_partitions" = "-1")')
            t.exception("must be a positive int")
        with s.test() as t:
            t.sql('ADMIN SET FRONTEND CONFIG ("no_such_config" = "1")')
            t.exception("Config 'no_such_config' does not exist")
        # experimental fields answer to both names
        s.sql('ADMIN SET FRONTEND CONFIG ("enable_lance_index_mutation" = "false")')
        s.qt_gate_off("ADMIN SHOW FRONTEND CONFIG LIKE 'experimental_enable_lance_index_mutation'")
        s.sql('ADMIN SET FRONTEND CONFIG ("experimental_enable_lance_index_mutation" = "true")')
        with s.test() as t:
            t.sql("ADMIN SHOW FRONTEND CONFIG LIK 'x'")
            t.exception("mismatched input 'LIK'")
    finally:
        s.sql(
            f'ADMIN SET FRONTEND CONFIG ("lance_index_job_max_unresolved_per_table" = "{original}")'
        )
        s.sql('ADMIN SET FRONTEND CONFIG ("experimental_enable_lance_index_mutation" = "true")')
