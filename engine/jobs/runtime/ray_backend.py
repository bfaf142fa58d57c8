"""The Ray backend (``lance_index_worker_backend = ray``): IVF_PQ builds as Ray tasks.

It implements the dispatcher's Backend (engine/jobs/control/backend.py) and wraps a local
``Supervisor`` for everything that is not a distributed build (scalar indexes, the other ANN
types, DROP), so those keep their cgroup isolation and CHILD_REAPED proofs.
``ray`` is imported only here and only once a Ray build needs it: the embedded default never loads
it.

- Connecting: to ``lance_index_ray_address``; while the head is unreachable a Ray job waits PENDING
  with the reason as its message (nothing admitted is lost) and is dispatched once it answers.
- A build (ray_build.py) runs on its own coordinator thread; CANCEL force-cancels its tasks.
- Proof (issue 16 item 5): a slot is released only when Ray's state API shows every attempt of every
  task of the invocation in a final state and each attempt's worker process not alive — node
  liveness is never used. Tasks run with ``max_calls=1``, so a finished task's worker exits and
  "not alive" is attainable. If Ray cannot say (no dashboard, head gone), the slot stays held; a
  prover thread keeps asking. For an earlier process epoch the tasks are found by their name
  (``drydock-<invocation id>``) and additionally the Ray job (driver) that submitted them must be
  dead, so no further task of that invocation can appear.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key
from drydock.engine.support.lru import Lru
from drydock.engine.jobs.control.backend import (
    LOCAL_BACKEND,
    RAY_BACKEND,
    Backend,
    BackendEvents,
    Dispatch,
    NotEnqueued,
)
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.runtime import ray_tasks
from drydock.engine.jobs.runtime.ray_build import PROOF_WAIT_SECONDS, RayBuild
from drydock.engine.jobs.runtime.supervisor import Supervisor
from drydock.engine.jobs.runtime.worker_spawn import MIN_BUDGET_SECONDS
from drydock.engine.jobs.control.validation import IndexSpec
from drydock.engine.jobs.runtime.worker_env import with_ambient_credentials

logger = logging.getLogger(__name__)
CONNECT_TIMEOUT_SECONDS = 2.0
RECONNECT_SECONDS = 5.0
PROVER_SECONDS = 2.0
FINAL_TASK_STATES = ("FINISHED", "FAILED")
FINISHED_MEMORY = 4096
GCS_RECONNECT_SECONDS = 10 * 365 * 86400


def _unreachable(address: str) -> str | None:
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection(
            (host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_SECONDS
        ).close()
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return f"Ray head {address} is unreachable ({reason})"
    return None


def is_distributed(operation: str, using: str, index_type: str) -> bool:
    return operation in ("CREATE", "REPLACE") and using == "ANN" and index_type == "IVF_PQ"


class RayBackend(Backend):
    def __init__(self, config: Config, events: BackendEvents, epoch: str, log_dir: Path):
        self._config = config
        self.events = events
        self.epoch = epoch
        self.local = Supervisor(config, events, epoch, log_dir)
        self.ray: Any = None  # the ray module, once connected
        self._address = ""
        self._error = ""
        self._next_try = 0.0
        self._lock = threading.Lock()
        self._builds: dict[str, RayBuild] = {}  # invocation → build not yet proven gone
        self._finished: Lru[str, None] = Lru(FINISHED_MEMORY)  # proven over: duplicates are OK
        self._stopping = threading.Event()
        self._prover = threading.Thread(target=self._prove_loop, name="ray-prover", daemon=True)

    # -- the Backend -----------------------------------------------------------------------------
    @property
    def accepting(self) -> bool:
        return self.local.accepting

    def start(self) -> None:
        self.local.start()
        self._prover.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            builds = list(self._builds.values())
        for build in builds:
            build.cancel(stopping=True)
        for build in builds:
            build.thread.join(timeout=10)
        self.local.stop()
        if self._prover.is_alive():
            self._prover.join(timeout=10)

    def status(self) -> dict[str, Any]:
        status = self.local.status()
        with self._lock:
            status["ray_builds"] = len(self._builds)
        return status

    def check_dispatch(self, dispatch: Dispatch) -> None:
        self.local.check_dispatch(dispatch)

    def backend_of(self, dispatch: Dispatch) -> str:
        spec = dispatch.spec or {}
        return (
            RAY_BACKEND
            if is_distributed(
                dispatch.operation, str(spec.get("using", "")), str(spec.get("index_type", ""))
            )
            else LOCAL_BACKEND
        )

    def hold_reason(self, job: JobRecord) -> str | None:
        """Why a Ray job must wait PENDING (the head is not reachable), or None."""
        try:
            spec = IndexSpec.from_json(job.properties)
        except (KeyError, TypeError, ValueError):  # DROP, or nothing to route by: not a Ray job
            return None
        if not is_distributed(job.operation.value, spec.using, spec.index_type):
            return None
        error = self.connect() or self._head_gone()
        return (
            None
            if error is None
            else f"waiting: {error}; the job is dispatched once the Ray head answers"
        )

    def _head_gone(self) -> str | None:
        """Connected earlier, but is the head still there? Checked before each Ray dispatch so a job
        waits PENDING through a head outage instead of failing at its first task."""
        return _unreachable(self._address)

    def submit(self, dispatch: Dispatch, deadline_ms: int) -> None:
        if self.backend_of(dispatch) != RAY_BACKEND:
            self.local.submit(dispatch, deadline_ms)
            return
        with self._lock:
            if dispatch.invocation_id in self._builds or dispatch.invocation_id in self._finished:
                return  # idempotent duplicate
        if self._stopping.is_set():
            raise NotEnqueued("supervisor is stopping")
        error = self.connect()
        if error is not None:
            raise NotEnqueued(error)
        budget = min(
            float(self._config.get(Key.LANCE_INDEX_WORKER_WALLCLOCK_LIMIT_SECONDS)),
            deadline_ms / 1000
            - time.time()
            - float(self._config.get(Key.LANCE_INDEX_WORKER_REPORT_MARGIN_SECONDS)),
        )
        if budget <= MIN_BUDGET_SECONDS:
            raise NotEnqueued(f"deadline leaves {budget:.1f}s, too little to build")
        dispatch.storage_options = with_ambient_credentials(
            dispatch.uri, dispatch.storage_options, os.environ
        )
        build = RayBuild(self, dispatch, budget, os.environ.get("DRYDOCK_FAULT_RAY_MODE", ""))
        with self._lock:
            self._builds[dispatch.invocation_id] = build
        build.thread.start()

    def cancel(self, invocation_id: str) -> bool:
        with self._lock:
            build = self._builds.get(invocation_id)
        if build is None:
            return self.local.cancel(invocation_id)
        build.cancel()
        return True

    # -- Ray
    # --------------------------------------------------------------------------------------------
    def connect(self) -> str | None:
        """Connect once (lazily); None when connected, else why not (retried every few seconds)."""
        with self._lock:
            if self.ray is not None:
                return None
            if time.monotonic() < self._next_try:
                return self._error
            self._next_try = time.monotonic() + RECONNECT_SECONDS
            self._error = (
                self._try_connect(str(self._config.get(Key.LANCE_INDEX_RAY_ADDRESS)).strip()) or ""
            )
            return self._error or None

    def _try_connect(self, address: str) -> str | None:
        if not address:
            return "lance_index_ray_address is not set"
        unreachable = _unreachable(address)
        if unreachable:
            return unreachable
        try:
            import ray
            from ray import cloudpickle

            cloudpickle.register_pickle_by_value(ray_tasks)  # Ray nodes need pylance, not drydock
            # Ray's core worker ends its whole process once the head (GCS) has been unreachable for
            # gcs_rpc_server_reconnect_timeout_s (60 s by default; measured) — here that process is
            # the
            # frontend. A head outage must only hold Ray jobs PENDING, never take the server down.
            os.environ.setdefault(
                "RAY_gcs_rpc_server_reconnect_timeout_s", str(GCS_RECONNECT_SECONDS)
            )
            ray.init(
                address=address,
                namespace="drydock",
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        except Exception as exc:  # noqa: BLE001 - reported as the hold reason, retried later
            return f"cannot connect to the Ray head {address} ({type(exc).__name__})"
        self.ray, self._address = ray, address
        logger.info("connected to the Ray cluster at %s", address)
        return None

    def segment_count(self) -> int:
        configured = int(self._config.get(Key.LANCE_INDEX_RAY_SEGMENTS))
        return (
            configured
            if configured > 0
            else max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        )

    def submit_task(self, build: RayBuild, function: Any, *args: Any) -> Any:
        # max_calls=1: the worker process exits after its task, so "its worker is not alive" can
        # prove it over
        remote = self.ray.remote(max_calls=1)(function).options(
            name=build.task_name,
            max_retries=0,
            retry_exceptions=False,
            num_cpus=1,
            memory=int(self._config.get(Key.LANCE_INDEX_RAY_TASK_MEMORY_BYTES)),
        )
        ref = remote.remote(*args)
        build.task_ids.add(ref.task_id().hex())
        return ref

    # -- proofs
    # -----------------------------------------------------------------------------------------
    def settle(self, build: RayBuild, keep_segments: bool) -> None:
        """After the result: prove the tasks gone (waiting a little for Ray's task events), then
        release the slot; the prover thread takes over if Ray cannot say yet."""
        build.keep_segments = keep_segments
        deadline = time.monotonic() + PROOF_WAIT_SECONDS
        while not self._stopping.is_set() and time.monotonic() < deadline:
            if self._release_if_proven(build):
                return
            time.sleep(0.5)

    def _release_if_proven(self, build: RayBuild) -> bool:
        proof = build.proof()
        if proof is None:
            return False
        if not build.keep_segments:
            build.remove_segments()
        with self._lock:
            self._builds.pop(build.d.invocation_id, None)
            self._finished.put(build.d.invocation_id, None)
        self.events.on_exit(
            build.d.job_id,
            build.d.invocation_id,
            proof,
            f"{proof.value} ({len(build.task_ids)} tasks)",
        )
        return True

    def _prove_loop(self) -> None:
        while not self._stopping.wait(PROVER_SECONDS):
            with self._lock:
                waiting = [b for b in self._builds.values() if not b.thread.is_alive()]
            for build in waiting:
                try:
                    self._release_if_proven(build)
                except Exception:  # the prover must survive; unproven stays held
                    logger.exception("proving job %s's Ray tasks gone failed", build.d.job_id)

    def tasks_ended(self, name: str, expected: set[str] | None) -> bool:
        """Ray's own word that every task named ``name`` is over and its worker process gone.
        ``expected``: the task ids this process submitted; None for an earlier epoch's invocation,
        whose submitting driver must then be dead too. Anything Ray cannot answer is False."""
        if self.connect() is not None:
            return False
        try:
            from ray.util import state

            tasks = state.list_tasks(
                filters=[("name", "=", name)],
                detail=True,
                limit=10000,
                raise_on_missing_output=False,
                timeout=10,
            )
            if not tasks or (expected is not None and not expected <= {t.task_id for t in tasks}):
                return False
            if any(t.state not in FINAL_TASK_STATES for t in tasks):
                return False
            for task in tasks:
                if task.worker_pid and not self._worker_dead(
                    state, int(task.worker_pid), str(task.node_id)
                ):
                    return False
            return expected is not None or self._drivers_dead(state, {str(t.job_id) for t in tasks})
        except Exception as exc:  # noqa: BLE001 - no answer is no proof
            logger.info("Ray state API gave no answer for %s: %s", name, type(exc).__name__)
            return False

    @staticmethod
    def _worker_dead(state: Any, pid: int, node_id: str) -> bool:
        workers = state.list_workers(
            filters=[("pid", "=", pid), ("node_id", "=", node_id)],
            detail=True,
            raise_on_missing_output=False,
            timeout=10,
        )
        return bool(workers) and not any(w.is_alive for w in workers)

    @staticmethod
    def _drivers_dead(state: Any, job_ids: set[str]) -> bool:
        for job_id in job_ids:
            jobs = state.list_jobs(
                filters=[("job_id", "=", job_id)], raise_on_missing_output=False, timeout=10
            )
            if not jobs or any(
                str(getattr(j.status, "value", j.status)) in ("PENDING", "RUNNING") for j in jobs
            ):
                return False
        return True

    def earlier_run_gone(self, job: JobRecord, worker: tuple[int, int | None] | None) -> bool:
        """An earlier epoch's Ray invocation, proven over from Ray's state API (see the module
        doc); a local one as the local supervisor proves it."""
        if job.backend_id != RAY_BACKEND:
            return self.local.earlier_run_gone(job, worker)
        return self.tasks_ended(f"drydock-{job.invocation_id}", None)

    # -- SHOW BACKENDS
    # ----------------------------------------------------------------------------------
    def nodes(self) -> tuple[list[dict[str, Any]], str]:
        """The Ray nodes (host, alive, CPUs, memory, running tasks), or why they cannot be
        listed."""
        error = self.connect() or self._head_gone()
        if error is not None:
            return [], error
        try:
            from ray.util import state

            running: dict[str, int] = {}
            for task in state.list_tasks(
                filters=[("state", "=", "RUNNING")],
                limit=10000,
                raise_on_missing_output=False,
                timeout=10,
            ):
                running[str(task.node_id)] = running.get(str(task.node_id), 0) + 1
            rows = []
            for node in state.list_nodes(detail=True, raise_on_missing_output=False, timeout=10):
                total = node.resources_total or {}
                rows.append(
                    {
                        "node_id": node.node_id,
                        "host": node.node_ip,
                        "alive": node.state == "ALIVE",
                        "head": bool(node.is_head_node),
                        "cpus": int(total.get("CPU", 0)),
                        "memory": int(total.get("memory", 0)),
                        "running": running.get(node.node_id, 0),
                    }
                )
            return rows, ""
        except Exception as exc:  # noqa: BLE001 - SHOW must answer even when Ray cannot
            return [], f"Ray state API unavailable ({type(exc).__name__})"
