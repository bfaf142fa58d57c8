import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB Connector/J escapes client-side PreparedStatement parameters by the server's
 * SERVER_STATUS_NO_BACKSLASH_ESCAPES flag (doubled quotes instead of backslashes). Args: JDBC URL,
 * then sql_mode values; stdin: one hex-encoded UTF-8 value per line. Prints, per mode and value,
 * "mode<TAB>index<TAB>hex of what came back<TAB>rows<TAB>more results" (tests/security/test_sql_mode_escaping.py).
 */
public class DrydockJdbcSqlMode {
    public static void main(String[] args) throws Exception {
        List<String> values = new ArrayList<>();
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            values.add(new String(unhex(line.trim()), StandardCharsets.UTF_8));
        }
        for (int m = 1; m < args.length; m++) {
            String mode = args[m];
            try (Connection conn = DriverManager.getConnection(args[0])) {
                try (Statement st = conn.createStatement()) {
                    st.execute("SET sql_mode = '" + mode + "'");
                }
                for (int i = 0; i < values.size(); i++) {
                    try (PreparedStatement ps = conn.prepareStatement("SELECT ? AS v")) {
                        ps.setString(1, values.get(i));
                        boolean isResult = ps.execute();
                        StringBuilder got = new StringBuilder();
                        int rows = 0;
                        if (isResult) {
                            try (ResultSet rs = ps.getResultSet()) {
                                while (rs.next()) {
                                    rows++;
                                    got.append(hex(rs.getString(1).getBytes(StandardCharsets.UTF_8)));
                                }
                            }
                        }
                        boolean more = ps.getMoreResults() || ps.getUpdateCount() != -1;
                        System.out.println(mode + "\t" + i + "\t" + got + "\t" + rows + "\t" + more);
                    } catch (java.sql.SQLException e) {
                        System.out.println(mode + "\t" + i + "\tERROR " + e.getErrorCode() + "\t0\tfalse");
                    }
                }
            }
        }
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return out;
    }
}
