"""Group commit of admissions: concurrent admissions share one transaction, each client is answered
only once its own row is durable, one failing row fails only its own client, and a kill -9 during a
burst of concurrent admissions loses no job whose JobId was returned."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine.errors import DrydockError
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.store.metastore import MetaStore
from tests.conftest import make_server
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import (
    create_catalog,
    local_warehouse,
    pause,
    set_config,
    show_jobs,
    vector_table,
)
from tests.support.waiting import wait_until

LIMITS = (1000, 1000, 1000)


def hold_first_batch(jobs: JobManager) -> tuple[threading.Event, threading.Event]:
    """The first batch's writer blocks (inside the write) until released: later admissions queue."""
    entered, release = threading.Event(), threading.Event()
    write = jobs._admissions._write

    def held(batch: list[Any]) -> None:
        if not entered.is_set():
            entered.set()
            release.wait(10)
        write(batch)

    jobs._admissions._write = held
    return entered, release


def admit_in_threads(
    jobs: JobManager,
    names: list[str],
    outcome: dict[str, Any],
    make: Callable[[str], Any] = new_job,
) -> list[threading.Thread]:
    def one(name: str) -> None:
        try:
            outcome[name] = jobs.create(make(name), *LIMITS)
        except DrydockError as exc:
            outcome[name] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    return threads


def queued(jobs: JobManager, count: int) -> None:
    wait_until(
        lambda: len(jobs._admissions._queue) >= count,
        10,
        f"{count} admissions queue",
        interval=0.005,
    )


def test_admissions_waiting_together_are_written_in_one_batch(tmp_path: Path) -> None:
    jobs = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    entered, release = hold_first_batch(jobs)
    outcome: dict[str, Any] = {}
    first = admit_in_threads(jobs, ["first"], outcome)
    assert entered.wait(10)
    assert "first" not in outcome  # answered only after its row is durable
    rest = admit_in_threads(jobs, [f"n{i}" for i in range(7)], outcome)
    queued(jobs, 7)
    release.set()
    for thread in first + rest:
        thread.join(10)
    assert (jobs._admissions.batches, jobs._admissions.largest) == (2, 7)
    reopened = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    for job in outcome.values():
        assert reopened.get(job.id) == job and job.state is st.MutationState.PENDING


def test_a_refused_row_in_a_batch_fails_only_its_own_client(tmp_path: Path) -> None:
    """Two admissions of one name in one batch: the second meets the first's fence, in order."""
    jobs = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    entered, release = hold_first_batch(jobs)
    outcome: dict[str, Any] = {}
    threads = admit_in_threads(jobs, ["first"], outcome)
    assert entered.wait(10)
    threads += admit_in_threads(
        jobs, ["a", "dup"], outcome, lambda n: new_job("same" if n == "dup" else n)
    )
    queued(jobs, 2)
    threads += admit_in_threads(jobs, ["same", "b"], outcome)
    queued(jobs, 4)
    release.set()
    for thread in threads:
        thread.join(10)
    assert jobs._admissions.largest == 4
    refused = [name for name, result in outcome.items() if isinstance(result, DrydockError)]
    assert (
        len(refused) == 1 and outcome[refused[0]].code == 5100
    )  # whichever of the two came second
    assert len({r.id for r in outcome.values() if not isinstance(r, DrydockError)}) == 4


def test_a_row_the_store_rejects_falls_back_to_per_row_writes(tmp_path: Path) -> None:
    """A row whose INSERT fails aborts the batch transaction; every row is then written on its own
    and only the bad one fails (its client gets 1105), the others are durable."""
    jobs = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    entered, release = hold_first_batch(jobs)
    outcome: dict[str, Any] = {}
    threads = admit_in_threads(jobs, ["first"], outcome)
    assert entered.wait(10)
    bad = lambda n: new_job(n).replace(properties=object()) if n == "bad" else new_job(n)
    threads += admit_in_threads(jobs, ["a", "bad", "b"], outcome, bad)
    queued(jobs, 3)
    release.set()
    for thread in threads:
        thread.join(10)
    assert isinstance(outcome["bad"], DrydockError) and outcome["bad"].code == 1105
    reopened = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    for name in ("first", "a", "b"):
        assert reopened.get(outcome[name].id) == outcome[name]
    assert len(list(reopened.iter_rows())) == 3
    assert jobs.quota_counts()[2] == 3  # the failed batch left nothing behind in memory


def test_admission_of_a_job_not_in_the_initial_state_is_refused(tmp_path: Path) -> None:
    jobs = JobManager(MetaStore(tmp_path / "meta.sqlite"))
    with pytest.raises(st.JobStateError):
        jobs.create(new_job().replace(state=st.MutationState.RUNNING), *LIMITS)
    assert list(jobs.iter_rows()) == []


# -- over the wire: kill -9 in the middle of a burst
# -----------------------------------------------------
def burst(port: int, catalog: str, worker: int, returned: list[int], stop: threading.Event) -> None:
    try:
        conn = pymysql.connect(
            host="127.0.0.1", port=port, user="root", password="", autocommit=True, read_timeout=30
        )
    except pymysql.err.MySQLError:
        return
    try:
        with conn.cursor() as cur:
            for i in range(100_000):
                if stop.is_set():
                    return
                cur.execute(f"CREATE INDEX b{worker}_{i} ON {catalog}.db.t (id) USING BTREE")
                returned.append(int(cur.fetchall()[0][0]))
    except (pymysql.err.MySQLError, OSError):
        return  # the server died under us: whatever was returned before must survive
    finally:
        conn.close()


def test_kill9_during_a_burst_of_concurrent_admissions_loses_no_returned_job(
    tmp_path: Path,
) -> None:
    server = make_server(tmp_path).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", vector_table(100))
        catalog = create_catalog(server, wh)
        pause(server)
        set_config(
            server,
            lance_index_job_max_unresolved_per_table=10**9,
            lance_index_job_max_unresolved_per_catalog=10**9,
            lance_index_job_max_unresolved_global=10**9,
        )
        returned: list[int] = []
        stop = threading.Event()
        threads = [
            threading.Thread(target=burst, args=(server.port, catalog, w, returned, stop))
            for w in range(8)
        ]
        for thread in threads:
            thread.start()
        wait_until(lambda: len(returned) >= 200, 60, "200 admissions answered")
        server.kill9()  # mid-burst: statements are in flight on every connection
        stop.set()
        for thread in threads:
            thread.join(30)
        assert len(returned) >= 200
        server.start()
        stored = {int(j["JobId"]): j["State"] for j in show_jobs(server)}
        assert set(returned) <= set(stored), sorted(set(returned) - set(stored))[:10]
        assert {stored[i] for i in returned} == {"PENDING"}
    finally:
        server.stop()
