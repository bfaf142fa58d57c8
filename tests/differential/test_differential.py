"""Differential against MariaDB 10.11: every corpus case (tests/differential/corpus/*.sql) runs
in a fresh database on a real MariaDB and on drydock; each checked statement's answer — values as
text, column names, type codes, lengths, decimals, flags, affected rows, info, warnings, error
code and SQLSTATE — must be MySQL's: MariaDB's, changed only by a declared difference
(differences.py). Two tests per case: its values (test_values) and its column definitions
(test_column_definitions), so a case whose definitions are a known gap still checks its values.
Cases in KNOWN_GAPS are expected to fail, strictly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential.answers import Answer
from tests.differential.corpus import Case, load_corpus
from tests.differential.differences import (
    ALL_CASES,
    DEFINITIONS,
    DIFFERENCES,
    KNOWN_GAPS,
    expected_answers,
)
from tests.differential.runner import run_case, side_by_side

ROOT = Path(__file__).resolve().parents[2]
CASES = load_corpus()
_NAMES = {case.name for case in CASES}


def _param(case, key: str):  # type: ignore[no-untyped-def]
    gap = KNOWN_GAPS.get(key)
    marks = [pytest.mark.xfail(strict=True, reason=f"known gap: {gap}")] if gap else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.fixture(scope="session")
def answers(mariadb_address, drydock_address):  # type: ignore[no-untyped-def]
    """Each case run once on both servers (the values and definitions tests share the run):
    case name → (expected answers, drydock's answers)."""
    cache: dict[str, tuple[tuple[Answer, ...], tuple[Answer, ...]]] = {}

    def answer(case: Case) -> tuple[tuple[Answer, ...], tuple[Answer, ...]]:
        if case.name not in cache:
            want = run_case(mariadb_address, case)
            if want.setup_failure is not None:
                pytest.fail(f"setup fails on MariaDB (a corpus bug): {want.setup_failure}", False)
            got = run_case(drydock_address, case)
            if got.setup_failure is not None:
                pytest.fail(f"setup fails on drydock: {got.setup_failure}", False)
            cache[case.name] = expected_answers(case.name, case.checked, want.answers), got.answers
        return cache[case.name]

    return answer


@pytest.mark.parametrize("case", [_param(c, c.name) for c in CASES])
def test_values(answers, case: Case) -> None:  # type: ignore[no-untyped-def]
    """Errors (code, SQLSTATE), column names, rows as text, affected rows, info, warnings."""
    expected, got = answers(case)
    want_values = tuple(a.values() for a in expected)
    got_values = tuple(a.values() for a in got)
    if want_values != got_values:
        pytest.fail(
            "MySQL expected (left) vs drydock (right)\n"
            + side_by_side(
                case,
                tuple(a.render() for a in want_values),
                tuple(a.render() for a in got_values),
            ),
            pytrace=False,
        )


@pytest.mark.parametrize("case", [_param(c, c.name + DEFINITIONS) for c in CASES])
def test_column_definitions(answers, case: Case) -> None:  # type: ignore[no-untyped-def]
    """Type code, length, decimals and flags of every result column."""
    expected, got = answers(case)
    want_defs = tuple([c.render() for c in a.definitions()] for a in expected)
    got_defs = tuple([c.render() for c in a.definitions()] for a in got)
    if want_defs != got_defs:
        pytest.fail(
            "MySQL expected (left) vs drydock (right)\n" + side_by_side(case, want_defs, got_defs),
            pytrace=False,
        )


def test_declarations_name_corpus_cases() -> None:
    """Every declared difference and gap names a case that exists (no stale entries)."""
    stale = sorted(k for k in KNOWN_GAPS if k.removesuffix(DEFINITIONS) not in _NAMES)
    for difference in DIFFERENCES:
        if difference.cases != ALL_CASES:
            stale += [f"{difference.title}: {c}" for c in difference.cases if c not in _NAMES]
    assert not stale


def test_readme_lists_every_declared_difference() -> None:
    """README's MySQL compatibility section renders DIFFERENCES row by row."""
    readme = (ROOT / "README.md").read_text()
    missing = [d.readme_row() for d in DIFFERENCES if d.readme_row() not in readme]
    assert not missing, "add these rows to README.md (MySQL compatibility):\n" + "\n".join(missing)


def test_every_topic_has_several_cases() -> None:
    topics = {case.topic for case in CASES}
    thin = sorted(t for t in topics if sum(c.topic == t for c in CASES) < 3)
    assert topics and not thin
