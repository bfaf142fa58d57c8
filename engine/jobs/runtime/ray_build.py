"""One distributed IVF_PQ build, coordinated from this frontend (a thread per build,
ray_backend.py).

Train once (one task on a sample) → one segment task per fragment group, in parallel, each with its
own deterministic uuid (ray_tasks.segment_uuid) → one merge task joins the segments into one (a
search opens one index, not one per segment: as fast as a single-node build) and its folder is
moved to the job's uuid (segment_files.relocate_segment) → **one** commit here, from the pinned
version, then ``num_rows_indexed`` is checked (a compaction between build and commit leaves an
index over 0 rows). Ray's retries are off (``max_retries=0``); drydock retries a failed segment
itself, under the same uuid, so a re-run overwrites its folder. A segment that still fails, a
cancel or the wall clock ends the build *before* the commit: nothing is committed (only this
coordinator commits), the result is typed, the other tasks are force-cancelled (a plain cancel does
not interrupt pylance). A failed task's Message carries its exception's text, secrets masked.

The slot is released only with Ray's own proof (every attempt final, its worker process dead);
only then are a failed build's segment folders removed (a live task could still write them).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from drydock.engine.jobs.runtime import ray_tasks
from drydock.engine.jobs.runtime.segment_files import (
    can_relocate,
    relocate_segment,
    remove_segments,
)
from drydock.engine.security.redact import redact_text, secret_values
from drydock.engine.jobs.control.backend import BackendEvents, Dispatch, WorkerResult
from drydock.engine.jobs.control.states import ResultCode, TerminationProof

logger = logging.getLogger(__name__)
SEGMENT_ATTEMPTS = 2  # drydock's retry policy: a failed segment runs once more under the same uuid
POLL_SECONDS = 0.2
CAUSE_CHARS = 300  # a failed task's exception text in the Message, at most
PROOF_WAIT_SECONDS = 30.0  # then the backend's prover thread keeps asking Ray


class BuildHost(Protocol):
    """What a build needs from the backend that coordinates it (ray_backend.RayBackend)."""

    events: BackendEvents
    ray: Any  # the connected ray module

    def segment_count(self) -> int: ...

    def submit_task(self, build: RayBuild, function: Any, *args: Any) -> Any:
        """Submit ``function`` as one task of ``build`` (its id recorded for the proof)."""

    def settle(self, build: RayBuild, keep_segments: bool) -> None:
        """After the result: prove the build's tasks gone, then release its slot."""

    def tasks_ended(self, name: str, expected: set[str] | None) -> bool: ...


class BuildFailed(Exception):
    """The build ended before its commit; ``code`` says how (never inferred from text)."""

    def __init__(self, code: ResultCode, message: str):
        super().__init__(message)
        self.code = code


@dataclass
class Segment:
    number: int
    uuid: str
    fragments: list[int]
    attempts: int = 0
    ref: Any = None
    result: dict[str, Any] | None = None


@dataclass
class Timings:
    train: float = 0.0
    encode: float = 0.0
    merge: float = 0.0
    commit: float = 0.0
    rows: int = 0
    segment_seconds: list[float] = field(default_factory=list)


class RayBuild:
    def __init__(self, backend: BuildHost, dispatch: Dispatch, budget_seconds: float, fault: str):
        self.backend = backend
        self.d = dispatch
        self.task_name = f"drydock-{dispatch.invocation_id}"
        self.task_ids: set[str] = (
            set()
        )  # every task this build submitted (each retry is a new task)
        self.segments: list[Segment] = []
        self.merged_uuid = ""  # the merge task's own folder until it is moved to the job's uuid
        self.merge_note = ""  # why the segments were committed unmerged, if they were
        self.timings = Timings()
        self._cancelled = threading.Event()
        self._stopping = False
        self._kill_at = time.monotonic() + budget_seconds
        self._fault = fault
        self._pending: list[Any] = []
        self.keep_segments = True  # False once the build ended without a commit: remove its folders
        self.thread = threading.Thread(
            target=self.run, name=f"ray-build-{dispatch.job_id}", daemon=True
        )

    def cancel(self, stopping: bool = False) -> None:
        """CANCEL, or (``stopping``) the frontend shutting down — which is not the user's cancel."""
        self._stopping = self._stopping or stopping
        self._cancelled.set()

    # -- the build
    # ------------------------------------------------------------------------------------
    def run(self) -> None:
        result: WorkerResult | None
        try:
            result = self._execute()
        except BuildFailed as exc:
            self._force_cancel()
            result = WorkerResult(exc.code, str(exc), self._advanced())
        except Exception as exc:  # e.g. Ray lost; before the commit nothing was committed
            logger.warning(
                "job %s: distributed build failed: %s",
                self.d.job_id,
                type(exc).__name__,
                exc_info=True,
            )
            self._force_cancel()
            result = WorkerResult(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"distributed build failed before commit: {self._failure_text(exc)}",
                self._advanced(),
            )
        if result is not None:
            self.backend.events.on_result(self.d.job_id, self.d.invocation_id, result)
        else:  # the commit may or may not have happened: UNKNOWN now, the evidence rules settle it
            self.backend.events.on_exit(
                self.d.job_id,
                self.d.invocation_id,
                None,
                "distributed build ended without a trusted result",
            )
        self.backend.settle(
            self, keep_segments=result is None or result.code is ResultCode.NATIVE_OK
        )

    def _execute(self) -> WorkerResult | None:
        import lance

        from drydock.engine.jobs.worker import (
            contract_holds,
            latest_version,
            open_error_text,
            pinned_open_failed,
        )

        d = self.d
        try:
            dataset = lance.dataset(
                d.uri, version=d.admitted_version, storage_options=d.storage_options or None
            )
        except Exception as exc:  # noqa: BLE001 - the code is decided by the version seen (worker.py)
            return pinned_open_failed(d, latest_version(d), open_error_text(d, exc))
        if int(dataset.version) != d.admitted_version or not contract_holds(d, dataset):
            return WorkerResult(
                ResultCode.PRE_INVOCATION_STALE_ADMISSION,
                "schema contract changed",
                self._advanced(),
            )
        params = dict(d.spec.get("params", {}))
        if (
            int(params.get("num_partitions") or 0) > d.max_num_partitions
            or int(params.get("num_sub_vectors") or 0) > d.max_num_sub_vectors
        ):
            return WorkerResult(
                ResultCode.PRE_INVOCATION_RESOURCE_REJECTED,
                "dispatch exceeds its admission-time bounds",
                False,
            )
        fragments = [(f.fragment_id, f.count_rows()) for f in dataset.get_fragments()]
        groups = ray_tasks.fragment_groups(fragments, self.backend.segment_count())
        self.segments = [
            Segment(i, ray_tasks.segment_uuid(d.index_uuid, i), g) for i, g in enumerate(groups)
        ]
        model = self._train(params)
        self._encode(params, model)
        if self._cancelled.is_set():
            self._check_interrupts("the last segment")
        return self._commit(dataset, self._merge())

    def _train(self, params: dict[str, Any]) -> dict[str, Any]:
        self._progress("training IVF/PQ (1 task)")
        started = time.monotonic()
        d = self.d
        model = self._one_task(
            "training",
            ray_tasks.train,
            d.uri,
            d.admitted_version,
            d.storage_options,
            d.column,
            params,
            1,
        )
        self.timings.train = time.monotonic() - started
        return model

    def _one_task(self, stage: str, function: Any, *args: Any) -> dict[str, Any]:
        """Run one task to its end (cancel and wall clock still apply); its result."""
        ref = self.backend.submit_task(self, function, *args)
        self._pending = [ref]
        while not self.backend.ray.wait([ref], timeout=POLL_SECONDS)[0]:
            self._check_interrupts(stage)
        try:
            result: dict[str, Any] = self.backend.ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - its cause goes into the Message
            raise BuildFailed(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"{stage} task failed: {self._failure_text(exc)}; nothing was committed",
            ) from None
        return result

    def _merge(self) -> list[Any]:
        """The segments to commit: one, merged from all, under the job's uuid; or the segments
        themselves when there is only one or the storage cannot relocate the merged folder."""
        indices = [s.result["index"] for s in self.segments if s.result]
        if len(indices) < 2:
            return indices
        d = self.d
        if not can_relocate(d.uri):
            self.merge_note = "; segments not merged: no folder move on this storage"
            return indices
        self._progress(f"merging {len(indices)} segments (1 task)")
        started = time.monotonic()
        merged = self._one_task(
            "merge",
            ray_tasks.merge_segments,
            d.uri,
            d.admitted_version,
            d.storage_options,
            indices,
            1,
        )["index"]
        self.merged_uuid = str(merged.uuid)
        try:  # segment 0's folder (the job's uuid, uncommitted) gives way to the merged one
            relocate_segment(d.uri, d.storage_options, self.merged_uuid, d.index_uuid)
        except (OSError, ValueError) as exc:
            raise BuildFailed(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"moving the merged segment failed: {self._failure_text(exc)}; "
                "nothing was committed",
            ) from None
        self.timings.merge = time.monotonic() - started
        return [dataclasses.replace(merged, uuid=d.index_uuid)]

    def _encode(self, params: dict[str, Any], model: dict[str, Any]) -> None:
        started = time.monotonic()
        model_ref = self.backend.ray.put(
            {"ivf_centroids": model["ivf_centroids"], "pq_codebook": model["pq_codebook"]}
        )
        for segment in self.segments:
            self._launch(segment, params, model_ref)
        self._progress(f"encoding: 0/{len(self.segments)} segments done")
        while any(s.result is None for s in self.segments):
            refs = [s.ref for s in self.segments if s.result is None]
            self._pending = refs
            done, _ = self.backend.ray.wait(refs, num_returns=1, timeout=POLL_SECONDS)
            for ref in done:
                self._collect(next(s for s in self.segments if s.ref == ref), params, model_ref)
            if not done:
                self._check_interrupts("encoding")
        self.timings.encode = time.monotonic() - started
        self.timings.rows = sum(int(s.result["rows"]) for s in self.segments if s.result)
        self.timings.segment_seconds = [
            float(s.result["seconds"]) for s in self.segments if s.result
        ]

    def _launch(self, segment: Segment, params: dict[str, Any], model_ref: Any) -> None:
        segment.attempts += 1
        d = self.d
        segment.ref = self.backend.submit_task(
            self,
            ray_tasks.build_segment,
            d.uri,
            d.admitted_version,
            d.storage_options,
            d.column,
            d.index_name,
            params,
            model_ref,
            segment.fragments,
            segment.uuid,
            d.operation == "REPLACE",
            1,
            self._fault,
            segment.number == len(self.segments) - 1,
        )

    def _collect(self, segment: Segment, params: dict[str, Any], model_ref: Any) -> None:
        try:
            segment.result = self.backend.ray.get(segment.ref)
        except Exception as exc:  # noqa: BLE001 - retried under the same uuid, then the job fails
            cause = self._failure_text(exc)
            if segment.attempts < SEGMENT_ATTEMPTS and not self._cancelled.is_set():
                logger.warning(
                    "job %s: segment %s failed (%s); retrying under the same uuid",
                    self.d.job_id,
                    segment.number,
                    cause,
                )
                self._launch(segment, params, model_ref)
                return
            raise BuildFailed(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"segment {segment.number + 1} of {len(self.segments)} failed after "
                f"{segment.attempts} attempts: {cause}; nothing was committed",
            ) from None
        done = sum(s.result is not None for s in self.segments)
        self._progress(f"encoding: {done}/{len(self.segments)} segments done")

    def _check_interrupts(self, stage: str) -> None:
        if self._cancelled.is_set() and self._stopping:
            raise BuildFailed(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"the frontend stopped during {stage}, before commit",
            )
        if self._cancelled.is_set():
            raise BuildFailed(
                ResultCode.CANCELLED_BEFORE_COMMIT, f"cancelled during {stage}, before commit"
            )
        if time.monotonic() >= self._kill_at:
            raise BuildFailed(
                ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                f"wall-clock limit reached during {stage}, before commit",
            )

    def _commit(self, dataset: Any, indices: list[Any]) -> WorkerResult | None:
        """The one commit, from the pinned version. Committing the same segment list again would
        be safe (docs/job-contract.md, "Library behaviour relied on"), but an ambiguous failure is
        left to the evidence rules instead (no result)."""
        import lance

        self._progress(f"committing {len(indices)} of {len(self.segments)} segments")
        started = time.monotonic()
        try:
            dataset.commit_existing_index_segments(self.d.index_name, self.d.column, indices)
        # classified by class and by a positive presence check
        except Exception as exc:  # noqa: BLE001
            present, _, _ = self._present()
            if present:
                self._remove_merged_sources(indices)
                return WorkerResult(
                    ResultCode.NATIVE_OK, "index committed (the commit call raised after it)", True
                )
            conflict = getattr(getattr(lance, "commit", None), "CommitConflictError", None)
            if conflict is not None and isinstance(exc, conflict):
                return WorkerResult(ResultCode.NATIVE_COMMIT_CONFLICT, "commit conflict", True)
            if isinstance(
                exc, ValueError
            ):  # refused before writing a manifest (e.g. overlapping coverage)
                return WorkerResult(
                    ResultCode.SEGMENT_FAILED_BEFORE_COMMIT,
                    f"commit refused: {self._failure_text(exc)}",
                    self._advanced(),
                )
            return None  # cannot tell: no trusted result; the version history settles it later
        self.timings.commit = time.monotonic() - started
        present, rows, version = self._present()
        if not present:
            return None
        self._remove_merged_sources(indices)
        t = self.timings
        split = (
            f"train {t.train:.1f}s, encode {t.encode:.1f}s, merge {t.merge:.2f}s, "
            f"commit {t.commit:.2f}s"
        )
        if not rows:
            return WorkerResult(
                ResultCode.NATIVE_OK,
                f"index committed but EMPTY (0 rows indexed; {split})",
                True,
                committed_version=version,
            )
        shape = (
            f"{len(self.segments)} Ray segments merged into one"
            if len(indices) == 1 < len(self.segments)
            else f"{len(self.segments)} Ray segments"
        )
        return WorkerResult(
            ResultCode.NATIVE_OK,
            f"index built as {shape}, {rows} rows indexed ({split}){self.merge_note}",
            True,
            committed_version=version,
        )

    def _remove_merged_sources(self, committed: list[Any]) -> None:
        """Once the merged segment is committed, the segments it was merged from are referenced by
        no version: their folders (all but the job's uuid, which now holds the merged one) go."""
        if len(committed) != 1 or len(self.segments) < 2:
            return
        sources = [s.uuid for s in self.segments if s.uuid != self.d.index_uuid]
        left = remove_segments(self.d.uri, self.d.storage_options, sources)
        if left:
            logger.warning(
                "job %s: merged-away segment folders left under %s/_indices: %s",
                self.d.job_id,
                self.d.uri,
                ", ".join(left),
            )

    def _present(self) -> tuple[bool, int | None, int]:
        from drydock.engine.jobs.worker import _index_present

        return _index_present(self.d)  # looks for segment 0's uuid, the job's pre-assigned one

    def _advanced(self) -> bool:
        from drydock.engine.jobs.worker import latest_version

        latest = latest_version(self.d)
        return latest is not None and latest > self.d.admitted_version

    def _progress(self, text: str) -> None:
        self.backend.events.on_progress(self.d.job_id, self.d.invocation_id, f"ray: {text}")

    def _force_cancel(self) -> None:
        for ref in self._pending:
            try:
                self.backend.ray.cancel(ref, force=True)
            # already finished, or Ray is gone: the proof decides
            except Exception as exc:  # noqa: BLE001
                logger.debug("job %s: force-cancel: %s", self.d.job_id, type(exc).__name__)

    # -- after the result
    # -----------------------------------------------------------------------------
    def remove_segments(self) -> None:
        """A failed build's uncommitted segment folders (pylance's cleanup keeps them for 7 days),
        on
        local disk or object storage, with the dataset's own storage options."""
        uuids = [s.uuid for s in self.segments] + [self.merged_uuid]
        left = remove_segments(self.d.uri, self.d.storage_options, uuids)
        if left:
            logger.warning(
                "job %s: uncommitted segment folders left under %s/_indices: %s",
                self.d.job_id,
                self.d.uri,
                ", ".join(left),
            )

    def proof(self) -> TerminationProof | None:
        if not self.task_ids:
            return TerminationProof.NEVER_LAUNCHED
        return (
            TerminationProof.RAY_TASKS_ENDED
            if self.backend.tasks_ended(self.task_name, self.task_ids)
            else None
        )

    def _failure_text(self, exc: BaseException) -> str:
        return failure_text(exc, self.d.storage_options)


def failure_text(exc: BaseException, storage_options: dict[str, str]) -> str:
    """A failure for the Message, its secrets (the dataset's storage options, URL credentials)
    masked: a dead worker by class, else the exception's class and text."""
    return redact_text(_cause(exc), secret_values(storage_options))


def _cause(exc: BaseException) -> str:
    """Which failure: a dead worker by class, else the task's own exception, class and text (its
    first ``CAUSE_CHARS`` characters, on one line)."""
    cause = getattr(exc, "cause", None)  # RayTaskError wraps the task's exception
    failure = cause if isinstance(cause, BaseException) else exc
    name = type(failure).__name__
    if name in ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError"):
        return f"the Ray worker died ({name})"
    text = re.sub(r"\s+", " ", str(failure)).strip()
    if len(text) > CAUSE_CHARS:
        text = text[: CAUSE_CHARS - 1] + "…"
    return f"{name}: {text}" if text else name
