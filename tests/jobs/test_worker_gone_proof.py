"""The worker-gone proof (CHILD_REAPED): the exact child reaped and nothing it started still runs.

Each rule with real processes: a worker leaving a grandchild in a cgroup nested under its own (the
subtree counts, not the leaf's ``cgroup.procs``), a cgroup whose ``rmdir`` the kernel refuses (the
worker stays unproven, its slot held), cgroup v2's ``cgroup.events`` counting a nested cgroup, and
without cgroups (rlimit mode) a grandchild left in the worker's process group and session.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dataclasses import replace

from drydock.engine.jobs.control.backend import LOCAL_BACKEND, Dispatch, log_name
from drydock.engine.jobs.control.states import TerminationProof
from drydock.engine.jobs.runtime import isolation as iso
from drydock.engine.jobs.runtime.supervisor import Supervisor
from drydock.engine.jobs.runtime.supervisor_state import start_ticks
from drydock.engine.store.config import Config
from drydock.engine.store.metastore import MetaStore
from tests.jobs.test_supervisor_workers import (  # noqa: F401 - fixtures used by name
    Events,
    cgroup_supervisor,
    make_dispatch,
    rlimit_run,
)
from tests.support.jobfactory import new_job
from tests.support.waiting import wait_until

FAR = 3_600_000  # ms: a deadline no test reaches
# starts a grandchild that keeps its process group and session, then exits when stdin closes
LEAVE_A_GRANDCHILD = (
    "import subprocess, sys; "
    "subprocess.Popen(['sleep', '600'], stdin=subprocess.DEVNULL); sys.stdin.read()"
)


def gone(pid: int) -> bool:
    """Not running: no such process, or a zombie waiting for its new parent to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def stray_pid(tmp_path: Path, dispatch: Dispatch) -> int:
    """The grandchild's pid, as the worker wrote it to its stderr before exiting."""
    log = (tmp_path / "workers" / log_name(dispatch.job_id, dispatch.invocation_id)).read_text()
    [line] = [x for x in log.splitlines() if x.startswith("stray pid ")]
    return int(line.split()[-1])


def spawned_pid(events: Any) -> int:
    [pid] = [c[2] for c in events.calls if c[0] == "spawned"]
    return int(pid)


def held_worker(supervisor: Supervisor, invocation_id: str) -> Any:
    with supervisor._lock:
        return supervisor._held[invocation_id]


class Sparing:
    """Replaces a kill so that it spares everything while ``on``: a process that cannot be killed
    yet (uninterruptible sleep) without needing one."""

    def __init__(self) -> None:
        self.on = threading.Event()
        self.on.set()
        self.calls = 0

    def wrap(self, kill: Any) -> Any:
        def maybe_kill(*args: Any) -> None:
            self.calls += 1
            if not self.on.is_set():
                kill(*args)

        return maybe_kill


# -- rlimit mode: the process group and session
# -----------------------------------------------------------


def test_rlimit_mode_kills_a_grandchild_left_in_the_workers_group_before_proving_it_gone(
    rlimit_run: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    """On main, reaping the child alone was CHILD_REAPED: the grandchild still ran when the slot
    was released."""
    supervisor, events, dispatch = rlimit_run("group_stray")
    [(proof, detail)] = events.exits(timeout=60)
    worker_pid = spawned_pid(events)
    assert (proof, detail) == (TerminationProof.CHILD_REAPED, "exited with code 0")
    assert gone(stray_pid(tmp_path, dispatch))  # found by its group and killed before the proof
    assert iso.session_members(worker_pid) == []
    assert supervisor.status()["held"] == 0


def test_rlimit_mode_holds_the_slot_while_a_grandchild_remains_in_the_workers_session(
    rlimit_run: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sparing = Sparing()
    monkeypatch.setattr(iso.Isolation, "kill_session", sparing.wrap(iso.Isolation.kill_session))
    supervisor, events, dispatch = rlimit_run("group_stray")
    [(proof, detail)] = events.exits(timeout=60)
    worker_pid = spawned_pid(events)
    assert (proof, detail) == (None, "exited with code 0")  # reaped, not proven gone
    assert supervisor.status()["held"] == 1 and supervisor.status()["inflight"] == 0
    [stray] = iso.session_members(worker_pid)
    assert os.getpgid(stray) == worker_pid and os.getsid(stray) == worker_pid
    assert held_worker(supervisor, dispatch.invocation_id).process.poll() == 0  # the exact child
    calls = sparing.calls
    wait_until(lambda: sparing.calls >= calls + 2, 10, "two re-checks of the held worker")
    assert len(events.exits()) == 1 and not gone(stray)  # still there: still no proof

    sparing.on.clear()
    assert events.exits(2, timeout=30)[1] == (
        TerminationProof.CHILD_REAPED,
        "exited with code 0; processes it left in its session ended later",
    )
    assert gone(stray) and supervisor.status()["held"] == 0


def test_an_earlier_epochs_worker_is_not_proven_gone_while_its_session_has_a_process(
    tmp_path: Path,
) -> None:
    """After a restart in rlimit mode: the recorded worker is gone but left a grandchild in its
    session. On main a gone pid alone proved the run over."""
    supervisor = Supervisor(Config(MetaStore(tmp_path / "m.sqlite")), Events(), "e", tmp_path / "w")
    job = replace(new_job(), id=1, invocation_id="inv-local", backend_id=LOCAL_BACKEND)
    leader = subprocess.Popen(
        [sys.executable, "-c", LEAVE_A_GRANDCHILD], stdin=subprocess.PIPE, start_new_session=True
    )
    recorded = (leader.pid, start_ticks(leader.pid))
    [stray] = wait_until(
        lambda: [p for p in iso.session_members(leader.pid) if p != leader.pid], 30, "grandchild"
    )
    assert leader.communicate(timeout=30) == (None, None) and leader.returncode == 0
    assert not gone(stray)
    assert not supervisor.earlier_run_gone(job, recorded)  # the stray is killed now
    wait_until(lambda: gone(stray), 10, "the stray to be killed")
    assert supervisor.earlier_run_gone(job, recorded)


# -- cgroups: the whole subtree, and rmdir
# -----------------------------------------------------------------


def test_a_grandchild_in_a_nested_cgroup_keeps_the_worker_unproven_until_it_is_gone(
    cgroup_supervisor: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker makes a cgroup under its own and leaves a grandchild there: its own
    ``cgroup.procs`` is empty, but its subtree is populated. On main that was CHILD_REAPED, and the
    failed removal of the cgroup went unnoticed."""
    supervisor, events = cgroup_supervisor("nested_stray")
    sparing = Sparing()
    monkeypatch.setattr(
        supervisor.isolation, "kill_all", sparing.wrap(supervisor.isolation.kill_all)
    )
    dispatch = make_dispatch()
    supervisor.submit(dispatch, int(time.time() * 1000) + FAR)
    [(proof, detail)] = events.exits(timeout=60)
    assert (proof, detail) == (None, "exited with code 0")
    group = held_worker(supervisor, dispatch.invocation_id).cgroup
    assert all(not (d / "cgroup.procs").read_text().split() for d in group.dirs)  # leaves empty
    [stray] = group.procs()  # found in the nested cgroups
    assert group.populated() and all((d / "nested").is_dir() for d in group.dirs)
    assert supervisor.status()["held"] == 1

    sparing.on.clear()
    assert events.exits(2, timeout=30)[1] == (
        TerminationProof.CHILD_REAPED,
        "exited with code 0; processes it left in its cgroup ended later",
    )
    assert gone(stray)
    assert not any(d.exists() for d in group.dirs)  # nested cgroups removed first
    assert supervisor.status()["held"] == 0


def test_a_cgroup_whose_rmdir_fails_leaves_the_worker_unproven_and_its_slot_held(
    cgroup_supervisor: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel refuses the removal (EBUSY, as for a cgroup something still pins): no proof
    until the cgroup is gone. On main the failure was ignored and CHILD_REAPED recorded."""
    refusing = threading.Event()
    refusing.set()
    rmdir = iso._rmdir

    def refuse(d: Path) -> None:
        if refusing.is_set():
            raise OSError(errno.EBUSY, "Device or resource busy", str(d))
        rmdir(d)

    monkeypatch.setattr(iso, "_rmdir", refuse)
    supervisor, events = cgroup_supervisor("environment")  # exits 0 at once, leaves nothing
    dispatch = make_dispatch()
    supervisor.submit(dispatch, int(time.time() * 1000) + FAR)
    [(proof, detail)] = events.exits(timeout=60)
    assert (proof, detail) == (None, "exited with code 0")
    group = held_worker(supervisor, dispatch.invocation_id).cgroup
    assert not group.populated() and all(d.is_dir() for d in group.dirs)
    assert supervisor.status()["held"] == 1

    refusing.clear()
    assert events.exits(2, timeout=30)[1] == (
        TerminationProof.CHILD_REAPED,
        "exited with code 0; its cgroup was removed later",
    )
    assert not any(d.exists() for d in group.dirs) and supervisor.status()["held"] == 0


# -- cgroup v2: cgroup.events covers nested cgroups
# --------------------------------------------------------


def _writable_cgroup2() -> Path | None:
    for line in Path("/proc/mounts").read_text().splitlines():
        _, mount, kind, *_ = line.split()
        if kind == "cgroup2" and os.access(mount, os.W_OK):
            return Path(mount)
    return None


@pytest.fixture
def cgroup2_dir() -> Iterator[Path]:
    """A test-private cgroup on a writable cgroup v2 hierarchy (no controllers needed)."""
    mount = _writable_cgroup2()
    if mount is None:
        pytest.skip("no writable cgroup v2 hierarchy mounted here")
    base = mount / f"drydock-proof-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    base.mkdir()
    yield base
    for d, _, _ in os.walk(base, topdown=False):
        Path(d).rmdir()


def test_cgroup_v2_populated_counts_a_process_in_a_nested_cgroup(cgroup2_dir: Path) -> None:
    group = iso.WorkerCgroup("w-9-abcdef09", [cgroup2_dir / "w-9-abcdef09"], unified=True)
    group.dirs[0].mkdir()
    nested = group.dirs[0] / "nested"
    nested.mkdir()
    isolation = iso.Isolation("cgroup")
    grandchild = subprocess.Popen(["sleep", "60"])
    try:
        (nested / "cgroup.procs").write_text(str(grandchild.pid))
        assert not (group.dirs[0] / "cgroup.procs").read_text().split()  # the leaf looks empty
        assert group.populated() and group.procs() == [grandchild.pid]
        assert not isolation.remove(group, timeout=0.2)  # the kernel refuses: still populated
        isolation.kill_all(group)  # cgroup.kill: the whole subtree
        assert grandchild.wait(timeout=10) == -9
    finally:
        grandchild.kill()
        grandchild.wait()
    wait_until(lambda: not group.populated(), 10, "cgroup.events to say populated 0")
    assert isolation.remove(group) and not group.dirs[0].exists()
