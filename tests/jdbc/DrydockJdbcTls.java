import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/** Connects over TLS (URL options in args[2]) and prints the session's cipher as the server sees it. */
public class DrydockJdbcTls {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:mysql://" + args[0] + ":" + args[1] + "/?" + args[2];
        try (Connection c = DriverManager.getConnection(url, "root", "");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'Ssl_cipher'")) {
            String cipher = rs.next() ? rs.getString(2) : "";
            if (cipher == null || cipher.isEmpty()) {
                System.out.println("FAIL tls: no cipher");
                System.exit(1);
            }
            System.out.println("OK tls " + cipher);
        }
    }
}
