"""The supervisor ↔ worker pipe protocol: length-prefixed frames with caps checked before allocation.

Frame = 4-byte big-endian length (of what follows) + 1-byte kind + UTF-8 JSON body.
The parent sends one DISPATCH on the worker's stdin (the release of the fork barrier); the worker
answers on its stdout with HANDSHAKE, then PROGRESS frames, then at most one RESULT.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any, BinaryIO

from drydock.engine.jobs.control.states import ResultCode

DISPATCH, HANDSHAKE, PROGRESS, RESULT = b"D", b"H", b"P", b"R"
CAPS = {DISPATCH: 512 * 1024, HANDSHAKE: 4 * 1024, PROGRESS: 1024, RESULT: 8 * 1024}
MAX_STORAGE_OPTIONS = 64
MAX_OPTION_KEY_BYTES = 256
MAX_OPTION_VALUE_BYTES = 4096
MAX_JSON_DEPTH = 32  # our frames nest 3 deep; json.loads recurses once per level (RecursionError ~1000)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class ProtocolError(Exception):
    """A frame that breaks the protocol: unknown kind, over its cap, truncated, not JSON."""


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
            raise EOFError("stream closed mid-frame" if chunks or remaining != n else "stream closed")
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


@dataclass
class Dispatch:
    """Everything a worker needs; the admission-time bounds travel with it (DESIGN.md)."""

    job_id: int
    invocation_id: str
    operation: str  # CREATE | REPLACE | DROP
    uri: str
    storage_options: dict[str, str]
    admitted_version: int
    index_name: str
    index_uuid: str
    column: str
    spec: dict[str, Any]  # IndexSpec as JSON (using, index_type, params)
    schema_contract: dict[str, Any]
    max_num_partitions: int
    max_num_sub_vectors: int
    wall_clock_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def frame(self) -> bytes:
        check_storage_options(self.storage_options)
        return encode(DISPATCH, asdict(self))

    @staticmethod
    def parse(body: dict[str, Any]) -> Dispatch:
        for bound in ("max_num_partitions", "max_num_sub_vectors"):
            value = body.get(bound)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ProtocolError(f"dispatch lacks the admission-time bound {bound}")
        try:
            dispatch = Dispatch(**body)
        except TypeError as exc:
            raise ProtocolError(f"malformed dispatch: {exc}") from None
        check_storage_options(dispatch.storage_options)
        version = dispatch.admitted_version
        if not isinstance(version, int) or isinstance(version, bool) or version <= 0:
            raise ProtocolError("dispatch must pin a dataset version > 0")
        return dispatch


def check_storage_options(options: dict[str, str]) -> None:
    if not isinstance(options, dict):
        raise ProtocolError("storage options must be an object")
    if len(options) > MAX_STORAGE_OPTIONS:
        raise ProtocolError(f"{len(options)} storage options exceed the cap {MAX_STORAGE_OPTIONS}")
    for key, value in options.items():
        if len(str(key).encode()) > MAX_OPTION_KEY_BYTES or len(str(value).encode()) > MAX_OPTION_VALUE_BYTES:
            raise ProtocolError("a storage option key or value exceeds its cap")


@dataclass
class WorkerResult:
    code: ResultCode
    message: str
    external_metadata_advanced: bool
    committed_version: int | None = None

    def frame(self) -> bytes:
        return encode(RESULT, {"code": self.code.value, "message": self.message[:2048],
                               "external_metadata_advanced": self.external_metadata_advanced,
                               "committed_version": self.committed_version})

    @staticmethod
    def parse(body: dict[str, Any]) -> WorkerResult | None:
        """None for a code this server does not know: no result is ever guessed."""
        try:
            code = ResultCode(body.get("code"))
        except ValueError:
            return None
        return WorkerResult(code, str(body.get("message", ""))[:2048], bool(body.get("external_metadata_advanced")),
                            body.get("committed_version") if isinstance(body.get("committed_version"), int) else None)


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
