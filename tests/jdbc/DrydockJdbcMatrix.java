// The JDBC row of the client matrix (tests/clients/test_jdbc_matrix.py): MariaDB Connector/J
// against drydock for result metadata, server-side prepared metadata, setMaxRows, warnings,
// setBytes, error classes, multi-queries and DatabaseMetaData keys. Each check prints
// "OK <name>" or "FAIL <name>: <detail>"; the test requires every check.
//
// Usage: java -cp mariadb-java-client.jar:. DrydockJdbcMatrix <host> <port>

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Types;
import java.util.Arrays;

public class DrydockJdbcMatrix {
    interface Check {
        void run() throws Exception;
    }

    static final String DB = "jdbc_matrix";
    static int failures = 0;
    static String base;

    static void check(String name, Check body) {
        try {
            body.run();
            System.out.println("OK " + name);
        } catch (Throwable e) {
            failures++;
            String detail = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (e instanceof SQLException) {
                SQLException s = (SQLException) e;
                detail += " [code=" + s.getErrorCode() + " state=" + s.getSQLState() + "]";
            }
            System.out.println("FAIL " + name + ": " + detail.replace('\n', ' '));
        }
        System.out.flush();
    }

    static void expectEq(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    static Connection connect(String options) throws SQLException {
        return DriverManager.getConnection(base + DB + options, "root", "");
    }

    static int count(ResultSet rs) throws SQLException {
        int n = 0;
        while (rs.next()) {
            n++;
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        base = "jdbc:mariadb://" + args[0] + ":" + args[1] + "/";
        try (Connection c = DriverManager.getConnection(base, "root", ""); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB);
            s.execute("CREATE DATABASE " + DB);
            s.execute("CREATE TABLE " + DB + ".t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2))");
            s.execute("INSERT INTO " + DB + ".t VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, 'c', 3.00)");
            s.execute("CREATE TABLE " + DB + ".b (id INT, data BLOB)");
            s.execute("CREATE TABLE " + DB + ".d (id INT AUTO_INCREMENT PRIMARY KEY, "
                + "flag TINYINT(1) NOT NULL DEFAULT 0, label VARCHAR(40) NOT NULL, "
                + "at3 DATETIME(3), amount INT UNSIGNED)");
            s.execute("INSERT INTO " + DB + ".d (flag, label, at3, amount) "
                + "VALUES (1, 'x', '2024-01-01 10:00:00.5', 7)");
        }
        try (Connection c = connect("")) {
            run(c);
        }
        check("prepared_metadata_before_execute", () -> {
            try (Connection c = connect("?useServerPrepStmts=true");
                 PreparedStatement ps = c.prepareStatement("SELECT id, name, price FROM t WHERE id = ?")) {
                ResultSetMetaData md = ps.getMetaData();
                if (md == null) {
                    throw new AssertionError("getMetaData() before execute returned null");
                }
                expectEq(3, md.getColumnCount(), "column count");
                expectEq("name", md.getColumnName(2), "column name");
                expectEq(Types.VARCHAR, md.getColumnType(2), "VARCHAR type");
                expectEq(2, md.getScale(3), "scale of DECIMAL(10,2)");
                ps.setInt(1, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    expectEq("b", rs.getString(2), "value");
                }
            }
        });
        check("allow_multi_queries", () -> {
            try (Connection c = connect("?allowMultiQueries=true"); Statement s = c.createStatement()) {
                expectEq(true, s.execute("SELECT 1; SELECT name FROM t WHERE id = 2; SELECT 3"), "first is a result");
                try (ResultSet rs = s.getResultSet()) {
                    rs.next();
                    expectEq(1, rs.getInt(1), "first result");
                }
                expectEq(true, s.getMoreResults(), "second result");
                try (ResultSet rs = s.getResultSet()) {
                    rs.next();
                    expectEq("b", rs.getString(1), "second result");
                }
                expectEq(true, s.getMoreResults(), "third result");
                expectEq(false, s.getMoreResults() || s.getUpdateCount() != -1, "no fourth result");
            }
        });
        if (args.length > 2) {
            String lanceDb = args[2];  // catalog.db of a Lance table named "items"
            check("get_catalogs_lists_external_databases", () -> {
                try (Connection c = connect("")) {
                    boolean found = false;
                    try (ResultSet rs = c.getMetaData().getCatalogs()) {
                        while (rs.next()) {
                            found |= lanceDb.equals(rs.getString(1));
                        }
                    }
                    expectEq(true, found, "getCatalogs lists " + lanceDb);
                    c.setCatalog(lanceDb);
                    // catalog null = the current one (Connector/J: TABLE_SCHEMA = DATABASE())
                    try (ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
                        expectEq(true, rs.next(), "getTables after setCatalog");
                        expectEq("items", rs.getString("TABLE_NAME"), "table");
                    }
                    try (ResultSet rs = c.getMetaData().getColumns(null, null, "items", "%")) {
                        expectEq(true, rs.next(), "getColumns after setCatalog");
                        expectEq("id", rs.getString("COLUMN_NAME"), "first column");
                    }
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
                        rs.next();
                        expectEq(2L, rs.getLong(1), "rows of the Lance table");
                    }
                }
            });
            check("get_tables_with_the_catalog_named", () -> {
                try (Connection c = connect("")) {  // internal catalog; catalog named explicitly
                    try (ResultSet rs = c.getMetaData().getTables(lanceDb, null, "%", null)) {
                        expectEq(true, rs.next(), "getTables(" + lanceDb + ")");
                        expectEq(lanceDb, rs.getString("TABLE_CAT"), "TABLE_CAT");
                        expectEq("items", rs.getString("TABLE_NAME"), "table");
                        expectEq(false, rs.next(), "one table");
                    }
                    try (ResultSet rs = c.getMetaData().getColumns(lanceDb, null, "items", "%")) {
                        expectEq(true, rs.next(), "getColumns(" + lanceDb + ")");
                        expectEq("id", rs.getString("COLUMN_NAME"), "first column");
                        expectEq(java.sql.Types.BIGINT, rs.getInt("DATA_TYPE"), "BIGINT");
                        expectEq(false, rs.next(), "one column");
                    }
                }
            });
        }
        System.out.println("DONE failures=" + failures);
        System.exit(failures == 0 ? 0 : 1);
    }

    static void run(Connection c) {
        check("result_metadata", () -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, name AS n, price FROM t x")) {
                ResultSetMetaData md = rs.getMetaData();
                expectEq(2, md.getScale(3), "getScale of DECIMAL(10,2)");
                expectEq(10, md.getPrecision(3), "getPrecision of DECIMAL(10,2)");
                expectEq("t", md.getTableName(1), "getTableName (Connector/J reads org_table)");
                expectEq("n", md.getColumnLabel(2), "getColumnLabel");
                expectEq("name", md.getColumnName(2), "getColumnName (org_name)");
                expectEq(Types.VARCHAR, md.getColumnType(2), "VARCHAR column type");
                expectEq(DB, md.getCatalogName(1), "getCatalogName (schema)");
            }
        });
        check("declared_column_metadata", () -> {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, flag, label, at3, amount FROM d")) {
                ResultSetMetaData md = rs.getMetaData();
                expectEq(Types.BOOLEAN == md.getColumnType(2) || Types.BIT == md.getColumnType(2),
                    true, "TINYINT(1) is a boolean type, was " + md.getColumnType(2));
                expectEq(true, md.isAutoIncrement(1), "isAutoIncrement of the AUTO_INCREMENT key");
                expectEq(ResultSetMetaData.columnNoNulls, md.isNullable(3), "NOT NULL column");
                expectEq(3, md.getScale(4), "getScale of DATETIME(3)");
                expectEq(false, md.isSigned(5), "isSigned of INT UNSIGNED");
                rs.next();
                expectEq(Boolean.TRUE, rs.getObject(2), "TINYINT(1) value");
                expectEq("2024-01-01 10:00:00.5", rs.getTimestamp(4).toString(), "DATETIME(3)");
            }
        });
        check("set_max_rows", () -> {
            try (Statement s = c.createStatement()) {
                s.setMaxRows(2);
                try (ResultSet rs = s.executeQuery("SELECT * FROM t")) {
                    expectEq(2, count(rs), "rows with setMaxRows(2)");
                }
                s.setMaxRows(0);
                try (ResultSet rs = s.executeQuery("SELECT * FROM t")) {
                    expectEq(3, count(rs), "rows after setMaxRows(0)");
                }
            }
        });
        check("get_warnings", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS nope");
                SQLWarning w = s.getWarnings();
                if (w == null) {
                    throw new AssertionError("no warning");
                }
                expectEq(1051, w.getErrorCode(), "warning code");
            }
        });
        check("set_bytes", () -> {
            byte[] data = {0, (byte) 0xff, 39, 92, (byte) 0x80, 10};
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO b VALUES (?, ?)")) {
                ps.setInt(1, 1);
                ps.setBytes(2, data);
                expectEq(1, ps.executeUpdate(), "affected rows");
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT data FROM b WHERE id = 1")) {
                rs.next();
                expectEq(Arrays.toString(data), Arrays.toString(rs.getBytes(1)), "bytes read back");
            }
        });
        check("duplicate_key_is_integrity_violation", () -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO t VALUES (1, 'dup', 0)");
                throw new AssertionError("no error");
            } catch (SQLIntegrityConstraintViolationException e) {
                expectEq(1062, e.getErrorCode(), "code");
                expectEq("23000", e.getSQLState(), "state");
            }
        });
        check("unknown_table_is_syntax_error_class", () -> {
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT * FROM nosuch");
                throw new AssertionError("no error");
            } catch (SQLSyntaxErrorException e) {
                expectEq(1146, e.getErrorCode(), "code");
                expectEq("42S02", e.getSQLState(), "state");
            }
        });
        check("get_primary_keys", () -> {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getPrimaryKeys(DB, null, "t")) {
                if (!rs.next()) {
                    throw new AssertionError("no primary key");
                }
                expectEq("id", rs.getString("COLUMN_NAME"), "key column");
            }
        });
        check("get_index_info", () -> {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getIndexInfo(DB, null, "t", false, false)) {
                if (!rs.next()) {
                    throw new AssertionError("no index");
                }
                expectEq("id", rs.getString("COLUMN_NAME"), "index column");
            }
        });
    }
}
