"""Issue 27 item 2 with real frontends on one PostgreSQL store: a local dataset's job waits PENDING
while two frontends are alive (its Message, in SHOW LANCE INDEX JOB(S) on both, says why), is
dispatched once the other frontend is gone, and a catalog declaring
``warehouse.shared_filesystem = true`` is dispatched with both alive."""

from __future__ import annotations

from pathlib import Path

from tests.store.test_frontends import _frontend, _leader
from tests.support.lance_fixtures import (
    admit,
    create_catalog,
    local_warehouse,
    show_job,
    show_jobs,
    vector_table,
    wait_job,
)

HELD = (
    "waiting: 2 frontends are alive on this store and this local dataset's path may name another "
    "dataset (or none) on the leader's host; it is dispatched while exactly one frontend is "
    "alive, or set the catalog property 'warehouse.shared_filesystem' = 'true' if every frontend "
    "mounts the warehouse at the same path"
)


def test_a_local_job_waits_for_a_lone_frontend_or_a_shared_filesystem(
    tmp_path: Path, pg_dsn: str
) -> None:
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(200))
    wh.write("db", "u", vector_table(200))
    lease = 3
    frontends = [_frontend(tmp_path, f"fe_{n}", pg_dsn, lease) for n in "ab"]
    try:
        leader, [follower] = _leader(frontends)
        plain = create_catalog(follower, wh)
        shared = create_catalog(follower, wh, **{"warehouse.shared_filesystem": "true"})
        # a shared file system: dispatched by the leader although two frontends are alive
        done = wait_job(
            follower, admit(follower, f"CREATE INDEX s ON {shared}.db.u (id) USING BTREE")
        )
        assert done["State"] == "COMMITTED", done
        # not declared shared: held, and every frontend shows why
        held = admit(follower, f"CREATE INDEX p ON {plain}.db.t (id) USING BTREE")
        for frontend in frontends:
            job = wait_job(frontend, held, until=lambda j: j["Message"] == HELD)
            assert job["State"] == "PENDING"
            [listed] = [j for j in show_jobs(frontend) if int(j["JobId"]) == held]
            assert (listed["State"], listed["Message"]) == ("PENDING", HELD)
        follower.stop()  # one frontend left: once its heartbeat ages out, the job goes
        done = wait_job(leader, held, timeout=lease * 4 + 60)
        assert done["State"] == "COMMITTED", done
        assert show_job(leader, held)["ResultCode"] == "NATIVE_OK"
    finally:
        for frontend in frontends:
            frontend.stop()
