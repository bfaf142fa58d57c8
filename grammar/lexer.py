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

The session's sql_mode changes how text is read
(https://dev.mysql.com/doc/refman/8.0/en/sql-mode.html):
under ``NO_BACKSLASH_ESCAPES`` a backslash in a string is an ordinary character, under
``ANSI_QUOTES`` ``"…"`` quotes an identifier, not a string. This module is the one place that knows
those rules (:class:`TextMode`). Text arriving from a client is read under its session's mode once,
here — split into statements (:func:`split_statements`) and respelt as the same tokens in the
default mode (:func:`canonical`) — so that every later reader of the text (the grammars, the
shape caches, placeholders, redaction, the audit) reads the default spelling only and can never
disagree with the client about where a literal ends. A client that escapes by the mode (doubles
quotes, keeps backslashes) would otherwise see ``x\' UNION …`` end its literal early: injection.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple


class TextMode(NamedTuple):
    """The sql_mode flags that change how statement text is read."""

    backslash_escapes: bool = True  # off under NO_BACKSLASH_ESCAPES
    ansi_quotes: bool = False  # ANSI_QUOTES: "…" is an identifier

    def escapes(self, quote: str) -> bool:
        """Whether a backslash escapes the next character inside ``quote``-quoted text (never in
        identifiers: backticks, and double quotes under ANSI_QUOTES)."""
        return self.backslash_escapes and (quote == "'" or (quote == '"' and not self.ansi_quotes))


DEFAULT_MODE = TextMode()


@lru_cache(maxsize=256)
def text_mode(sql_mode: str) -> TextMode:
    """The :class:`TextMode` of a stored sql_mode value (engine/sql/session_variables.py keeps it
    normalized: upper case, combination modes expanded)."""
    names = set(sql_mode.upper().split(","))
    return TextMode(
        backslash_escapes="NO_BACKSLASH_ESCAPES" not in names, ansi_quotes="ANSI_QUOTES" in names
    )


_QUOTES = QUOTES = "'\"`"  # what starts a string literal or a quoted identifier
COMMENT_STARTS = "#-/"  # the first characters of comments (comment_end decides)
# Comments and quoted text as regular-expression sources, for the scanners that compose one
# pattern of their own for speed (grammar/shapes.py, grammar/statement_shapes.py); compiled with
# re.DOTALL, each may run unterminated to the end of the text. Default spelling (see canonical).
_DASH_FOLLOWER = r"[\x00-\x20\x7f]"
LINE_COMMENT = rf"(?:--(?={_DASH_FOLLOWER}|\Z)|\#)[^\n]*"
BLOCK_COMMENT = r"/\*.*?(?:\*/|\Z)"  # executable comments and hints included
QUOTED = {"'": r"'(?:[^'\\]|\\.|'')*'?", '"': r'"(?:[^"\\]|\\.|"")*"?', "`": r"`(?:[^`]|``)*`?"}
_DASHES_END = re.compile(_DASH_FOLLOWER)
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


# The same without backslashes, for quotes in which a backslash is an ordinary character.
_PLAIN_QUOTED_BODY = {
    "'": re.compile(r"[^']*"),
    '"': re.compile(r'[^"]*'),
    "`": re.compile(r"[^`]*"),
}


def _skip_quoted(sql: str, i: int, mode: TextMode = DEFAULT_MODE) -> int:
    """Index just past the quoted literal/identifier that starts at ``i`` (or the end)."""
    return _scan_quoted(sql, i, mode)[0]


def _scan_quoted(sql: str, i: int, mode: TextMode) -> tuple[int, bool]:
    """(index just past the quoted literal/identifier that starts at ``i`` or the end of the
    text, whether its closing quote was found)."""
    quote, n = sql[i], len(sql)
    escapes = mode.escapes(quote)
    body = (_QUOTED_BODY if escapes else _PLAIN_QUOTED_BODY)[quote]
    i += 1
    while i < n:
        i = body.match(sql, i).end()  # type: ignore[union-attr]  # [^…]* always matches
        if i >= n:
            break
        ch = sql[i]
        if ch == "\\" and escapes:
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:  # doubled quote
                i += 2
                continue
            return i + 1, True
        i += 1
    return n, False


def quoted_end(sql: str, i: int, mode: TextMode = DEFAULT_MODE) -> tuple[int, bool]:
    """(index just past the string literal or quoted identifier that starts at ``i``, or the end
    of the text; whether its closing quote was found), as ``mode`` reads quotes."""
    return _scan_quoted(sql, i, mode)


def comment_end(sql: str, i: int) -> int | None:
    """Index just past the comment that starts at ``i`` (``#``, ``-- ``, ``/* */``; unterminated:
    the end of the text), or None when none starts there. An executable comment (``/*!``) is
    not one: its body is SQL."""
    if _line_comment_at(sql, i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", i) and not sql.startswith("/*!", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end < 0 else end + 2
    return None


def _line_comment_at(sql: str, i: int) -> bool:
    """``#``, or ``--`` followed by the end, a space or a control character (MariaDB's rule:
    ``--x`` and ``1--1`` are minus signs)."""
    if sql[i] == "#":
        return True
    return sql.startswith("--", i) and (i + 2 == len(sql) or bool(_DASHES_END.match(sql, i + 2)))


def _past_quoted_or_comment(sql: str, i: int, mode: TextMode) -> int:
    """Index just past the quoted text or the comment (executable ones included, whole) that
    starts at ``i``; ``i`` itself when neither starts there."""
    if sql[i] in _QUOTES:
        return _skip_quoted(sql, i, mode)
    if _line_comment_at(sql, i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end < 0 else end + 2
    return i


def after_comments(sql: str, i: int = 0) -> int:
    """Index of the first character from ``i`` that is neither white space nor in a comment (an
    executable comment is not one: its body is SQL)."""
    n = len(sql)
    while i < n:
        if sql[i].isspace():
            i += 1
            continue
        end = comment_end(sql, i)
        if end is None:
            break
        i = end
    return i


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
    return sql[start : start + _trailing_end(sql[start:])]


def split_statements(sql: str, mode: TextMode = DEFAULT_MODE) -> list[str]:
    """The statements of a multi-statement COM_QUERY (CLIENT_MULTI_STATEMENTS), each with its own
    text, split at the semicolons that are outside string literals, quoted identifiers and
    comments (as ``mode`` reads them) — never at a ``;`` inside them. Parts that are only noise
    (``a;;b``, a trailing ``;`` or comment) are not statements. Text without a statement stays one
    (empty) part, so it is answered as an empty query, as before."""
    return [sql[start:end] for start, end in statement_spans(sql, mode)]


def statement_spans(sql: str, mode: TextMode = DEFAULT_MODE) -> list[tuple[int, int]]:
    """:func:`split_statements` as (start, end) offsets into ``sql``: a statement that changes the
    sql_mode changes how the text after it reads, so the caller splits that rest again."""
    parts: list[tuple[int, int]] = []
    i, start, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        past = _past_quoted_or_comment(sql, i, mode)
        if past != i:
            i = past
        elif ch == ";":
            parts.append((start, i + 1))
            start = i = _SEMICOLONS.match(sql, i).end()  # type: ignore[union-attr]  # at a ';'
        else:
            run = _SPLIT_PLAIN.match(sql, i)
            i = run.end() if run else i + 1
    parts.append((start, n))
    # a part is noise when it holds only whitespace, comments and ';' — the same under every mode
    # (no quote starts noise), so the default-mode statement_text decides it
    statements = [(a, b) for a, b in parts if has_statement(sql[a:b], mode)]
    return statements or [(0, n)]


def has_statement(part: str, mode: TextMode = DEFAULT_MODE) -> bool:
    """Whether ``part`` holds more than whitespace, comments and semicolons."""
    return bool(statement_text(canonical(part, mode)))


# -- placeholders ---------------------------------------------------------------------------------
_PLACEHOLDER_PLAIN = re.compile(
    r"[^'\"`#/?-]+"
)  # nothing that starts a literal, a comment or a '?'


def placeholder_positions(sql: str, mode: TextMode = DEFAULT_MODE) -> list[int]:
    """Offsets of the ``?`` placeholders of a prepared statement's text: those outside string
    literals, quoted identifiers and comments (as ``mode`` reads them; server/prepared.py binds
    values there)."""
    positions: list[int] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        past = _past_quoted_or_comment(sql, i, mode)
        if past != i:
            i = past
        elif ch == "?":
            positions.append(i)
            i += 1
        else:
            run = _PLACEHOLDER_PLAIN.match(sql, i)
            i = run.end() if run else i + 1
    return positions


# -- text of a session's mode → the same tokens in the default mode -------------------------------
_CANONICAL_PLAIN = re.compile(r"[^'\"`#/-]+")  # nothing to respell, nothing that starts a comment


def canonical(sql: str, mode: TextMode) -> str:
    """``sql`` as written under ``mode`` → the same tokens spelt for the default mode. Under
    NO_BACKSLASH_ESCAPES each backslash inside a quoted string is doubled; under ANSI_QUOTES a
    double-quoted identifier is respelt with backticks (its doubled ``""`` undone, its backticks
    doubled). Comments are kept as written, except executable comments (``/*! … */``), whose body
    is SQL and is respelt. An unterminated literal is respelt too, and stays unterminated. The
    default mode returns ``sql`` itself."""
    if mode == DEFAULT_MODE:
        return sql
    out: list[str] = []
    i, start, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end, closed = _scan_quoted(sql, i, mode)
            if ch == '"' and mode.ansi_quotes:
                name = sql[i + 1 : end - 1 if closed else end].replace('""', '"')
                out += [sql[start:i], "`", name.replace("`", "``"), "`" if closed else ""]
                start = end
            elif not mode.backslash_escapes and "\\" in sql[i:end]:
                out += [sql[start:i], sql[i:end].replace("\\", "\\\\")]
                start = end
            i = end
        elif ch == "`":
            i = _skip_quoted(sql, i, mode)
        elif _line_comment_at(sql, i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i) and not sql.startswith("/*!", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            run = _CANONICAL_PLAIN.match(sql, i)
            i = run.end() if run else i + 1
    out.append(sql[start:])
    return "".join(out)


def may_quote_names(sql: str) -> bool:
    """Whether ``sql`` may hold a quoted identifier: a backtick, or a double quote (an identifier
    under ANSI_QUOTES, and where sqlglot's MySQL dialect reads one so). False proves there is
    none; True is only a maybe."""
    return "`" in sql or '"' in sql


# -- tokens ---------------------------------------------------------------------------------------
# What redaction reads (grammar/redact.py): strings (with ``N'…'``, ``X'…'``, ``B'…'`` prefixes),
# quoted names, numbers, words, operators, with character offsets; comments dropped, and the body
# of an executable comment ``/*!50700 … */`` lexed as the code it is.
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[\w$]+")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[bB][01]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_EXEC_COMMENT = re.compile(r"/\*!\d{0,6}")
_OPS = ("<=>", "->>", "=>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "->", "@@")
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


class Token(NamedTuple):
    kind: str  # "string" | "number" | "quoted" (a quoted identifier) | "word" | "op" | "end"
    text: str  # exactly as written
    start: int
    end: int  # exclusive
    escapes: bool = True  # whether a backslash in this string escapes (the mode's)

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    @property
    def is_literal(self) -> bool:
        return self.kind in ("string", "number")

    @property
    def value(self) -> str:
        """What the token names: a string or quoted name without quotes and escapes."""
        if self.kind not in ("string", "quoted"):
            return self.text
        return unquote(self.text, self.kind == "string" and self.escapes)


def unquote(text: str, escapes: bool = True) -> str:
    """A string literal (its ``N``/``X``/``B`` prefix allowed) or quoted name, closed, as written →
    its value: quotes stripped, doubled quotes undone and, with ``escapes``, backslash escapes.
    ``\\%`` and ``\\_`` keep their backslash, as in MySQL, so that LIKE sees an escaped wildcard."""
    quote = text[-1]
    body = text[text.index(quote) + 1 : -1].replace(quote * 2, quote)
    return re.sub(r"\\(.)", _unescape, body, flags=re.DOTALL) if escapes else body


def _unescape(m: re.Match[str]) -> str:
    ch = m.group(1)
    if ch in "%_":  # kept with their backslash: LIKE reads them as the literal characters
        return m.group(0)
    return _ESCAPES.get(ch, ch)


class Untokenizable(Exception):
    """An unterminated string, name or comment at ``position``; ``tokens`` are those before it."""

    def __init__(self, position: int, tokens: list[Token]):
        super().__init__(f"cannot tokenize at {position}")
        self.position = position
        self.tokens = tokens


def tokenize(sql: str, mode: TextMode = DEFAULT_MODE, stop_at: int | None = None) -> list[Token]:
    """The tokens of ``sql`` as ``mode`` reads it; with ``stop_at``, those that start before it."""
    tokens: list[Token] = []
    pos, in_exec_comment = 0, False
    end = len(sql) if stop_at is None else min(stop_at, len(sql))
    while pos < end:
        skipped = _skip(sql, pos, in_exec_comment)
        if skipped is not None:
            if skipped[0] > len(sql):
                raise Untokenizable(pos, tokens)  # an unterminated /* comment
            pos, in_exec_comment = skipped
            continue
        token = _token_at(sql, pos, mode, tokens)
        if token is None:
            raise Untokenizable(pos, tokens)
        tokens.append(token)
        pos = token.end
    return tokens


def _skip(sql: str, pos: int, in_exec_comment: bool) -> tuple[int, bool] | None:
    """Where lexing resumes after white space or a comment at ``pos``; None: a token starts."""
    space = _SPACE.match(sql, pos)
    if space:
        return space.end(), in_exec_comment
    if sql.startswith("*/", pos) and in_exec_comment:
        return pos + 2, False
    exec_comment = _EXEC_COMMENT.match(sql, pos)
    if exec_comment:
        return exec_comment.end(), True
    end = comment_end(sql, pos)
    if end is None:
        return None
    if sql.startswith("/*", pos) and (end - pos < 4 or not sql.endswith("*/", pos, end)):
        return len(sql) + 1, in_exec_comment
    return end, in_exec_comment


def _token_at(sql: str, pos: int, mode: TextMode, before: list[Token]) -> Token | None:
    ch = sql[pos]
    quote_at = pos + 1 if ch in "nNxXbB" and sql.startswith("'", pos + 1) else pos
    if sql[quote_at] in _QUOTES:
        quote = sql[quote_at]
        end, closed = _scan_quoted(sql, quote_at, mode)
        if not closed:
            return None
        if quote == "`" or (quote == '"' and mode.ansi_quotes):
            return Token("quoted", sql[pos:end], pos, end)
        return Token("string", sql[pos:end], pos, end, mode.escapes(quote))
    if ch.isdigit() or (ch == "." and _starts_number(sql, pos, before)):
        return _number_or_word(sql, pos)
    word = _WORD.match(sql, pos)
    if word:
        return Token("word", word.group(), pos, word.end())
    op = next((o for o in _OPS if sql.startswith(o, pos)), ch)
    return Token("op", op, pos, pos + len(op))


def _starts_number(sql: str, pos: int, before: list[Token]) -> bool:
    follows_name = bool(before) and before[-1].end == pos and before[-1].kind in ("word", "quoted")
    return pos + 1 < len(sql) and sql[pos + 1].isdigit() and not follows_name


def _number_or_word(sql: str, pos: int) -> Token:
    m = _NUMBER.match(sql, pos)
    end = m.end() if m else pos + 1
    word = _WORD.match(sql, end)
    if word:  # MySQL names may start with digits: 1abc
        return Token("word", sql[pos : word.end()], pos, word.end())
    return Token("number", sql[pos:end], pos, end)


# -- DuckDB text ----------------------------------------------------------------------------------
# The texts sqlglot generates for DuckDB read by DuckDB's rules, not MySQL's: strings ('' doubles
# a quote; a backslash is an ordinary character), quoted identifiers, words. Texts with anything
# else that could change how DuckDB splits them (comments, $ parameters or dollar quoting,
# backslashes) are kept as written.
_DUCKDB_TOKENS = re.compile(r"""'(?:[^']|'')*'?|"(?:[^"]|"")*"?|[\w$.]+""")
_DUCKDB_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_UNSPLITTABLE = ("\\", "$", "/*", "--", "\x00")


def constants_abstracted(sql: str, reserved: str) -> str:
    """``sql`` with each plain number and string constant replaced by a marker: two texts with
    the same verdict text differ in constant values only, and a constant is never a relation or
    a function, so DuckDB's verdict on one holds for the other (engine/sql/verdict_cache.py keys
    its verdicts so). Kept as written: a string right after a word character (E'…', x'…'), and a
    string that holds ``reserved`` (lower case)."""
    if any(s in sql for s in _UNSPLITTABLE):
        return sql
    parts: list[str] = []
    last = 0
    for m in _DUCKDB_TOKENS.finditer(sql):
        token = m.group(0)
        if token[0] == "'":
            before = sql[m.start() - 1] if m.start() else ""
            after_word = bool(before) and (before.isalnum() or before in "_$.")
            if len(token) < 2 or token[-1] != "'" or after_word or reserved in token.lower():
                continue
            marker = "\x00s"
        elif token[0].isdigit() and _DUCKDB_NUMBER.fullmatch(token):
            marker = "\x00n"
        else:
            continue
        parts.append(sql[last : m.start()])
        parts.append(marker)
        last = m.end()
    parts.append(sql[last:])
    return "".join(parts)
