"""Lark's syntax errors → MySQL's 1064, worded as ANTLR (Doris) words them:
``line 1:29 mismatched input 'FORCE' expecting FORCE_RELEASE`` (line 1-based, column 0-based,
``<EOF>`` at the end of input)."""

from __future__ import annotations

import re

from lark import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from drydock.engine.errors import DrydockError, Errors
from drydock.grammar.lark_parser import NON_RESERVED, TERMINAL_PATTERNS


def _display_terminal(name: str) -> str:
    if name == "$END":
        return "<EOF>"
    pattern = TERMINAL_PATTERNS.get(name)
    if pattern is not None and pattern.type == "str" and not name.isupper():
        return f"'{pattern.value}'"
    if (
        pattern is not None
        and pattern.type == "str"
        and not re.fullmatch(r"[A-Z_]+", pattern.value.upper())
    ):
        return f"'{pattern.value}'"
    return name


def syntax_error(exc: UnexpectedInput, sql: str) -> DrydockError:
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        text = "<EOF>" if token.type == "$END" else str(token)
        line = token.line if token.type != "$END" else sql.count("\n") + 1
        column = (
            (token.column - 1)
            if token.type != "$END" and token.column
            else len(sql.rsplit("\n", 1)[-1])
        )
        # `accepts` is what the parser would really take after pending reductions; `expected` is the
        # raw LALR lookahead set, which over-approximates.
        names = set(exc.accepts or exc.expected)
        if "IDENTIFIER" in names:
            names = {n for n in names if n not in NON_RESERVED and n != "BACKTICKED"}
        expected = sorted({_display_terminal(t) for t in names if not t.startswith("__")})
        want = expected[0] if len(expected) == 1 else "{" + ", ".join(expected) + "}"
        detail = f"line {line}:{column} mismatched input '{text}' expecting {want}"
    elif isinstance(exc, UnexpectedCharacters):
        at = sql[exc.pos_in_stream or 0]
        detail = f"line {exc.line}:{exc.column - 1} token recognition error at: '{at}'"
    else:  # UnexpectedEOF and anything lark adds later
        line, column = getattr(exc, "line", 1), max(getattr(exc, "column", 1) - 1, 0)
        detail = f"line {line}:{column} mismatched input '<EOF>'"
    return Errors.PARSE.error(detail=detail)
