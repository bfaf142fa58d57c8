"""The dispatcher: drives Lance index jobs from PENDING to an outcome through a backend
(engine/jobs/control/backend.py; the composition root chooses which, this module imports none).

Woken by admission, worker results/exits, cancel and config changes (event driven: a PENDING job
reaches the backend within milliseconds); a periodic round still runs the sweeps. Round order:
deadline sweep → termination-proof sweep → evidence reconciliation → refresh driver → dispatch.

Durable before send: the dispatch is built while the job is still PENDING, from what admission
stored with it (bounds, spec, schema contract, pinned version); a failure there leaves it PENDING,
retried with capped exponential backoff within a configurable window (prepare_retry.py) with the
reason as its Message. Then ``mark_running``
(invocation id, pre-assigned index uuid, deadline, process epoch) commits before the backend
sees a byte, and each job is submitted exactly once. A job on a local dataset waits PENDING, and
says why, while enable_lance_index_local_file_mutation is off or while its store has several alive
frontends and its catalog does not declare a shared file system (local_dispatch.py).
The pause switch is a hard barrier: setting it waits for an in-flight dispatch step to
finish, and every step re-checks it under the same lock.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drydock.engine.support.faults import pause_point
from drydock.engine.support.host import host_id
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.admission import is_local
from drydock.engine.jobs.control.backend import (
    RAY_BACKEND,
    Backend,
    BackendFactory,
    Dispatch,
    NotEnqueued,
    ProtocolError,
    WorkerResult,
)
from drydock.engine.jobs.control.local_dispatch import local_hold_reason
from drydock.engine.jobs.control.prepare_retry import retry_delay
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.reconcile import reconcile_job
from drydock.engine.jobs.control.refresh import due_refreshes, refresh_job
from drydock.engine.jobs.control.validation import IndexSpec
from drydock.engine.lakehouse.catalogs.lance_fs import shared_filesystem
from drydock.engine.support.config_keys import Key

if TYPE_CHECKING:
    from drydock.engine.security.audit import AuditLog
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager
    from drydock.engine.store.config import Config
    from drydock.engine.jobs.control.manager import JobManager
    from drydock.engine.support.metrics import Metrics

logger = logging.getLogger(__name__)


class PrepareError(Exception):
    """The dispatch could not be built; ``permanent`` when retrying cannot help."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Prepared:
    """A PENDING job and the dispatch built for it, before the durable RUNNING mark."""

    job: JobRecord
    dispatch: Dispatch
    deadline_ms: int


class Dispatcher:
    def __init__(
        self,
        *,
        jobs: JobManager,
        config: Config,
        catalogs: CatalogManager,
        metrics: Metrics,
        audit: AuditLog,
        backends: BackendFactory,
        epoch: str,
        alive_frontends: Callable[[], int] = lambda: 1,
    ):
        self._jobs = jobs
        self._config = config
        self._catalogs = catalogs
        self._metrics = metrics
        self._audit = audit  # evidence reconciliation audits what it settled
        self.epoch = epoch
        self._backends = backends
        self._alive_frontends = alive_frontends  # frontends heartbeating on this store
        self._alive_this_round: int | None = None  # read once a round, and only for a local job
        self.backend: Backend = backends(self, epoch)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._gate = (
            threading.Lock()
        )  # held while deciding and marking one dispatch (pause barrier)
        self._thread: threading.Thread | None = None
        self._stopped = False  # stopped once: a later start (the lease regained) is a new epoch
        jobs.listeners.append(self._on_job)
        config.on_change(self._on_config)
        self._retry_at: dict[int, float] = {}  # job id → monotonic time its next preparation is due
        # Background rounds finished (SHOW BACKENDS DispatcherRounds): the positive signal that the
        # dispatcher looked at everything admitted before a round began, e.g. while it is paused.
        self.rounds = 0

    # -- lifecycle
    # ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start dispatching (this frontend holds the dispatcher lease). After a stop, a new process
        epoch and backend: the jobs the last run left RUNNING are adopted like a restart's."""
        if self.running:
            return
        if self._stopped:
            self.epoch = uuid.uuid4().hex
            self.backend = self._backends(self, self.epoch)
            self._stop.clear()
        self.backend.start()
        self._adopt_earlier_epochs()
        self._thread = threading.Thread(target=self._run, name="lance-job-dispatcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop dispatching and kill this run's workers (shutdown, or the lease lost: their results
        could not be written any more; the new leader settles their jobs by evidence)."""
        self._stop.set()
        self._wake.set()
        if (
            self._thread is not None
            and self._thread.is_alive()
            and self._thread is not threading.current_thread()
        ):
            self._thread.join(timeout=10)
        self.backend.stop()
        self._stopped = True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wake(self) -> None:
        self._wake.set()

    def _on_job(self, job: JobRecord) -> None:
        # A job that waits PENDING while dispatching is paused gives a round nothing to do (an
        # admission burst would wake one per job); resuming wakes the round that dispatches it.
        if job.state is st.MutationState.PENDING and self._paused():
            return
        self.wake()

    def _on_config(self, name: str, value: object) -> None:
        if (name == "lance_index_job_dispatcher_paused" and value) or (
            name == "enable_lance_index_local_file_mutation" and not value
        ):
            with self._gate:  # wait out a dispatch step in progress; later steps see the new value
                pass
        self.wake()

    def _paused(self) -> bool:
        return bool(self._config.get(Key.LANCE_INDEX_JOB_DISPATCHER_PAUSED))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.round()
            except Exception:  # noqa: BLE001 - the dispatcher must survive a bad round
                logger.exception("dispatcher round failed")
            self.rounds += 1  # only this thread writes it
            interval = min(
                float(self._config.get(Key.LANCE_INDEX_JOB_DISPATCH_INTERVAL_SECOND)), 10.0
            )
            self._wake.wait(timeout=min(interval, self._next_retry_in()))
            self._wake.clear()

    # -- one round
    # --------------------------------------------------------------------------------------
    def round(self) -> None:
        jobs = self._jobs
        now_ms = int(time.time() * 1000)
        for job in jobs.live_jobs(
            st.MutationState.RUNNING
        ):  # 1. deadline sweep (slot, fence and quota stay held)
            if (
                job.state is st.MutationState.RUNNING
                and job.deadline_ms is not None
                and job.deadline_ms <= now_ms
            ):
                jobs.expire(job.id, now_ms)
        self._prove_earlier_epochs()  # 2. termination-proof sweep
        for job in jobs.live_jobs(
            st.MutationState.UNKNOWN
        ):  # 3. evidence for UNKNOWN jobs whose worker is proven gone
            if (
                job.state is st.MutationState.UNKNOWN
                and not job.force_released
                and not st.holds_possible_live_slot(job.facts)
            ):
                reconcile_job(jobs, self._catalogs, self._audit, job)
        for job in due_refreshes(jobs, self._config):  # 4. refresh driver (FIFO)
            refresh_job(jobs, self._catalogs, job)
        self._dispatch_pending()  # 5.

    def _dispatch_pending(self) -> None:
        jobs, config = self._jobs, self._config
        if self._paused():
            return
        budget = int(config.get(Key.LANCE_INDEX_JOB_MAX_DISPATCH_PER_ROUND))
        self._alive_this_round = None
        pending = jobs.live_jobs(st.MutationState.PENDING)
        self._retry_at = {i: t for i, t in self._retry_at.items() if i in {j.id for j in pending}}
        for job in pending:
            if budget <= 0 or self._stop.is_set():
                return
            if (
                job.state is not st.MutationState.PENDING
                or self._held(job)
                or not self._retry_due(job)
            ):
                continue
            # capacity is re-read for every job, so a slot freed by a NOT_ENQUEUED rejection is
            # reclaimed in the same round
            if jobs.slots_in_use() >= int(config.get(Key.LANCE_INDEX_JOB_MAX_INFLIGHT_PER_BACKEND)):
                return
            prepared = self._prepare(job)  # before RUNNING: a failure here leaves the job PENDING
            if prepared is None:
                continue
            pause_point("between_prepare_and_mark_running")
            with self._gate:
                if self._paused():
                    return
                if self._held(job):  # the switch may have been turned off since the first look
                    continue
                running = self._mark_running(prepared)
            if running is None:
                continue
            pause_point("between_mark_running_and_submit")
            if self._send(running, prepared.dispatch):
                budget -= 1  # a dispatch proven never enqueued costs no budget either

    def _held(self, job: JobRecord) -> bool:
        """A job that must wait PENDING (local_dispatch.py, or the backend's reason) says why."""
        reason = self._local_hold(job) or self.backend.hold_reason(job)  # e.g. Ray unreachable
        if reason:
            self._jobs.note_pending(job.id, reason)
        return bool(reason)

    def _local_hold(self, job: JobRecord) -> str | None:
        if not is_local(job.locator):
            return None
        switch_on = bool(self._config.get(Key.ENABLE_LANCE_INDEX_LOCAL_FILE_MUTATION))
        record = self._catalogs.by_id(job.catalog_id)  # gone: preparation says so, permanently
        shared = record is not None and shared_filesystem(record.properties)
        if switch_on and not shared and self._alive_this_round is None:
            self._alive_this_round = self._alive_frontends()
        return local_hold_reason(
            local=True,
            switch_on=switch_on,
            alive_frontends=self._alive_this_round or 0,
            shared_filesystem=shared,
        )

    def _retry_due(self, job: JobRecord) -> bool:
        return job.dispatch_attempts == 0 or time.monotonic() >= self._retry_at.get(job.id, 0.0)

    def _next_retry_in(self) -> float:
        """Seconds until the next preparation retry falls due (one already due waits for capacity,
        whose release wakes the round anyway)."""
        now = time.monotonic()
        return min((t - now for t in self._retry_at.values() if t > now), default=float("inf"))

    def _prepare(self, job: JobRecord) -> Prepared | None:
        """Everything the send needs, built while the job is still PENDING (nothing durable yet)."""
        deadline_ms = int(
            (time.time() + float(self._config.get(Key.LANCE_INDEX_JOB_EXECUTE_DEADLINE_SECOND)))
            * 1000
        )
        try:
            dispatch = self.build_dispatch(job, uuid.uuid4().hex, str(uuid.uuid4()))
            self.backend.check_dispatch(dispatch)  # the caps, checked now rather than after RUNNING
        except Exception as exc:  # noqa: BLE001 - nothing is durable and nothing was sent
            self._preparation_failed(job, exc)
            return None
        if job.message:  # a hold or failure reason from an earlier look no longer applies
            job = self._jobs.note_pending(job.id, "") or job
        return Prepared(job, dispatch, deadline_ms)

    def _preparation_failed(self, job: JobRecord, exc: Exception) -> None:
        """Capped exponential backoff within the retry window; a permanent failure, or one whose
        next try would fall outside the window, ends NOT_COMMITTED."""
        why = (
            str(exc) if isinstance(exc, (PrepareError, ProtocolError)) else type(exc).__name__
        )  # no library text
        attempt = job.dispatch_attempts + 1
        logger.warning("job %s: dispatch preparation failed (attempt %s): %s", job.id, attempt, why)
        permanent = isinstance(exc, ProtocolError) or (
            isinstance(exc, PrepareError) and exc.permanent
        )
        window = float(self._config.get(Key.LANCE_INDEX_JOB_DISPATCH_RETRY_WINDOW_SECOND))
        delay = None if permanent else retry_delay(attempt, window)
        if delay is None:
            self._retry_at.pop(job.id, None)
            self._jobs.reject_pending(
                job.id,
                f"dispatch could not be prepared ({attempt} attempt{'s' if attempt > 1 else ''}): "
                f"{why}",
            )
            return
        self._retry_at[job.id] = time.monotonic() + delay
        self._jobs.note_pending(
            job.id,
            f"dispatch preparation failed (attempt {attempt}): {why}; the job stays PENDING and "
            f"is retried in {delay:g} s (for up to {window:g} s after the first failure)",
            failed_attempt=True,
        )

    def _mark_running(self, prepared: Prepared) -> JobRecord | None:
        job, dispatch = prepared.job, prepared.dispatch
        running = self._jobs.mark_running(
            job.id,
            invocation_id=dispatch.invocation_id,
            index_uuid=dispatch.index_uuid,
            deadline_ms=prepared.deadline_ms,
            process_epoch=self.epoch,
            backend_id=self.backend.backend_of(dispatch),
            expected_revision=job.revision,
        )
        if running is not None:
            self._retry_at.pop(job.id, None)
        return running

    def _send(self, job: JobRecord, dispatch: Dispatch) -> bool:
        """Exactly one submit; True when it was enqueued. A clean rejection proves NOT_ENQUEUED;
        anything else is ambiguous: UNKNOWN."""
        try:
            self.backend.submit(dispatch, job.deadline_ms or 0)
        except NotEnqueued as exc:
            self._jobs.not_enqueued(job.id, job.invocation_id, str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - ambiguous: the worker may or may not run
            logger.exception("dispatch of job %s failed ambiguously", job.id)
            self._jobs.mark_unknown(job.id, f"dispatch failed: {type(exc).__name__}")
        return True

    def build_dispatch(self, job: JobRecord, invocation_id: str, index_uuid: str) -> Dispatch:
        """From what admission stored with the job (bounds, spec, contract, pinned version); only
        the storage options (credentials) are read now."""
        record = self._catalogs.by_id(job.catalog_id)
        if record is None:  # catalog ids are never reused: it will not come back
            raise PrepareError("the job's catalog no longer exists", permanent=True)
        if job.max_num_partitions <= 0 or job.max_num_sub_vectors <= 0:
            raise PrepareError("the job carries no admission-time bounds", permanent=True)
        spec = (
            IndexSpec.from_json(job.properties)
            if job.operation is not st.MutationType.DROP
            else None
        )
        contract = json.loads(job.schema_contract)
        connector = self._catalogs.lance_connector(record.name)
        return Dispatch(
            job_id=job.id,
            invocation_id=invocation_id,
            operation=job.operation.value,
            uri=job.locator,
            storage_options=connector.storage_options(),
            admitted_version=job.admitted_version,
            index_name=job.index_name,
            index_uuid=index_uuid,
            column=job.column_name,
            spec={"using": spec.using, "index_type": spec.index_type, "params": spec.params}
            if spec
            else {},
            schema_contract=contract,
            max_num_partitions=job.max_num_partitions,
            max_num_sub_vectors=job.max_num_sub_vectors,
            wall_clock_seconds=0.0,
        )

    def cancel(self, job: JobRecord) -> bool:
        return self.backend.cancel(job.invocation_id)

    # -- backend events (BackendEvents) ----------------------------------------------------------
    def on_spawned(
        self, job_id: int, invocation_id: str, pid: int, start_ticks: int | None, cgroup: str
    ) -> None:
        self._jobs.record_worker(job_id, invocation_id, pid, start_ticks, cgroup, self.epoch)

    def on_progress(self, job_id: int, invocation_id: str, text: str) -> None:
        self._jobs.set_progress(job_id, text)

    def on_result(self, job_id: int, invocation_id: str, result: WorkerResult) -> None:
        if result.external_metadata_advanced:
            self._forget_cached_table(job_id)
        done = self._jobs.complete_with_result(
            job_id, invocation_id, result.code, result.message, result.external_metadata_advanced
        )
        if done is not None:
            self._metrics.job_seconds.labels(done.operation.value, done.state.value).observe(
                max(time.time() - done.created_at, 0.0)
            )
        self.wake()

    def _forget_cached_table(self, job_id: int) -> None:
        """Drop the job's table from the catalog cache before its outcome is recorded, so that a
        client that sees COMMITTED and then queries reads the version with the new index (the
        refresh obligation still runs, and is what DONE waits for; this is only a head start)."""
        job = self._jobs.get(job_id)
        record = None if job is None else self._catalogs.by_id(job.catalog_id)
        if job is None or record is None:
            return
        try:
            self._catalogs.refresh(record.name, job.db, job.tbl)
        except Exception as exc:  # noqa: BLE001 - the refresh obligation retries it
            logger.warning("cache drop for job %s failed: %s", job_id, type(exc).__name__)

    def on_exit(
        self, job_id: int, invocation_id: str, proof: st.TerminationProof | None, detail: str
    ) -> None:
        jobs = self._jobs
        job = jobs.get(job_id)
        self._metrics.worker_exits.labels(proof.value if proof else "UNPROVEN").inc()
        if (
            job is not None
            and job.state is st.MutationState.RUNNING
            and job.invocation_id == invocation_id
        ):
            jobs.mark_unknown(job_id, f"worker ended without a trusted result ({detail})")
        if proof is not None:
            jobs.record_termination_proof(job_id, proof, invocation_id)
        self.wake()

    # -- earlier process epochs
    # ------------------------------------------------------------------------
    def _adopt_earlier_epochs(self) -> None:
        """A durable RUNNING without a matching result from an earlier process becomes UNKNOWN."""
        for job in self._jobs.live_jobs():
            if job.state is st.MutationState.RUNNING and job.process_epoch != self.epoch:
                self._jobs.mark_unknown(job.id, "server restarted while the job was running")
            if job.refresh_state is st.RefreshState.RUNNING:  # only this process runs refreshes
                self._jobs.refresh_interrupted(job.id)

    def _prove_earlier_epochs(self, spawned_by: str | None = None) -> None:
        """Release a slot of an earlier epoch only once its worker is proven gone (fail closed).
        ``spawned_by``: only workers that frontend's earlier runs spawned (a follower proves its
        own)."""
        # every live state but PENDING: the slot is taken at PENDING → RUNNING
        for job in self._jobs.live_jobs(
            st.MutationState.RUNNING,
            st.MutationState.COMMITTED,
            st.MutationState.NOT_COMMITTED,
            st.MutationState.UNKNOWN,
        ):
            if not st.holds_possible_live_slot(job.facts) or job.process_epoch == self.epoch:
                continue
            if spawned_by is not None and (
                job.backend_id == RAY_BACKEND
                or job.state is st.MutationState.RUNNING
                or self._jobs.worker_frontend(job.id, job.invocation_id) != spawned_by
            ):
                continue  # RUNNING: the leader has not adopted it yet; Ray: the leader's to prove
            if self._earlier_worker_gone(job):
                self._jobs.record_termination_proof(
                    job.id, st.TerminationProof.BE_PROCESS_EPOCH_GONE
                )

    def prove_own_earlier_workers(self, frontend_name: str) -> None:
        """On a follower: the workers this frontend spawned before it restarted (or lost the lease)
        are on this host, so only this frontend can prove them gone (issue 16, item 3)."""
        if not self.running:
            self._prove_earlier_epochs(spawned_by=frontend_name)

    def _earlier_worker_gone(self, job: JobRecord) -> bool:
        if job.backend_id != RAY_BACKEND:
            host = self._jobs.worker_host(job.id, job.invocation_id)
            if host not in (None, "", host_id()):
                # Another host's worker (a shared store): its pid means nothing here. Only that
                # host's frontend, restarted, can prove it gone, or an operator's FORCE_RELEASE.
                return False
        return self.backend.earlier_run_gone(job, self._jobs.worker_of(job.id, job.invocation_id))
