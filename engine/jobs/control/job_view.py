"""The job manager's in-memory view of live jobs, and every read of job rows.

The view (fences, quota counts, possible-live slots of *live* jobs: unresolved or slot-holding)
is rebuilt from the store at start-up (``replay``) and updated only after a write commits; on a
store other frontends share, reads first catch up with the rows they committed (``sync``). The
writes are engine/jobs/control/manager.py (transitions) and engine/jobs/control/job_inserts.py
(admission); both run under this view's lock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.records import FenceKey, JobRecord, from_row
from drydock.engine.store.metastore import MetadataStore, StoreConnection

logger = logging.getLogger(__name__)

# SQL mirror of "not gc_eligible" (is_unresolved OR holds_possible_live_slot): the rows replay
# must load. tests/jobs/test_job_states.py checks it agrees with states.py on every combination.
LIVE_ROWS_SQL = """(
    state IN ('PENDING', 'RUNNING')
    OR (state = 'UNKNOWN' AND force_released = 0)
    OR (state IN ('COMMITTED', 'NOT_COMMITTED')
        AND refresh_state IN ('REQUIRED', 'RUNNING', 'FAILED'))
    OR (possible_live_owned = 1 AND termination_proof = 'NONE' AND force_released = 0)
    OR state NOT IN ('PENDING', 'RUNNING', 'COMMITTED', 'NOT_COMMITTED', 'UNKNOWN')
)"""


class JobView:
    def __init__(self, store: MetadataStore):
        self._store = store
        self._lock = threading.RLock()
        self._live: dict[int, JobRecord] = {}  # unresolved or slot-holding jobs
        self._live_sorted: list[JobRecord] | None = None  # live_jobs() until _live changes
        self._live_ids_by_state: dict[st.MutationState, set[int]] = {}  # live_jobs(*states)
        self._fences: dict[FenceKey, int] = {}
        self._quota_table: Counter[tuple[int, str]] = Counter()
        self._quota_catalog: Counter[int] = Counter()
        self._quota_global = 0
        self._slots: set[int] = set()
        self._progress: dict[int, str] = {}
        self.listeners: list[Callable[[JobRecord], None]] = []  # told after every transition
        self._seen_seq = 0  # the last change sequence number applied to the in-memory view
        self._progress_written: dict[int, float] = {}  # job id → when its progress was last stored

    # -- replay and the in-memory view ------------------------------------------------------------
    def replay(self) -> int:
        seq = self._store.query_one("SELECT value FROM change_counters WHERE name = 'jobs'")
        rows = self._store.query(
            f"SELECT * FROM lance_index_jobs WHERE {LIVE_ROWS_SQL} ORDER BY id"
        )
        with self._lock:
            # rows committed between the two reads are applied again by the next catch-up: harmless
            self._seen_seq = int(seq["value"]) if seq else 0
            self._live.clear()
            self._live_sorted = None
            self._live_ids_by_state.clear()
            self._fences.clear()
            self._quota_table.clear()
            self._quota_catalog.clear()
            self._quota_global = 0
            self._slots.clear()
            for row in rows:
                self._index(from_row(row))
        return len(rows)

    def _index(self, job: JobRecord) -> None:
        facts = job.facts
        if st.is_unresolved(facts):
            self._fences[job.fence] = job.id
            self._quota_table[(job.catalog_id, job.locator)] += 1
            self._quota_catalog[job.catalog_id] += 1
            self._quota_global += 1
        if st.holds_possible_live_slot(facts):
            self._slots.add(job.id)
        if not st.gc_eligible(facts):
            self._live[job.id] = job
            self._live_sorted = None
            self._live_ids_by_state.setdefault(job.state, set()).add(job.id)

    def _unindex(self, job: JobRecord) -> None:
        if st.is_unresolved(job.facts):
            if self._fences.get(job.fence) == job.id:
                del self._fences[job.fence]
            # counts clamp at zero: a release the rebuilt counts never saw must not go negative
            key = (job.catalog_id, job.locator)
            self._quota_table[key] = max(self._quota_table[key] - 1, 0)
            self._quota_catalog[job.catalog_id] = max(self._quota_catalog[job.catalog_id] - 1, 0)
            self._quota_global = max(self._quota_global - 1, 0)
        self._slots.discard(job.id)
        if self._live.pop(job.id, None) is not None:
            self._live_sorted = None
            self._live_ids_by_state.get(job.state, set()).discard(job.id)

    # -- catching up with other frontends ----------------------------------------------------------
    # Every write transaction on a shared store takes the next number of the 'jobs' change counter
    # and stamps the rows it writes with it. Writers are serialised store-wide, so numbers commit in
    # order: a frontend that applied everything up to N is current once it applies the rows stamped
    # above N. Inside a write transaction that makes every admission and transition decide on the
    # latest rows, whichever frontend wrote them; outside, reads on a shared store catch up first.
    def sync(self) -> int:
        """Apply other frontends' committed changes to the in-memory view; how many rows changed."""
        if not self._store.shared:
            return 0  # the store is this process's own: the view is always current
        with self._lock:
            row = self._store.query_one("SELECT value FROM change_counters WHERE name = 'jobs'")
            if row is None or int(row["value"]) <= self._seen_seq:
                return 0
            return self._apply_since(self._store.query, int(row["value"]))

    def _apply_since(self, read: Callable[..., list[Any]], upto: int) -> int:
        rows = read(
            "SELECT * FROM lance_index_jobs WHERE change_seq > ? ORDER BY change_seq",
            (self._seen_seq,),
        )
        for row in rows:
            job = from_row(row)
            old = self._live.get(job.id)
            if old is not None:
                self._unindex(old)
            self._index(job)
            upto = max(upto, int(row["change_seq"]))
        self._seen_seq = upto
        return len(rows)

    def _next_seq(self, db: StoreConnection) -> int:
        """Inside a write transaction (under the lock): this write's number, after catching up.

        A store no other frontend writes (SQLite) has nobody to catch up with and nobody who reads
        the numbers: its writes take none (one statement fewer per admission) and carry the last
        number, which the counter still holds. Catch-up reads only rows past that number, and
        replay loads every live row whatever its number, so nothing is ever missed or re-read."""
        if not self._store.shared:
            return self._seen_seq
        seq = int(
            db.execute(
                "UPDATE change_counters SET value = value + 1 WHERE name = 'jobs' RETURNING value"
            ).fetchone()[0]
        )
        if seq - 1 > self._seen_seq:
            self._apply_since(lambda sql, params: db.execute(sql, params).fetchall(), seq - 1)
        return seq

    # -- reads ------------------------------------------------------------------------------------
    def get(self, job_id: int) -> JobRecord | None:
        self.sync()
        return self._get(job_id)

    def _get(self, job_id: int) -> JobRecord | None:
        with self._lock:
            live = self._live.get(job_id)
        if live is not None:
            return live
        if (
            not 0 <= job_id < 1 << 63
        ):  # ids are SQLite INTEGERs: a larger number is no job (not an OverflowError)
            return None
        row = self._store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (job_id,))
        return from_row(row) if row else None

    def live_jobs(self, *states: st.MutationState) -> list[JobRecord]:
        """Unresolved or slot-holding jobs in id order; only those in ``states`` when given.

        A dispatcher round asks several times and every admission wakes a round: the full list is
        sorted once per change of the live set, and a sweep that needs, say, RUNNING jobs does not
        walk thousands of PENDING ones (admission with the dispatcher paused)."""
        self.sync()
        with self._lock:
            if states:
                ids = sorted(
                    i for state in set(states) for i in self._live_ids_by_state.get(state, ())
                )
                return [self._live[i] for i in ids]
            if self._live_sorted is None:
                self._live_sorted = [self._live[k] for k in sorted(self._live)]
            return list(self._live_sorted)

    def iter_rows(self, where: str = "", params: tuple[Any, ...] = ()) -> Iterator[JobRecord]:
        sql = (
            "SELECT * FROM lance_index_jobs" + (f" WHERE {where}" if where else "") + " ORDER BY id"
        )
        for row in self._store.query(sql, params):
            yield from_row(row)

    def fence_holder(self, fence: FenceKey) -> int | None:
        self.sync()
        with self._lock:
            return self._fences.get(fence)

    def unresolved_in_catalog(self, catalog_id: int) -> int | None:
        self.sync()
        with self._lock:
            ids = [
                j.id
                for j in self._live.values()
                if j.catalog_id == catalog_id and st.is_unresolved(j.facts)
            ]
        return min(ids) if ids else None

    def unresolved_on_table(self, catalog_id: int, locator: str) -> int | None:
        self.sync()
        with self._lock:
            ids = [
                j.id
                for j in self._live.values()
                if j.catalog_id == catalog_id and j.locator == locator and st.is_unresolved(j.facts)
            ]
        return min(ids) if ids else None

    def slots_in_use(self) -> int:
        self.sync()
        with self._lock:
            return len(self._slots)

    def quota_counts(self) -> tuple[dict[tuple[int, str], int], dict[int, int], int]:
        self.sync()
        with self._lock:
            return (dict(+self._quota_table), dict(+self._quota_catalog), self._quota_global)

    def progress(self, job_id: int) -> str:
        with self._lock:
            text = self._progress.get(job_id)
        if text is not None or not self._store.shared:
            return text or ""
        row = self._store.query_one(
            "SELECT text FROM lance_index_job_progress WHERE job_id = ?", (job_id,)
        )
        return str(row["text"]) if row else ""  # the leader's, stored for the other frontends

    def set_progress(self, job_id: int, text: str) -> None:
        with self._lock:
            self._progress[job_id] = text
            if (
                not self._store.shared
                or time.monotonic() - self._progress_written.get(job_id, 0.0) < 1.0
            ):
                return  # other frontends see progress at most a second old; SQLite has no others
            self._progress_written[job_id] = time.monotonic()
            if len(self._progress_written) > 4096:  # bounded: the oldest entries go
                for stale in sorted(self._progress_written, key=self._progress_written.__getitem__)[
                    :1024
                ]:
                    del self._progress_written[stale]
        with self._store.transaction() as db:
            db.execute(
                "INSERT INTO lance_index_job_progress (job_id, text, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(job_id) DO UPDATE SET text = excluded.text, updated_at = "
                "excluded.updated_at",
                (job_id, text, time.time()),
            )

    def _notify(self, job: JobRecord) -> None:
        for listener in list(self.listeners):
            try:
                listener(job)
            except Exception:  # noqa: BLE001 - a listener must never undo a durable transition
                logger.exception("job listener failed")
