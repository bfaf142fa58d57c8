"""Masking of secrets in property maps and free text; the secret keys and the mask.

Used before anything reaches the audit log, the server log, an error or SHOW output. A value is a
secret when its key matches ``SECRET_KEY`` (``secret|password|passwd|token|credential|access_key|
private_key``). Credentials inside a value, whatever its key (URL userinfo
``scheme://user:pass@host``, secret query parameters, DSN ``password=`` pairs), are decided by
engine/support/url_secrets.py: property maps mask them in place.

Secrets in statement text are found by reading the statement (grammar/redact.py, on the one
lexer of grammar/lexer.py); the audit log is handed that redaction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from drydock.engine.support.url_secrets import mask_text, mask_value, secret_parts

MASK = "***"
SECRET_KEY = re.compile(
    r"secret|password|passwd|token|credential|access[._-]?key|private[._-]?key", re.IGNORECASE
)


def redact_map(values: Mapping[str, str]) -> dict[str, str]:
    """A property map to show: secret keys' values masked whole, credentials inside any other
    value (URL userinfo, secret query parameters) masked in place."""
    return {k: (MASK if SECRET_KEY.search(k) else mask_value(v)) for k, v in values.items()}


def secret_values(values: Mapping[str, str]) -> list[str]:
    """Every secret in a property map as a library might echo it: secret keys' values, and the
    credentials inside any other value (engine/support/url_secrets.py)."""
    found = {v for k, v in values.items() if SECRET_KEY.search(k) and v}
    for value in values.values():
        found.update(secret_parts(value))
    return sorted(found, key=len, reverse=True)


def redact_text(text: str, secrets: list[str]) -> str:
    """Remove known secret values from free text (e.g. an error a library raised), and the
    credentials of any URL in it."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    return mask_text(text)
