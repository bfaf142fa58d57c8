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
"""

from __future__ import annotations

import codecs
import re

from mysql_mimic.charset import CharacterSet

_INTRODUCER = re.compile(rb"_([A-Za-z0-9]+)\s*$")
_ESCAPES = {ord("0"): b"\0", ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b",
            ord("Z"): b"\x1a", ord("\\"): b"\\", ord("'"): b"'", ord('"'): b'"'}


class UndecodableText(ValueError):
    """Bytes outside an introduced literal that are not valid in the client character set."""


_MAY_INTRODUCE = re.compile(rb"_[A-Za-z0-9]+\s*'")


def decode_statement(charset: CharacterSet, raw: bytes) -> str:
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
        if byte in b"'\"":
            end, value = _read_literal(raw, i)
            introducer = _INTRODUCER.search(raw, start, i) if byte == ord("'") else None
            if introducer is not None:
                out.append(_strict(charset, raw[start:introducer.start()]))
                out.append(_respell(introducer.group(1).decode("ascii").lower(), value))
                start = end
            elif not _decodes(charset, raw[i:end]):
                # MySQL stores such bytes as they are in a binary column (and refuses them in a
                # text one): the same bytes, as a binary literal
                out.append(_strict(charset, raw[start:i]))
                out.append(_respell("binary", value))
                start = end
            i = end
        elif byte == ord("`"):
            close = raw.find(b"`", i + 1)
            i = n if close < 0 else close + 1
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


def _read_literal(raw: bytes, i: int) -> tuple[int, bytes]:
    """(index after the literal starting at ``i``, the bytes it stands for)."""
    quote, n = raw[i], len(raw)
    value = bytearray()
    i += 1
    while i < n:
        byte = raw[i]
        if byte == ord("\\") and i + 1 < n:
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
    raise UndecodableText("unterminated string literal")


def _respell(charset_name: str, value: bytes) -> str:
    if charset_name == "binary":
        return "X'" + value.hex() + "'"
    codec = {"utf8mb4": "utf-8", "utf8mb3": "utf-8", "utf8": "utf-8", "latin1": "cp1252",
             "ascii": "ascii"}.get(charset_name, charset_name)
    try:
        codecs.lookup(codec)
        text = value.decode(codec)
    except (LookupError, UnicodeDecodeError):
        raise UndecodableText(f"string is not valid in the character set of _{charset_name}") from None
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0") + "'"
