"""engine/support/instants.py (the one timestamp parser) and engine/errors.py scrub_paths."""

from __future__ import annotations


import pytest

from drydock.engine.errors import exception_text, scrub_paths
from drydock.engine.support.instants import BadInstant, instant_millis, parse_instant


def test_instants_in_both_forms() -> None:
    assert instant_millis("1700000000123") == 1_700_000_000_123
    assert instant_millis("2024-01-02 03:04:05.006+00:00") == 1_704_164_645_006
    assert parse_instant(" 2024-01-02 03:04:05 ").tzinfo is not None  # naive = server local time


@pytest.mark.parametrize(
    "text",
    [
        "99999-01-01",
        "9999-12-31 23:59:59",
        "0001-01-01",
        "9" * 30,
        "253402300800000",
        "yesterday",
        "",
        "-5",
        "１２３",
    ],
)
def test_bad_or_unrepresentable_instants_raise_one_error_type(text: str) -> None:
    with pytest.raises(BadInstant):
        parse_instant(text)


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            'IO Error: Cannot open file "/root/.duckdb/extensions/x.duckdb_extension"',
            'IO Error: Cannot open file "<path>"',
        ),
        (
            "LanceError(IO): Not found: /tmp/pytest-1/wh/db/t.lance/data/a.lance, at /x.rs:1",
            "LanceError(IO): Not found: <path>, at <path>",
        ),
        ("open file:///var/lib/drydock/internal.duckdb failed", "open <path> failed"),
        (
            "[Errno 2] No such file or directory: '/srv/my data/x'",
            "[Errno 2] No such file or directory: '<path>'",
        ),
        ("s3://bucket/key is missing", "s3://bucket/key is missing"),
        ("name 'a/b' must not contain '/'", "name 'a/b' must not contain '/'"),
        ("3/4 done", "3/4 done"),
    ],
)
def test_scrub_paths(text: str, expected: str) -> None:
    assert scrub_paths(text, "/srv/my data") == expected


def test_exception_text_is_type_and_first_line_without_paths() -> None:
    exc = FileNotFoundError(2, "No such file or directory", "/var/drydock/data/x")
    assert exception_text(exc) == "FileNotFoundError: [Errno 2] No such file or directory: '<path>'"
    assert (
        exception_text(OverflowError("date value out of range\nmore"))
        == "OverflowError: date value out of range"
    )
