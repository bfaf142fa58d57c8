"""A worker's stderr, kept bounded: the first bytes and the last bytes, with a note of what was cut.

The supervisor reads the worker's stderr pipe and writes it here, so a worker that floods stderr
can never fill the disk; the file (named by ``log_name`` in engine/jobs/control/backend.py, in the
worker log directory) is removed by job retention together with the job's record.
"""

from __future__ import annotations

from pathlib import Path

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024


class BoundedLog:
    """Writes the first ``head`` bytes as they come; keeps only the last ``tail`` bytes after that
    and writes them, after a note of how much was omitted, on ``close``."""

    def __init__(self, path: Path, head: int = HEAD_BYTES, tail: int = TAIL_BYTES):
        self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - closed by close()
        self._head_left = head
        self._tail_cap = tail
        self._tail = bytearray()
        self.omitted = 0

    def write(self, data: bytes) -> None:
        if self._file.closed or not data:
            return
        if self._head_left:
            written = data[: self._head_left]
            self._file.write(written)
            self._head_left -= len(written)
            data = data[len(written) :]
        self._tail += data
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            del self._tail[:excess]
            self.omitted += excess

    def close(self) -> None:
        if self._file.closed:
            return
        if self.omitted:
            self._file.write(
                f"\n[drydock: {self.omitted} bytes of worker stderr omitted]\n".encode()
            )
        self._file.write(bytes(self._tail))
        self._file.close()
