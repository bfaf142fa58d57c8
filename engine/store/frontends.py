"""Frontends sharing one metadata store, and the dispatcher lease they elect a leader with (issue
16).

Every ``drydock serve`` on a store heartbeats its row in ``frontends``. Exactly one holds the
dispatcher lease (``dispatcher_lease``: holder, expiry on the store's clock, epoch) and runs the
dispatcher; the others admit, SHOW, RESOLVE, CANCEL and run procedures. The lease epoch only grows
and is the fencing token: every dispatcher transition checks, in its own transaction, that the
lease still carries this frontend's epoch (:meth:`Membership.check_fence`), so a deposed leader
that wakes up late changes nothing.

Whether to renew, take or follow is :func:`decide`, a pure function; ``Membership`` only applies it
in one store transaction per heartbeat. A frontend is known by a name kept in its data directory,
so the same frontend restarted (after a kill -9) takes its lease back at once instead of waiting
for it to expire. On SQLite the store is the process's own: the one frontend always leads.
"""

from __future__ import annotations

import enum
import logging
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drydock.engine.store.metastore import MetadataStore, StoreConnection

logger = logging.getLogger(__name__)
NAME_FILE = "frontend_name"  # in the data directory: who this frontend is across restarts
_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


class NotLeader(Exception):
    """A dispatcher transition was refused: this frontend no longer holds the lease epoch it had."""


class LeaseMove(enum.Enum):
    RENEW = "RENEW"  # we hold it: push the expiry out
    TAKE = "TAKE"  # free, expired, or our own from before a restart: epoch + 1
    FOLLOW = "FOLLOW"  # someone else holds it and it has not expired


@dataclass(frozen=True)
class LeaseRow:
    holder: str
    epoch: int
    expires_at: float


def decide(lease: LeaseRow, me: str, my_epoch: int | None, now: float) -> LeaseMove:
    """What a heartbeat of frontend ``me`` (holding ``my_epoch``, or None) does with ``lease``."""
    if lease.holder == me and my_epoch == lease.epoch:
        return LeaseMove.RENEW
    if lease.holder == "" or lease.expires_at <= now or lease.holder == me:
        # our own name with another epoch: this frontend restarted (its old process is gone, or is
        # fenced from now on by the new epoch)
        return LeaseMove.TAKE
    return LeaseMove.FOLLOW


@dataclass(frozen=True)
class FrontendIdentity:
    name: str
    host: str
    query_port: int

    @staticmethod
    def of(data_dir: Path, query_port: int, name: str = "") -> FrontendIdentity:
        """``name`` if given, else the one kept in ``data_dir`` (created on first start)."""
        return FrontendIdentity(name or persistent_name(data_dir), socket.gethostname(), query_port)


def persistent_name(data_dir: Path) -> str:
    path = data_dir / NAME_FILE
    try:
        name = path.read_text().strip()
        if _NAME.match(name):
            return name
    except OSError:
        pass
    name = f"fe_{uuid.uuid4().hex[:12]}"
    path.write_text(name + "\n")
    return name


def valid_name(name: str) -> bool:
    return bool(_NAME.match(name))


@dataclass(frozen=True)
class FrontendRow:
    """One line of SHOW FRONTENDS."""

    name: str
    host: str
    query_port: int
    leader: bool
    alive: bool
    last_heartbeat: float
    epoch: int


class Membership:
    """This frontend's heartbeat and its part in the lease. ``on_lead(epoch)`` runs when it becomes
    the leader and ``on_follow()`` when it stops being one; both on the heartbeat thread."""

    def __init__(
        self,
        store: MetadataStore,
        identity: FrontendIdentity,
        process_epoch: str,
        lease_seconds: Callable[[], float],
    ):
        self._store = store
        self.identity = identity
        self._process_epoch = process_epoch
        self._lease_seconds = lease_seconds
        self._lock = threading.Lock()
        self._epoch: int | None = None  # the lease epoch held; None: a follower
        self._valid_until = 0.0  # monotonic: past it, a leader that could not renew stops leading
        self.on_lead: list[Callable[[int], None]] = []
        self.on_follow: list[Callable[[], None]] = []
        self.on_tick: list[Callable[[], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started_at = time.time()

    # -- reads
    # ----------------------------------------------------------------------------------------
    @property
    def epoch(self) -> int | None:
        """The lease epoch this frontend holds and may still act on, or None."""
        with self._lock:
            if self._epoch is not None and time.monotonic() < self._valid_until:
                return self._epoch
            return None

    @property
    def is_leader(self) -> bool:
        return self.epoch is not None

    def check_fence(self, db: StoreConnection) -> None:
        """Inside a dispatcher transaction: the lease still carries our epoch, or NotLeader."""
        with self._lock:
            mine = self._epoch
        row = db.execute("SELECT holder, epoch FROM dispatcher_lease WHERE id = 1").fetchone()
        if (
            mine is None
            or row is None
            or row["holder"] != self.identity.name
            or int(row["epoch"]) != mine
        ):
            raise NotLeader(
                f"frontend {self.identity.name} no longer holds dispatcher lease epoch {mine}"
            )

    def rows(self) -> list[FrontendRow]:
        now = self._store.now()
        lease = self._store.query_one(
            "SELECT holder, epoch, expires_at FROM dispatcher_lease WHERE id = 1"
        )
        holder = str(lease["holder"]) if lease and float(lease["expires_at"]) > now else ""
        window = self._lease_seconds()
        return [
            FrontendRow(
                name=str(r["name"]),
                host=str(r["host"]),
                query_port=int(r["query_port"]),
                leader=r["name"] == holder,
                alive=now - float(r["last_heartbeat"]) <= window,
                last_heartbeat=float(r["last_heartbeat"]),
                epoch=int(lease["epoch"]) if lease and r["name"] == holder else int(r["epoch"]),
            )
            for r in self._store.query("SELECT * FROM frontends ORDER BY name")
        ]

    def alive_count(self) -> int:
        """Frontends whose heartbeat is within the lease window (SHOW FRONTENDS' Alive), this one
        included. A store of this process's own (embedded) has exactly this frontend."""
        if not self._store.shared:
            return 1
        return sum(row.alive for row in self.rows())

    # -- the heartbeat
    # ----------------------------------------------------------------------------------
    def join(self) -> None:
        """The first heartbeat, before serving: a lone frontend leads from its first statement."""
        self.heartbeat()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="frontend-heartbeat", daemon=True
            )
            self._thread.start()

    def listening_on(self, host: str, port: int) -> None:
        """Where clients reach this frontend, once its socket is bound (shown by SHOW FRONTENDS)."""
        shown = self.identity.host if host in ("", "0.0.0.0", "::") else host
        self.identity = FrontendIdentity(self.identity.name, shown, port)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.heartbeat()
            # a store outage: keep trying; the lease runs out by itself
            except Exception:  # noqa: BLE001
                logger.warning("frontend heartbeat failed", exc_info=True)
                self._expire_if_overdue()
            for tick in list(self.on_tick):
                try:
                    tick()
                # one subsystem's catch-up must not stop the heartbeat
                except Exception:  # noqa: BLE001
                    logger.exception("frontend heartbeat task failed")
            self._stop.wait(self.interval())

    def interval(self) -> float:
        return max(min(self._lease_seconds() / 3.0, 5.0), 0.05)

    def heartbeat(self) -> None:
        lease_seconds = self._lease_seconds()
        started = time.monotonic()
        now = self._store.now()
        with self._lock:
            mine = self._epoch
        with self._store.transaction() as db:
            row = db.execute(
                "SELECT holder, epoch, expires_at FROM dispatcher_lease WHERE id = 1"
            ).fetchone()
            lease = LeaseRow(str(row["holder"]), int(row["epoch"]), float(row["expires_at"]))
            move = decide(lease, self.identity.name, mine, now)
            epoch = lease.epoch
            if move is LeaseMove.TAKE:
                epoch = lease.epoch + 1
            if move is not LeaseMove.FOLLOW:
                db.execute(
                    "UPDATE dispatcher_lease SET holder = ?, epoch = ?, expires_at = ? WHERE id = "
                    "1",
                    (self.identity.name, epoch, now + lease_seconds),
                )
            db.execute(
                "INSERT INTO frontends (name, host, query_port, process_epoch, started_at, "
                "last_heartbeat, "
                "epoch) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET host = "
                "excluded.host, "
                "query_port = excluded.query_port, process_epoch = excluded.process_epoch, "
                "started_at = excluded.started_at, last_heartbeat = excluded.last_heartbeat, "
                "epoch = excluded.epoch",
                (
                    self.identity.name,
                    self.identity.host,
                    self.identity.query_port,
                    self._process_epoch,
                    self._started_at,
                    now,
                    epoch,
                ),
            )
        if move is LeaseMove.FOLLOW:
            self._become_follower()
            return
        with self._lock:
            gained = self._epoch != epoch
            self._epoch = epoch
            # measured from before the store's clock was read: never trusts the lease longer than it
            # runs
            self._valid_until = started + lease_seconds
        if gained:
            logger.warning(
                "frontend %s leads the dispatcher (lease epoch %d)", self.identity.name, epoch
            )
            for lead in list(self.on_lead):
                lead(epoch)

    def _expire_if_overdue(self) -> None:
        with self._lock:
            overdue = self._epoch is not None and time.monotonic() >= self._valid_until
        if overdue:
            self._become_follower()

    def _become_follower(self) -> None:
        with self._lock:
            was, self._epoch = self._epoch, None
        if was is not None:
            logger.warning(
                "frontend %s lost the dispatcher lease (epoch %d)", self.identity.name, was
            )
            for follow in list(self.on_follow):
                follow()

    def stop_heartbeat(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def release(self) -> None:
        """Shutting down (the dispatcher stopped): hand the lease back so a follower takes it at
        once."""
        with self._lock:
            mine, self._epoch = self._epoch, None
        if mine is not None:
            try:
                with self._store.transaction() as db:
                    db.execute(
                        "UPDATE dispatcher_lease SET expires_at = 0 WHERE id = 1 AND holder = ? "
                        "AND epoch = ?",
                        (self.identity.name, mine),
                    )
            except Exception:  # noqa: BLE001 - closing: the lease then simply expires
                logger.warning("could not hand back the dispatcher lease", exc_info=True)
