"""engine/support/like.py: LIKE and host-pattern semantics, and time bounded by the input size."""

from __future__ import annotations

import time

import pytest

from drydock.engine.support.like import LikePattern, like
from drydock.engine.statements.admin_config import like_to_regex
from drydock.engine.security.users import host_matches

SEMANTICS = [
    # (text, pattern, matches)
    ("abc", "abc", True),
    ("abc", "ab", False),
    ("abc", "a%", True),
    ("abc", "%c", True),
    ("abc", "%b%", True),
    ("abc", "%", True),
    ("", "%", True),
    ("", "", True),
    ("a", "", False),
    ("", "_", False),
    ("abc", "a_c", True),
    ("abc", "___", True),
    ("abc", "__", False),
    ("abc", "%%%%", True),
    ("abc", "a%%c", True),
    ("aXbXc", "%X%X%", True),
    ("aXbc", "%X%X%", False),
    ("mississippi", "%issip%", True),
    ("mississippi", "m%ss%pi", True),
    ("mississippi", "m%ss%ss%ss%", False),
    # escapes
    ("a%c", "a\\%c", True),
    ("abc", "a\\%c", False),
    ("a_c", "a\\_c", True),
    ("abc", "a\\_c", False),
    ("a\\c", "a\\\\c", True),
    ("ab\\", "ab\\", True),  # a trailing backslash is literal
    # regex metacharacters are plain characters
    ("a.c", "a.c", True),
    ("abc", "a.c", False),
    ("aaa", "a*", False),
    ("a*", "a*", True),
    ("(x)", "(x)", True),
    ("x", "(x)", False),
    ("a+b", "a+b", True),
    ("aab", "a+b", False),
    ("[ab]", "[ab]", True),
    ("a", "[ab]", False),
    ("^$", "^$", True),
    ("a|b", "a|b", True),
    ("a", "a|b", False),
    ("line\nbreak", "line_break", True),
    ("line\nbreak", "line%", True),
    # case-insensitive by default (MySQL's default collation)
    ("ABC", "abc", True),
    ("abc", "A%C", True),
]


@pytest.mark.parametrize("text,pattern,expected", SEMANTICS)
def test_like_semantics(text: str, pattern: str, expected: bool) -> None:
    assert like(text, pattern) is expected


def test_case_sensitive_option() -> None:
    assert like("ABC", "abc", case_insensitive=False) is False
    assert like("ABC", "A_C", case_insensitive=False) is True


def test_without_escapes_a_backslash_is_a_plain_character() -> None:
    assert like("a\\bc", "a\\_c", escapes=False) is True
    assert like("a_c", "a\\_c", escapes=False) is False


def test_compiled_pattern_is_reusable() -> None:
    pattern = LikePattern("db\\_%")
    assert [pattern.fullmatch(t) for t in ("db_1", "dbx1", "DB_x")] == [True, False, True]


def test_like_to_regex_keeps_working_for_old_callers() -> None:
    assert like_to_regex("a%").fullmatch("abc") and not like_to_regex("a%").fullmatch("xbc")


@pytest.mark.parametrize(
    "pattern,host,expected",
    [
        ("10.%", "10.1.2.3", True),
        ("10.%", "100.1.2.3", False),
        ("10._.2.3", "10.1.2.3", True),
        ("10.0.0.1", "10.0.0.1", True),
        ("10.0.0.1", "10.0.0.10", False),
        ("10.0.0._", "10.0.0.9", True),
        ("%", "anything", True),
        ("localhost", "127.0.0.1", True),
        ("HOST.example", "host.EXAMPLE", True),
    ],
)
def test_host_patterns(pattern: str, host: str, expected: bool) -> None:
    assert host_matches(pattern, host) is expected


def _timed(fn, *args) -> tuple[bool, float]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


@pytest.mark.parametrize(
    "pattern",
    [
        "%_" * 5000,
        "%" * 9999 + "x",
        "_%" * 4999 + "%x",
        "%a" * 5000,
        "%" + "a_" * 4999 + "b",
    ],
)
def test_ten_thousand_wildcards_against_a_long_string_answer_in_milliseconds(pattern: str) -> None:
    text = "a" * 10_000 + "y"
    matched, seconds = _timed(like, text, pattern)
    print(
        f"pattern {pattern[:12]!r}… ({len(pattern)} chars) vs {len(text)} chars: {matched} in "
        f"{seconds * 1000:.1f} ms"
    )
    assert seconds < 1.0


def test_host_pattern_of_many_wildcards_is_fast() -> None:
    matched, seconds = _timed(host_matches, "%" * 200 + "_" * 50 + "x", "a" * 255)
    print(f"host pattern: {matched} in {seconds * 1000:.1f} ms")
    assert not matched and seconds < 1.0
