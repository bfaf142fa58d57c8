"""Privileges have one spelling: the Privilege enum. Stored grants (text) compare equal to it, and
product code never spells a privilege as a string of its own (a typo would fail silently)."""

from __future__ import annotations

import re
from pathlib import Path

from drydock.engine.security.privileges import PRIVILEGES, VERB, Privilege, normalize_privileges

ROOT = Path(__file__).resolve().parents[2]


def test_every_privilege_is_stored_as_its_value_and_named_by_its_verb() -> None:
    assert tuple(p.value for p in Privilege) == PRIVILEGES
    for privilege in Privilege:
        assert privilege == privilege.value and hash(privilege) == hash(
            privilege.value
        )  # grants read as text
        assert privilege.verb == VERB[privilege.value]
    assert Privilege.SHOW_VIEW.verb == "SHOW VIEW"
    assert normalize_privileges(["admin", "Select", "INSERT"]) == (
        "ADMIN_PRIV",
        "SELECT_PRIV",
        "LOAD_PRIV",
    )


def test_product_code_names_privileges_only_through_the_enum() -> None:
    offenders = []
    for path in [*(ROOT / "engine").rglob("*.py"), *(ROOT / "server").rglob("*.py")]:
        if path.name == "privileges.py":
            continue  # the one table of spellings
        text = path.read_text()
        if re.search(
            r"[\"'](?:SELECT|LOAD|ALTER|CREATE|DROP|SHOW_VIEW|ADMIN|GRANT|USAGE)_PRIV[\"']", text
        ) or re.search(
            r"(?:has|has_global|require_global|require_db|require_table)\(ctx, [\"']", text
        ):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
