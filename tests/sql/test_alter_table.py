"""ALTER TABLE on internal tables as MySQL 8 does it (engine/dictionary/alter.py computes the new
definition, engine/sql/mysql_alter.py rebuilds DuckDB's table in one transaction): every clause
form, on tables with keys and indexes, the OK packet's info, atomicity, a Django migration."""

from __future__ import annotations

import duckdb
import pymysql
import pytest

from drydock.engine.dictionary import store
from drydock.engine.dictionary.model import TableDef, table_from_json


def _definition(server, db: str, table: str) -> TableDef | None:  # type: ignore[no-untyped-def]
    server.stop()
    con = duckdb.connect(str(next(server.data_dir.rglob("internal.duckdb"))), read_only=True)
    try:
        rows = con.execute(
            f"SELECT definition FROM {store.TABLE} WHERE schema_name = ? AND table_name = ?",
            [db, table],
        ).fetchall()
    finally:
        con.close()
    return table_from_json(rows[0][0]) if rows else None


def _columns(cur) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    cur.execute("DESCRIBE t")
    return [(r[0], r[2], r[4]) for r in cur.fetchall()]  # name, null, default


def _rows(cur, sql: str = "SELECT * FROM t ORDER BY 1") -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def _info(cur) -> str:  # type: ignore[no-untyped-def]
    message = cur.connection._result.message  # the OK packet's info string
    text = message.decode() if isinstance(message, bytes) else str(message)
    start = text.find("Records")  # pymysql keeps the length byte before it
    return text[start:] if start >= 0 else ""


@pytest.fixture
def cur(server):  # type: ignore[no-untyped-def]
    conn = server.connect()
    c = conn.cursor()
    c.execute("CREATE DATABASE d")
    c.execute("USE d")
    yield c
    conn.close()


def test_add_columns_placed_and_info(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, UNIQUE KEY ua (a))")
    cur.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    cur.execute("CREATE INDEX ix_a ON t (a)")  # DuckDB refuses its own ALTERs from here on
    affected = cur.execute(
        "ALTER TABLE t ADD COLUMN b VARCHAR(10) NOT NULL DEFAULT 'z', ADD c INT AFTER id, "
        "ADD z INT FIRST, ADD (p INT, q INT NOT NULL), ALGORITHM=INPLACE, LOCK=NONE"
    )
    assert affected == 0
    assert _info(cur) == "Records: 0  Duplicates: 0  Warnings: 0"
    cur.execute("ALTER TABLE t MODIFY a BIGINT")  # a type change copies the rows
    assert _info(cur) == "Records: 2  Duplicates: 0  Warnings: 0"
    assert [c[0] for c in _columns(cur)] == ["z", "id", "c", "a", "b", "p", "q"]
    assert _rows(cur, "SELECT id, a, b, q FROM t ORDER BY id") == [(1, 10, "z", 0), (2, 20, "z", 0)]
    with pytest.raises(pymysql.err.IntegrityError) as err:  # the UNIQUE key survived
        cur.execute("INSERT INTO t (id, a, q) VALUES (3, 10, 0)")  # q: NOT NULL, no default
    assert err.value.args[0] == 1062
    definition = _definition(server, "d", "t")
    assert definition is not None
    assert [k.name for k in definition.keys] == ["PRIMARY", "ua", "ix_a"]  # CREATE INDEX's too


def test_modify_change_rename_drop_on_indexed_table(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT, old_name INT, y INT)")
    cur.execute("INSERT INTO t (v, old_name, y) VALUES (42, 5, 1), (43, 6, 2)")
    cur.execute("CREATE INDEX ix_v ON t (v)")
    cur.execute("ALTER TABLE t MODIFY COLUMN v VARCHAR(20) NOT NULL")
    cur.execute("ALTER TABLE t CHANGE COLUMN old_name new_name BIGINT FIRST")
    cur.execute("ALTER TABLE t DROP COLUMN y")
    cur.execute("ALTER TABLE t RENAME COLUMN new_name TO n")
    assert [c[0] for c in _columns(cur)] == ["n", "id", "v"]
    assert _rows(cur, "SELECT id, v, n FROM t ORDER BY id") == [(1, "42", 5), (2, "43", 6)]
    cur.execute("INSERT INTO t (n, v) VALUES (7, 'x')")  # AUTO_INCREMENT keeps counting
    assert cur.lastrowid == 3
    cur.execute("ALTER TABLE t RENAME TO t2")
    cur.execute("SELECT count(*) FROM t2")
    assert cur.fetchone()[0] == 3
    definition = _definition(server, "d", "t2")
    assert definition is not None and [c.column_type() for c in definition.columns] == [
        "bigint",
        "int",
        "varchar(20)",
    ]
    assert [k.name for k in definition.keys] == ["PRIMARY", "ix_v"] or [
        k.name for k in definition.keys
    ] == ["PRIMARY"]


def test_drop_a_column_before_a_unique_key(cur) -> None:  # type: ignore[no-untyped-def]
    """Django's contenttypes 0002: DROP COLUMN of a column placed before a UNIQUE key's columns
    (DuckDB's index of the key refuses that in place: the table is rebuilt)."""
    cur.execute(
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100), "
        "app_label VARCHAR(100) NOT NULL, model VARCHAR(100) NOT NULL, UNIQUE (app_label, model))"
    )
    cur.execute("INSERT INTO t (name, app_label, model) VALUES ('n', 'auth', 'user')")
    cur.execute("ALTER TABLE t DROP COLUMN name")
    assert [c[0] for c in _columns(cur)] == ["id", "app_label", "model"]
    with pytest.raises(pymysql.err.IntegrityError) as err:  # the UNIQUE key survived
        cur.execute("INSERT INTO t (app_label, model) VALUES ('auth', 'user')")
    assert err.value.args[0] == 1062


def test_set_and_drop_default(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT DEFAULT 1)")
    cur.execute("ALTER TABLE t ALTER COLUMN a SET DEFAULT 7")
    cur.execute("INSERT INTO t (id) VALUES (1)")
    assert _rows(cur, "SELECT a FROM t") == [(7,)]
    cur.execute("ALTER TABLE t ALTER a DROP DEFAULT")
    assert _columns(cur)[1][2] is None


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("ALTER TABLE t ADD COLUMN a INT", 1060),
        ("ALTER TABLE t DROP COLUMN nope", 1091),
        ("ALTER TABLE t MODIFY nope INT", 1054),
        ("ALTER TABLE t ADD INDEX ua (b)", 1061),
        ("ALTER TABLE t ADD PRIMARY KEY (a)", 1068),
        ("ALTER TABLE t DROP INDEX nope", 1091),
        ("ALTER TABLE t ADD UNIQUE (a)", 1062),
        ("ALTER TABLE t MODIFY b VARCHAR(2)", 1265),
        ("ALTER TABLE t MODIFY a TINYINT", 1264),
        ("ALTER TABLE t MODIFY c INT NOT NULL", 1138),
        ("ALTER TABLE t MODIFY b INT", 1366),
        ("ALTER TABLE t ADD COLUMN n INT, ADD COLUMN n2 INT AFTER nope", 1054),
    ],
)
def test_failing_alter_changes_nothing(server, cur, sql: str, code: int) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT, KEY ua (a))")
    cur.execute("INSERT INTO t VALUES (1, 500, 'abcdef', NULL), (2, 500, 'x', 1)")
    before_columns, before_rows = _columns(cur), _rows(cur)
    with pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute("ALTER TABLE t ADD COLUMN extra INT, " + sql[len("ALTER TABLE t ") :])
    assert err.value.args[0] == code, err.value.args
    assert "__drydock" not in err.value.args[1]  # no name of the rebuild's own table leaks
    assert _columns(cur) == before_columns
    assert _rows(cur) == before_rows


def test_keys_and_constraints_recorded(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE t (id INT NOT NULL, a_id INT, v INT)")
    cur.execute("ALTER TABLE t ADD PRIMARY KEY (id)")
    cur.execute(
        "ALTER TABLE t ADD CONSTRAINT t_fk FOREIGN KEY (a_id) REFERENCES a (id) ON DELETE CASCADE"
    )
    cur.execute("ALTER TABLE t ADD CONSTRAINT v_pos CHECK (v > 0) NOT ENFORCED, ADD KEY kv (v)")
    cur.execute("ALTER TABLE t RENAME INDEX kv TO kv2, COMMENT='hello', ENGINE=InnoDB")
    with pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute("ALTER TABLE t DROP COLUMN a_id")
    assert err.value.args[0] == 1828
    definition = _definition(server, "d", "t")
    assert definition is not None
    assert [(k.name, k.kind) for k in definition.keys] == [
        ("PRIMARY", "PRIMARY"),
        ("t_fk", "INDEX"),
        ("kv2", "INDEX"),
    ]
    assert [(f.name, f.ref_table, f.on_delete) for f in definition.foreign_keys] == [
        ("t_fk", "a", "CASCADE")
    ]
    assert [(c.name, c.enforced) for c in definition.checks] == [("v_pos", False)]
    assert definition.comment == "hello"


def test_django_migration_sequence(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY)")
    cur.execute(
        "CREATE TABLE x (id BIGINT AUTO_INCREMENT NOT NULL PRIMARY KEY, "
        "c VARCHAR(100) NULL, y INT NULL, a_id INT NOT NULL)"
    )
    cur.execute("CREATE INDEX x_c_idx ON x (c)")
    cur.execute("INSERT INTO a VALUES (1)")
    cur.execute("INSERT INTO x (c, y, a_id) VALUES ('e@x', 1, 1)")
    cur.execute("ALTER TABLE x ADD CONSTRAINT x_fk FOREIGN KEY (a_id) REFERENCES a (id)")
    cur.execute("ALTER TABLE x MODIFY c varchar(254) NOT NULL")
    cur.execute("ALTER TABLE x DROP COLUMN y")
    cur.execute("ALTER TABLE x RENAME TO z")
    assert _rows(cur, "SELECT id, c, a_id FROM z") == [(1, "e@x", 1)]
    cur.execute("INSERT INTO z (c, a_id) VALUES ('f', 1)")
    assert cur.lastrowid == 2
    definition = _definition(server, "d", "z")
    assert definition is not None and [c.name for c in definition.columns] == ["id", "c", "a_id"]
    assert [f.name for f in definition.foreign_keys] == ["x_fk"]


def test_view_survives_rebuild(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT)")
    cur.execute("INSERT INTO t VALUES (1, 2)")
    cur.execute("CREATE VIEW v AS SELECT id, a FROM t")
    cur.execute("ALTER TABLE t MODIFY a BIGINT, ADD b INT")
    assert _rows(cur, "SELECT * FROM v") == [(1, 2)]


def test_in_place_changes_on_a_table_without_indexes(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, c INT DEFAULT 3)")
    cur.execute("INSERT INTO t VALUES (1, 2, 3, 4)")
    cur.execute("ALTER TABLE t ADD COLUMN d VARCHAR(5) DEFAULT 'q', DROP COLUMN b")
    cur.execute("ALTER TABLE t RENAME COLUMN a TO aa, ALTER COLUMN c SET DEFAULT 9")
    cur.execute("INSERT INTO t (id, aa) VALUES (2, 5)")
    assert _rows(cur) == [(1, 2, 4, "q"), (2, 5, 9, "q")]
    cur.execute("ALTER TABLE t RENAME TO u")
    assert _info(cur) == ""  # a bare RENAME sends no info, as MySQL
    definition = _definition(server, "d", "u")
    assert definition is not None
    assert [c.column_type() for c in definition.columns] == ["int", "int", "int", "varchar(5)"]
    assert [c.name for c in definition.columns] == ["id", "aa", "c", "d"]
    assert _definition(server, "d", "t") is None


def test_failed_rebuild_leaves_no_trace(server, cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT)")
    cur.execute("INSERT INTO t (a) VALUES (1), (1)")
    cur.execute("CREATE UNIQUE INDEX ix ON t (id, a)")  # a DuckDB index (a plain KEY is not)
    with pytest.raises(pymysql.err.IntegrityError):
        cur.execute("ALTER TABLE t ADD COLUMN b INT FIRST, ADD UNIQUE KEY ua (a)")
    cur.execute("INSERT INTO t (a) VALUES (2)")
    assert cur.lastrowid == 3
    server.stop()
    con = duckdb.connect(str(next(server.data_dir.rglob("internal.duckdb"))), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        sequences = con.execute("SELECT count(*) FROM duckdb_sequences()").fetchall()[0][0]
        indexes = [r[0] for r in con.execute("SELECT index_name FROM duckdb_indexes()").fetchall()]
    finally:
        con.close()
    assert "t" in tables and not [t for t in tables if t.startswith("__drydock_alter_")]
    assert sequences == 1 and indexes == ["ix"]


def test_table_a_foreign_key_references_is_rebuilt(cur) -> None:  # type: ignore[no-untyped-def]
    """Foreign keys live in the data dictionary (engine/sql/enforce_foreign_keys.py), not in
    DuckDB: a referenced parent is rebuilt like any table, and the key still holds after."""
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, v INT)")
    cur.execute(
        "CREATE TABLE ch (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id))"
    )
    cur.execute("INSERT INTO p VALUES (1, 1)")
    cur.execute("ALTER TABLE p ADD COLUMN w INT FIRST")
    cur.execute("ALTER TABLE ch ADD COLUMN w INT FIRST")
    cur.execute("INSERT INTO ch (id, p_id) VALUES (1, 1)")
    with pytest.raises(pymysql.err.IntegrityError) as err:
        cur.execute("INSERT INTO ch (id, p_id) VALUES (2, 9)")
    assert err.value.args[0] == 1452


def test_rebuild_keeps_on_update_booleans_and_moves_auto_increment(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute(
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, flag BOOLEAN, v INT, "
        "changed DATETIME DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP)"
    )
    cur.execute("INSERT INTO t (flag, v) VALUES (TRUE, 1)")
    cur.execute("ALTER TABLE t ADD COLUMN w INT FIRST, AUTO_INCREMENT = 100")
    cur.execute("INSERT INTO t (flag, v) VALUES (FALSE, 2)")
    assert cur.lastrowid == 100
    cur.execute("UPDATE t SET v = 5 WHERE id = 1")  # ON UPDATE CURRENT_TIMESTAMP still applies
    assert _rows(cur, "SELECT id, flag, YEAR(changed) > 2000 FROM t ORDER BY id") == [
        (1, 1, 1),
        (100, 0, 0),
    ]


def test_add_check_over_rows_that_break_it(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t VALUES (1, -5)")
    with pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute("ALTER TABLE t ADD CONSTRAINT v_pos CHECK (v > 0)")
    assert err.value.args[0] == 3819, err.value.args
    cur.execute("ALTER TABLE t ADD CONSTRAINT v_pos CHECK (v > 0) NOT ENFORCED")
    cur.execute("INSERT INTO t VALUES (2, -1)")
    assert _rows(cur) == [(1, -5), (2, -1)]


def test_rename_to_a_taken_name_and_case_only(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE u (id INT)")
    with pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute("ALTER TABLE t RENAME TO u")
    assert err.value.args[0] == 1050
    cur.execute("CREATE INDEX ix ON t (id)")
    cur.execute("ALTER TABLE t RENAME TO T")  # rebuilt (an index), same name in other letters
    cur.execute("SHOW TABLES")
    assert sorted(r[0] for r in cur.fetchall()) == ["T", "u"]


def test_unique_over_duplicates_names_the_key_and_keeps_the_transaction(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(5))")
    cur.execute("INSERT INTO t VALUES (1, 5, 'x'), (2, 5, 'x'), (3, NULL, 'y'), (4, NULL, 'y')")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (5, 6, 'z')")
    with pytest.raises(pymysql.err.IntegrityError) as err:
        cur.execute("ALTER TABLE t ADD UNIQUE KEY uq (a, b)")
    assert err.value.args == (1062, "Duplicate entry '5-x' for key 't.uq'")
    cur.execute("COMMIT")  # refused before DuckDB ran anything: the transaction goes on
    assert len(_rows(cur)) == 5
    cur.execute("DELETE FROM t WHERE id = 2")
    cur.execute("ALTER TABLE t ADD UNIQUE KEY uq (a, b)")  # NULLs never collide


def test_drop_column_with_a_check_on_it_alone(cur) -> None:  # type: ignore[no-untyped-def]
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT CHECK (v > 0), w INT)")
    cur.execute("INSERT INTO t VALUES (1, 1, 1)")
    cur.execute("ALTER TABLE t DROP COLUMN v")  # the check goes with its column
    assert _rows(cur) == [(1, 1)]
