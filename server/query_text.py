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

Escapes inside a literal (``\\'``, ``\\\\``, ``\\0``, ``''`` …) are resolved into the bytes they stand
for before re-spelling. A packet without an introducer that decodes as a whole is returned
unchanged (the fast path).

Literals are read as the session's sql_mode reads them (grammar/lexer.py TextMode): under
NO_BACKSLASH_ESCAPES a backslash is an ordinary byte, under ANSI_QUOTES ``"…"`` is an identifier;
a respelt literal is spelt for that same mode (the text is respelt for the default mode after,
with the rest of the statement: grammar/lexer.py canonical).
"""

from __future__ import annotations

import codecs
import re

from mysql_mimic.charset import CharacterSet

from grammar.lexer import DEFAULT_MODE, TextMode

_INTRODUCER = re.compile(rb"_([A-Za-z0-9]+)\s*$")
_ESCAPES = {ord("0"): b"\0", ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b",
            ord("Z"): b"\x1a", ord("\\"): b"\\", ord("'"): b"'", ord('"'): b'"'}


class UndecodableText(ValueError):
    """Bytes outside an introduced literal that are not valid in the client character set."""


_MAY_INTRODUCE = re.compile(rb"_[A-Za-z0-9]+\s*'")


def decode_statement(charset: CharacterSet, raw: bytes, mode: TextMode = DEFAULT_MODE) -> str:
    if not _MAY_INTRODUCE.search(raw):
        try:
            return charset.decode(raw)
        except UnicodeDecodeError:
            pass
    out: list[str] = []
    start = i = 0
    n = len(raw)
    while i < n:
        byte = raw[i]
        if byte == ord('"') and mode.ansi_quotes:  # an identifier: no escapes, no introducer
            i = _skip_identifier(raw, i)
        elif byte in b"'\"":
            read = _read_literal(raw, i, mode.escapes(chr(byte)))
            if read is None:  # unterminated: the rest is the parser's error to report, after the
                break  # statements before it have run (a multi-statement text), as in MySQL
            end, value = read
            introducer = _INTRODUCER.search(raw, start, i) if byte == ord("'") else None
            if introducer is not None:
                out.append(_strict(charset, raw[start:introducer.start()]))
                out.append(_respell(introducer.group(1).decode("ascii").lower(), value, mode))
                start = end
            elif not _decodes(charset, raw[i:end]):
                # MySQL stores such bytes as they are in a binary column (and refuses them in a
                # text one): the same bytes, as a binary literal
                out.append(_strict(charset, raw[start:i]))
                out.append(_respell("binary", value, mode))
                start = end
            i = end
        elif byte == ord("`"):
            i = _skip_identifier(raw, i)
        elif raw.startswith(b"/*", i) and not raw.startswith(b"/*!", i):
            close = raw.find(b"*/", i + 2)
            i = n if close < 0 else close + 2
        elif byte == ord("#") or (raw.startswith(b"--", i) and raw[i + 2:i + 3] in (b" ", b"\t", b"\n", b"")):
            close = raw.find(b"\n", i)
            i = n if close < 0 else close + 1
        else:
            i += 1
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


def _skip_identifier(raw: bytes, i: int) -> int:
    """Index after the quoted identifier starting at ``i`` (a doubled quote is in the name)."""
    quote, n = raw[i:i + 1], len(raw)
    i += 1
    while True:
        close = raw.find(quote, i)
        if close < 0:
            return n
        if raw[close + 1:close + 2] != quote:
            return close + 1
        i = close + 2


def _read_literal(raw: bytes, i: int, escapes: bool = True) -> tuple[int, bytes] | None:
    """(index after the literal starting at ``i``, the bytes it stands for), None when it is not
    terminated; ``escapes``: whether a backslash escapes (not under NO_BACKSLASH_ESCAPES)."""
    quote, n = raw[i], len(raw)
    value = bytearray()
    i += 1
    while i < n:
        byte = raw[i]
        if escapes and byte == ord("\\") and i + 1 < n:
            value += _ESCAPES.get(raw[i + 1], bytes([raw[i + 1]]))
            i += 2
        elif byte == quote:
            if i + 1 < n and raw[i + 1] == quote:
                value.append(quote)
                i += 2
            else:
                return i + 1, bytes(value)
        else:
            value.append(byte)
            i += 1
    return None


def _respell(charset_name: str, value: bytes, mode: TextMode = DEFAULT_MODE) -> str:
    if charset_name == "binary":
        return "X'" + value.hex() + "'"
    codec = {"utf8mb4": "utf-8", "utf8mb3": "utf-8", "utf8": "utf-8", "latin1": "cp1252",
             "ascii": "ascii"}.get(charset_name, charset_name)
    try:
        codecs.lookup(codec)
        text = value.decode(codec)
    except (LookupError, UnicodeDecodeError):
        raise UndecodableText(f"string is not valid in the character set of _{charset_name}") from None
    if not mode.backslash_escapes:  # a backslash is itself; the only escape is a doubled quote
        return "'" + text.replace("'", "''") + "'"
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0") + "'"
