"""Names users choose for new objects (indexes, tags, branches): MySQL identifier rules, one check.

https://dev.mysql.com/doc/refman/8.0/en/identifiers.html — at most 64 characters, no NUL; drydock
also refuses what would be unsafe as a file or directory name (these names end up in paths):
``/``, ``\\``, control characters, ``.`` and ``..``, and a trailing space (MySQL refuses it too).
"""

from __future__ import annotations

MAX_LENGTH = 64
_SHOWN_LENGTH = 64


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as an object name, in words, or None when it is fine."""
    if not name:
        return "must not be empty"
    if len(name) > MAX_LENGTH:
        return f"is too long (at most {MAX_LENGTH} characters)"
    if name in (".", ".."):
        return "must not be '.' or '..'"
    if "/" in name or "\\" in name:
        return "must not contain '/' or '\\'"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "must not contain NUL or other control characters"
    if name.endswith(" "):
        return "must not end with a space"
    return None


def shown(name: str) -> str:
    """``name`` quoted for an error message: control characters escaped, long names cut."""
    text = "".join(
        c if 0x20 <= ord(c) != 0x7F else f"\\x{ord(c):02x}" for c in name[:_SHOWN_LENGTH]
    )
    return f"'{text}…'" if len(name) > _SHOWN_LENGTH else f"'{text}'"
