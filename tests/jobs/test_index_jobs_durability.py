"""Durability of Lance index jobs over the wire: restart, kill -9, retention, lost workers.

What each test proves:
- a graceful restart and a kill -9 both preserve every job record byte for byte (SHOW JOB) and every
  fence and quota; a job whose JobId reached the client survives a kill -9 right after;
- retention with ``lance_index_job_keep_max_second = 1`` removes resolved jobs only: unresolved ones
  stay, a resolved record whose old worker is not proven gone stays until it is (defect 1), and
  ids are never reused;
- a worker that hangs is killed at its wall-clock budget, the job becomes UNKNOWN with proof
  CHILD_REAPED, and the dataset's history settles it (NOT_COMMITTED, RECONCILED), releasing the
  fence; a server killed while a job RUNS comes back with that job UNKNOWN, proves the old worker
  gone (BE_PROCESS_EPOCH_GONE), settles it the same way, and the name is then built for real.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import FORCE_RELEASE_WARNING
from tests.conftest import ServerProcess, make_server
from tests.support.pg import store_choice_for
from tests.support.lance_fixtures import (
    admit,
    create_catalog,
    drive_unknown,
    error_of,
    local_warehouse,
    offline_engine,
    pause,
    rows,
    set_config,
    show_job,
    show_jobs,
    vector_table,
    wait_dispatcher_rounds,
    wait_job,
    wait_until,
)


def fenced(index: str, job_id: int) -> tuple[int, str]:
    return 5100, (
        f"lance index '{index}' is fenced by unresolved job {job_id}; "
        "resolve that job (FORCE_RELEASE) before reusing the name"
    )


def snapshot(server: ServerProcess, ids: list[int]) -> dict[int, dict[str, str]]:
    """Every durable column of every job (Progress is live, in-memory only). SHOW JOBS reads a
    narrow projection, SHOW JOB the full record: their common columns must agree in every state."""
    out = {}
    listed = {int(j["JobId"]): j for j in show_jobs(server)}
    for job_id in ids:
        detail = show_job(server, job_id)
        detail.pop("Progress")
        assert {k: v for k, v in listed[job_id].items() if k != "Progress"} == {
            k: detail[k] for k in listed[job_id] if k != "Progress"
        }
        out[job_id] = detail
    return out


def _start_ticks(pid: int) -> int:
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])


def _process_state(pid: int) -> str:
    """R, S, Z (killed, not reaped yet), … from /proc/<pid>/stat."""
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_restart_and_kill9_preserve_every_job_and_its_fences(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    server = make_server(
        tmp_path, *store_choice_for(request, tmp_path / "data", store).args
    ).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", vector_table(300))
        wh.write("db", "u", vector_table(300)).create_scalar_index("id", "BTREE", name="ext")
        c = create_catalog(server, wh)
        built = admit(server, f"CREATE INDEX built ON {c}.db.u (name) USING BITMAP")
        assert wait_job(server, built)["State"] == "COMMITTED"
        pause(server)
        pending = admit(server, f"CREATE INDEX pending ON {c}.db.t (id) USING BTREE")
        dropping = admit(server, f"DROP INDEX ext ON {c}.db.u")
        cancelled = admit(server, f"CREATE INDEX cancelled ON {c}.db.t (name) USING BTREE")
        server.query(f"CANCEL LANCE INDEX JOB {cancelled}")
        lost = admit(server, f"CREATE INDEX lost ON {c}.db.t (body) USING INVERTED")
        released = admit(server, f"CREATE INDEX released ON {c}.db.t (name) USING BITMAP")
        with offline_engine(server) as engine:
            drive_unknown(engine, lost)
            drive_unknown(engine, released)
        server.start()
        for job_id in (lost, released):  # the new epoch proves the old (never started) workers gone
            wait_job(
                server,
                job_id,
                lambda j: j["TerminationProof"] == "BE_PROCESS_EPOCH_GONE",
                timeout=30,
            )
        server.query(
            f"RESOLVE LANCE INDEX JOB {released} AS FORCE_RELEASE COMMENT 'checked the dataset by "
            f"hand'"
        )
        ids = [built, pending, dropping, cancelled, lost, released]
        before = snapshot(server, ids)
        assert [before[i]["State"] for i in ids] == [
            "COMMITTED",
            "PENDING",
            "PENDING",
            "NOT_COMMITTED",
            "UNKNOWN",
            "UNKNOWN",
        ]
        assert (
            before[released]["ForceWarning"] == FORCE_RELEASE_WARNING
            and before[lost]["ForceReleased"] == ""
        )

        def fences_hold() -> None:
            assert error_of(server, f"CREATE INDEX pending ON {c}.db.t (id) USING BTREE") == fenced(
                "pending", pending
            )
            assert error_of(
                server, f"CREATE OR REPLACE INDEX ext ON {c}.db.u (id) USING BTREE"
            ) == fenced("ext", dropping)
            assert error_of(
                server, f"CREATE INDEX lost ON {c}.db.t (body) USING INVERTED"
            ) == fenced("lost", lost)

        fences_hold()
        set_config(
            server, lance_index_job_max_unresolved_per_table=3
        )  # t holds 2 unresolved (pending, lost)
        extra = admit(server, f"CREATE INDEX extra ON {c}.db.t (id) USING BTREE")
        assert error_of(server, f"CREATE INDEX more ON {c}.db.t (id) USING BTREE")[1].startswith(
            "unresolved lance index job quota exceeded for index 'more'"
        )
        ids.append(extra)
        before = snapshot(server, ids)

        server.restart()
        assert snapshot(server, ids) == before
        fences_hold()
        assert error_of(server, f"CREATE INDEX more ON {c}.db.t (id) USING BTREE")[1].startswith(
            "unresolved lance index job quota exceeded"
        )  # quota counts are rebuilt by replay
        assert (
            rows(server, "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_dispatcher_paused'")[0][
                1
            ]
            == "true"
        )

        server.kill9()
        server.start()
        assert snapshot(server, ids) == before
        fences_hold()

        # durable before the client is told: a JobId that reached us survives an immediate kill -9
        set_config(server, lance_index_job_max_unresolved_per_table=8)
        last = admit(server, f"CREATE INDEX last ON {c}.db.t (id) USING BTREE")
        server.kill9()
        server.start()
        assert show_job(server, last)["State"] == "PENDING"
        assert [int(j["JobId"]) for j in show_jobs(server)] == sorted([*ids, last])
        assert error_of(server, f"CREATE INDEX last ON {c}.db.t (id) USING BTREE") == fenced(
            "last", last
        )
    finally:
        server.stop()


def test_retention_keep_max_second_1_removes_only_resolved_gone_jobs(tmp_path: Path) -> None:
    server = make_server(tmp_path).start()
    sleeper = subprocess.Popen(["sleep", "300"])  # stands in for an old worker that may still run
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", vector_table(300))
        c = create_catalog(server, wh)
        set_config(server, lance_index_job_dispatch_interval_second=1)
        built = admit(server, f"CREATE INDEX built ON {c}.db.t (id) USING BTREE")
        assert (
            wait_job(
                server,
                built,
                lambda j: (
                    j["State"] == "COMMITTED"
                    and j["RefreshState"] == "DONE"
                    and j["PossibleLive"] == "NO"
                ),
            )["TerminationProof"]
            == "CHILD_REAPED"
        )
        pause(server)
        pending = admit(server, f"CREATE INDEX pending ON {c}.db.t (name) USING BTREE")
        cancelled = admit(server, f"CREATE INDEX cancelled ON {c}.db.t (name) USING BITMAP")
        server.query(f"CANCEL LANCE INDEX JOB {cancelled}")
        lost = admit(server, f"CREATE INDEX lost ON {c}.db.t (body) USING INVERTED")
        forced = admit(server, f"CREATE INDEX forced ON {c}.db.t (id) USING BITMAP")
        slot = admit(server, f"CREATE INDEX slot ON {c}.db.t (body) USING BTREE")
        with offline_engine(server) as engine:
            drive_unknown(engine, lost)
            drive_unknown(engine, forced)
            # a resolved outcome whose worker (the sleeper) is not proven gone: it holds its slot
            running = engine.jobs.mark_running(
                slot,
                invocation_id="inv-slot",
                index_uuid="",
                deadline_ms=2**62,
                process_epoch="an-earlier-epoch",
                backend_id="local",
            )
            engine.jobs.record_worker(
                slot, "inv-slot", sleeper.pid, _start_ticks(sleeper.pid), "", "an-earlier-epoch"
            )
            engine.jobs.complete_with_result(
                slot, running.invocation_id, st.ResultCode.NATIVE_COMMIT_CONFLICT, "", False
            )
            engine.jobs.refresh_started(slot)
            engine.jobs.refresh_finished(slot, ok=True)
        server.start()
        server.query(f"RESOLVE LANCE INDEX JOB {forced} AS FORCE_RELEASE COMMENT 'gone'")
        held = show_job(server, slot)
        assert (held["State"], held["RefreshState"], held["PossibleLive"]) == (
            "NOT_COMMITTED",
            "DONE",
            "YES",
        )
        time.sleep(1.1)  # every record's last transition is now older than one second
        set_config(
            server, lance_index_job_clean_interval_second=1, lance_index_job_keep_max_second=1
        )
        gone = {built, cancelled, forced}
        wait_until(
            lambda: gone.isdisjoint(int(j["JobId"]) for j in show_jobs(server)),
            20,
            "resolved jobs removed",
        )
        assert [int(j["JobId"]) for j in show_jobs(server)] == [pending, lost, slot]
        assert error_of(server, f"SHOW LANCE INDEX JOB {built}") == (
            5103,
            f"Lance index job not found: {built}",
        )
        # the sleeper was SIGKILLed by the proof sweep but is not reaped yet (this test is its
        # parent):
        # still "may be live". Positive signals first: it is a zombie now, and later sweeps looked
        # again.
        wait_until(
            lambda: _process_state(sleeper.pid) == "Z", 20, "the proof sweep kills the old worker"
        )
        wait_dispatcher_rounds(server)
        assert show_job(server, slot)["PossibleLive"] == "YES"
        sleeper.wait(timeout=10)  # now it is gone: proven, then collected
        wait_until(
            lambda: slot not in [int(j["JobId"]) for j in show_jobs(server)],
            20,
            "proven-gone record removed",
        )
        assert [int(j["JobId"]) for j in show_jobs(server)] == [pending, lost]
        server.restart()
        assert [int(j["JobId"]) for j in show_jobs(server)] == [pending, lost]
        assert (
            admit(server, f"CREATE INDEX fresh ON {c}.db.t (name) USING BITMAP") > slot
        )  # ids never reused
    finally:
        sleeper.kill()
        sleeper.wait()
        server.stop()


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_hung_worker_and_a_crashed_server_converge_by_evidence(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    server = make_server(
        tmp_path,
        *store_choice_for(request, tmp_path / "data", store).args,
        DRYDOCK_FAULT_WORKER_MODE="hang",
    ).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", vector_table(300))
        c = create_catalog(server, wh)
        set_config(
            server,
            lance_index_job_execute_deadline_second=9,
            lance_index_worker_report_margin_seconds=1,
            lance_index_worker_termination_grace_seconds=1,
            lance_index_job_dispatch_interval_second=1,
        )
        hung = admit(server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE")
        running = wait_job(server, hung, lambda j: j["State"] == "RUNNING", timeout=20)
        assert (
            running["PossibleLive"] == "YES" and running["InvocationId"] and running["DeadlineMs"]
        )
        assert error_of(server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE") == fenced("h", hung)
        # killed at its 7 s budget (UNKNOWN, CHILD_REAPED), then settled by the dataset's history
        done = wait_job(
            server,
            hung,
            lambda j: j["CompletionReason"] == "RECONCILED" and j["RefreshState"] == "DONE",
            timeout=40,
        )
        assert (
            done["State"],
            done["CompletionReason"],
            done["ResultCode"],
            done["TerminationProof"],
            done["RefreshState"],
            done["PossibleLive"],
        ) == ("NOT_COMMITTED", "RECONCILED", "NO_TRUSTED_RESULT", "CHILD_REAPED", "DONE", "NO")
        assert done["Message"] == (
            "worker ended without a trusted result (killed by SIGTERM: wall-clock limit of 7 s "
            "reached); complete version history shows no commit of this job"
        )  # cause kept
        assert wh.indexes("db", "t") == {}

        set_config(server, lance_index_job_execute_deadline_second=3600)
        crashed = admit(
            server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE"
        )  # the fence was released
        wait_job(server, crashed, lambda j: j["State"] == "RUNNING", timeout=20)
        server.kill9()
        server.env = {}  # the next process runs healthy workers
        server.start()
        after = wait_job(
            server,
            crashed,
            lambda j: j["CompletionReason"] == "RECONCILED" and j["RefreshState"] == "DONE",
            timeout=40,
        )
        assert (
            after["State"],
            after["CompletionReason"],
            after["ResultCode"],
            after["TerminationProof"],
        ) == ("NOT_COMMITTED", "RECONCILED", "NO_TRUSTED_RESULT", "BE_PROCESS_EPOCH_GONE")
        assert wh.indexes("db", "t") == {}
        rebuilt = admit(server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE")
        assert wait_job(server, rebuilt)["State"] == "COMMITTED"
        assert wh.indexes("db", "t") == {"h": "BTree"}
    finally:
        server.stop()
