"""grammar/sql.py parses every MySQL 8 ALTER TABLE clause (manual 15.1.9) into sqlglot nodes,
several per statement, never an opaque command (engine/dictionary/alter.py applies them)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from drydock.engine.errors import DrydockError
from drydock.grammar.sql import AlterKeys, parse

FORMS = {
    "ADD COLUMN b INT NOT NULL DEFAULT 1 FIRST": [exp.ColumnDef],
    "ADD b INT AFTER a": [exp.ColumnDef],
    "ADD (c1 INT, c2 VARCHAR(5) NOT NULL)": [exp.ColumnDef, exp.ColumnDef],
    "DROP COLUMN a": [exp.Drop],
    "DROP a": [exp.Drop],
    "MODIFY COLUMN v VARCHAR(20) NOT NULL AFTER id": [exp.ModifyColumn],
    "MODIFY v INT FIRST": [exp.ModifyColumn],
    "CHANGE COLUMN a b BIGINT AFTER c": [exp.ModifyColumn],
    "CHANGE a b BIGINT": [exp.ModifyColumn],
    "RENAME COLUMN a TO b": [exp.RenameColumn],
    "RENAME TO t2": [exp.AlterRename],
    "RENAME AS t2": [exp.AlterRename],
    "RENAME t2": [exp.AlterRename],
    "ALTER COLUMN a SET DEFAULT 7": [exp.AlterColumn],
    "ALTER a DROP DEFAULT": [exp.AlterColumn],
    "ADD INDEX (a)": [exp.AddConstraint],
    "ADD KEY k (a, b)": [exp.AddConstraint],
    "ADD UNIQUE (a)": [exp.AddConstraint],
    "ADD UNIQUE KEY uk (a)": [exp.AddConstraint],
    "ADD FULLTEXT INDEX ft (a)": [exp.AddConstraint],
    "ADD PRIMARY KEY (id)": [exp.AddConstraint],
    "ADD CONSTRAINT pk PRIMARY KEY (id)": [exp.AddConstraint],
    "DROP INDEX k": [exp.Drop],
    "DROP KEY k": [exp.Drop],
    "DROP PRIMARY KEY": [exp.DropPrimaryKey],
    "RENAME INDEX a TO b": [exp.RenameIndex],
    "RENAME KEY a TO b": [exp.RenameIndex],
    "ADD FOREIGN KEY (a) REFERENCES b (id)": [exp.AddConstraint],
    "ADD CONSTRAINT f FOREIGN KEY (a) REFERENCES b (id) ON DELETE CASCADE": [exp.AddConstraint],
    "ADD CONSTRAINT FOREIGN KEY (a) REFERENCES b (id) ON UPDATE SET NULL": [exp.AddConstraint],
    "DROP FOREIGN KEY f": [exp.Drop],
    "ADD CHECK (a > 0)": [exp.AddConstraint],
    "ADD CONSTRAINT c CHECK (a > 0) NOT ENFORCED": [exp.AddConstraint],
    "ADD CONSTRAINT CHECK (a > 0) ENFORCED": [exp.AddConstraint],
    "DROP CHECK c": [exp.Drop],
    "DROP CONSTRAINT c": [exp.Drop],
    "DISABLE KEYS": [AlterKeys],
    "ADD x INT, DROP y, MODIFY z INT NOT NULL, ADD INDEX (x), ADD (p INT), ADD CHECK (p > 0), "
    "RENAME COLUMN q TO r": [
        exp.ColumnDef,
        exp.Drop,
        exp.ModifyColumn,
        exp.AddConstraint,
        exp.ColumnDef,
        exp.AddConstraint,
        exp.RenameColumn,
    ],
}
OPTIONS = {
    "ENGINE=InnoDB, DEFAULT CHARSET=utf8mb4": [exp.EngineProperty, exp.CharacterSetProperty],
    "CHARSET=utf8mb4 COLLATE=utf8mb4_bin": [exp.CharacterSetProperty, exp.CollateProperty],
    "COMMENT='hi'": [exp.SchemaCommentProperty],
    "AUTO_INCREMENT=100": [exp.AutoIncrementProperty],
    "ADD x INT, ALGORITHM=INPLACE, LOCK=NONE": [exp.AlgorithmProperty, exp.LockProperty],
}


def _alter(text: str) -> exp.Alter:
    parsed = parse("ALTER TABLE t " + text)
    assert isinstance(parsed, exp.Alter), text
    return parsed


@pytest.mark.parametrize(("text", "kinds"), FORMS.items())
def test_actions(text: str, kinds: list[type]) -> None:
    actions = _alter(text).args.get("actions") or []
    assert [type(a) for a in actions] == kinds


@pytest.mark.parametrize(("text", "kinds"), OPTIONS.items())
def test_options(text: str, kinds: list[type]) -> None:
    assert [type(o) for o in _alter(text).args.get("options") or []] == kinds


def test_check_enforcement_and_name() -> None:
    (action,) = _alter("ADD CONSTRAINT c CHECK (a > 0) NOT ENFORCED").args["actions"]
    constraint = action.expressions[0]
    assert isinstance(constraint, exp.Constraint) and constraint.name == "c"
    check = constraint.find(exp.CheckColumnConstraint)
    assert check is not None and check.args.get("enforced") is False


def test_add_without_an_item_is_a_syntax_error() -> None:
    with pytest.raises(DrydockError) as err:
        parse("ALTER TABLE t ADD ()")
    assert err.value.code == 1064
