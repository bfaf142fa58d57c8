"""Statement bytes → statement text, one literal at a time, as MySQL's lexer reads them.

A statement is text in the client character set, except its string literals with a character set
introducer: drivers send ``_binary'…'`` with raw bytes inside (pymysql, Connector/J for bytes
parameters), which are not valid UTF-8, and ``_latin1'…'`` in another charset than the client's.
Decoding the whole packet in the client charset would refuse such statements (1835) or read the
bytes wrongly. So, when the packet may hold an introducer (or does not decode as a whole):

- an introduced literal is read in its own charset; ``_binary'…'`` becomes ``X'<hex>'`` (the same
  bytes, spelled so the text is valid) and ``_<charset>'…'`` a plain literal of the decoded text;
- a plain literal whose bytes are not valid in the client charset is the same bytes as a binary
  literal (MySQL stores them as they are in a binary column, and refuses them in a text one);
- everything else must be valid in the client charset, else 1835 as before.

Escapes inside a literal (``\\'``, ``\\\\``, ``\\0``, ``''`` …) are resolved into the bytes they
stand for before re-spelling. A packet without an introducer that decodes as a whole is returned
unchanged (the fast path).

Where a literal or comment starts and ends is grammar/lexer.py's (``quoted_end``, ``comment_end``);
literals are read as the session's sql_mode reads them (grammar/lexer.py TextMode): under
NO_BACKSLASH_ESCAPES a backslash is an ordinary byte, under ANSI_QUOTES ``"…"`` is an identifier;
a respelt literal is spelt for that same mode (the text is respelt for the default mode after,
with the rest of the statement: grammar/lexer.py canonical).
"""

from __future__ import annotations

import codecs
import re

from mysql_mimic.charset import CharacterSet

from drydock.grammar.lexer import DEFAULT_MODE, TextMode, comment_end, quoted_end

# an introducer is a word of its own: the ``_any`` of Doris' ``body MATCH_ANY 'x'`` is no charset
_INTRODUCER = re.compile(rb"(?<![A-Za-z0-9_$\x80-\xff])_([A-Za-z0-9]+)\s*$")
_ESCAPES = {
    ord("0"): b"\0",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
    ord("b"): b"\b",
    ord("Z"): b"\x1a",
    ord("\\"): b"\\",
    ord("'"): b"'",
    ord('"'): b'"',
}


class UndecodableText(ValueError):
    """Bytes outside an introduced literal that are not valid in the client character set."""


_MAY_INTRODUCE = re.compile(rb"(?<![A-Za-z0-9_$\x80-\xff])_[A-Za-z0-9]+\s*'")


def decode_statement(charset: CharacterSet, raw: bytes, mode: TextMode = DEFAULT_MODE) -> str:
    if not _MAY_INTRODUCE.search(raw):
        try:
            return charset.decode(raw)
        except UnicodeDecodeError:
            pass
    # The literals' and comments' bounds are grammar/lexer.py's, on a latin-1 view of the bytes:
    # one character per byte, so its offsets are the bytes' and every ASCII byte (quotes,
    # backslash, comment starts) is the same character.
    view = raw.decode("latin-1")
    out: list[str] = []
    start = i = 0
    n = len(raw)
    while i < n:
        ch = view[i]
        if ch in "'\"`":
            end, closed = quoted_end(view, i, mode)
            if ch == "`" or (ch == '"' and mode.ansi_quotes):  # an identifier: no introducer
                i = end
                continue
            if not closed:  # unterminated: the rest is the parser's error to report, after the
                break  # statements before it have run (a multi-statement text), as in MySQL
            value = _literal_value(raw[i + 1 : end - 1], raw[i], mode.escapes(ch))
            introducer = _INTRODUCER.search(raw, start, i) if ch == "'" else None
            if introducer is not None:
                out.append(_strict(charset, raw[start : introducer.start()]))
                out.append(_respell(introducer.group(1).decode("ascii").lower(), value, mode))
                start = end
            elif not _decodes(charset, raw[i:end]):
                # MySQL stores such bytes as they are in a binary column (and refuses them in a
                # text one): the same bytes, as a binary literal
                out.append(_strict(charset, raw[start:i]))
                out.append(_respell("binary", value, mode))
                start = end
            i = end
        else:
            skipped = comment_end(view, i)
            i = i + 1 if skipped is None else skipped
    out.append(_strict(charset, raw[start:]))
    return "".join(out)


def _decodes(charset: CharacterSet, raw: bytes) -> bool:
    try:
        charset.decode(raw)
    except UnicodeDecodeError:
        return False
    return True


def _strict(charset: CharacterSet, raw: bytes) -> str:
    try:
        return charset.decode(raw)
    except UnicodeDecodeError:
        raise UndecodableText("string is not valid in the client character set") from None


def _literal_value(body: bytes, quote: int, escapes: bool) -> bytes:
    """The bytes a literal's body (between its quotes) stands for: doubled quotes and, when
    ``escapes`` (not under NO_BACKSLASH_ESCAPES), backslash escapes resolved."""
    value = bytearray()
    i, n = 0, len(body)
    while i < n:
        byte = body[i]
        if escapes and byte == ord("\\") and i + 1 < n:
            value += _ESCAPES.get(body[i + 1], bytes([body[i + 1]]))
            i += 2
        elif byte == quote:  # inside a literal a quote is always doubled
            value.append(quote)
            i += 2
        else:
            value.append(byte)
            i += 1
    return bytes(value)


def _respell(charset_name: str, value: bytes, mode: TextMode = DEFAULT_MODE) -> str:
    if charset_name == "binary":
        return "X'" + value.hex() + "'"
    codec = {
        "utf8mb4": "utf-8",
        "utf8mb3": "utf-8",
        "utf8": "utf-8",
        "latin1": "cp1252",
        "ascii": "ascii",
    }.get(charset_name, charset_name)
    try:
        codecs.lookup(codec)
        text = value.decode(codec)
    except (LookupError, UnicodeDecodeError):
        raise UndecodableText(
            f"string is not valid in the character set of _{charset_name}"
        ) from None
    if not mode.backslash_escapes:  # a backslash is itself; the only escape is a doubled quote
        return "'" + text.replace("'", "''") + "'"
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0") + "'"
