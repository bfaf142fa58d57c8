// Search over JDBC: MariaDB Connector/J (Debian's libmariadb-java), text and server-side prepared
// statements. tests/search/test_search_jdbc.py compiles it, runs it against a server with a Lance
// catalog "lc" (table db.docs: id, category, body, emb FLOAT[16]; an IVF_PQ l2 index on emb and an
// INVERTED index on body) and compares the ids printed with numpy's exact answers.
// Each check prints "OK <name>" or "FAIL <name>: <detail>"; results print as "ROWS <name> <ids>".
//
// Usage: java -cp mariadb-java-client.jar:. DrydockJdbcSearch <host> <port> <query vector text>

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

public class DrydockJdbcSearch {
    interface Check {
        void run() throws Exception;
    }

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

    static String ids(ResultSet rs) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            out.add(Long.toString(rs.getLong(1)));
        }
        return String.join(",", out);
    }

    static final String TOP_K =
            "SELECT id, l2_distance_approximate(emb, ?) AS d FROM lc.db.docs ORDER BY d LIMIT 5";
    static final String FILTERED =
            "SELECT id FROM lc.db.docs WHERE category = ? ORDER BY l2_distance_approximate(emb, ?) LIMIT 5";
    static final String MATCH_ANY = "SELECT id FROM lc.db.docs WHERE body MATCH_ANY ? ORDER BY id";

    static void searches(Connection c, String mode, String q) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET ivf_nprobe = 8");
            s.execute("SET vector_refine_factor = 100");
        }
        try (PreparedStatement ps = c.prepareStatement(TOP_K)) {
            ps.setString(1, q);
            try (ResultSet rs = ps.executeQuery()) {
                System.out.println("ROWS top_k_" + mode + " " + ids(rs));
            }
            expect(ps.getWarnings() == null, "no Note: the index answered");
        }
        try (PreparedStatement ps = c.prepareStatement(FILTERED)) {
            ps.setInt(1, 17);
            ps.setString(2, q);
            try (ResultSet rs = ps.executeQuery()) {
                System.out.println("ROWS filtered_" + mode + " " + ids(rs));
            }
        }
        try (PreparedStatement ps = c.prepareStatement(MATCH_ANY)) {
            ps.setString(1, "harbor");
            try (ResultSet rs = ps.executeQuery()) {
                System.out.println("ROWS match_any_" + mode + " " + ids(rs));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:mysql://" + args[0] + ":" + args[1] + "/?user=root&socketTimeout=30000";
        String q = args[2];
        try (Connection c = DriverManager.getConnection(url)) {
            check("client_side", () -> searches(c, "client", q));
            check("vector_column_text", () -> {
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT emb FROM lc.db.docs WHERE id = 0")) {
                    expect(rs.next(), "a row");
                    String text = rs.getString(1);
                    expect(text.startsWith("[") && text.endsWith("]"), "vector as text: " + text);
                    expect(text.split(",").length == 16, "16 elements: " + text);
                }
            });
            check("exact_note_as_warning", () -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT id FROM lc.db.plain ORDER BY l2_distance_approximate(emb, '"
                            + q + "') LIMIT 3").close();
                    SQLWarning w = s.getWarnings();
                    expect(w != null && w.getErrorCode() == 5200, "Note 5200: " + w);
                }
            });
            check("no_limit_error", () -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '" + q + "')");
                    throw new AssertionError("no error");
                } catch (SQLException e) {
                    expect(e.getErrorCode() == 1235, "1235: " + e.getErrorCode() + " " + e.getMessage());
                }
            });
        }
        try (Connection sc = DriverManager.getConnection(url + "&useServerPrepStmts=true")) {
            check("server_side", () -> searches(sc, "server", q));
        }
        System.out.println("DONE failures=" + failures);
    }
}
