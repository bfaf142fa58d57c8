"""A small MySQL lexer for redaction: token kinds and character offsets, comments dropped.

Only what finding secret values needs: strings (with or without backslash escapes, doubled
quotes, ``N'..'`` / ``X'..'`` / ``B'..'`` prefixes), backticked names, numbers, words, operators.
Comments (``# ..``, ``-- ..``, ``/* .. */``) are skipped; the body of an executable comment
``/*!50700 .. */`` is code to MySQL, so it is lexed like the rest.
https://dev.mysql.com/doc/refman/8.0/en/comments.html,
https://dev.mysql.com/doc/refman/8.0/en/string-literals.html
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[\w$]+")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[bB][01]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_STRINGS = {
    True: {q: re.compile(rf"{q}(?:[^{q}\\]++|\\.|{q}{q})*+{q}", re.DOTALL) for q in "'\""},
    False: {q: re.compile(rf"{q}(?:[^{q}]++|{q}{q})*+{q}", re.DOTALL) for q in "'\""},
}
_BACKTICK = re.compile(r"`(?:[^`]++|``)*+`")
_EXEC_COMMENT = re.compile(r"/\*!\d{0,6}")
_OPS = ("<=>", "->>", "=>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "->", "@@")
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


@dataclass(frozen=True)
class Token:
    kind: str  # "string" | "number" | "quoted" (backticks) | "word" | "op" | "end"
    text: str  # exactly as written
    start: int
    end: int  # exclusive

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    @property
    def is_literal(self) -> bool:
        return self.kind in ("string", "number")

    @property
    def value(self) -> str:
        """What the token names: a string or backticked name without quotes and escapes."""
        if self.kind == "quoted":
            return self.text[1:-1].replace("``", "`")
        if self.kind != "string":
            return self.text
        body = self.text[self.text.index(self.text[-1]) + 1:-1]
        quote = self.text[-1]
        body = body.replace(quote * 2, quote)
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)


class Untokenizable(Exception):
    """An unterminated string, name or comment at ``position``; ``tokens`` are those before it."""

    def __init__(self, position: int, tokens: list[Token]):
        super().__init__(f"cannot tokenize at {position}")
        self.position = position
        self.tokens = tokens


def tokenize(sql: str, backslash_escapes: bool = True, stop_at: int | None = None) -> list[Token]:
    """The tokens of ``sql``; with ``stop_at``, only those that start before that offset."""
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
        token = _token_at(sql, pos, backslash_escapes, tokens)
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
    if sql.startswith("/*", pos):
        end = sql.find("*/", pos + 2)
        return (len(sql) + 1, in_exec_comment) if end < 0 else (end + 2, in_exec_comment)
    if sql[pos] == "#" or (sql.startswith("--", pos) and (pos + 2 == len(sql) or sql[pos + 2] <= " ")):
        end = sql.find("\n", pos)
        return (len(sql) if end < 0 else end + 1), in_exec_comment
    return None


def _token_at(sql: str, pos: int, backslash_escapes: bool, before: list[Token]) -> Token | None:
    ch = sql[pos]
    quote_at = pos + 1 if ch in "nNxXbB" and sql.startswith("'", pos + 1) else pos
    if sql[quote_at] in "'\"":
        m = _STRINGS[backslash_escapes][sql[quote_at]].match(sql, quote_at)
        return Token("string", sql[pos:m.end()], pos, m.end()) if m else None
    if ch == "`":
        m = _BACKTICK.match(sql, pos)
        return Token("quoted", m.group(), pos, m.end()) if m else None
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
        return Token("word", sql[pos:word.end()], pos, word.end())
    return Token("number", sql[pos:end], pos, end)
