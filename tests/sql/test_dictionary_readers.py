"""Every metadata answer about an internal table comes from its definition in the data dictionary
(engine/dictionary/): information_schema's COLUMNS, TABLES, STATISTICS, TABLE_CONSTRAINTS,
KEY_COLUMN_USAGE, REFERENTIAL_CONSTRAINTS, CHECK_CONSTRAINTS; DESCRIBE / SHOW [FULL] COLUMNS,
SHOW CREATE TABLE, SHOW INDEX — in MySQL 8.0's spelling. A table without a definition (CREATE
TABLE … AS SELECT) is answered from DuckDB's own types, as before the dictionary. CREATE/DROP
INDEX, RENAME TABLE and CREATE TABLE … LIKE keep the definitions current."""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from tests.conftest import ServerProcess

PARENT = "CREATE TABLE p (id INT PRIMARY KEY, code VARCHAR(5) NOT NULL, UNIQUE KEY uq (code))"
CHILD = (
    "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "name VARCHAR(40) NOT NULL DEFAULT 'x' COMMENT 'the name', "
    "tag VARCHAR(10) COLLATE utf8mb4_bin, price DECIMAL(10,2) DEFAULT 0, "
    "created DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), "
    "kind ENUM('a','b'), big BIGINT UNSIGNED, flag TINYINT(1) DEFAULT TRUE, p_id INT, "
    "n INT CHECK (n > 0), KEY ix (name(10), price DESC), "
    "CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id)) COMMENT='orders'"
)
ALL = "select,insert,update,references"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("readers") / "data").start()
    with proc.connect() as conn, conn.cursor() as cur:
        for sql in (
            "CREATE DATABASE r",
            "USE r",
            PARENT,
            CHILD,
            "CREATE TABLE plain AS SELECT 1 AS a, 'b' AS b",  # no definition: DuckDB's types
        ):
            cur.execute(sql)
    yield proc
    proc.stop()


def _q(srv: ServerProcess, sql: str) -> list[tuple]:
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute("USE r")
        cur.execute(sql)
        return list(cur.fetchall())


def test_columns_answer_the_declaration(srv: ServerProcess) -> None:
    rows = _q(
        srv,
        "SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, "
        "CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, "
        "CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, PRIVILEGES, "
        "COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'r' "
        "AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
    )
    utf8 = ("utf8mb4", "utf8mb4_0900_ai_ci")
    assert rows == [
        ("id", None, "NO", "int", None, None, 10, 0, None, None, None, "int", "PRI",
         "auto_increment", ALL, ""),
        ("name", "x", "NO", "varchar", 40, 160, None, None, None, *utf8, "varchar(40)", "MUL",
         "", ALL, "the name"),
        ("tag", None, "YES", "varchar", 10, 40, None, None, None, "utf8mb4", "utf8mb4_bin",
         "varchar(10)", "", "", ALL, ""),
        ("price", "0.00", "YES", "decimal", None, None, 10, 2, None, None, None,
         "decimal(10,2)", "", "", ALL, ""),
        ("created", "CURRENT_TIMESTAMP(3)", "YES", "datetime", None, None, None, None, 3, None,
         None, "datetime(3)", "", "DEFAULT_GENERATED on update CURRENT_TIMESTAMP(3)", ALL, ""),
        ("kind", None, "YES", "enum", 1, 4, None, None, None, *utf8, "enum('a','b')", "", "",
         ALL, ""),
        ("big", None, "YES", "bigint", None, None, 20, 0, None, None, None, "bigint unsigned",
         "", "", ALL, ""),
        ("flag", "1", "YES", "tinyint", None, None, 3, 0, None, None, None, "tinyint(1)", "",
         "", ALL, ""),
        ("p_id", None, "YES", "int", None, None, 10, 0, None, None, None, "int", "MUL", "", ALL,
         ""),
        ("n", None, "YES", "int", None, None, 10, 0, None, None, None, "int", "", "", ALL, ""),
    ]  # fmt: skip
    # ORDER BY ... without case, and lower-case literals match (Connector/J), as before
    assert _q(
        srv,
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'p' "
        "AND IS_NULLABLE = 'no' AND COLUMN_KEY = 'uni'",
    ) == [("code",)]


def test_a_table_without_a_definition_answers_duckdbs_types(srv: ServerProcess) -> None:
    rows = _q(
        srv,
        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, COLUMN_KEY "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'r' AND TABLE_NAME = 'plain' "
        "ORDER BY ORDINAL_POSITION",
    )
    assert rows == [("a", "int", "int", None, ""), ("b", "varchar", "varchar(65535)", 65535, "")]
    assert _q(srv, "SHOW CREATE TABLE plain") == [
        (
            "plain",
            "CREATE TABLE `plain` (\n  `a` int DEFAULT NULL,\n  `b` varchar(65535) DEFAULT NULL\n"
            ") ENGINE=DuckDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci",
        )
    ]
    assert _q(srv, "SHOW INDEX FROM plain") == []
    assert _q(srv, "DESCRIBE plain") == [
        ("a", "int", "YES", "", None, ""),
        ("b", "varchar(65535)", "YES", "", None, ""),
    ]


def test_tables_comment_and_key_tables(srv: ServerProcess) -> None:
    assert _q(
        srv,
        "SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = 'r' ORDER BY TABLE_NAME",
    ) == [("p", ""), ("plain", ""), ("t", "orders")]
    assert _q(
        srv,
        "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, "
        "SUB_PART, NULLABLE, INDEX_TYPE, IS_VISIBLE FROM information_schema.STATISTICS "
        "WHERE TABLE_SCHEMA = 'r' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
    ) == [
        ("p", "PRIMARY", 0, 1, "id", "A", None, "", "BTREE", "YES"),
        ("p", "uq", 0, 1, "code", "A", None, "", "BTREE", "YES"),
        ("t", "fk", 1, 1, "p_id", "A", None, "YES", "BTREE", "YES"),
        ("t", "ix", 1, 1, "name", "A", "10", "", "BTREE", "YES"),
        ("t", "ix", 1, 2, "price", "D", None, "YES", "BTREE", "YES"),
        ("t", "PRIMARY", 0, 1, "id", "A", None, "", "BTREE", "YES"),
    ]
    assert _q(
        srv,
        "SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE, ENFORCED "
        "FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'r' "
        "ORDER BY TABLE_NAME, CONSTRAINT_NAME",
    ) == [
        ("p", "PRIMARY", "PRIMARY KEY", "YES"),
        ("p", "uq", "UNIQUE", "YES"),
        ("t", "fk", "FOREIGN KEY", "YES"),
        ("t", "PRIMARY", "PRIMARY KEY", "YES"),
        ("t", "t_chk_1", "CHECK", "YES"),
    ]
    assert _q(
        srv,
        "SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION, "
        "POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, "
        "REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
        "WHERE TABLE_SCHEMA = 'r' ORDER BY TABLE_NAME, CONSTRAINT_NAME",
    ) == [
        ("p", "PRIMARY", "id", 1, None, None, None, None),
        ("p", "uq", "code", 1, None, None, None, None),
        ("t", "fk", "p_id", 1, 1, "r", "p", "id"),
        ("t", "PRIMARY", "id", 1, None, None, None, None),
    ]
    assert _q(
        srv,
        "SELECT CONSTRAINT_SCHEMA, CONSTRAINT_NAME, UNIQUE_CONSTRAINT_SCHEMA, "
        "UNIQUE_CONSTRAINT_NAME, MATCH_OPTION, UPDATE_RULE, DELETE_RULE, TABLE_NAME, "
        "REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS "
        "WHERE CONSTRAINT_SCHEMA = 'r'",
    ) == [("r", "fk", "r", "PRIMARY", "NONE", "NO ACTION", "NO ACTION", "t", "p")]
    assert _q(
        srv,
        "SELECT CONSTRAINT_SCHEMA, CONSTRAINT_NAME, CHECK_CLAUSE "
        "FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'r'",
    ) == [("r", "t_chk_1", "(`n` > 0)")]


def test_describe_and_show_full_columns(srv: ServerProcess) -> None:
    assert _q(srv, "DESCRIBE t")[:5] == [
        ("id", "int", "NO", "PRI", None, "auto_increment"),
        ("name", "varchar(40)", "NO", "MUL", "x", ""),
        ("tag", "varchar(10)", "YES", "", None, ""),
        ("price", "decimal(10,2)", "YES", "", "0.00", ""),
        ("created", "datetime(3)", "YES", "", "CURRENT_TIMESTAMP(3)",
         "DEFAULT_GENERATED on update CURRENT_TIMESTAMP(3)"),
    ]  # fmt: skip
    assert _q(srv, "SHOW FULL COLUMNS FROM t LIKE 'ta%'") == [
        ("tag", "varchar(10)", "utf8mb4_bin", "YES", "", None, "", ALL, "")
    ]
    assert _q(srv, "SHOW FULL COLUMNS FROM t LIKE 'name'") == [
        ("name", "varchar(40)", "utf8mb4_0900_ai_ci", "NO", "MUL", "x", "", ALL, "the name")
    ]


EXPECTED_T = """CREATE TABLE `t` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(40) NOT NULL DEFAULT 'x' COMMENT 'the name',
  `tag` varchar(10) COLLATE utf8mb4_bin DEFAULT NULL,
  `price` decimal(10,2) DEFAULT '0.00',
  `created` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  `kind` enum('a','b') DEFAULT NULL,
  `big` bigint unsigned DEFAULT NULL,
  `flag` tinyint(1) DEFAULT '1',
  `p_id` int DEFAULT NULL,
  `n` int DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `ix` (`name`(10),`price` DESC),
  KEY `fk` (`p_id`),
  CONSTRAINT `fk` FOREIGN KEY (`p_id`) REFERENCES `p` (`id`),
  CONSTRAINT `t_chk_1` CHECK ((`n` > 0))
) ENGINE=DuckDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci COMMENT='orders'"""


def test_show_create_table_and_show_index(srv: ServerProcess) -> None:
    assert _q(srv, "SHOW CREATE TABLE t") == [("t", EXPECTED_T)]
    assert _q(srv, "SHOW INDEX FROM t") == [
        ("t", 0, "PRIMARY", 1, "id", "A", 0, None, None, "", "BTREE", "", "", "YES", None),
        ("t", 1, "ix", 1, "name", "A", 0, 10, None, "", "BTREE", "", "", "YES", None),
        ("t", 1, "ix", 2, "price", "D", 0, None, None, "YES", "BTREE", "", "", "YES", None),
        ("t", 1, "fk", 1, "p_id", "A", 0, None, None, "YES", "BTREE", "", "", "YES", None),
    ]
    assert _q(srv, "SHOW KEYS FROM p") == _q(srv, "SHOW INDEX FROM p")


def test_auto_increment_option_once_the_counter_moved(srv: ServerProcess) -> None:
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE r.ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("SHOW CREATE TABLE r.ai")
        assert "AUTO_INCREMENT=" not in cur.fetchall()[0][1]
        cur.execute("INSERT INTO r.ai (v) VALUES (1), (2)")
        cur.execute("SHOW CREATE TABLE r.ai")
        assert ") ENGINE=DuckDB AUTO_INCREMENT=3 DEFAULT CHARSET" in cur.fetchall()[0][1]


def test_index_ddl_rename_and_like_keep_the_definition(srv: ServerProcess) -> None:
    def create_text(table: str) -> str:
        return str(_q(srv, f"SHOW CREATE TABLE {table}")[0][1])

    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute("USE r")
        cur.execute("CREATE TABLE k (id INT PRIMARY KEY, a VARCHAR(20), b INT, CHECK (b > 0))")
        cur.execute("CREATE INDEX ia ON k (a)")
        cur.execute("CREATE UNIQUE INDEX ub ON k (b DESC, a(5))")
        assert "  UNIQUE KEY `ub` (`b` DESC,`a`(5)),\n  KEY `ia` (`a`),\n" in create_text("k")
        cur.execute("INSERT INTO k VALUES (1, 'x', 1)")
        with pytest.raises(pymysql.err.MySQLError):  # DuckDB enforces the UNIQUE index
            cur.execute("INSERT INTO k VALUES (2, 'x', 1)")
        for sql, code in (
            ("CREATE INDEX ia ON k (b)", 1061),
            ("CREATE INDEX ic ON k (nope)", 1072),
            ("DROP INDEX nope ON k", 1091),
        ):
            with pytest.raises(pymysql.err.MySQLError) as failure:
                cur.execute(sql)
            assert failure.value.args[0] == code, sql
        cur.execute("DROP INDEX ia ON k")
        cur.execute("DROP INDEX ub ON k")
        assert "KEY" not in create_text("k").replace("PRIMARY KEY", "")
        cur.execute("CREATE INDEX ia ON k (a)")
        cur.execute("CREATE TABLE k2 LIKE k")
        assert create_text("k2") == create_text("k").replace("`k`", "`k2`").replace(
            "k_chk_1", "k2_chk_1"
        )
        cur.execute("RENAME TABLE k2 TO k3")
        assert "CONSTRAINT `k3_chk_1` CHECK ((`b` > 0))" in create_text("k3")
        assert _q(
            srv,
            "SELECT TABLE_NAME, INDEX_NAME FROM information_schema.STATISTICS "
            "WHERE TABLE_SCHEMA = 'r' AND TABLE_NAME LIKE 'k%' ORDER BY 1, 2",
        ) == [("k", "ia"), ("k", "PRIMARY"), ("k3", "ia"), ("k3", "PRIMARY")]


def test_privileges_are_the_users_own(srv: ServerProcess) -> None:
    """SHOW FULL COLUMNS' Privileges: what this user holds on the table (SELECT_PRIV: select;
    LOAD_PRIV: insert,update; ALTER_PRIV: references)."""
    srv.query("CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'")
    srv.query("GRANT SELECT_PRIV ON internal.r.p TO 'reader'@'%'")
    with srv.connect(user="reader", password="pw") as conn, conn.cursor() as cur:
        cur.execute("SHOW FULL COLUMNS FROM r.p")
        assert {row[7] for row in cur.fetchall()} == {"select"}
        # constraints of tables the user may not see stay hidden, as their tables do
        for view in ("CHECK_CONSTRAINTS", "REFERENTIAL_CONSTRAINTS", "TABLE_CONSTRAINTS"):
            cur.execute(
                f"SELECT CONSTRAINT_NAME FROM information_schema.{view} "
                "WHERE CONSTRAINT_SCHEMA = 'r' ORDER BY 1"
            )
            assert [r[0] for r in cur.fetchall()] == (
                ["PRIMARY", "uq"] if view == "TABLE_CONSTRAINTS" else []
            ), view
    srv.query("GRANT LOAD_PRIV ON internal.r.p TO 'reader'@'%'")
    with srv.connect(user="reader", password="pw") as conn, conn.cursor() as cur:
        cur.execute("SHOW FULL COLUMNS FROM r.p")
        assert {row[7] for row in cur.fetchall()} == {"select,insert,update"}


def test_com_field_list_sends_the_columns_definitions(srv: ServerProcess) -> None:
    """COM_FIELD_LIST: each column as a SELECT of the table defines it (not all VARCHAR)."""
    from pymysql.constants import COMMAND, FIELD_TYPE
    from pymysql.protocol import FieldDescriptorPacket

    with srv.connect() as conn:
        conn.select_db("r")
        conn._execute_command(COMMAND.COM_FIELD_LIST, "t\x00")  # noqa: SLF001 — no public API
        fields = []
        while not (packet := conn._read_packet()).is_eof_packet():  # noqa: SLF001
            field = FieldDescriptorPacket(packet.get_all_data(), conn.encoding)
            fields.append((field.name, field.type_code, field.org_table))
    assert fields[:5] == [
        ("id", FIELD_TYPE.LONG, "t"),
        ("name", FIELD_TYPE.VAR_STRING, "t"),
        ("tag", FIELD_TYPE.VAR_STRING, "t"),
        ("price", FIELD_TYPE.NEWDECIMAL, "t"),
        ("created", FIELD_TYPE.DATETIME, "t"),
    ]
