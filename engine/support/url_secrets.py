"""Credentials inside values: URL userinfo, secret query parameters, ``key=value`` DSN pairs.

The one decision of what part of a *value* is a credential, whatever its property key is called:
``s3.endpoint = 'http://AK:SK@host'``, a warehouse ``s3://AK:SK@bucket/wh``, a store URL
``postgresql://user:pw@host/db``, a presigned URL ``...?X-Amz-Signature=...``, a libpq DSN
``host=h password=pw``. engine/security/redact.py (property maps, library errors),
grammar/redact.py (statement text), engine/errors.py (every error and note text), the server
log's formatter and the SHOW statements that print configured values all ask here. The stored
value is never changed: only what is shown.

Two readings:

- :func:`mask_value` reads a whole property value: a URL runs from its scheme to the next URL (or
  the end), so a password with spaces or quotes in it is still inside; a scheme-less
  ``user:pass@host`` and DSN pairs (``password=...``) count too.
- :func:`mask_text` reads free text (a message, a log line): a URL ends at whitespace or a quote.

What is masked: the whole userinfo (``scheme://***@host``: the user name of an access key is half
the credential), and the value of any query or DSN parameter whose name says secret
(``password``, ``token``, ``X-Amz-Signature``, ``X-Amz-Credential``, ``sig``, ``...key``,
``auth...``). Userinfo ends at the last ``@`` of the authority. When the authority holds a ``:``
(a password) but no ``@`` before the first ``/``, the password itself has a ``/`` in it (AWS secret
keys do): the userinfo runs to the last ``@`` of the URL. Fail safe: a path with an ``@`` behind a
``host:port`` is masked too (only the display loses the host).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"
# A parameter name that says secret (query string, DSN keyword, connection-string key).
SECRET_PARAM = re.compile(
    r"secret|passw|pwd|token|credential|signature|^sig$|key|auth|private", re.IGNORECASE
)
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://")
_TEXT_WORD = re.compile(r"[^\s'\"`<>]+")  # in free text a URL ends at whitespace or a quote
# name=value after a separator; a quoted value may hold spaces (libpq: password='a b').
_PARAM_VALUE = r"([A-Za-z_][\w.\-]*)\s*=\s*('(?:[^'\\]|\\.)*'?|\"[^\"]*\"?|[^&;#\s]*)"
_DSN_PARAM = re.compile(
    r"(?:^|(?<=[?&;\s]))" + _PARAM_VALUE
)  # a whole value: DSN pairs and queries
_QUERY_PARAM = re.compile(r"(?<=[?&;])" + _PARAM_VALUE)  # inside a URL's query string
_SCHEMELESS = re.compile(r"\s*(?://)?([^\s/@:?#]+:\S*)@[^\s@/]")  # user:pass@host without a scheme
Span = tuple[int, int]


def mask_value(value: str) -> str:
    """``value`` (a property or config value, whole) with every credential in it replaced."""
    return _mask(value, value_spans(value))


def mask_text(text: str) -> str:
    """Free text (a message, a log line) with the credentials of the URLs in it replaced."""
    return _mask(text, text_spans(text))


def has_secret(value: str) -> bool:
    """Whether :func:`mask_value` would change ``value``."""
    return bool(value_spans(value))


def secret_parts(value: str) -> list[str]:
    """The credential substrings of ``value`` as written and percent-decoded: what a library may
    echo back in its own message (e.g. the endpoint it failed to reach)."""
    parts: set[str] = set()
    for start, end in value_spans(value):
        raw = value[start:end]
        parts |= {raw, unquote(raw)}
        if ":" in raw:  # the password alone, as a library may print user and password apart
            password = raw.split(":", 1)[1]
            parts |= {password, unquote(password)}
    return sorted((p for p in parts if len(p) >= 3), key=len, reverse=True)


def value_spans(value: str) -> list[Span]:
    if "@" not in value and "=" not in value:
        return []  # the common case: no userinfo, no parameter
    spans = _urls_spans(value, 0, len(value))
    schemeless = None if spans or "://" in value else _SCHEMELESS.match(value)
    if schemeless:
        spans.append(schemeless.span(1))
    spans += _param_spans(_DSN_PARAM, value, 0, len(value))
    return _merged(spans)


def text_spans(text: str) -> list[Span]:
    if "://" not in text:
        return []
    spans: list[Span] = []
    for word in _TEXT_WORD.finditer(text):
        if "://" in word.group():
            spans += _urls_spans(text, word.start(), word.end())
    return _merged(spans)


def _urls_spans(text: str, start: int, end: int) -> list[Span]:
    """Credential spans of the URLs in ``text[start:end]``; each runs to the next one's scheme."""
    starts = [m.start() for m in _SCHEME.finditer(text, start, end)]
    spans: list[Span] = []
    for i, begin in enumerate(starts):
        spans += _url_spans(text, begin, starts[i + 1] if i + 1 < len(starts) else end)
    return spans


def _url_spans(text: str, start: int, end: int) -> list[Span]:
    """Credential spans of the URL ``text[start:end]`` (``start`` at its scheme)."""
    begin = text.index("://", start) + 3
    rest = text[begin:end]
    slash = rest.find("/")
    head = rest if slash < 0 else rest[:slash]
    spans: list[Span] = []
    if "@" in head:
        spans.append((begin, begin + head.rindex("@")))
    elif ":" in head and not head.startswith("[") and "@" in rest:
        spans.append((begin, begin + rest.rindex("@")))  # a password with a '/' in it
    query = rest.find("?")
    if query >= 0:
        spans += _param_spans(_QUERY_PARAM, text, begin + query, end)
    return spans


def _param_spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[Span]:
    """The values of the secret-named ``name=value`` parameters ``pattern`` finds in the range."""
    return [
        m.span(2) for m in pattern.finditer(text, start, end) if SECRET_PARAM.search(m.group(1))
    ]


def _merged(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _mask(text: str, spans: list[Span]) -> str:
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out += [text[pos:start], MASK]
        pos = end
    out.append(text[pos:])
    return "".join(out)
