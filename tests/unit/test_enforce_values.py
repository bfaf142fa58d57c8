"""engine/sql/enforce_values.py: one value against its declared column, as strict and non-strict
MySQL 8 store it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from drydock.engine.dictionary.model import ColumnDef
from drydock.engine.errors import DrydockError
from drydock.engine.sql.enforce_values import Mode, ValueRules, strict

VARCHAR3 = ColumnDef("a", "varchar", length=3)
CHAR2 = ColumnDef("c", "char", length=2)
VARBINARY2 = ColumnDef("b", "varbinary", length=2)
ENUM = ColumnDef("e", "enum", values=("Small", "Large"))
SET = ColumnDef("s", "set", values=("a", "b", "c"))
TINY_U = ColumnDef("n", "tinyint", unsigned=True)
MEDIUM = ColumnDef("m", "mediumint")
DEC = ColumnDef("d", "decimal", precision=5, scale=2)
NOT_NULL = ColumnDef("x", "int", nullable=False)


@pytest.mark.parametrize(
    "column, given, stored",
    [
        (VARCHAR3, "abc", "abc"),
        (VARCHAR3, 12, 12),
        (ENUM, "LARGE", "Large"),
        (ENUM, 1, "Small"),
        (SET, "c,A", "a,c"),
        (SET, 5, "a,c"),
        (TINY_U, Decimal("254.5"), 255),
        (MEDIUM, -8388608, -8388608),
        (DEC, Decimal("-999.99"), Decimal("-999.99")),
        (VARBINARY2, b"ab", b"ab"),
    ],
)
def test_values_that_fit(column: ColumnDef, given: Any, stored: Any) -> None:
    rules = ValueRules(Mode())
    assert rules.value(column, given, 1) == stored
    assert rules.warnings == []


@pytest.mark.parametrize(
    "column, given, code, message",
    [
        (VARCHAR3, "abcd", 1406, "Data too long for column 'a' at row 3"),
        (VARBINARY2, "é1", 1406, "Data too long for column 'b' at row 3"),  # 3 bytes
        (ENUM, "medium", 1265, "Data truncated for column 'e' at row 3"),
        (SET, "a,z", 1265, "Data truncated for column 's' at row 3"),
        (TINY_U, -1, 1264, "Out of range value for column 'n' at row 3"),
        (MEDIUM, 8388608, 1264, "Out of range value for column 'm' at row 3"),
        (DEC, 1000, 1264, "Out of range value for column 'd' at row 3"),
        (NOT_NULL, None, 1048, "Column 'x' cannot be null"),
    ],
)
def test_strict_errors(column: ColumnDef, given: Any, code: int, message: str) -> None:
    with pytest.raises(DrydockError) as info:
        ValueRules(Mode()).value(column, given, 3)
    assert (info.value.code, info.value.message) == (code, message)


@pytest.mark.parametrize(
    "column, given, stored, warning",
    [
        (VARCHAR3, "abcd", "abc", ("Warning", 1265)),
        (TINY_U, 300, 255, ("Warning", 1264)),
        (DEC, Decimal(-1234), Decimal("-999.99"), ("Warning", 1264)),
        (SET, "a,z", "a", ("Warning", 1265)),
        (NOT_NULL, None, 0, ("Warning", 1048)),
    ],
)
def test_non_strict_and_ignore_clip(
    column: ColumnDef, given: Any, stored: Any, warning: Any
) -> None:
    for mode in (Mode(strict=False), Mode(strict=True, ignore=True)):
        rules = ValueRules(mode)
        assert rules.value(column, given, 1) == stored
        assert [(w.level, w.code) for w in rules.warnings] == [warning]


def test_notes_in_every_mode() -> None:
    rules = ValueRules(Mode())
    assert rules.value(VARCHAR3, "ab   ", 1) == "ab "  # only spaces cut: a Note
    assert rules.value(CHAR2, "ab  ", 1) == "ab"  # CHAR: silently
    assert rules.value(DEC, Decimal("1.005"), 2) == Decimal("1.01")
    assert [(w.level, w.code, w.message) for w in rules.warnings] == [
        ("Note", 1265, "Data truncated for column 'a' at row 1"),
        ("Note", 1265, "Data truncated for column 'd' at row 2"),
    ]


def test_single_row_null_is_an_error_in_any_mode() -> None:
    with pytest.raises(DrydockError):
        ValueRules(Mode(strict=False, single_row=True)).value(NOT_NULL, None, 1)


def test_strict_modes() -> None:
    assert strict("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES")
    assert strict("STRICT_ALL_TABLES")
    assert not strict("")
    assert not strict("NO_ENGINE_SUBSTITUTION")
