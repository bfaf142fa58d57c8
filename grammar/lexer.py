"""The statement text every parser sees: one lexical pass before routing.

MySQL's own lexer decides what a statement is after comments are gone and executable comments
(``/*! … */``, ``/*!80000 … */``) have been opened; drydock does the same, once, so that the
grammar, the passthrough parser and the audit all see one text. ``statement_text``:

- drops leading and trailing whitespace, comments (``/* */``, ``-- ``, ``#``) and semicolons —
  noise before the first keyword can never move a statement to another handler;
- opens executable comments (their body is SQL, as MySQL runs it);
- leaves everything else byte for byte: string literals, quoted identifiers and the comments
  inside the statement are never altered.

It never evaluates anything and runs in time linear in the text.
"""

from __future__ import annotations

import re

_QUOTES = "'\"`"
# Characters that start neither noise (whitespace, ';', comments) nor a quoted literal: a run of
# them is passed in one step instead of one loop turn per character.
_PLAIN_RUN = re.compile(r"[A-Za-z0-9_.,()=]+")
# Inside a quoted literal: the characters that neither close it nor escape (backticks have no
# escapes), passed in one step.
_QUOTED_BODY = {"'": re.compile(r"[^'\\]*"), '"': re.compile(r'[^"\\]*'), "`": re.compile(r"[^`]*")}
# split_statements: a run that holds nothing it acts on (no quote, comment start or ';'), and a
# run of semicolons (one split: the empty statements between them are noise), each one step.
_SPLIT_PLAIN = re.compile(r"[^'\"`#;/-]+")
_SEMICOLONS = re.compile(r";+")
_NOISE_START = re.compile(r"[;#/-]")  # what a comment or a statement separator starts with
_ANY_QUOTE = re.compile(r"['\"`]")


def _skip_quoted(sql: str, i: int) -> int:
    """Index just past the quoted literal/identifier that starts at ``i`` (or the end)."""
    quote, n = sql[i], len(sql)
    body = _QUOTED_BODY[quote]
    i += 1
    while i < n:
        i = body.match(sql, i).end()  # type: ignore[union-attr]  # [^…]* always matches
        if i >= n:
            break
        ch = sql[i]
        if ch == "\\" and quote != "`":
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:  # doubled quote
                i += 2
                continue
            return i + 1
        i += 1
    return n


def _line_comment_at(sql: str, i: int) -> bool:
    if sql[i] == "#":
        return True
    return sql.startswith("--", i) and (i + 2 == len(sql) or sql[i + 2] in " \t\r\n")


def _open_executable_comments(sql: str) -> str:
    """``/*!NNNNN body */`` → `` body `` outside quotes; other comments stay."""
    if "/*!" not in sql:
        return sql
    out: list[str] = []
    i, n, start, depth_open = 0, len(sql), 0, 0
    while i < n:
        ch = sql[i]
        if ch in _QUOTES:
            i = _skip_quoted(sql, i)
        elif _line_comment_at(sql, i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*!", i):
            out.append(sql[start:i])
            j = i + 3
            while j < n and j < i + 9 and sql[j].isdigit():  # optional version number
                j += 1
            out.append(" ")
            start = i = j
            depth_open += 1
        elif sql.startswith("*/", i) and depth_open:
            out.append(sql[start:i])
            out.append(" ")
            start = i = i + 2
            depth_open -= 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            i += 1
    out.append(sql[start:])
    return "".join(out)


def _skip_noise(sql: str, i: int) -> tuple[int, bool]:
    """(index after the whitespace, semicolons and comments from ``i``, whether a block comment
    there is unterminated)."""
    n = len(sql)
    while i < n:
        ch = sql[i]
        if ch.isspace() or ch == ";":
            i += 1
        elif _line_comment_at(sql, i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i) and not sql.startswith("/*+", i):
            end = sql.find("*/", i + 2)
            if end < 0:
                return n, True
            i = end + 2
        else:
            break
    return i, False


def _trailing_end(sql: str) -> int:
    """End of the statement proper: trailing whitespace, semicolons and comments cut off (an
    unterminated comment is kept: it is the parser's error to report)."""
    if not _NOISE_START.search(sql) and (not sql[-1:].isspace() or not _ANY_QUOTE.search(sql)):
        # no comment or ';' anywhere (and no quote left open over trailing spaces): only the
        # trailing whitespace to cut
        return len(sql.rstrip())
    return _scanned_trailing_end(sql)


def _scanned_trailing_end(sql: str) -> int:
    i, end, n = 0, 0, len(sql)
    while True:
        i, unterminated = _skip_noise(sql, i)
        if unterminated:
            return n
        if i >= n:
            return end
        if sql[i] in _QUOTES:
            i = end = _skip_quoted(sql, i)
        else:
            run = _PLAIN_RUN.match(sql, i)
            i = end = run.end() if run else i + 1


def statement_text(sql: str) -> str:
    """The text of the statement in ``sql`` (see module docstring)."""
    sql = _open_executable_comments(sql)
    start, _ = _skip_noise(sql, 0)
    if start >= len(sql):
        return ""
    return sql[start:start + _trailing_end(sql[start:])]


def split_statements(sql: str) -> list[str]:
    """The statements of a multi-statement COM_QUERY (CLIENT_MULTI_STATEMENTS), each with its own
    text, split at the semicolons that are outside string literals, quoted identifiers and
    comments — never at a ``;`` inside them. Parts that are only noise (``a;;b``, a trailing
    ``;`` or comment) are not statements. Text without a statement stays one (empty) part, so it
    is answered as an empty query, as before."""
    parts: list[str] = []
    i, start, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in _QUOTES:
            i = _skip_quoted(sql, i)
        elif _line_comment_at(sql, i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch == ";":
            parts.append(sql[start:i + 1])
            start = i = _SEMICOLONS.match(sql, i).end()  # type: ignore[union-attr]  # at a ';'
        else:
            run = _SPLIT_PLAIN.match(sql, i)
            i = run.end() if run else i + 1
    parts.append(sql[start:])
    statements = [p for p in parts if statement_text(p)]
    return statements or [sql]
