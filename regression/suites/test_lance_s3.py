from drydock.regression.framework import suite
from drydock.regression.suites.lance_data import wait_for_job, write_vectors

ANN = (
    "PROPERTIES ('index_type' = 'IVF_PQ', 'num_partitions' = '4', 'num_sub_vectors' = '4', "
    "'sample_rate' = '16', 'max_iters' = '5')"
)


@suite("test_lance_index_build_s3", "p0,external,s3")
def body(s):  # type: ignore[no-untyped-def]
    cfg = s.context.config.otherConfigs
    import boto3

    boto3.client(
        "s3",
        endpoint_url=cfg["s3Endpoint"],
        aws_access_key_id=cfg["s3AccessKey"],
        aws_secret_access_key=cfg["s3SecretKey"],
        region_name="us-east-1",
    ).create_bucket(Bucket="reg-lance")
    options = {
        "aws_access_key_id": cfg["s3AccessKey"],
        "aws_secret_access_key": cfg["s3SecretKey"],
        "aws_endpoint": cfg["s3Endpoint"],
        "aws_region": "us-east-1",
        "allow_http": "true",
    }
    write_vectors("s3://reg-lance/wh/db/vs.lance", storage_options=options)
    s.sql("DROP CATALOG IF EXISTS reg_s3")
    s.sql(f"""CREATE CATALOG reg_s3 PROPERTIES ('type' = 'lance', 'warehouse' = 's3://reg-lance/wh',
              's3.endpoint' = '{cfg["s3Endpoint"]}', 's3.access_key' = '{cfg["s3AccessKey"]}',
              's3.secret_key' = '{cfg["s3SecretKey"]}', 's3.region' = 'us-east-1',
              'use_path_style' = 'true')""")
    created = s.sql_return_maparray("SHOW CREATE CATALOG reg_s3")[0]["CreateCatalog"]
    s.assertTrue(cfg["s3SecretKey"] not in created, "the secret key is masked")
    job = s.sql(f"CREATE INDEX vec_idx ON reg_s3.db.vs (embedding) USING ANN {ANN}")[0][0]
    done = wait_for_job(s, job)
    s.assertEquals("COMMITTED", done["State"])
    s.qt_count("SELECT count(*) FROM reg_s3.db.vs")
    names = [r["Key_name"] for r in s.sql_return_maparray("SHOW INDEX FROM reg_s3.db.vs")]
    s.assertEquals(["vec_idx"], names)
    s.sql("DROP CATALOG reg_s3")


@suite("test_lance_job_visibility", "p0,external,nonConcurrent")
def visibility(s):  # type: ignore[no-untyped-def]
    from drydock.regression.suites.lance_data import lance_warehouse

    warehouse = lance_warehouse(s, "visibility_suite")
    write_vectors(f"{warehouse}/db1/a.lance", rows=300)
    write_vectors(f"{warehouse}/db2/b.lance", rows=300)
    s.sql("DROP CATALOG IF EXISTS reg_vis")
    s.sql(f"CREATE CATALOG reg_vis PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    s.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'true')")
    try:
        mine = s.sql("CREATE INDEX ia ON reg_vis.db1.a (id) USING BTREE")[0][0]
        hidden = s.sql("CREATE INDEX ib ON reg_vis.db2.b (id) USING BTREE")[0][0]
        s.sql("DROP USER IF EXISTS 'reg_viewer'@'%'")
        s.sql("CREATE USER 'reg_viewer'@'%' IDENTIFIED BY 'viewer-pw'")
        s.sql("GRANT SELECT_PRIV ON reg_vis.db1.* TO 'reg_viewer'@'%'")
        with s.connect("reg_viewer", "viewer-pw", s.context.config.jdbc_url):
            s.assertEquals(
                [mine], [r[0] for r in s.sql("SHOW LANCE INDEX JOBS")]
            )  # no trace of the other
            with s.test() as t:
                t.sql(f"SHOW LANCE INDEX JOB {hidden}")
                t.exception(f"Lance index job not found: {hidden}")  # exactly like a missing job
            with s.test() as t:
                t.sql(f"RESOLVE LANCE INDEX JOB {hidden} AS FORCE_RELEASE COMMENT 'x'")
                t.exception(f"Lance index job not found: {hidden}")
        s.sql(f"CANCEL LANCE INDEX JOB {mine}")
        s.sql(f"CANCEL LANCE INDEX JOB {hidden}")
    finally:
        s.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'false')")
    s.sql("DROP USER 'reg_viewer'@'%'")
    s.sql("DROP CATALOG reg_vis")
