// A real JDBC program against drydock: MariaDB Connector/J (Debian's libmariadb-java), default
// settings. tests/clients/test_jdbc.py compiles it with javac, runs it against a server it started and
// requires one "OK <name>" line per check. Each check prints "OK <name>" or "FAIL <name>: <detail>".
//
// Usage: java -cp mariadb-java-client.jar:. DrydockJdbcCheck <host> <port> [<catalog>.<db>.<table>]
// (the optional external table, e.g. a Lance table, adds the metadata_external_* checks)

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class DrydockJdbcCheck {
    interface Check {
        void run() throws Exception;
    }

    static final String DB = "jdbc_check";
    static int failures = 0;

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

    static void expect(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void expectEq(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    static List<String> names(PreparedStatement ps, String value) throws SQLException {
        ps.setString(1, value);
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** A string parameter with a quote finds exactly its row; an injection attempt finds none. */
    static void preparedChecks(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT name FROM " + DB + ".people WHERE name = ?")) {
            expectEq(List.of("it's"), names(ps, "it's"), "rows for it's");
            expectEq(List.of(), names(ps, "' OR '1'='1"), "rows for an injection attempt");
            expectEq(List.of("bob"), names(ps, "bob"), "rows for bob (statement reused)");
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT ? AS s, ? AS n")) {
            ps.setString(1, "back\\slash ' \" ; --");
            ps.setInt(2, 42);
            try (ResultSet rs = ps.executeQuery()) {
                expect(rs.next(), "one row");
                expectEq("back\\slash ' \" ; --", rs.getString(1), "string parameter echoed");
                expectEq(42, rs.getInt(2), "int parameter echoed");
            }
        }
    }

    /**
     * DatabaseMetaData on an external (Lance) table, given as catalog.db.table: after USE catalog.db
     * the driver's information_schema queries must answer from that catalog.
     */
    static void externalCatalogChecks(Connection c, String qualified) {
        String[] parts = qualified.split("\\.");
        String catalog = parts[0], db = parts[1], table = parts[2];
        check("metadata_external_tables", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("USE " + catalog + "." + db);
            }
            expectEq(db, c.getCatalog(), "getCatalog after USE catalog.db");
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getTables(db, null, "%", null)) {
                while (rs.next()) {
                    expectEq(db, rs.getString("TABLE_CAT"), "TABLE_CAT");
                    tables.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
                }
            }
            expect(tables.contains(table + ":TABLE"), "getTables lists " + table + ": " + tables);
        });
        check("metadata_external_columns", () -> {
            Map<String, String> columns = new LinkedHashMap<>();
            try (ResultSet rs = c.getMetaData().getColumns(db, null, table, "%")) {
                while (rs.next()) {
                    columns.put(rs.getString("COLUMN_NAME"), rs.getString("TYPE_NAME") + "/" + rs.getInt("DATA_TYPE")
                            + "/" + rs.getInt("ORDINAL_POSITION") + "/" + rs.getString("IS_NULLABLE"));
                }
            }
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("id", "BIGINT/" + Types.BIGINT + "/1/YES");
            expected.put("cat", "VARCHAR/" + Types.VARCHAR + "/2/YES");
            // DATA_TYPE text (MySQL has no arrays); the driver names the type from COLUMN_TYPE
            expected.put("emb", "ARRAY<FLOAT>/" + Types.LONGVARCHAR + "/3/YES");
            expectEq(expected, columns, "getColumns");
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                expect(rs.next(), "count row");
                expect(rs.getLong(1) > 0, "rows in " + table);
            }
            try (Statement s = c.createStatement()) {
                s.execute("SWITCH internal");
            }
        });
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        String port = args[1];
        String url = "jdbc:mysql://" + host + ":" + port + "/?user=root";
        DriverManager.setLoginTimeout(10);

        Connection[] holder = new Connection[1];
        check("connect", () -> {
            // Default URL: the driver sends "set autocommit=1, sql_mode = concat(@@sql_mode, ...)".
            holder[0] = DriverManager.getConnection(url + "&socketTimeout=30000&connectTimeout=10000");
            expect(holder[0].isValid(5), "isValid");
            expect(holder[0].getAutoCommit(), "autocommit on");
        });
        Connection c = holder[0];
        if (c == null) {
            System.out.println("DONE failures=" + failures);
            System.exit(1);
        }

        check("product_name_version", () -> {
            DatabaseMetaData md = c.getMetaData();
            expectEq("MySQL", md.getDatabaseProductName(), "getDatabaseProductName");
            String version = md.getDatabaseProductVersion();
            expect(version.startsWith("8.0."), "getDatabaseProductVersion starts with 8.0.: " + version);
            expectEq(8, md.getDatabaseMajorVersion(), "getDatabaseMajorVersion");
        });

        check("select_types", () -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("CREATE DATABASE " + DB);
                s.executeUpdate("CREATE TABLE " + DB + ".kinds (i INT, b BIGINT, v VARCHAR(20), d DECIMAL(6,2), "
                        + "f DOUBLE, dt DATE, ts DATETIME, flag BOOLEAN, n VARCHAR(5))");
                s.executeUpdate("INSERT INTO " + DB + ".kinds VALUES (7, 9000000000, 'text', 12.34, 2.5, "
                        + "'2024-05-06', '2024-05-06 07:08:09', TRUE, NULL)");
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + DB + ".kinds")) {
                    expect(rs.next(), "one row");
                    expectEq(7, rs.getInt("i"), "int");
                    expectEq(9000000000L, rs.getLong("b"), "bigint");
                    expectEq("text", rs.getString("v"), "varchar");
                    expectEq(new BigDecimal("12.34"), rs.getBigDecimal("d"), "decimal");
                    expectEq(2.5, rs.getDouble("f"), "double");
                    expectEq("2024-05-06", rs.getDate("dt").toString(), "date");
                    expectEq(Timestamp.valueOf("2024-05-06 07:08:09"), rs.getTimestamp("ts"), "datetime");
                    expect(rs.getBoolean("flag"), "boolean");
                    expectEq(null, rs.getString("n"), "null");
                    expect(rs.wasNull(), "wasNull");
                    ResultSetMetaData md = rs.getMetaData();
                    expectEq(9, md.getColumnCount(), "column count");
                    int[] types = {Types.INTEGER, Types.BIGINT, Types.VARCHAR, Types.DECIMAL, Types.DOUBLE,
                                   Types.DATE, Types.TIMESTAMP};
                    for (int i = 0; i < types.length; i++) {
                        expectEq(types[i], md.getColumnType(i + 1), "type of column " + md.getColumnName(i + 1));
                    }
                    expect(!rs.next(), "only one row");
                }
                try (ResultSet rs = s.executeQuery("SELECT 1 + 1 AS two FROM DUAL")) {
                    expect(rs.next(), "FROM DUAL row");
                    expectEq(2, rs.getInt("two"), "FROM DUAL value");
                }
            }
        });

        check("execute_update_affected_rows", () -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("CREATE DATABASE IF NOT EXISTS " + DB);
                s.executeUpdate("CREATE TABLE " + DB + ".people (id INT NOT NULL, name VARCHAR(40), score DECIMAL(5,2), "
                        + "born DATE)");
                expectEq(3, s.executeUpdate("INSERT INTO " + DB + ".people VALUES (1, 'alice', 1.5, '2000-01-02'), "
                        + "(2, 'bob', NULL, NULL), (3, 'it''s', 3.25, NULL)"), "INSERT affected rows");
                expectEq(1, s.executeUpdate("UPDATE " + DB + ".people SET score = 2 WHERE id = 2"), "UPDATE affected");
                expectEq(0, s.executeUpdate("DELETE FROM " + DB + ".people WHERE id = 99"), "DELETE affected");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + DB + ".people")) {
                    expect(rs.next(), "count row");
                    expectEq(3L, rs.getLong(1), "count(*)");
                }
            }
        });

        check("statement_get_warnings", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + DB + ".nope");
                SQLWarning w = s.getWarnings();
                expect(w != null, "a warning after DROP TABLE IF EXISTS of a missing table");
                expectEq(1051, w.getErrorCode(), "warning code");
                expectEq("Unknown table '" + DB + ".nope'", w.getMessage(), "warning message");
                expect(w.getNextWarning() == null, "exactly one warning");
                s.execute("SELECT 1");
                expect(s.getWarnings() == null, "warnings cleared by the next statement");
            }
        });

        check("show_warnings_rows", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS nope_db");
                try (ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
                    expect(rs.next(), "one row");
                    expectEq("Note", rs.getString("Level"), "Level");
                    expectEq(1008, rs.getInt("Code"), "Code");
                    expect(rs.getString("Message").contains("nope_db"), "Message: " + rs.getString("Message"));
                    expect(!rs.next(), "only one row");
                }
            }
        });

        check("error_code_sqlstate", () -> {
            try (Statement s = c.createStatement()) {
                try {
                    s.execute("ADMIN SHOW FRONTEND CONFIG LIK 'x'");
                    throw new AssertionError("no exception for a syntax error");
                } catch (SQLException e) {
                    expectEq(1064, e.getErrorCode(), "error code");
                    expectEq("42000", e.getSQLState(), "SQLSTATE");
                    expect(e.getMessage().contains("mismatched input 'LIK'"), "message: " + e.getMessage());
                }
                try {
                    s.execute("ADMIN SET FRONTEND CONFIG (\"lance_index_job_keep_max_second\" = \"0\")");
                    throw new AssertionError("no exception for an invalid config value");
                } catch (SQLException e) {
                    expectEq(1105, e.getErrorCode(), "error code");
                    expectEq("HY000", e.getSQLState(), "SQLSTATE");
                    expect(e.getMessage().contains("must be a positive long"), "message: " + e.getMessage());
                }
                try (ResultSet rs = s.executeQuery("SELECT 1")) {
                    expect(rs.next(), "connection still usable after errors");
                }
            }
        });

        check("prepared_client_side", () -> preparedChecks(c));

        check("prepared_server_side", () -> {
            String serverUrl = url + "&useServerPrepStmts=true&socketTimeout=30000&connectTimeout=10000";
            try (Connection sc = DriverManager.getConnection(serverUrl)) {
                preparedChecks(sc);
                try (PreparedStatement ps = sc.prepareStatement("INSERT INTO " + DB + ".people VALUES (?, ?, ?, ?)")) {
                    ps.setInt(1, 10);
                    ps.setString(2, "d'artagnan");
                    ps.setBigDecimal(3, new BigDecimal("4.75"));
                    ps.setDate(4, java.sql.Date.valueOf("2001-02-03"));
                    expectEq(1, ps.executeUpdate(), "prepared INSERT affected rows");
                }
                try (PreparedStatement ps = sc.prepareStatement(
                        "SELECT score, born FROM " + DB + ".people WHERE id = ? AND born < ?")) {
                    ps.setInt(1, 10);
                    ps.setTimestamp(2, Timestamp.valueOf("2001-02-04 00:00:00"));
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next(), "inserted row found");
                        expectEq(new BigDecimal("4.75"), rs.getBigDecimal(1), "score");
                        expectEq("2001-02-03", rs.getDate(2).toString(), "born");
                    }
                }
                try (Statement s = sc.createStatement()) {
                    s.executeUpdate("DELETE FROM " + DB + ".people WHERE id = 10");
                }
            }
        });

        check("metadata_get_catalogs", () -> {
            List<String> catalogs = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getCatalogs()) {
                while (rs.next()) {
                    catalogs.add(rs.getString("TABLE_CAT"));
                }
            }
            expect(catalogs.contains(DB), "getCatalogs contains " + DB + ": " + catalogs);
            expect(catalogs.contains("information_schema"), "getCatalogs contains information_schema: " + catalogs);
        });

        check("metadata_get_schemas", () -> {
            // Connector/J maps MySQL databases to catalogs; getSchemas() is an empty result set
            // (SELECT ... FROM DUAL WHERE 1=0), which must still run.
            try (ResultSet rs = c.getMetaData().getSchemas()) {
                expectEq("TABLE_SCHEM", rs.getMetaData().getColumnName(1).toUpperCase(), "first column");
                while (rs.next()) {
                    rs.getString(1);
                }
            }
        });

        check("metadata_get_tables", () -> {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getTables(DB, null, "%", null)) {
                while (rs.next()) {
                    expectEq(DB, rs.getString("TABLE_CAT"), "TABLE_CAT");
                    tables.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
                }
            }
            tables.sort(null);
            expectEq(List.of("kinds:TABLE", "people:TABLE"), tables, "getTables");
            try (ResultSet rs = c.getMetaData().getTables(DB, null, "peo%", new String[] {"TABLE"})) {
                expect(rs.next() && "people".equals(rs.getString("TABLE_NAME")), "getTables with a TABLE filter");
                expect(!rs.next(), "one table");
            }
            try (ResultSet rs = c.getMetaData().getTables(DB, null, "%", new String[] {"VIEW"})) {
                expect(!rs.next(), "no views");
            }
        });

        check("metadata_get_columns", () -> {
            Map<String, String> columns = new LinkedHashMap<>();
            try (ResultSet rs = c.getMetaData().getColumns(DB, null, "people", "%")) {
                while (rs.next()) {
                    columns.put(rs.getString("COLUMN_NAME"),
                            rs.getString("TYPE_NAME") + "/" + rs.getInt("DATA_TYPE") + "/" + rs.getInt("ORDINAL_POSITION")
                            + "/size=" + rs.getString("COLUMN_SIZE") + "/digits=" + rs.getString("DECIMAL_DIGITS")
                            + "/nullable=" + rs.getInt("NULLABLE") + "/" + rs.getString("IS_NULLABLE"));
                }
            }
            Map<String, String> expected = new LinkedHashMap<>();
            // MySQL's COLUMN_SIZE: decimal digits for numbers, the declared length of a VARCHAR.
            expected.put("id", "INT/" + Types.INTEGER + "/1/size=10/digits=0/nullable=0/NO");
            expected.put("name", "VARCHAR/" + Types.VARCHAR + "/2/size=40/digits=null/nullable=1/YES");
            expected.put("score", "DECIMAL/" + Types.DECIMAL + "/3/size=5/digits=2/nullable=1/YES");
            expected.put("born", "DATE/" + Types.DATE + "/4/size=10/digits=null/nullable=1/YES");
            expectEq(expected, columns, "getColumns");
        });

        if (args.length > 2) {
            externalCatalogChecks(c, args[2]);
        }

        c.close();
        System.out.println("DONE failures=" + failures);
        System.exit(failures == 0 ? 0 : 1);
    }
}
