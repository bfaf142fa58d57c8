import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Transactions and generated keys through MariaDB Connector/J: setAutoCommit(false), rollback(),
 *  commit(), and getGeneratedKeys() of an AUTO_INCREMENT insert. Prints OK/FAIL per check. */
public class DrydockJdbcTransactions {
    static int failures = 0;

    static void check(String name, boolean ok, String detail) {
        System.out.println(ok ? "OK " + name : "FAIL " + name + ": " + detail);
        if (!ok) {
            failures++;
        }
    }

    static long count(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:mysql://" + args[0] + ":" + args[1] + "/jdbc_tx";
        try (Connection c = DriverManager.getConnection(url, "root", "");
             Connection other = DriverManager.getConnection(url, "root", "");
             Statement s = c.createStatement(); Statement o = other.createStatement()) {
            s.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))");
            c.setAutoCommit(false);
            s.executeUpdate("INSERT INTO t (v) VALUES ('a')");
            check("uncommitted-invisible", count(o, "t") == 0, "other session saw " + count(o, "t"));
            c.rollback();
            check("rollback", count(s, "t") == 0, "rows after rollback: " + count(s, "t"));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
                p.setString(1, "b");
                p.executeUpdate();
                try (ResultSet keys = p.getGeneratedKeys()) {
                    boolean has = keys.next();
                    long key = has ? keys.getLong(1) : -1;
                    check("generated-key", has && key > 0, "key " + key);
                }
            }
            c.commit();
            check("commit", count(o, "t") == 1, "other session saw " + count(o, "t"));
            c.setAutoCommit(true);
            s.executeUpdate("INSERT INTO t (v) VALUES ('c')");
            check("autocommit-again", count(o, "t") == 2, "other session saw " + count(o, "t"));
        }
        System.out.println("DONE failures=" + failures);
        System.exit(failures == 0 ? 0 : 1);
    }
}
