"""Python threads on one CPU, native threads and index workers on all (server/thread_placement.py,
engine/support/cpu_sets.py). Real threads and processes; the CPU sets are read back from the
kernel."""

from __future__ import annotations

import _thread
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from drydock.engine.support import cpu_sets
from drydock.server.thread_placement import ThreadPlacement
from tests.conftest import ROOT, ServerProcess
from tests.support.lance_fixtures import rows
from tests.support.waiting import wait_until

CPUS = cpu_sets.PROCESS_CPUS
pytestmark = pytest.mark.skipif(
    len(CPUS) < 2 or not hasattr(os, "sched_setaffinity"),
    reason=f"needs CPU affinity and 2+ CPUs (this process may use {sorted(CPUS)})",
)


def _affinity(tid: int) -> set[int]:
    return set(os.sched_getaffinity(tid))


def test_python_threads_go_to_one_cpu_and_native_ones_keep_them_all() -> None:
    python_cpu = max(CPUS)
    placement = ThreadPlacement(set(CPUS), python_cpu)
    ids: dict[str, int] = {}
    stop = threading.Event()

    def python_thread() -> None:
        ids["python"] = threading.get_native_id()
        stop.wait(30)

    def native_thread() -> (
        None
    ):  # a thread the threading module does not know, like a DuckDB worker
        ids["native"] = threading.get_native_id()
        stop.wait(30)

    main_before = _affinity(0)
    worker = threading.Thread(target=python_thread)
    worker.start()
    try:
        os.sched_setaffinity(
            0, {python_cpu}
        )  # what the main thread gets: a native one started now inherits it
        _thread.start_new_thread(native_thread, ())
        wait_until(lambda: len(ids) == 2, 10, "both threads started")
        assert _affinity(ids["native"]) == {python_cpu}
        assert placement.refresh() >= 2
        assert _affinity(ids["python"]) == {python_cpu} and _affinity(
            threading.get_native_id()
        ) == {python_cpu}
        assert _affinity(ids["native"]) == set(CPUS), (
            "a native thread started by a placed one gets every CPU back"
        )
        assert placement.refresh() == 0, "nothing changed: nothing is placed again"
    finally:
        stop.set()
        worker.join(10)
        os.sched_setaffinity(0, main_before)


def test_an_index_worker_takes_back_every_cpu_the_server_may_use() -> None:
    """The worker is started by a Python thread (on one CPU) and inherits that: it widens itself."""
    code = (
        "import os, sys; from drydock.engine.support import cpu_sets; "
        "cpu_sets.restore_from_environment(os.environ.get(cpu_sets.ENV_WORKER_CPUS)); "
        "print(','.join(map(str, sorted(os.sched_getaffinity(0)))))"
    )
    one = str(min(CPUS))
    env = {**os.environ, cpu_sets.ENV_WORKER_CPUS: cpu_sets.encode(CPUS), "PYTHONPATH": str(ROOT)}
    widened = subprocess.run(
        ["taskset", "-c", one, sys.executable, "-c", code],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert widened.stdout.strip() == cpu_sets.encode(CPUS)
    for bad in ("", "x,y", "99999"):  # nothing usable: the CPU set stays as it was
        env[cpu_sets.ENV_WORKER_CPUS] = bad
        kept = subprocess.run(
            ["taskset", "-c", one, sys.executable, "-c", code],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert kept.stdout.strip() == one


def _threads(pid: int) -> dict[int, set[int]]:
    out = {}
    for name in os.listdir(f"/proc/{pid}/task"):
        try:
            out[int(name)] = _affinity(int(name))
        except OSError:  # exited meanwhile
            pass
    return out


@pytest.mark.parametrize("pinned", [True, False])
def test_a_running_server_places_its_threads(tmp_path: Path, pinned: bool) -> None:
    config = tmp_path / "drydock.toml"
    config.write_text(f"[frontend]\npin_python_threads = {'true' if pinned else 'false'}\n")
    server = ServerProcess(data_dir=tmp_path / "data", extra_args=["--config", str(config)]).start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        rows(server, "SELECT 1")  # a statement ran: the statement pool has a thread
        if not pinned:
            assert all(cpus == set(CPUS) for cpus in _threads(pid).values())
            return
        # the main thread (the event loop) is the process id's own; DuckDB's workers are native
        wait_until(lambda: len(_affinity(pid)) == 1, 10, "the event loop thread is placed")
        [python_cpu] = _affinity(pid)
        threads = _threads(pid)
        assert any(cpus == set(CPUS) for cpus in threads.values()), "native threads keep every CPU"
        assert (
            sum(cpus == {python_cpu} for cpus in threads.values()) >= 5
        )  # loop, pools, dispatcher, ...
    finally:
        server.stop()
