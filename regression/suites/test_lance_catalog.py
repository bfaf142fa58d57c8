from drydock.regression.framework import suite
from drydock.regression.suites.lance_data import lance_warehouse, write_vectors


@suite("test_lance_catalog", "p0,external")
def body(s):  # type: ignore[no-untyped-def]
    s.skip_unless_enabled("enableLanceTest")
    warehouse = lance_warehouse(s, "catalog_suite")
    write_vectors(f"{warehouse}/db/vectors.lance", rows=500, dim=8)
    s.sql("DROP CATALOG IF EXISTS reg_lance")
    s.sql(f"CREATE CATALOG reg_lance PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    s.qt_databases("SHOW DATABASES FROM reg_lance")
    s.qt_tables("SHOW TABLES FROM reg_lance.db")
    s.qt_desc("DESC reg_lance.db.vectors")
    s.qt_filtered(
        "SELECT category, count(*) FROM reg_lance.db.vectors WHERE id < 100 GROUP BY category "
        "ORDER BY category"
    )
    s.sql("CREATE DATABASE IF NOT EXISTS reg_join")
    s.sql("CREATE TABLE IF NOT EXISTS reg_join.names (category VARCHAR(20), label VARCHAR(20))")
    s.sql("INSERT INTO reg_join.names VALUES ('cat_1', 'one'), ('cat_2', 'two')")
    s.qt_join(
        "SELECT n.label, count(*) FROM reg_lance.db.vectors v JOIN internal.reg_join.names n "
        "ON v.category = n.category GROUP BY n.label ORDER BY n.label"
    )
    with s.test() as t:
        t.sql("CREATE CATALOG reg_bad PROPERTIES ('type' = 'lance')")
        t.exception("Missing required property 'warehouse'")
    s.sql("DROP DATABASE reg_join")
    s.sql("DROP CATALOG reg_lance")
