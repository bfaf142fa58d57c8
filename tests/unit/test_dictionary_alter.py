"""engine/dictionary/alter.py: every ALTER TABLE clause on a TableDef, and MySQL's errors."""

from __future__ import annotations

import pytest
from sqlglot import exp

from drydock.engine.dictionary import declare
from drydock.engine.dictionary.alter import apply_alter, plan_alter
from drydock.engine.dictionary.model import TableDef
from drydock.engine.errors import DrydockError
from drydock.grammar.sql import parse

BASE = (
    "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(10) DEFAULT 'x', "
    "c INT, a_id INT, UNIQUE KEY ua (a), KEY kb (b, c), "
    "CONSTRAINT t_fk FOREIGN KEY (a_id) REFERENCES p (id), CONSTRAINT c_pos CHECK (c > 0))"
)


def _table(sql: str = BASE) -> TableDef:
    create = parse(sql)
    assert isinstance(create, exp.Create)
    return declare.table_def(create, "d")


def _clauses(sql: str) -> list[exp.Expr]:
    alter = parse("ALTER TABLE t " + sql)
    assert isinstance(alter, exp.Alter)
    return [*(alter.args.get("actions") or []), *(alter.args.get("options") or [])]


def _alter(sql: str, table: TableDef | None = None) -> TableDef:
    return apply_alter(table or _table(), _clauses(sql))


def _names(table: TableDef) -> list[str]:
    return [c.name for c in table.columns]


def _code(sql: str, table: TableDef | None = None) -> int:
    with pytest.raises(DrydockError) as err:
        _alter(sql, table)
    return err.value.code


def test_add_columns_placed() -> None:
    t = _alter("ADD z INT FIRST, ADD COLUMN y INT AFTER a, ADD (p INT, q VARCHAR(3) NOT NULL)")
    assert _names(t) == ["z", "id", "a", "y", "b", "c", "a_id", "p", "q"]
    q = t.column("q")
    assert q is not None and q.column_type() == "varchar(3)" and not q.nullable


def test_add_column_with_inline_keys_and_check() -> None:
    t = _alter("ADD u INT UNIQUE, ADD v INT CHECK (v < 9)")
    assert t.key("u") is not None and t.key("u").kind == "UNIQUE"  # type: ignore[union-attr]
    assert [c.name for c in t.checks] == ["c_pos", "t_chk_1"]


def test_modify_and_change_keep_or_move_the_column() -> None:
    t = _alter("MODIFY c BIGINT NOT NULL, CHANGE COLUMN b bb VARCHAR(40) FIRST")
    assert _names(t) == ["bb", "id", "a", "c", "a_id"]
    c = t.column("c")
    assert c is not None and c.column_type() == "bigint" and not c.nullable
    assert t.column("bb").column_type() == "varchar(40)"  # type: ignore[union-attr]
    assert t.key("kb").columns == ("bb", "c")  # type: ignore[union-attr]


def test_change_renames_in_sources_keys_and_foreign_keys() -> None:
    plan = plan_alter(_table(), _clauses("CHANGE a_id parent_id INT"))
    assert plan.sources["parent_id"] == "a_id" and "a_id" not in plan.sources
    assert plan.table.foreign_keys[0].columns == ("parent_id",)


def test_rename_column_and_table() -> None:
    plan = plan_alter(_table(), _clauses("RENAME COLUMN a TO aa, RENAME AS t2"))
    assert _names(plan.table)[1] == "aa" and plan.table.name == "t2"
    assert plan.renamed_from == "t"
    assert plan.table.key("ua").columns == ("aa",)  # type: ignore[union-attr]


def test_set_and_drop_default() -> None:
    t = _alter("ALTER COLUMN a SET DEFAULT 7, ALTER b DROP DEFAULT")
    assert t.column("a").default == "7" and t.column("b").default is None  # type: ignore[union-attr]


def test_drop_column_takes_a_check_on_it_alone() -> None:
    t = _alter("DROP COLUMN c")
    assert t.checks == ()


def test_drop_column_leaves_keys_without_it() -> None:
    t = _alter("DROP COLUMN b")
    assert t.key("kb").columns == ("c",)  # type: ignore[union-attr]
    t = _alter("DROP b, DROP c", _alter("DROP CHECK c_pos"))
    assert t.key("kb") is None


def test_keys_added_named_renamed_dropped() -> None:
    t = _alter("ADD INDEX (c), ADD UNIQUE KEY (c), ADD FULLTEXT ft (b), RENAME INDEX kb TO kb2")
    assert [k.name for k in t.keys] == ["PRIMARY", "ua", "c_2", "kb2", "t_fk", "c", "ft"]
    assert t.key("ft").kind == "FULLTEXT"  # type: ignore[union-attr]
    t = _alter("DROP INDEX kb, DROP KEY ua")
    assert [k.name for k in t.keys] == ["PRIMARY", "t_fk"]


def test_primary_key_dropped_and_added() -> None:
    t = _alter("MODIFY id INT NOT NULL, DROP PRIMARY KEY, ADD PRIMARY KEY (id, a)")
    assert t.primary_key is not None and t.primary_key.columns == ("id", "a")
    assert not t.column("a").nullable  # type: ignore[union-attr]


def test_foreign_keys_and_checks() -> None:
    t = _alter(
        "ADD FOREIGN KEY (c) REFERENCES q (id) ON DELETE SET NULL ON UPDATE CASCADE, "
        "ADD CONSTRAINT named FOREIGN KEY (b) REFERENCES q (name), "
        "ADD CONSTRAINT c2 CHECK (a > 1) NOT ENFORCED, ADD CHECK (b <> '')"
    )
    assert [(f.name, f.on_delete, f.on_update) for f in t.foreign_keys] == [
        ("t_fk", "NO ACTION", "NO ACTION"),
        ("t_ibfk_1", "SET NULL", "CASCADE"),
        ("named", "NO ACTION", "NO ACTION"),
    ]
    assert t.key("c") is not None  # InnoDB's implicit index for the unindexed columns
    assert t.key("named") is None  # kb (b, c) begins with b: no index added
    assert [(c.name, c.enforced) for c in t.checks] == [
        ("c_pos", True),
        ("c2", False),
        ("t_chk_1", True),
    ]
    t = _alter("DROP FOREIGN KEY t_fk, DROP CHECK c_pos")
    assert t.foreign_keys == () and t.checks == ()
    t = _alter("DROP CONSTRAINT t_fk, DROP CONSTRAINT c_pos, DROP CONSTRAINT ua")
    assert t.foreign_keys == () and t.checks == () and t.key("ua") is None


def test_table_options() -> None:
    plan = plan_alter(
        _table(),
        _clauses(
            "ENGINE=InnoDB, DEFAULT CHARSET=utf8mb4, COLLATE=utf8mb4_bin, COMMENT='hi', "
            "AUTO_INCREMENT=50, ALGORITHM=COPY, LOCK=SHARED"
        ),
    )
    assert plan.table.comment == "hi" and plan.table.collation == "utf8mb4_bin"
    assert plan.auto_increment_start == 50
    assert plan.table.columns == _table().columns


def test_clauses_apply_in_order() -> None:
    t = _alter("ADD x INT, DROP COLUMN x, ADD x BIGINT FIRST")
    assert t.columns[0].data_type == "bigint"


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("ADD COLUMN a INT", 1060),
        ("CHANGE b a INT", 1060),
        ("RENAME COLUMN b TO A", 1060),
        ("MODIFY nope INT", 1054),
        ("ALTER COLUMN nope SET DEFAULT 1", 1054),
        ("RENAME COLUMN nope TO x", 1054),
        ("ADD x INT AFTER nope", 1054),
        ("DROP COLUMN nope", 1091),
        ("DROP INDEX nope", 1091),
        ("DROP FOREIGN KEY nope", 1091),
        ("ADD INDEX ua (b)", 1061),
        ("RENAME INDEX kb TO ua", 1061),
        ("RENAME INDEX nope TO x", 1176),
        ("ADD PRIMARY KEY (a)", 1068),
        ("ADD INDEX (nope)", 1072),
        ("ADD FOREIGN KEY (nope) REFERENCES p (id)", 1072),
        ("ADD x INT AUTO_INCREMENT UNIQUE", 1075),
        ("DROP PRIMARY KEY", 1075),
        ("MODIFY a INT AUTO_INCREMENT", 1075),
        ("DROP COLUMN a_id", 1828),
        ("DROP INDEX t_fk", 1553),
        ("ADD CONSTRAINT t_fk FOREIGN KEY (c) REFERENCES p (id)", 1826),
        ("DROP CHECK nope", 3821),
        ("ADD CONSTRAINT c_pos CHECK (a > 0)", 3822),
        ("DROP CONSTRAINT nope", 3940),
        ("ADD CHECK (a < c), DROP COLUMN c", 3959),
        ("RENAME COLUMN c TO d", 3959),
    ],
)
def test_errors(sql: str, code: int) -> None:
    assert _code(sql) == code


def test_drop_primary_key_without_one() -> None:
    assert _code("DROP PRIMARY KEY", _table("CREATE TABLE t (a INT)")) == 1091


def test_cannot_drop_every_column() -> None:
    assert _code("DROP COLUMN a", _table("CREATE TABLE t (a INT)")) == 1090


def test_drop_column_if_exists_of_a_missing_column() -> None:
    assert _names(_alter("DROP COLUMN IF EXISTS nope")) == _names(_table())
