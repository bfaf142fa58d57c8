import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.JDBCType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays statements through MariaDB Connector/J as a JDBC BI tool (Metabase, DBeaver) sends
 * them: prepareStatement + executeQuery (client-side, so COM_QUERY text). Each line of the file
 * given is "name TAB sql TAB expected JDBC type of column 1 (or *) TAB expected getObject(1).toString() of
 * every row, comma-joined". Prints OK name / FAIL name: what came, then DONE failures=N.
 * Usage: DrydockJdbcReplay host port database file
 */
public class DrydockJdbcReplay {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:mariadb://" + args[0] + ":" + args[1] + "/" + args[2];
        int failures = 0;
        try (Connection c = DriverManager.getConnection(url, "root", "")) {
            for (String line : Files.readAllLines(Paths.get(args[3]))) {
                String[] f = line.split("\t", -1);
                try (PreparedStatement ps = c.prepareStatement(f[1]); ResultSet rs = ps.executeQuery()) {
                    String type = JDBCType.valueOf(rs.getMetaData().getColumnType(1)).getName();
                    List<String> got = new ArrayList<>();
                    while (rs.next()) {
                        got.add(String.valueOf(rs.getObject(1)));  // Date/Timestamp/Long as Java prints them
                    }
                    String values = String.join(",", got);
                    if ((!f[2].equals("*") && !f[2].equals(type)) || !f[3].equals(values)) {
                        failures++;
                        System.out.println("FAIL " + f[0] + ": " + type + " " + values);
                    } else {
                        System.out.println("OK " + f[0]);
                    }
                } catch (SQLException e) {
                    failures++;
                    System.out.println("FAIL " + f[0] + ": " + e.getMessage());
                }
            }
        }
        System.out.println("DONE failures=" + failures);
        System.exit(failures == 0 ? 0 : 1);
    }
}
