"""The error table is the single source of codes: well-formed, and the reserved job codes match."""

from __future__ import annotations

import re
from pathlib import Path

from drydock.engine.errors import Errors, all_specs, sqlstate_of

ROOT = Path(__file__).resolve().parents[2]


def test_every_entry_has_a_valid_sqlstate_and_code() -> None:
    for name, spec in all_specs().items():
        assert re.fullmatch(r"[0-9A-Z]{5}", spec.sqlstate), name
        assert 1000 <= spec.code <= 65535, name
        assert "\x1b" not in spec.template, name


def test_lance_index_job_codes_match_the_reference() -> None:
    assert Errors.LANCE_INDEX_INVALID.code == 5100
    assert Errors.LANCE_INDEX_OPERATION_NOT_SUPPORTED.code == 5101
    assert Errors.LANCE_INDEX_MUTATION_DISABLED.code == 5102
    assert Errors.LANCE_INDEX_JOB_NOT_FOUND.code == 5103
    assert Errors.LANCE_INDEX_JOB_NOT_UNKNOWN.code == 5104
    assert Errors.LANCE_INDEX_JOB_RESOLUTION_INCOMPLETE.code == 5105
    assert (
        Errors.LANCE_INDEX_JOB_NOT_FOUND.error(job_id=7).message == "Lance index job not found: 7"
    )


def test_no_product_code_raises_mysqlerror_with_an_ad_hoc_code() -> None:
    """Codes live in engine/errors.py; product code must not invent numbers elsewhere."""
    offenders = []
    for path in list((ROOT / "engine").rglob("*.py")) + list((ROOT / "grammar").rglob("*.py")):
        text = path.read_text()
        if re.search(r"MysqlError\(", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_a_code_has_one_sqlstate_and_the_wire_takes_it_from_the_table() -> None:
    states: dict[int, set[str]] = {}
    for spec in all_specs().values():
        states.setdefault(spec.code, set()).add(spec.sqlstate)
    assert {code: s for code, s in states.items() if len(s) > 1} == {}
    assert sqlstate_of(Errors.UNKNOWN_TABLE.code) == "42S02"
    assert sqlstate_of(59999) == "HY000"  # a code outside the table (mysql-mimic's own) is generic


def test_server_code_writes_no_sqlstate_or_error_code_of_its_own() -> None:
    """server/ answers errors through engine/errors.py: no SQLSTATE literals, no ad-hoc MysqlError
    codes."""
    offenders = []
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text()
        if re.search(r"[\"'](?:[0-9]{2}[0-9A-Z]{3}|HY000)[\"']", text) or re.search(
            r"MysqlError\(", text
        ):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
