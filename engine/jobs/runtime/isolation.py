"""Per-invocation isolation of index workers: cgroups (v1 or v2) or, only when configured, rlimits.

At start the supervisor runs a preflight: create a cgroup, write limits and read them back, move a
dummy child in and read its membership back, then remove it. If that fails the supervisor refuses
work, unless ``lance_index_worker_isolation = rlimit`` says to run with rlimits only. rlimits
always apply: CORE=0, NOFILE=1024, CPU = 4 × wall clock, non-dumpable, and RLIMIT_AS only as a
generous fuse (under a tight address-space limit the native library aborts with SIGABRT instead of
raising MemoryError: docs/job-contract.md, "Library behaviour relied on").

What proves a worker gone (besides reaping the exact child): on cgroup v2 its cgroup's
``cgroup.events`` reads ``populated 0`` (the kernel counts the whole subtree, nested cgroups the
worker made included); on v1, no ``cgroup.procs`` anywhere in its subtree lists a process; then
every directory of the subtree is removed, and a failed ``rmdir`` proves nothing. Without cgroups
(rlimit mode) the worker runs in its own session (pgid = sid = its pid) and is gone once no live
process is left in that process group or session.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

# DRYDOCK_FAULT_CGROUP_ROOT (test-only) points the preflight at a directory without cgroups
CGROUP_ROOT = Path(os.environ.get("DRYDOCK_FAULT_CGROUP_ROOT") or "/sys/fs/cgroup")
PR_SET_DUMPABLE = 4
AS_FUSE_BYTES = 32 * 2**30  # a fuse, not a limit: tight AS limits make lance abort


@dataclass
class Limits:
    memory_bytes: int
    pids_max: int
    wall_clock_seconds: float


@dataclass
class WorkerCgroup:
    name: str
    dirs: list[Path] = field(default_factory=list)  # one per hierarchy (v1) or one (v2)
    unified: bool = False  # cgroup v2: cgroup.events says whether the subtree is populated

    def subtree(self) -> list[Path]:
        """Every cgroup directory of this worker, descendants (made by the worker) before their
        parents: the order they can be removed in."""
        found: list[Path] = []
        for d in self.dirs:
            for parent, _, _ in os.walk(d, topdown=False):
                found.append(Path(parent))
        return found

    def procs(self) -> list[int]:
        """The processes anywhere in the subtree (those the kernel lists at this instant)."""
        pids: set[int] = set()
        for d in self.subtree():
            try:
                pids |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def populated(self) -> bool:
        """Whether any process remains anywhere in the subtree. Raises OSError when that cannot be
        read (an unreadable cgroup proves nothing); a cgroup already removed is empty."""
        if self.unified:
            return any(d.exists() and _events_value(d, "populated") != "0" for d in self.dirs)
        for d in self.subtree():
            try:
                if (d / "cgroup.procs").read_text().split():
                    return True
            except FileNotFoundError:
                continue  # removed meanwhile
        return False


def _events_value(d: Path, key: str) -> str:
    for line in (d / "cgroup.events").read_text().splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return value.strip()
    raise OSError(f"{d / 'cgroup.events'} has no {key!r} line")


def _rmdir(d: Path) -> None:
    """Remove one cgroup directory (a seam the tests use to make the kernel refuse)."""
    d.rmdir()


def session_members(leader: int) -> list[int]:
    """Live processes in the process group or the session ``leader`` started (a worker runs in its
    own session: pgid = sid = its pid). Zombies run nothing and are left out. The kernel does not
    hand out a pid again while it still names a group or session with members, so a match is a
    process the worker left (once they are all gone the number is free again, but it comes back
    only after the kernel's pids wrap around pid_max)."""
    members = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        state, pgrp, session = fields[0], int(fields[2]), int(fields[3])
        if state not in ("Z", "X") and leader in (pgrp, session):
            members.append(int(entry.name))
    return members


def _own_path(controller: str) -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") or (controller == "" and controllers == ""):
            return path
    return "/"


class Isolation:
    """Which isolation is active, and the cgroup operations of that kind."""

    def __init__(self, mode_setting: str, parent_name: str = "drydock"):
        self.setting = mode_setting
        self.parent_name = parent_name
        self.kind = "none"  # cgroup-v1 | cgroup-v2 | rlimit | none
        self.detail = ""
        self._bases: list[Path] = []

    # -- preflight
    # ------------------------------------------------------------------------------------
    def preflight(self) -> str:
        reasons: list[str] = []
        for kind, bases in (("cgroup-v2", self._v2_bases), ("cgroup-v1", self._v1_bases)):
            try:
                candidate = bases()
            except OSError as exc:
                reasons.append(f"{kind}: {type(exc).__name__}: {exc}")
                continue
            if isinstance(candidate, str):
                reasons.append(f"{kind}: {candidate}")
                continue
            self._bases, self.kind = candidate, kind
            try:
                self._probe()
                self.detail = f"{kind} at {', '.join(str(b) for b in self._bases)}"
                return self.kind
            except (OSError, RuntimeError) as exc:
                reasons.append(f"{kind} preflight failed: {type(exc).__name__}: {exc}")
                self._bases, self.kind = [], "none"
        self.kind = "rlimit" if self.setting == "rlimit" else "none"
        why = "; ".join(reasons)
        self.detail = (
            f"rlimits only, as configured ({why})"
            if self.kind == "rlimit"
            else f"{why}; set lance_index_worker_isolation = rlimit to run workers with rlimits "
            f"only"
        )
        return self.kind

    def _v1_bases(self) -> list[Path] | str:
        bases = []
        for controller in ("memory", "pids"):
            root = CGROUP_ROOT / controller
            if not (root / "cgroup.procs").exists():
                return f"no {controller} hierarchy at {root}"
            base = root / _own_path(controller).lstrip("/") / self.parent_name
            base.mkdir(parents=True, exist_ok=True)
            bases.append(base)
        return bases

    def _v2_bases(self) -> list[Path] | str:
        if not (CGROUP_ROOT / "cgroup.controllers").exists():
            return f"no unified hierarchy at {CGROUP_ROOT}"
        base = CGROUP_ROOT / _own_path("").lstrip("/") / self.parent_name
        base.mkdir(parents=True, exist_ok=True)
        (base / "cgroup.subtree_control").write_text("+memory +pids")
        return [base]

    def _probe(self) -> None:
        group = self.create(f"preflight-{os.getpid()}", Limits(256 * 2**20, 16, 5))
        child = subprocess.Popen(["sleep", "5"])
        try:
            self.move(group, child.pid)
        finally:
            child.kill()
            child.wait()
            self.remove(group)

    # -- per invocation
    # -------------------------------------------------------------------------------
    def create(self, name: str, limits: Limits) -> WorkerCgroup:
        group = WorkerCgroup(name, unified=self.kind == "cgroup-v2")
        for base in self._bases:
            d = base / name
            d.mkdir(exist_ok=True)
            group.dirs.append(d)
        try:
            if self.kind == "cgroup-v2":
                d = group.dirs[0]
                _write_check(d / "memory.max", limits.memory_bytes)
                _write_check(d / "memory.swap.max", 0)
                _write_check(d / "pids.max", limits.pids_max)
                _write_check(d / "memory.oom.group", 1)
            else:
                memory, pids = group.dirs
                _write_check(memory / "memory.limit_in_bytes", limits.memory_bytes, round_to=4096)
                if (memory / "memory.memsw.limit_in_bytes").exists():  # no swap: memsw == memory
                    _write_check(
                        memory / "memory.memsw.limit_in_bytes", limits.memory_bytes, round_to=4096
                    )
                _write_check(pids / "pids.max", limits.pids_max)
        except (OSError, RuntimeError):
            self.remove(group)
            raise
        return group

    def move(self, group: WorkerCgroup, pid: int) -> None:
        """Move ``pid`` into every hierarchy of ``group`` and read the membership back."""
        for d in group.dirs:
            (d / "cgroup.procs").write_text(str(pid))
        membership = Path(f"/proc/{pid}/cgroup").read_text()
        for d in group.dirs:
            if f"/{self.parent_name}/{group.name}\n" not in membership + "\n":
                raise RuntimeError(f"pid {pid} is not in {d} after the move")

    def kill_all(self, group: WorkerCgroup) -> None:
        for d in group.dirs:  # cgroup v2 (Linux 5.14+): one atomic kill of the subtree, no race
            if (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
        for pid in group.procs():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill_session(self, leader: int) -> None:
        """SIGKILL every process left in the process group and session ``leader`` started."""
        try:
            os.killpg(leader, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in session_members(leader):  # members that moved to another group of the session
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def limits_hit(self, group: WorkerCgroup, limits: Limits) -> list[str]:
        """Which cgroup limits the kernel enforced on ``group`` (read before the cgroup is
        removed)."""
        oom_file = "memory.events" if self.kind == "cgroup-v2" else "memory.oom_control"
        hits = []
        if _counter(group, oom_file, "oom_kill") > 0:
            hits.append(f"cgroup memory limit {_mib(limits.memory_bytes)} reached")
        if _counter(group, "pids.events", "max") > 0:
            hits.append(f"cgroup pids limit {limits.pids_max} reached")
        return hits

    def remove(self, group: WorkerCgroup, timeout: float = 5.0) -> bool:
        """Remove the whole subtree, nested cgroups first. False if a directory is still there at
        the timeout (the kernel refuses ``rmdir`` while a cgroup has members or children)."""
        deadline = time.monotonic() + timeout
        for d in group.subtree():
            while d.exists():
                try:
                    _rmdir(d)
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        return False
                    time.sleep(0.05)
        return True

    def find(self, prefix: str) -> list[WorkerCgroup]:
        """Worker cgroups left by an earlier process (start-up sweep)."""
        found: dict[str, WorkerCgroup] = {}
        for base in self._bases:
            if not base.exists():
                continue
            for d in base.iterdir():
                if d.is_dir() and d.name.startswith(prefix):
                    found.setdefault(
                        d.name, WorkerCgroup(d.name, unified=self.kind == "cgroup-v2")
                    ).dirs.append(d)
        return list(found.values())


def _counter(group: WorkerCgroup, file: str, key: str) -> int:
    """A ``key value`` line of a cgroup events file; 0 when the file or the key is absent."""
    for d in group.dirs:
        try:
            lines = (d / file).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            name, _, value = line.partition(" ")
            if name == key and value.strip().isdigit():
                return int(value)
    return 0


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n % 2**20 == 0 else f"{n} bytes"


def _write_check(path: Path, value: int, round_to: int = 1) -> None:
    path.write_text(str(value))
    got = path.read_text().strip()
    expected = (value // round_to) * round_to
    if got != str(value) and got != str(expected) and not (value > 2**62 and got == "max"):
        raise RuntimeError(f"{path} reads back {got!r}, wrote {value}")


def cpu_limit_seconds(wall_clock_seconds: float) -> int:
    """RLIMIT_CPU of a worker: 4 × its wall-clock budget."""
    return max(int(wall_clock_seconds * 4), 1)


def apply_worker_rlimits(wall_clock_seconds: float) -> None:
    """Called by the worker itself first thing after exec (no Python runs between fork and exec in
    the server, which has native threads): CORE=0, NOFILE=1024, CPU = 4 × wall clock, AS fuse,
    non-dumpable."""
    cpu = cpu_limit_seconds(wall_clock_seconds)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_AS, (AS_FUSE_BYTES, AS_FUSE_BYTES))
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0)
