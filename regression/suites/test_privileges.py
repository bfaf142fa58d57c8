from drydock.regression.framework import suite


@suite("test_privileges", "p0")
def body(s):  # type: ignore[no-untyped-def]
    s.sql("CREATE DATABASE IF NOT EXISTS reg_priv_a")
    s.sql("CREATE DATABASE IF NOT EXISTS reg_priv_b")
    s.sql("CREATE TABLE IF NOT EXISTS reg_priv_a.t (a INT)")
    s.sql("CREATE TABLE IF NOT EXISTS reg_priv_b.t (b INT)")
    s.sql("INSERT INTO reg_priv_a.t VALUES (1), (2)")
    s.sql("DROP USER IF EXISTS 'reg_reader'@'%'")
    s.sql("CREATE USER 'reg_reader'@'%' IDENTIFIED BY 'reader-pw'")
    s.sql("GRANT SELECT_PRIV ON reg_priv_a.* TO 'reg_reader'@'%'")
    with s.connect("reg_reader", "reader-pw", s.context.config.jdbc_url):
        s.order_qt_visible_dbs("SHOW DATABASES")
        s.order_qt_read("SELECT a FROM reg_priv_a.t")
        with s.test() as t:
            t.sql("SELECT * FROM reg_priv_b.t")
            t.exception("SELECT command denied")
        with s.test() as t:
            t.sql("INSERT INTO reg_priv_a.t VALUES (3)")
            t.exception("LOAD command denied")
    s.qt_grants("SHOW GRANTS FOR 'reg_reader'@'%'")
    s.sql("REVOKE SELECT_PRIV ON reg_priv_a.* FROM 'reg_reader'@'%'")
    with s.connect("reg_reader", "reader-pw", s.context.config.jdbc_url):
        with s.test() as t:
            t.sql("SELECT * FROM reg_priv_a.t")
            t.exception("SELECT command denied")
    s.sql("DROP USER 'reg_reader'@'%'")
    s.sql("DROP DATABASE reg_priv_a")
    s.sql("DROP DATABASE reg_priv_b")
