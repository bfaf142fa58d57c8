"""The supervisor ↔ worker pipe protocol: length-prefixed frames with caps checked before
allocation.

Frame = 4-byte big-endian length (of what follows) + 1-byte kind + UTF-8 JSON body.
The parent sends one DISPATCH on the worker's stdin (the release of the fork barrier); the worker
answers on its stdout with HANDSHAKE, then PROGRESS frames, then at most one RESULT. The messages
themselves (Dispatch, WorkerResult) are the control side's (engine/jobs/control/backend.py).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, BinaryIO

from drydock.engine.jobs.control.backend import Dispatch, ProtocolError, WorkerResult

DISPATCH, HANDSHAKE, PROGRESS, RESULT = b"D", b"H", b"P", b"R"
CAPS = {DISPATCH: 512 * 1024, HANDSHAKE: 4 * 1024, PROGRESS: 1024, RESULT: 8 * 1024}
# The reference's decode limit. Our frames nest 3 deep; json.loads recurses once per level
# (RecursionError ~1000), so the check runs before the parser sees the body.
MAX_JSON_DEPTH = 16
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def encode(kind: bytes, body: dict[str, Any]) -> bytes:
    payload = json.dumps(body, separators=(",", ":")).encode("utf-8")
    if kind not in CAPS:
        raise ProtocolError(f"unknown frame kind {kind!r}")
    if len(payload) > CAPS[kind]:
        raise ProtocolError(f"{kind!r} frame of {len(payload)} bytes exceeds its cap {CAPS[kind]}")
    return (len(payload) + 1).to_bytes(4, "big") + kind + payload


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            raise EOFError(
                "stream closed mid-frame" if chunks or remaining != n else "stream closed"
            )
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO, allowed: tuple[bytes, ...]) -> tuple[bytes, dict[str, Any]]:
    """Read one frame; the length is checked against the kind's cap before the body is read."""
    header = _read_exact(stream, 5)
    length, kind = int.from_bytes(header[:4], "big"), header[4:5]
    if kind not in allowed:
        raise ProtocolError(f"unexpected frame kind {kind!r}")
    size = length - 1
    if size < 0 or size > CAPS[kind]:
        raise ProtocolError(f"{kind!r} frame announces {size} bytes, cap is {CAPS[kind]}")
    return kind, decode_body(_read_exact(stream, size))


def check_depth(body: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` without recursing: strings are blanked out, then the
    brackets that remain are counted."""
    depth = 0
    for byte in _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > limit:
            raise ProtocolError(f"frame body nests deeper than {limit} levels")


def decode_body(body: bytes) -> dict[str, Any]:
    """One frame body → a JSON object; the nesting depth is checked before the parser sees it."""
    check_depth(body)
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"frame body is not JSON: {type(exc).__name__}") from None
    if not isinstance(value, dict):
        raise ProtocolError("frame body must be a JSON object")
    return value


def write_frame(fd: int, frame: bytes) -> None:
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def dispatch_frame(dispatch: Dispatch) -> bytes:
    """The DISPATCH frame; raises ProtocolError over the storage option or frame caps."""
    return encode(DISPATCH, dispatch.body())


def result_frame(result: WorkerResult) -> bytes:
    return encode(RESULT, result.body())


class FrameBuffer:
    """Incremental frame parser for the parent's non-blocking reads; caps checked on the header."""

    def __init__(self, allowed: tuple[bytes, ...]):
        self._allowed = allowed
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, dict[str, Any]]]:
        self._buffer += data
        frames = []
        while len(self._buffer) >= 5:
            length, kind = int.from_bytes(self._buffer[:4], "big"), bytes(self._buffer[4:5])
            if kind not in self._allowed:
                raise ProtocolError(f"unexpected frame kind {kind!r}")
            size = length - 1
            if size < 0 or size > CAPS[kind]:
                raise ProtocolError(f"{kind!r} frame announces {size} bytes, cap is {CAPS[kind]}")
            if len(self._buffer) < 5 + size:
                break
            body = bytes(self._buffer[5 : 5 + size])
            del self._buffer[: 5 + size]
            frames.append((kind, decode_body(body)))
        return frames

    @property
    def pending(self) -> int:
        return len(self._buffer)
