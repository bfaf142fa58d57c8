"""The audit log: one record per changing or denied statement, JSON lines in the data directory.

Records are written with secrets already masked (engine/redact.py). ``SHOW AUDIT`` (ADMIN) reads
the newest records back. The file is append-only; each record is flushed before the statement's
answer is sent.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.redact import redact_sql

DENIAL_CODES = frozenset({1044, 1045, 1142, 1227})


@dataclass(frozen=True)
class AuditRecord:
    time: float
    user: str
    host: str
    connection_id: int
    kind: str  # statement kind, e.g. CreateUser, Insert, AdminSetFrontendConfig, Login
    object: str  # what it acted on, e.g. 'internal.db1.t' or "'bob'@'%'"
    outcome: str  # "ok" or "error"
    error_code: int
    duration_ms: float
    statement: str  # masked


class AuditLog:
    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._file = open(path, "a", encoding="utf-8")

    def record(self, *, user: str, host: str, connection_id: int, kind: str, obj: str,
               error_code: int, started: float, statement: str) -> AuditRecord:
        rec = AuditRecord(time=time.time(), user=user, host=host, connection_id=connection_id,
                          kind=kind, object=obj, outcome="ok" if error_code == 0 else "error",
                          error_code=error_code, duration_ms=round((time.monotonic() - started) * 1000, 3),
                          statement=redact_sql(statement)[:4096])
        line = json.dumps(asdict(rec), ensure_ascii=False)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()
        return rec

    def tail(self, limit: int) -> list[AuditRecord]:
        with self._lock:
            self._file.flush()
            with open(self.path, encoding="utf-8") as fh:
                lines = deque(fh, maxlen=min(limit, sys.maxsize))  # SHOW AUDIT LIMIT <huge>: all of them
        records = []
        for line in lines:
            try:
                records.append(AuditRecord(**json.loads(line)))
            except (ValueError, TypeError):
                continue  # a torn last line after a crash is skipped, never fatal
        return records

    def close(self) -> None:
        with self._lock:
            self._file.close()


