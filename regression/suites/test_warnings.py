from drydock.regression.framework import suite


@suite("test_warnings", "p0")
def body(s):  # type: ignore[no-untyped-def]
    s.sql("CREATE DATABASE IF NOT EXISTS regression_warnings")
    s.sql("DROP TABLE IF EXISTS regression_warnings.nope")
    s.qt_note("SHOW WARNINGS")
    s.qt_again("SHOW WARNINGS")  # diagnostic statements do not clear the area
    s.qt_count("SHOW COUNT(*) WARNINGS")
    s.sql("SELECT 1")
    s.assertEquals([], s.sql("SHOW WARNINGS"))
    s.try_sql("SELECT * FROM regression_warnings.missing_table")
    s.qt_errors("SHOW ERRORS")
    s.sql("DROP DATABASE regression_warnings")
