"""Retention of resolved Lance index jobs (docs/job-contract.md, "Retention").

- Only GC-eligible records go: resolved AND not holding a possible-live slot; the age counts from
  the record's last transition (``updated_at``), not from its creation.
- One round deletes in bounded batches and repeats until nothing is eligible, so a backlog drains
  in one round instead of one batch per period.
- A worker's stderr file goes with its job's record: each round removes the files of jobs whose
  record no longer exists (only files older than the keep window are looked at).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.backend import job_of

logger = logging.getLogger(__name__)
BATCH = 1024


def clean_once(
    jobs: JobManager,
    config: Config,
    now: float | None = None,
    batch: int = BATCH,
    log_dir: Path | None = None,
) -> int:
    cutoff = (time.time() if now is None else now) - config.get(Key.LANCE_INDEX_JOB_KEEP_MAX_SECOND)
    removed = 0
    while True:
        n = jobs.remove_resolved_older_than(cutoff, batch)
        removed += n
        if n < batch:
            break
    if log_dir is not None:
        remove_worker_logs(jobs, log_dir, cutoff)
    return removed


def remove_worker_logs(jobs: JobManager, log_dir: Path, cutoff: float) -> int:
    """Remove the stderr files of jobs whose record retention has removed. Only files last written
    before ``cutoff`` are looked at (a record younger than the keep window still exists); a newer
    file is removed by a later round."""
    removed = 0
    try:
        entries = list(os.scandir(log_dir))
    except FileNotFoundError:
        return 0
    for entry in entries:
        job_id = job_of(entry.name)
        if job_id is None or not entry.is_file() or entry.stat().st_mtime >= cutoff:
            continue
        if jobs.get(job_id) is None:
            Path(entry.path).unlink(missing_ok=True)
            removed += 1
    return removed


class RetentionCleaner:
    """Daemon thread; the period is re-read from config every round, and a config change wakes
    it."""

    def __init__(self, jobs: JobManager, config: Config, log_dir: Path | None = None):
        self._jobs = jobs
        self._config = config
        self._log_dir = log_dir
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lance-job-retention", daemon=True)
        config.on_change(self._on_config)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _on_config(self, name: str, _value: object) -> None:
        if name in ("lance_index_job_clean_interval_second", "lance_index_job_keep_max_second"):
            self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                removed = clean_once(self._jobs, self._config, log_dir=self._log_dir)
                if removed:
                    logger.info("retention removed %d resolved Lance index jobs", removed)
            except Exception:  # noqa: BLE001 - the cleaner must survive a bad round
                logger.exception("retention round failed")
            self._wake.wait(timeout=self._config.get(Key.LANCE_INDEX_JOB_CLEAN_INTERVAL_SECOND))
            self._wake.clear()
