import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Logs in as a non-root user over JDBC: reads what it was granted, is denied the rest. */
public class DrydockJdbcLogin {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:mysql://" + args[0] + ":" + args[1] + "/";
        int failures = 0;
        try (Connection c = DriverManager.getConnection(url, args[2], args[3]); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT CURRENT_USER(), count(*) FROM jdbc_priv.allowed")) {
                rs.next();
                String who = rs.getString(1);
                long n = rs.getLong(2);
                if ((args[2] + "@%").equals(who) && n == 2) {  // MySQL: CURRENT_USER() is the account
                    System.out.println("OK login-and-read");
                } else {
                    System.out.println("FAIL login-and-read: " + who + " " + n);
                    failures++;
                }
            }
            try {
                s.executeQuery("SELECT * FROM jdbc_priv.denied");
                System.out.println("FAIL denied: no error");
                failures++;
            } catch (SQLException e) {
                if (e.getErrorCode() == 1142 && "42000".equals(e.getSQLState())) {
                    System.out.println("OK denied");
                } else {
                    System.out.println("FAIL denied: " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage());
                    failures++;
                }
            }
        }
        try {
            DriverManager.getConnection(url, args[2], "wrong-password").close();
            System.out.println("FAIL bad-password: connected");
            failures++;
        } catch (SQLException e) {
            System.out.println(e.getErrorCode() == 1045 ? "OK bad-password" : "FAIL bad-password: " + e.getErrorCode());
            if (e.getErrorCode() != 1045) {
                failures++;
            }
        }
        System.exit(failures == 0 ? 0 : 1);
    }
}
