"""Masking of secrets in statement text, property maps and messages.

Used before anything reaches the audit log, the server log, an error or SHOW output. A value is a
secret when its key matches ``secret|password|passwd|token|credential|access_key|private_key``, or
when it is the password of IDENTIFIED BY / PASSWORD(...) / SET PASSWORD.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MASK = "***"
SECRET_KEY = re.compile(r"secret|password|passwd|token|credential|access[._-]?key|private[._-]?key", re.I)

_STRING = r"(?:'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")"
_PATTERNS = [
    # IDENTIFIED BY [PASSWORD] 'x'
    re.compile(rf"(IDENTIFIED\s+BY\s+(?:PASSWORD\s+)?){_STRING}", re.I | re.S),
    # PASSWORD('x')
    re.compile(rf"(PASSWORD\s*\(\s*){_STRING}", re.I | re.S),
    # SET PASSWORD [FOR u] = 'x'
    re.compile(rf"(SET\s+PASSWORD\b[^=]*=\s*){_STRING}", re.I | re.S),
]
# "s3.secret_key" = "x" in property maps (CREATE/ALTER CATALOG, CALL): masked when the key is secret
_PROPERTY = re.compile(rf"({_STRING})(\s*=>?\s*){_STRING}", re.S)


def redact_sql(sql: str) -> str:
    out = sql
    for pattern in _PATTERNS:
        out = pattern.sub(lambda m: m.group(1) + f"'{MASK}'", out)
    out = _PROPERTY.sub(lambda m: m.group(0) if not SECRET_KEY.search(m.group(1))
                   else f"{m.group(1)}{m.group(2)}'{MASK}'", out)
    return out


def redact_map(values: Mapping[str, str]) -> dict[str, str]:
    return {k: (MASK if SECRET_KEY.search(k) else v) for k, v in values.items()}


def redact_text(text: str, secrets: list[str]) -> str:
    """Remove known secret values from free text (e.g. an error a library raised)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text
