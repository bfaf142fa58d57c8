"""The Lark parser of drydock.lark (LALR), its terminal tables, and the same parser with the
transformer (grammar/to_statement.py) applied as it reduces."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from lark import Lark

from drydock.grammar.to_statement import ToStatement

_GRAMMAR = Path(__file__).with_name("drydock.lark")


class KeepWordTerminals:
    """Postlexer that only asks lark to keep IDENTIFIER in the lexer even where no rule uses it.

    Without it a misspelt keyword is a 'token recognition error'; with it, the contextual lexer
    falls back to IDENTIFIER and the error reads "mismatched input 'confog' expecting CONFIG".
    """

    always_accept = ("IDENTIFIER", "BACKTICKED")

    def process(self, stream: Any) -> Any:
        return stream


PARSER = Lark(
    _GRAMMAR.read_text(),
    parser="lalr",
    start="start",
    maybe_placeholders=False,
    postlex=KeepWordTerminals(),
)
TERMINAL_PATTERNS = {t.name: t.pattern for t in PARSER.terminals}
# Keywords that may also be identifiers; an error that expects an identifier lists only that.
NON_RESERVED = {
    sym.name
    for rule in PARSER.rules
    if rule.origin.name == "non_reserved"
    for sym in rule.expansion
}


# The same parser with ToStatement applied as the LALR parser reduces, so that no parse tree is
# built (~35% less time per statement: an index admission parses one). Loaded from PARSER's own
# tables (Lark's save/load: no second grammar analysis). Anything but a statement from it — a
# syntax error above all — is parsed again by PARSER, so every error reads exactly as before.
_inline: Lark | None = None


def inline_parser() -> Lark:
    global _inline
    if _inline is None:
        buffer = io.BytesIO()
        PARSER.save(buffer)
        buffer.seek(0)
        # Lark.load() takes no options; _load is what it calls, with the options a load may change
        _inline = Lark.__new__(Lark)._load(
            buffer, transformer=ToStatement(), postlex=KeepWordTerminals()
        )
    return _inline
