"""server/results.py: a value longer than max_allowed_packet is refused (1301) before any row
packet is built; measured in wire bytes (UTF-8), for text, binary and nested columns."""

from __future__ import annotations

from typing import Any

import pytest

from drydock.engine.errors import DrydockError
from drydock.engine.results import Result
from drydock.server.results import to_wire

LIMIT = 1024


def _wire(duck_type: str, *values: Any, limit: int | None = LIMIT) -> Any:
    rows = [(i, v) for i, v in enumerate(values)]
    return to_wire(
        Result(columns=["n", "v"], rows=rows, column_types={"n": "BIGINT", "v": duck_type}),
        max_value_bytes=limit,
    )


@pytest.mark.parametrize(
    "duck_type, value",
    [
        ("VARCHAR", "x" * (LIMIT + 1)),
        ("VARCHAR", "é" * (LIMIT // 2 + 1)),  # fewer characters than the limit, more bytes
        ("BLOB", b"\x00" * (LIMIT + 1)),
        ("INTEGER[]", list(range(400))),  # shown as JSON text
        ("JSON", "[" + "1," * LIMIT + "1]"),
    ],
)
def test_a_value_over_the_limit_is_refused(duck_type: str, value: Any) -> None:
    with pytest.raises(DrydockError) as info:
        _wire(
            duck_type,
            None,
            "short" if duck_type != "BLOB" and duck_type != "INTEGER[]" else None,
            value,
        )
    assert info.value.code == 1301
    assert (
        info.value.message
        == f"Result of column 'v' was larger than max_allowed_packet ({LIMIT}) - not sent"
    )


def test_values_up_to_the_limit_pass_unchanged() -> None:
    rows, _ = _wire("VARCHAR", None, "x" * LIMIT, "é" * (LIMIT // 2), "")
    assert [r[1] for r in rows] == [None, "x" * LIMIT, "é" * (LIMIT // 2), ""]
    rows, _ = _wire("BLOB", b"\x01" * LIMIT)
    assert rows[0][1] == b"\x01" * LIMIT


def test_numbers_are_not_measured_and_no_limit_checks_nothing() -> None:
    rows, _ = _wire("BIGINT", 10**18, None)
    assert rows[1] == (1, None)
    rows, _ = _wire("VARCHAR", "x" * (LIMIT * 10), limit=None)
    assert len(rows[0][1]) == LIMIT * 10
