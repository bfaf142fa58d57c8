"""The audit log: one record per changing or denied statement, JSON lines in the data directory.

Records are written with secrets already masked (grammar/redact.py, handed in). ``SHOW AUDIT``
(ADMIN) reads the newest records back. Each record is flushed before the statement's answer is sent.

Bounds, because unauthenticated peers can make records too:
- user and host are cut to ``FIELD_MAX_BYTES`` bytes of UTF-8 in every record;
- failed logins are aggregated per peer address: at most one record per peer per
  ``audit_failed_login_interval_second``, carrying a count and the first and last user names
  (a peer's first failure is written at once; the rest of its interval when the interval is
  over and the log is next touched, or at shutdown; a kill -9 loses only those counts);
- failed-login records share a byte budget per minute (``audit_failed_login_max_bytes_per_minute``);
  what is over it is counted into one overflow record (host ``*``) per minute;
- the file is rotated by size: ``audit.jsonl`` → ``audit.jsonl.1`` → … (``audit_log_max_bytes``,
  ``audit_log_files_kept``); SHOW AUDIT reads across the rotated files, newest first.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drydock.engine.errors import Errors
from drydock.engine.support.config_keys import Key

logger = logging.getLogger(__name__)

DENIAL_CODES = frozenset({1044, 1045, 1142, 1227})
FIELD_MAX_BYTES = 256
STATEMENT_MAX_CHARS = 4096
MAX_TRACKED_PEERS = 4096  # peers with an open failed-login window; more go to the overflow record
BUDGET_WINDOW_SECONDS = 60.0
SWEEP_EVERY_SECONDS = 1.0
_CUT = "..."


def truncate_utf8(text: str, limit: int = FIELD_MAX_BYTES) -> str:
    """At most ``limit`` bytes of UTF-8, never splitting a character; a cut text ends in '...'."""
    data = text.encode("utf-8", "replace")  # a lone surrogate becomes '?': the file stays UTF-8
    if len(data) > limit:
        data = data[: limit - len(_CUT)].decode("utf-8", "ignore").encode() + _CUT.encode()
    return data.decode("utf-8", "ignore")


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
    count: int = 1  # failed logins this record stands for (Login records)
    last_user: str = ""  # Login records: the last user name tried (``user`` is the first)


@dataclass(frozen=True)
class AuditSettings:
    max_bytes: int = 64 * 2**20
    files_kept: int = 5
    failed_login_interval: float = 60.0
    failed_login_bytes_per_minute: int = 64 * 1024

    @classmethod
    def from_config(cls, config: Any) -> AuditSettings:
        return cls(
            max_bytes=config.get(Key.AUDIT_LOG_MAX_BYTES),
            files_kept=config.get(Key.AUDIT_LOG_FILES_KEPT),
            failed_login_interval=float(config.get(Key.AUDIT_FAILED_LOGIN_INTERVAL_SECOND)),
            failed_login_bytes_per_minute=config.get(Key.AUDIT_FAILED_LOGIN_MAX_BYTES_PER_MINUTE),
        )


@dataclass
class _FailedLogins:
    """Failed logins of one peer (or of the overflow) not yet written."""

    written_at: float | None = None  # when this peer's last record was written
    count: int = 0
    first_user: str = ""
    last_user: str = ""
    connection_id: int = 0

    def add(self, user: str, connection_id: int, count: int = 1) -> None:
        if self.count == 0:
            self.first_user = user
        self.count += count
        self.last_user, self.connection_id = user, connection_id


@dataclass
class _Budget:
    """Bytes of failed-login records allowed per window."""

    started: float = 0.0
    used: int = 0
    overflow: _FailedLogins = field(default_factory=_FailedLogins)

    def expired(self, now: float) -> bool:
        return now - self.started >= BUDGET_WINDOW_SECONDS

    def take(self, size: int, limit: int, now: float) -> bool:
        if self.expired(now):
            self.started, self.used = now, 0
        if self.used + size > limit:
            return False
        self.used += size
        return True


class AuditLog:
    def __init__(
        self,
        path: Path,
        redact: Callable[[str, int], str],
        settings: Callable[[], AuditSettings] = AuditSettings,
        clock: Callable[[], float] = time.time,
    ):
        """``redact`` masks the secrets of a statement's text, reading at most the given number
        of characters (grammar/redact.py ``redact_sql``, which this layer cannot import)."""
        self.path = path
        self._redact = redact
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._file = open(path, "ab")
        self._size = self._file.tell()
        self._peers: dict[str, _FailedLogins] = {}
        self._budget = _Budget()
        self._swept = 0.0

    # -- writing ----------------------------------------------------------------------------------
    def record(
        self,
        *,
        user: str,
        host: str,
        connection_id: int,
        kind: str,
        obj: str,
        error_code: int,
        started: float,
        statement: str,
    ) -> AuditRecord:
        rec = AuditRecord(
            time=self._clock(),
            user=truncate_utf8(user),
            host=truncate_utf8(host),
            connection_id=connection_id,
            kind=kind,
            object=obj,
            outcome="ok" if error_code == 0 else "error",
            error_code=error_code,
            duration_ms=round((time.monotonic() - started) * 1000, 3),
            statement=self._redact(statement, STATEMENT_MAX_CHARS),
        )
        with self._lock:
            settings = self._settings()  # once per record: it is built from the config each call
            self._sweep(rec.time, settings)  # failed logins whose interval is over go first
            self._write(_line(rec), settings)
        return rec

    def failed_login(self, *, user: str, host: str, connection_id: int) -> None:
        """A login was refused: counted for its peer, written at most once per interval."""
        user, host = truncate_utf8(user), truncate_utf8(host)
        with self._lock:
            now = self._clock()
            settings = self._settings()
            self._sweep(now, settings)
            peer = self._peers.get(host)
            if peer is None and len(self._peers) >= MAX_TRACKED_PEERS:
                self._budget.overflow.add(user, connection_id)
                return
            peer = self._peers.setdefault(host, _FailedLogins())
            peer.add(user, connection_id)
            if peer.written_at is None or now - peer.written_at >= settings.failed_login_interval:
                self._write_failed_logins(host, peer, now, settings)

    def _write_failed_logins(
        self, host: str, pending: _FailedLogins, now: float, settings: AuditSettings
    ) -> None:
        rec = _login_record(host, pending, now)
        line = _line(rec)
        if self._budget.take(len(line), settings.failed_login_bytes_per_minute, now):
            self._write(line, settings)
            logger.info(
                "access denied for user %r from %s (%d failed logins)", rec.user, host, rec.count
            )
        else:
            self._budget.overflow.add(pending.first_user, pending.connection_id, pending.count)
        pending.written_at, pending.count = now, 0

    def _sweep(self, now: float, settings: AuditSettings, force: bool = False) -> None:
        """Write the failed logins whose interval is over (all of them when ``force``)."""
        if not force and now - self._swept < SWEEP_EVERY_SECONDS:
            return
        self._swept = now
        for host, peer in list(self._peers.items()):
            due = force or now - (peer.written_at or 0.0) >= settings.failed_login_interval
            if due and peer.count:
                self._write_failed_logins(host, peer, now, settings)
            elif due:
                del self._peers[host]
        overflow = self._budget.overflow
        if overflow.count and (force or self._budget.expired(now)):
            line = _line(_login_record("*", overflow, now))  # one per window, past the budget
            self._budget.started, self._budget.used = now, len(line)
            self._write(line, settings)
            logger.warning(
                "%d failed logins over the audit budget were counted, not recorded", overflow.count
            )
            self._budget.overflow = _FailedLogins()

    def _write(self, line: bytes, settings: AuditSettings) -> None:
        if self._size and self._size + len(line) > settings.max_bytes:
            self._rotate(settings.files_kept)
        self._file.write(line)
        self._file.flush()
        self._size += len(line)

    # -- rotation ---------------------------------------------------------------------------------
    def _rotated(self, n: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}")

    def _rotate(self, files_kept: int) -> None:
        """audit.jsonl → .1 → .2 …; files past ``files_kept`` are deleted."""
        self._file.close()
        for old in self.path.parent.glob(f"{self.path.name}.*"):
            suffix = old.name.rsplit(".", 1)[1]
            if suffix.isdigit() and int(suffix) >= files_kept:
                old.unlink(missing_ok=True)
        for n in range(files_kept - 1, 0, -1):
            if self._rotated(n).exists():
                self._rotated(n).replace(self._rotated(n + 1))
        if files_kept > 0:
            self.path.replace(self._rotated(1))
        else:
            self.path.unlink(missing_ok=True)
        self._file = open(self.path, "ab")
        self._size = 0

    # -- reading ----------------------------------------------------------------------------------
    def tail(self, limit: int) -> list[AuditRecord]:
        """The newest ``limit`` records, oldest first, read across the rotated files."""
        want = min(limit, sys.maxsize)  # SHOW AUDIT LIMIT <huge>: all of them
        lines: deque[bytes] = deque()
        with self._lock:
            self._sweep(self._clock(), self._settings())
            self._file.flush()
            n = 0
            while len(lines) < want:
                path = self.path if n == 0 else self._rotated(n)
                if not path.exists():
                    break
                with open(path, "rb") as fh:
                    lines.extendleft(reversed(deque(fh, maxlen=want - len(lines))))
                n += 1
        return [rec for rec in map(_parse, lines) if rec is not None]

    def close(self) -> None:
        with self._lock:
            self._sweep(self._clock(), self._settings(), force=True)
            self._file.close()


def _login_record(host: str, pending: _FailedLogins, now: float) -> AuditRecord:
    return AuditRecord(
        time=now,
        user=pending.first_user,
        host=host,
        connection_id=pending.connection_id,
        kind="Login",
        object="",
        outcome="error",
        error_code=Errors.ACCESS_DENIED.code,
        duration_ms=0.0,
        statement="",
        count=pending.count,
        last_user=pending.last_user,
    )


# What json.dumps(obj, ensure_ascii=False) builds on every call (only the all-defaults encoder is
# shared by json.dumps), built once: the same options, so the same bytes.
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def _line(rec: AuditRecord) -> bytes:
    # vars(), not asdict(): the fields are plain values, and asdict deep-copies each one (a tenth
    # of an audited statement's cost)
    return (_ENCODER.encode(vars(rec)) + "\n").encode("utf-8", "replace")


def _parse(line: bytes) -> AuditRecord | None:
    try:
        return AuditRecord(**json.loads(line))
    except (ValueError, TypeError):
        return None  # a torn last line after a crash is skipped, never fatal
