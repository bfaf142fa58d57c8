"""Several frontends on one metadata store: the dispatcher lease, its fencing token, catching up,
and the servers themselves (issue 16 items 2-3).

The lease decision is a pure function, tested over every case; ``Membership`` and the job manager's
fencing run on both stores (SQLite: one frontend; PostgreSQL: several); the server tests start real
frontends on a real PostgreSQL (tests/support/pg.py) and kill the leader with SIGKILL.
"""

from __future__ import annotations

import itertools
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drydock.engine.store.frontends import (
    FrontendIdentity,
    LeaseMove,
    LeaseRow,
    Membership,
    NotLeader,
    decide,
    persistent_name,
)
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.store.metastore import MetadataStore
from tests.conftest import ServerProcess
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import (
    admit,
    create_catalog,
    local_warehouse,
    rows,
    set_config,
    settled,
    show_job,
    show_jobs,
    vector_table,
    wait_job,
    wait_until,
)
from tests.support.pg import PgCluster

# Every frontend here runs on this host: the local warehouse is one file system for all of them,
# which is what lets the leader dispatch its jobs while several frontends are alive (issue 27).
SHARED = {"warehouse.shared_filesystem": "true"}

# -- the decision, exhaustively --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("holder", "lease_epoch", "expired", "my_epoch"),
    list(itertools.product(["", "me", "other"], [0, 4], [False, True], [None, 4, 3])),
)
def test_lease_decision_over_every_case(
    holder: str, lease_epoch: int, expired: bool, my_epoch: int | None
) -> None:
    now = 1000.0
    lease = LeaseRow(holder, lease_epoch, now - 1 if expired else now + 5)
    move = decide(lease, "me", my_epoch, now)
    if holder == "me" and my_epoch == lease_epoch:
        assert (
            move is LeaseMove.RENEW
        )  # even past the expiry: nobody took it, the epoch is still ours
    elif holder == "other" and not expired:
        assert move is LeaseMove.FOLLOW
    else:
        # free, expired, or our own name from an earlier process (restarted after a kill -9)
        assert move is LeaseMove.TAKE


def test_the_frontend_name_is_kept_in_the_data_directory(tmp_path: Path) -> None:
    first = persistent_name(tmp_path)
    assert first.startswith("fe_") and persistent_name(tmp_path) == first
    (tmp_path / "frontend_name").write_text("../../bad name\n")  # not a name: a new one is made
    assert persistent_name(tmp_path) not in ("../../bad name", first)


# -- membership and fencing on a store
# -------------------------------------------------------------------


@pytest.fixture
def pg_store(pg_dsn: str) -> Iterator[Callable[[], MetadataStore]]:
    """Opens stores on one fresh PostgreSQL schema: each is one frontend's connection to it."""
    from drydock.engine.store.metastore_pg import PostgresStore

    opened: list[MetadataStore] = []

    def open_one() -> MetadataStore:
        opened.append(PostgresStore(pg_dsn))
        return opened[-1]

    yield open_one
    for store in opened:
        store.close()


def _member(store: MetadataStore, name: str, lease: list[float]) -> Membership:
    return Membership(
        store, FrontendIdentity(name, "127.0.0.1", 9030), f"proc-{name}", lambda: lease[0]
    )


def test_one_leader_and_the_lease_moves_only_when_it_expires(
    store_opener: Callable[[], MetadataStore],
) -> None:
    first_store = store_opener()
    lease = [30.0]
    a = _member(first_store, "fe_a", lease)
    a.join()
    assert a.epoch == 1
    if not first_store.shared:
        return  # SQLite: the data directory is one process's own; the lone frontend leads (above)
    # b's own lease is long: once taken, its belief must outlast this test's asserts on a slow
    # machine
    b = _member(store_opener(), "fe_b", [30.0])
    b.join()
    assert b.epoch is None, "a live lease is not taken"
    a.heartbeat()
    assert a.epoch == 1, "renewing keeps the epoch"
    lease[0] = 0.2
    a.heartbeat()  # now expires 0.2 s from here, and a stops renewing
    time.sleep(0.3)
    b.heartbeat()
    assert b.epoch == 2, "an expired lease is taken with the next epoch"
    [row_a, row_b] = a.rows()
    assert (row_a.name, row_a.leader, row_b.name, row_b.leader, row_b.epoch) == (
        "fe_a",
        False,
        "fe_b",
        True,
        2,
    )
    a.heartbeat()
    assert a.epoch is None, "the deposed leader learns it on its next heartbeat"


def test_a_deposed_leaders_late_transition_is_refused_by_the_fencing_token(
    pg_store: Callable[[], MetadataStore],
) -> None:
    """The old leader still believes it leads (it has not heartbeated since): every dispatcher move
    it makes is checked against the lease epoch in its own transaction and writes nothing."""
    store_a = pg_store()
    store_b = pg_store()
    # a's lease runs out at once; b's, once taken, outlasts the asserts below on a slow machine
    a, b = _member(store_a, "fe_a", [0.2]), _member(store_b, "fe_b", [30.0])
    a.join()
    jobs_a, jobs_b = JobManager(store_a), JobManager(store_b)
    jobs_a.fence, jobs_b.fence = a.check_fence, b.check_fence
    job = jobs_a.create(new_job(), 8, 8, 8)
    time.sleep(0.3)
    b.join()
    assert b.epoch == 2
    assert a._epoch == 1  # noqa: SLF001 - the stale belief is the point of this test
    with pytest.raises(NotLeader), store_a.transaction() as db:
        a.check_fence(db)
    late = jobs_a.mark_running(
        job.id,
        invocation_id="late",
        index_uuid="u",
        deadline_ms=1,
        process_epoch="proc-fe_a",
        backend_id="local",
    )
    assert late is None
    assert jobs_b.get(job.id).state is st.MutationState.PENDING  # type: ignore[union-attr]
    taken = jobs_b.mark_running(
        job.id,
        invocation_id="new",
        index_uuid="u",
        deadline_ms=1,
        process_epoch="proc-fe_b",
        backend_id="local",
    )
    assert taken is not None and taken.state is st.MutationState.RUNNING
    # a worker the deposed leader spawned late is never recorded (so it is killed unreleased)
    with pytest.raises(NotLeader):
        jobs_a.record_worker(job.id, "new", 4242, 1, "", "proc-fe_a")
    assert jobs_b.worker_of(job.id, "new") is None
    jobs_b.record_worker(job.id, "new", 4242, 1, "", "proc-fe_b")
    assert jobs_a.worker_of(job.id, "new") == (4242, 1)
    # a user's move is not fenced: any frontend may cancel what is still PENDING
    other = jobs_a.create(new_job("other_idx"), 8, 8, 8)
    assert jobs_a.cancel_pending(other.id) is not None


def test_admission_on_one_frontend_sees_the_fences_and_quotas_another_took(
    pg_store: Callable[[], MetadataStore],
) -> None:
    store_a = pg_store()
    jobs_a, jobs_b = JobManager(store_a), JobManager(pg_store())
    first = jobs_a.create(new_job(), 8, 8, 8)
    with pytest.raises(Exception, match="is fenced by unresolved job"):
        jobs_b.create(new_job(), 8, 8, 8)  # same index name: a's fence, read in b's transaction
    jobs_b.create(new_job("second"), 8, 8, 8)
    with pytest.raises(Exception, match="quota"):
        jobs_a.create(new_job("third"), 2, 8, 8)  # per-table quota 2: a counts b's job
    assert jobs_b.cancel_pending(first.id) is not None
    assert jobs_a.get(first.id).state is st.MutationState.NOT_COMMITTED  # type: ignore[union-attr]
    jobs_a.create(new_job("third"), 8, 8, 8)  # the fence b released is free in a


def test_concurrent_admissions_on_two_frontends_respect_one_global_quota(
    pg_store: Callable[[], MetadataStore],
) -> None:
    store_a = pg_store()
    managers = [JobManager(store_a), JobManager(pg_store())]
    admitted: list[int] = []
    refused: list[str] = []

    def admit_many(jobs: JobManager, prefix: str) -> None:
        for i in range(15):
            try:
                admitted.append(
                    jobs.create(
                        new_job(f"{prefix}{i}", locator=f"/w/db/t{prefix}{i}.lance"), 100, 100, 20
                    ).id
                )
            except Exception as exc:  # noqa: BLE001 - the quota refusal is the expected outcome
                refused.append(str(exc))

    threads = [
        threading.Thread(target=admit_many, args=(m, p))
        for m, p in zip(managers, "ab", strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(admitted) == 20 and len(refused) == 10, (len(admitted), refused[:2])
    assert all("quota" in r for r in refused)


# -- servers
# ----------------------------------------------------------------------------------------------


def _frontend(tmp_path: Path, name: str, dsn: str, lease: int, **env: str) -> ServerProcess:
    config = tmp_path / f"{name}.toml"
    config.write_text(f"[frontend]\nfrontend_lease_second = {lease}\n")
    return ServerProcess(
        data_dir=tmp_path / name,
        env=dict(env),
        extra_args=["--metadata-store", dsn, "--config", str(config), "--frontend-name", name],
    ).start()


def _leader(frontends: list[ServerProcess]) -> tuple[ServerProcess, list[ServerProcess]]:
    table = rows(frontends[0], "SHOW FRONTENDS")
    [leader_name] = [r[0] for r in table if r[3] == "LEADER"]
    leader = next(f for f in frontends if f.data_dir.name == leader_name)
    return leader, [f for f in frontends if f is not leader]


def test_three_frontends_admit_concurrently_and_agree(
    tmp_path: Path, pg_dsn: str, pg_cluster: PgCluster
) -> None:
    """Each frontend admits; the one leader dispatches all of it at once (NOTIFY); SHOW FRONTENDS
    and
    SHOW LANCE INDEX JOBS read the same on all three; config and grants set on one apply on all."""
    wh = local_warehouse(tmp_path / "wh")
    for i in range(6):
        wh.write("db", f"t{i}", vector_table(200, seed=i))
    frontends = [_frontend(tmp_path, f"fe_{n}", pg_dsn, lease=10) for n in "abc"]
    try:
        catalog = create_catalog(frontends[0], wh, **SHARED)
        shows = [rows(f, "SHOW FRONTENDS") for f in frontends]
        for own, table in zip(frontends, shows, strict=True):
            assert sorted(r[0] for r in table) == ["fe_a", "fe_b", "fe_c"]
            assert [r[3] for r in table].count("LEADER") == 1
            assert all(r[5] == "true" for r in table)
            assert [r[0] for r in table if r[8] == "Yes"] == [own.data_dir.name]
            assert {r[2] for r in table} == {f.port for f in frontends}
        assert len({tuple((r[0], r[3], r[7]) for r in t) for t in shows}) == 1, shows
        leader, followers = _leader(frontends)

        job_ids: list[int] = []
        lock = threading.Lock()

        def create(frontend: ServerProcess, i: int) -> None:
            job = admit(frontend, f"CREATE INDEX by_id ON {catalog}.db.t{i} (id) USING BTREE")
            with lock:
                job_ids.append(job)

        threads = [threading.Thread(target=create, args=(frontends[i % 3], i)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(job_ids) == 6
        for job_id in job_ids:  # settled, and the worker's slot released: nothing moves any more
            done = wait_job(
                followers[0],
                job_id,
                timeout=60,
                until=lambda j: (
                    j["State"] != "RUNNING"
                    and j["PossibleLive"] == "NO"
                    and j["RefreshState"] == "DONE"
                ),
            )
            assert done["State"] == "COMMITTED"
        listings = [
            [{k: v for k, v in j.items() if k != "Progress"} for j in show_jobs(f)]
            for f in frontends
        ]
        assert listings[0] == listings[1] == listings[2] and len(listings[0]) == 6
        for i in range(6):
            assert {k: v.upper() for k, v in wh.indexes("db", f"t{i}").items()} == {
                "by_id": "BTREE"
            }

        # a runtime config set on a follower reaches the leader's dispatcher: paused, nothing moves
        set_config(followers[0], lance_index_job_dispatcher_paused=True)
        wait_until(
            lambda: (
                rows(leader, "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_dispatcher_paused'")[
                    0
                ][1]
                == "true"
            ),
            10,
            "the leader sees the pause",
        )
        held = admit(followers[1], f"CREATE INDEX by_id2 ON {catalog}.db.t0 (id) USING BTREE")
        time.sleep(1.5)  # the leader was woken by the admission (NOTIFY) and must not dispatch it
        assert show_job(leader, held)["State"] == "PENDING"
        set_config(followers[1], lance_index_job_dispatcher_paused=False)
        assert wait_job(followers[0], held, timeout=60)["State"] == "COMMITTED"

        # a user made and granted on one frontend logs in and reads on another
        followers[0].query("CREATE USER 'ana'@'%' IDENTIFIED BY 'pw'")
        followers[0].query(f"GRANT SELECT ON {catalog}.db.t1 TO 'ana'@'%'")
        wait_until(
            lambda: _count(leader, f"SELECT count(*) FROM {catalog}.db.t1", "ana") == 200,
            10,
            "the grant made on a follower applies on the leader",
        )
        followers[0].query(f"REVOKE SELECT ON {catalog}.db.t1 FROM 'ana'@'%'")
        wait_until(
            lambda: _count(followers[1], f"SELECT count(*) FROM {catalog}.db.t1", "ana") is None,
            10,
            "the revoke applies on the other frontends too",
        )
    finally:
        for frontend in frontends:
            frontend.stop()


def _count(server: ServerProcess, sql: str, user: str) -> int | None:
    try:
        return int(rows(server, sql, user=user, password="pw")[0][0])
    except Exception:  # noqa: BLE001 - denied (or not yet granted): no count
        return None


def test_kill9_of_the_leader_mid_build_a_follower_takes_over_and_the_job_commits_once(
    tmp_path: Path, pg_dsn: str
) -> None:
    """The leader's worker commits the index and hangs before answering; the leader is killed -9.
    A follower takes the lease within frontend_lease_second, adopts the job (RUNNING of another
    epoch → UNKNOWN), proves the worker gone (same host), settles it COMMITTED by the evidence, and
    never builds it a second time."""
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(300))
    lease = 3
    leader = _frontend(
        tmp_path, "fe_a", pg_dsn, lease, DRYDOCK_FAULT_WORKER_MODE="hang_after_commit"
    )
    follower = _frontend(tmp_path, "fe_b", pg_dsn, lease)
    try:
        assert _leader([leader, follower])[0] is leader  # the first one up took the lease
        catalog = create_catalog(follower, wh, **SHARED)
        version_before = wh.dataset("db", "t").version
        job_id = admit(follower, f"CREATE INDEX by_id ON {catalog}.db.t (id) USING BTREE")
        wait_until(lambda: "by_id" in wh.indexes("db", "t"), 60, "the worker committed the index")
        assert show_job(follower, job_id)["State"] == "RUNNING"
        epoch_before = next(r[7] for r in rows(follower, "SHOW FRONTENDS") if r[3] == "LEADER")
        leader.kill9()
        killed = time.monotonic()
        wait_until(
            lambda: any(
                r[0] == "fe_b" and r[3] == "LEADER" for r in rows(follower, "SHOW FRONTENDS")
            ),
            lease * 3 + 5,
            "the follower took the lease",
        )
        took_over = time.monotonic() - killed
        # the lease plus one heartbeat interval (lease / 3), with slack for a loaded 2-core machine
        assert took_over <= lease * 2 + 3, f"failover took {took_over:.1f}s with a {lease}s lease"
        [fe_b] = [r for r in rows(follower, "SHOW FRONTENDS") if r[0] == "fe_b"]
        assert int(fe_b[7]) == int(epoch_before) + 1
        job = wait_job(follower, job_id, timeout=60)
        assert (job["State"], job["PossibleLive"]) == ("COMMITTED", "NO"), job
        versions = wh.dataset("db", "t").versions()
        index_commits = [v for v in versions if v["version"] > version_before]
        assert len(index_commits) == 1, f"the index was committed {len(index_commits)} times"
        print(
            f"failover: the follower led {took_over:.2f}s after the leader's kill -9 (lease "
            f"{lease}s)"
        )
    finally:
        leader.kill9()
        follower.stop()


def test_a_restarted_frontend_proves_its_own_earlier_workers_gone_even_as_a_follower(
    tmp_path: Path, pg_dsn: str
) -> None:
    """Only the host a worker ran on can prove it gone by its pid: the frontend that spawned it,
    restarted, does so as a follower too; a worker another frontend spawned is not its to prove."""
    from drydock.engine.core import Engine
    from drydock.engine.jobs.runtime.supervisor_state import start_ticks

    leader = Engine(tmp_path / "a", metadata_store=pg_dsn, frontend_name="fe_a")
    follower = Engine(tmp_path / "b", metadata_store=pg_dsn, frontend_name="fe_b")
    try:
        assert leader.frontend.is_leader and not follower.frontend.is_leader
        exited = subprocess.Popen(["true"])
        exited.wait()
        alive = subprocess.Popen(["sleep", "60"])
        try:
            jobs = {}
            for name, spawner, pid, ticks in (
                ("mine", follower, exited.pid, 12345),
                ("mine_alive", follower, alive.pid, start_ticks(alive.pid)),
                ("theirs", leader, exited.pid, 12345),
            ):
                job = leader.jobs.create(new_job(name), 8, 8, 8)
                leader.jobs.mark_running(
                    job.id,
                    invocation_id=f"inv-{name}",
                    index_uuid="u",
                    deadline_ms=2**40,
                    process_epoch="an-earlier-epoch",
                    backend_id="local",
                )
                leader.jobs.record_worker(job.id, f"inv-{name}", pid, ticks, "", "an-earlier-epoch")
                with (
                    leader.store.transaction() as db
                ):  # spawned by that frontend's earlier run, as leader
                    db.execute(
                        "UPDATE lance_index_workers SET frontend = ? WHERE job_id = ?",
                        (spawner.frontend.identity.name, job.id),
                    )
                leader.jobs.mark_unknown(job.id, "the frontend that ran it restarted")
                jobs[name] = job.id
            follower.dispatcher.prove_own_earlier_workers("fe_b")
            proofs = {
                name: follower.jobs.get(job_id).termination_proof for name, job_id in jobs.items()
            }  # type: ignore[union-attr]
            assert proofs == {
                "mine": st.TerminationProof.BE_PROCESS_EPOCH_GONE,
                "mine_alive": st.TerminationProof.NONE,  # killed now, proven on a later tick
                "theirs": st.TerminationProof.NONE,
            }
            assert alive.wait(timeout=10) == -9
        finally:
            alive.kill()
            alive.wait()
        follower.dispatcher.prove_own_earlier_workers("fe_b")
        assert (
            leader.jobs.get(jobs["mine_alive"]).termination_proof
            is st.TerminationProof.BE_PROCESS_EPOCH_GONE
        )  # type: ignore[union-attr]
    finally:
        follower.close()
        leader.close()


def test_losing_and_regaining_the_lease_restarts_the_dispatcher_with_a_new_epoch(
    tmp_path: Path,
) -> None:
    """The lease lost: dispatching stops (its workers are killed with the supervisor); regained: a
    new process epoch and supervisor, and what the last run left RUNNING is adopted as after a
    restart."""
    from drydock.engine.core import Engine

    engine = Engine(tmp_path / "fe")
    try:
        engine.dispatcher.start()
        first_epoch, first_backend = engine.dispatcher.epoch, engine.dispatcher.backend
        job = engine.jobs.create(new_job("left_running"), 8, 8, 8)
        engine.jobs.mark_running(
            job.id,
            invocation_id="inv",
            index_uuid="u",
            deadline_ms=2**40,
            process_epoch=first_epoch,
            backend_id="local",
        )
        engine.dispatcher.stop()  # what on_follow does
        assert not engine.dispatcher.running
        engine.dispatcher.start()  # what on_lead does
        assert engine.dispatcher.running
        assert engine.dispatcher.epoch != first_epoch
        assert engine.dispatcher.backend is not first_backend
        adopted = engine.jobs.get(job.id)
        assert adopted is not None and adopted.state is st.MutationState.UNKNOWN
        assert engine.metrics.registry.get_sample_value("drydock_supervisor_inflight_workers") == 0
    finally:
        engine.close()


def test_a_paused_leader_is_deposed_and_its_late_result_changes_nothing(
    tmp_path: Path, pg_dsn: str
) -> None:
    """SIGSTOP the leader while its worker builds (a long GC pause, a partition). The follower takes
    the lease, adopts the job (UNKNOWN) and waits for a proof. SIGCONT: the old leader reads its
    worker's result late; it no longer holds the epoch, so it records nothing but the reaped child
    (a fact, not a decision), steps down, and the new leader settles the job by evidence, once."""
    import signal

    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(300))
    lease = 2
    old = _frontend(tmp_path, "fe_a", pg_dsn, lease, DRYDOCK_FAULT_WORKER_MODE="slow_start")
    new = _frontend(tmp_path, "fe_b", pg_dsn, lease)
    try:
        assert _leader([old, new])[0] is old
        catalog = create_catalog(new, wh, **SHARED)
        version_before = wh.dataset("db", "t").version
        job_id = admit(new, f"CREATE INDEX by_id ON {catalog}.db.t (id) USING BTREE")
        wait_job(new, job_id, until=lambda j: j["State"] == "RUNNING", timeout=30)
        assert old.proc is not None
        old.proc.send_signal(signal.SIGSTOP)
        try:
            wait_until(
                lambda: any(
                    r[0] == "fe_b" and r[3] == "LEADER" for r in rows(new, "SHOW FRONTENDS")
                ),
                lease * 4 + 5,
                "the follower took the lease from the paused leader",
            )
            # adopted: UNKNOWN, then settled by evidence once the worker is proven gone — at once if
            # it was never released (no record), else only after the paused parent reaps it
            wait_until(
                lambda: show_job(new, job_id)["State"] in ("UNKNOWN", "NOT_COMMITTED"),
                15,
                "the new leader adopted the job",
            )
        finally:
            old.proc.send_signal(signal.SIGCONT)
        # settled by evidence: COMMITTED or NOT_COMMITTED, not a released UNKNOWN still waiting
        # for the reconciler's next pass
        job = wait_job(
            new,
            job_id,
            until=lambda j: settled(j) and j["PossibleLive"] == "NO" and j["State"] != "UNKNOWN",
            timeout=60,
        )
        wait_until(
            lambda: "lost the dispatcher lease" in old.log_text(), 15, "the old leader stepped down"
        )
        assert [r[3] for r in rows(old, "SHOW FRONTENDS") if r[0] == "fe_a"] == ["FOLLOWER"]
        # settled by evidence, and the evidence agrees with the dataset: one commit or none, never
        # two
        versions = [v for v in wh.dataset("db", "t").versions() if v["version"] > version_before]
        if job["State"] == "COMMITTED":
            assert len(versions) == 1 and "by_id" in wh.indexes("db", "t"), (job, versions)
        else:
            assert (
                job["State"] == "NOT_COMMITTED" and versions == [] and wh.indexes("db", "t") == {}
            ), job
    finally:
        if old.proc is not None and old.proc.poll() is None:
            old.proc.send_signal(signal.SIGCONT)
        old.stop()
        new.stop()
