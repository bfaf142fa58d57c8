"""Masking of secrets in statement text (the audit log, the server log, errors, SHOW output).

A value is a secret when its key matches engine/security/redact.py ``SECRET_KEY``, or when it is
the password of IDENTIFIED BY / PASSWORD(...) / SET PASSWORD. A string literal holding a
credential (engine/support/url_secrets.py) is masked whole, and a last pass over the text masks
any URL credential outside a literal (a comment, an unquoted word).

The text is read structurally by the one lexer (grammar/lexer.py ``tokenize``: comments dropped,
``/*! ... */`` read as code), the value token in each secret-bearing position is found, and that
span of the original text is replaced by ``'***'``; every other byte is kept. A text that cannot
be tokenized (an unterminated string or comment) is masked from its first quote or digit onward:
fail safe.
"""

from __future__ import annotations

import re

from drydock.engine.security.redact import MASK, SECRET_KEY
from drydock.engine.support.url_secrets import has_secret, mask_text
from drydock.grammar.lexer import DEFAULT_MODE, TextMode, Token, Untokenizable, tokenize

__all__ = ["redact_sql", "secret_spans"]

_QUOTED_MASK = f"'{MASK}'"
# Without any of these words (and without a backslash escape that could spell one), no position
# in the text can hold a secret: the common case skips the lexer.
# An '@' may open a URL's userinfo, "sig"/"key"/"auth" name a secret query parameter.
_TRIGGER_WORDS = (
    "secret",
    "password",
    "passwd",
    "token",
    "credential",
    "access",
    "private",
    "identified",
    "@",
    "sig",
    "key",
    "auth",
)
_ASSIGN = frozenset({"=", ":=", "=>"})
_FAIL_SAFE_START = re.compile(r"['\"`]|(?<![\w$])[0-9]")  # a quote, or a digit not inside a name
Span = tuple[int, int]
_NO_BACKSLASH_ESCAPES = TextMode(backslash_escapes=False)


def redact_sql(sql: str, max_chars: int | None = None) -> str:
    """The statement with every secret value replaced by ``'***'`` (see the module docstring).

    With ``max_chars``, only the start of the text is read (a long INSERT is not lexed to its
    end) and at most ``max_chars`` characters are returned.
    """
    return mask_text(_redact_sql(sql, max_chars))


def _redact_sql(sql: str, max_chars: int | None) -> str:
    folded = sql.casefold()
    if "\\" not in sql and not any(word in folded for word in _TRIGGER_WORDS):
        return sql if max_chars is None else sql[:max_chars]
    spans, cut, lexed_to = _secret_spans(sql, DEFAULT_MODE, max_chars)
    if "\\" in sql:  # under NO_BACKSLASH_ESCAPES the literals may end elsewhere: mask both views
        other, other_cut, _ = _secret_spans(
            sql, _NO_BACKSLASH_ESCAPES, None if max_chars is None else lexed_to
        )
        if other_cut is None:
            spans += other
    return _apply(sql[:lexed_to], spans, cut)[:max_chars]


def _secret_spans(
    sql: str, mode: TextMode, stop_at: int | None
) -> tuple[list[Span], int | None, int]:
    """Secret spans, where fail-safe masking starts (None: tokenized fine), and how far the
    text was read."""
    try:
        tokens = tokenize(sql, mode, stop_at)
    except Untokenizable as exc:
        first = _FAIL_SAFE_START.search(sql, 0, exc.position + 1)
        cut = min(exc.position, first.start() if first else len(sql))
        return secret_spans(exc.tokens), cut, len(sql)
    last = tokens[-1].end if tokens else 0
    lexed_to = len(sql) if stop_at is None else min(len(sql), max(stop_at, last))
    return secret_spans(tokens), None, lexed_to


def _apply(sql: str, spans: list[Span], cut: int | None) -> str:
    out: list[str] = []
    pos = 0
    limit = len(sql) if cut is None else min(cut, len(sql))
    for start, end in sorted(spans):
        start, end = max(start, pos), min(end, limit)
        if start >= end:
            continue
        out += [sql[pos:start], _QUOTED_MASK]
        pos = end
    out.append(sql[pos:limit])
    if cut is not None:
        out.append(_QUOTED_MASK)
    return "".join(out)


def secret_spans(tokens: list[Token]) -> list[Span]:
    """Character spans (start, end) of the secret values in a token list."""
    spans: list[Span] = _url_secret_literals(tokens)
    for i in range(len(tokens)):
        start = _value_start(tokens, i)
        if start is None or start >= len(tokens):
            continue
        span, after = _value_span(tokens, start)
        if span is not None:
            spans.append(span)
            spans += _replace_clause(tokens, after)
    return spans


def _url_secret_literals(tokens: list[Token]) -> list[Span]:
    """String literals (adjacent ones read as one, as MySQL does) whose value holds a credential,
    whatever key they are assigned to: ``'s3.endpoint' = 'http://AK:SK@host'``."""
    spans: list[Span] = []
    i = 0
    while i < len(tokens):
        if tokens[i].kind != "string":
            i += 1
            continue
        end = _strings_end(tokens, i)
        if has_secret("".join(t.value for t in tokens[i:end])):
            spans.append((tokens[i].start, tokens[end - 1].end))
        i = end
    return spans


def _replace_clause(tokens: list[Token], i: int) -> list[Span]:
    """``... = 'new' REPLACE 'current'``: the current password is a secret too."""
    if _at(tokens, i).upper == "REPLACE" and i + 1 < len(tokens):
        span, _ = _value_span(tokens, i + 1)
        return [] if span is None else [span]
    return []


# -- where a secret value starts ----------------------------------------------------------------
def _value_start(tokens: list[Token], i: int) -> int | None:
    tok = tokens[i]
    if tok.kind == "word":
        if tok.upper == "IDENTIFIED":
            return _after_identified(tokens, i + 1)
        if tok.upper == "SET" and _at(tokens, i + 1).upper == "PASSWORD":
            return _after_first_assign(tokens, i + 2)
        if SECRET_KEY.search(tok.text):
            nxt = _at(tokens, i + 1)
            if nxt.text == "(" and tok.upper in ("PASSWORD", "OLD_PASSWORD"):
                return i + 2
            if nxt.is_literal:  # PASSWORD 'x' (CREATE SERVER OPTIONS, IDENTIFIED BY PASSWORD)
                return i + 1
    if tok.text in _ASSIGN and SECRET_KEY.search(_key_before(tokens, i)):
        return i + 1
    return None


def _after_identified(tokens: list[Token], i: int) -> int | None:
    """IDENTIFIED [WITH plugin] BY|AS [PASSWORD] <value>; not IDENTIFIED BY RANDOM PASSWORD."""
    if _at(tokens, i).upper == "WITH":
        i += 2
    if _at(tokens, i).upper not in ("BY", "AS"):
        return None
    i += 1
    if _at(tokens, i).upper == "RANDOM":
        return None
    if _at(tokens, i).upper == "PASSWORD" and _at(tokens, i + 1).is_literal:
        i += 1
    return i


def _after_first_assign(tokens: list[Token], i: int) -> int | None:
    """SET PASSWORD [FOR user] = <value>."""
    while i < len(tokens) and tokens[i].text != ";":
        if tokens[i].text in _ASSIGN:
            return i + 1
        i += 1
    return None


def _key_before(tokens: list[Token], i: int) -> str:
    """The name left of an ``=`` / ``=>``: dotted words, backticked names, adjacent strings."""
    parts: list[str] = []
    j = i - 1
    while j >= 0 and tokens[j].kind in ("word", "quoted", "string"):
        parts.append(tokens[j].value)
        if tokens[j].kind == "string" and j > 0 and tokens[j - 1].kind == "string":
            j -= 1
        elif j > 1 and tokens[j - 1].text in (".", "@", "@@"):
            parts.append(tokens[j - 1].text)
            j -= 2
        else:
            break
    return "".join(reversed(parts))


# -- where it ends ------------------------------------------------------------------------------
def _value_span(tokens: list[Token], i: int) -> tuple[Span | None, int]:
    """The character span of the value starting at token ``i``, and the index after it."""
    first, end = i, _value_end(tokens, i)
    if tokens[i].kind == "word" and _at(tokens, i + 1).text == "(":
        first, end = i + 2, _matching_paren(tokens, i + 1)  # f(...): mask the arguments
        end = max(end, first)
        after = end + 1
    else:
        after = end
    if end <= first:
        return None, after
    return (tokens[first].start, tokens[end - 1].end), after


def _value_end(tokens: list[Token], i: int) -> int:
    """Exclusive end index of the value starting at ``i`` (``i`` itself when there is none)."""
    tok = tokens[i]
    if tok.text in ("-", "+") and _at(tokens, i + 1).kind == "number":
        return i + 2
    if tok.kind == "word" and tok.text.startswith("_") and _at(tokens, i + 1).kind == "string":
        return _strings_end(tokens, i + 1)  # _utf8mb4'x'
    if tok.kind == "string":
        return _strings_end(tokens, i)  # 'a' 'b' is one literal in MySQL
    if tok.text == "(":
        return min(_matching_paren(tokens, i) + 1, len(tokens))
    if tok.kind == "op":
        return i  # ``key = ,``: nothing there
    return i + 1


def _strings_end(tokens: list[Token], i: int) -> int:
    while i < len(tokens) and tokens[i].kind == "string":
        i += 1
    return i


def _matching_paren(tokens: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return j
    return len(tokens)  # unbalanced: to the end


_NOTHING = Token("end", "", -1, -1)


def _at(tokens: list[Token], i: int) -> Token:
    return tokens[i] if 0 <= i < len(tokens) else _NOTHING
