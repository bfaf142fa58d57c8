"""The job manager's records of worker processes (table lance_index_workers): which process,
cgroup, host and frontend ran an invocation, written at the worker's fork barrier and read to prove
an earlier run gone.
"""

from __future__ import annotations

from collections.abc import Callable

from drydock.engine.store.metastore import MetadataStore, StoreConnection
from drydock.engine.support.host import host_id


class WorkerRecords:
    """Part of the job manager (engine/jobs/control/manager.py), which sets these attributes."""

    _store: MetadataStore
    fence: Callable[[StoreConnection], None] | None
    frontend_name: str

    def record_worker(
        self,
        job_id: int,
        invocation_id: str,
        pid: int,
        start_ticks: int | None,
        cgroup: str,
        epoch: str,
    ) -> None:
        """The worker's record, written at its fork barrier, before it is released. Fenced: a
        frontend
        that lost the lease meanwhile raises NotLeader here and the worker is killed unreleased, so
        "no record" keeps proving "never released" to the new leader."""
        with self._store.transaction() as db:
            if self.fence is not None:
                self.fence(db)
            db.execute(
                "INSERT INTO lance_index_workers (job_id, invocation_id, pid, start_ticks, cgroup, "
                "epoch, "
                "host, frontend) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(job_id, "
                "invocation_id) DO UPDATE "
                "SET pid = excluded.pid, start_ticks = excluded.start_ticks, cgroup = "
                "excluded.cgroup, "
                "epoch = excluded.epoch, host = excluded.host, frontend = excluded.frontend",
                (
                    job_id,
                    invocation_id,
                    pid,
                    start_ticks,
                    cgroup,
                    epoch,
                    host_id(),
                    self.frontend_name,
                ),
            )

    def worker_of(self, job_id: int, invocation_id: str) -> tuple[int, int | None] | None:
        row = self._store.query_one(
            "SELECT pid, start_ticks FROM lance_index_workers WHERE job_id = ? "
            "AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return (int(row["pid"]), row["start_ticks"]) if row else None

    def worker_frontend(self, job_id: int, invocation_id: str) -> str | None:
        """The frontend whose dispatcher spawned the worker ('' before migration 8); None: no
        worker."""
        row = self._store.query_one(
            "SELECT frontend FROM lance_index_workers WHERE job_id = ? AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return None if row is None else str(row["frontend"])

    def worker_host(self, job_id: int, invocation_id: str) -> str | None:
        """The host the worker was recorded on ('' = this host, before migration 7); None: no
        worker."""
        row = self._store.query_one(
            "SELECT host FROM lance_index_workers WHERE job_id = ? AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return None if row is None else str(row["host"])
