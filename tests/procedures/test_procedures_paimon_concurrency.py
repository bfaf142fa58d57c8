"""Paimon procedures under concurrency and cancellation. A test-only hook
(DRYDOCK_TEST_PAIMON_HOOK_DIR,
off unless armed) stops a call after it validated and pinned the table; the test commits with
pypaimon
meanwhile; the call must fail with PROCEDURE_CONCURRENT_COMMIT and have changed nothing. KILL QUERY
during a call stops it cooperatively and the error says what was done."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.paimon_procs import PARTED, Lake, Paused, concurrently, local_lake, row, s3_lake
from tests.support.s3 import S3Server

FUTURE = "'2999-01-01 00:00:00'"


def base(lake: Lake, name: str, options: dict[str, str] | None = None) -> None:
    """Snapshots 1-3, tags t1 (1) and base (3), branch dev from base with one commit of its own."""
    lake.create(name, options=options or {})
    for i in range(1, 4):
        lake.append(name, [row(i)])
    lake.call("create_tag", f"'{name}', 't1', 1")
    lake.call("create_tag", f"'{name}', 'base', 3")
    lake.call("create_branch", f"'{name}', 'dev', 'base'")
    lake.append(name, [row(10, "dev")], branch="dev")


def parted(lake: Lake, name: str) -> None:
    lake.create(name, PARTED, partition_keys=["dt"])
    lake.append(name, [{"id": 1, "item": "a", "dt": "2001-01-01"}])
    lake.append(name, [{"id": 2, "item": "b", "dt": "2001-01-02"}])


# (procedure, arguments ({t} is the table), setup, the branch the external writer commits to)
CASES: list[tuple[str, str, Callable[[Lake, str], None], str | None]] = [
    ("expire_snapshots", f"'{{t}}', NULL, 1, {FUTURE}", base, None),
    ("remove_orphan_files", f"'{{t}}', {FUTURE}", base, None),
    ("rollback_to", "'{t}', NULL, 1", base, None),
    ("rollback_to_as_latest", "'{t}', NULL, 1", base, None),
    ("compact", "'{t}'", base, None),
    ("create_tag", "'{t}', 'fresh'", base, None),
    ("delete_tag", "'{t}', 't1'", base, None),
    ("rename_tag", "'{t}', 't1', 't9'", base, None),
    ("create_branch", "'{t}', 'fresh', 't1'", base, None),
    ("delete_branch", "'{t}', 'dev'", base, "dev"),
    ("rename_branch", "'{t}', 'dev', 'dev2'", base, "dev"),
    ("fast_forward", "'{t}', 'dev'", base, None),
    ("fast_forward", "'{t}', 'dev'", base, "dev"),
    (
        "merge_branch",
        "'{t}', 'dev'",
        lambda lake, t: base(lake, t, {"branch-merge.enabled": "true"}),
        None,
    ),
    ("expire_partitions", "'{t}', '1 d'", parted, None),
    ("mark_partition_done", "'{t}', 'dt=2001-01-01'", parted, None),
]


@pytest.mark.parametrize(
    "procedure,args,setup,branch", CASES, ids=[f"{c[0]}-{c[3] or 'main'}" for c in CASES]
)
def test_concurrent_commit_fails_the_call_and_changes_nothing(
    proc_server: ServerProcess,
    hook_dir: Path,
    tmp_path: Path,  # noqa: F811
    procedure: str,
    args: str,
    setup: Callable[[Lake, str], None],
    branch: str | None,
) -> None:
    lake = local_lake(proc_server, tmp_path)
    table = f"db.c{uuid.uuid4().hex[:6]}"
    setup(lake, table)
    lake.put(table, "bucket-0/data-stray.parquet")  # an orphan remove_orphan_files would delete
    before = {
        "main": lake.snapshots(table),
        "tags": lake.tags(table),
        "files": set(lake.files(table)),
    }
    branches = lake.branches(table)
    dev = lake.snapshots(table, branch="dev") if "dev" in branches else []
    row_of = (
        {"id": 77, "item": "late", "qty": 1}
        if "dt" not in lake.schemas[table].names
        else {"id": 77, "item": "late", "dt": "2001-01-01"}
    )
    code, message = concurrently(
        lake,
        hook_dir,
        procedure,
        args.format(t=table),
        lambda: lake.append(table, [row_of], branch=branch),
    )
    assert code == 1105 and "concurrent commit" in message and "nothing was deleted" in message, (
        message
    )
    assert lake.snapshots(table) == before["main"] + (
        [before["main"][-1] + 1] if branch is None else []
    )
    assert lake.tags(table) == before["tags"] and lake.branches(table) == branches
    if branch == "dev":
        assert lake.snapshots(table, branch="dev") == dev + [dev[-1] + 1]
    assert before["files"] <= set(lake.files(table)), "nothing was deleted"
    assert not any(f.endswith("_SUCCESS") for f in lake.files(table))
    assert (77, "late") in [r[:2] for r in lake.rows(table, branch=branch)]


def test_concurrent_commit_on_s3(proc_server: ServerProcess, hook_dir: Path, s3: S3Server) -> None:  # noqa: F811
    lake = s3_lake(proc_server, s3)
    base(lake, "db.t")
    before = set(lake.files("db.t"))
    code, message = concurrently(
        lake,
        hook_dir,
        "expire_snapshots",
        f"'db.t', NULL, 1, {FUTURE}",
        lambda: lake.append("db.t", [row(77)]),
    )
    assert code == 1105 and "concurrent commit" in message
    assert before <= set(lake.files("db.t")) and lake.snapshots("db.t") == [1, 2, 3, 4]


def kill_query(lake: Lake, paused: Paused) -> None:
    assert paused.connection_id is not None
    lake.sql(f"KILL QUERY {paused.connection_id}")


def test_kill_query_before_any_change(
    proc_server: ServerProcess, hook_dir: Path, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    base(lake, "db.t")
    before = set(lake.files("db.t"))
    paused = Paused(lake, hook_dir, "expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
    kill_query(lake, paused)
    paused.resume()
    assert paused.error is not None and paused.error[0] == 1317
    assert "KILL QUERY" in paused.error[1] and "nothing was changed" in paused.error[1]
    assert set(lake.files("db.t")) == before and lake.snapshots("db.t") == [1, 2, 3]


def test_kill_query_midway_says_what_was_done(
    proc_server: ServerProcess, hook_dir: Path, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    lake.create("db.t")
    for i in range(1, 5):
        lake.overwrite("db.t", [row(i)])
    paused = Paused(lake, hook_dir, "expire_snapshots", f"'db.t', NULL, 1, {FUTURE}", point="files")
    kill_query(lake, paused)
    paused.resume()
    assert paused.error is not None and paused.error[0] == 1317
    assert "expired snapshots 1..3" in paused.error[1] and "deleted 3 object(s)" in paused.error[1]
    # Snapshot files went first: what remains is consistent; the rest is left for the orphan
    # cleaner.
    assert lake.snapshots("db.t") == [4] and lake.rows("db.t") == [(4, "x", 1)]
    count = lake.call("remove_orphan_files", f"'db.t', {FUTURE}")[0][0]
    assert count == 3 * 2 + 3  # the three snapshots' manifest lists and data files nothing reads
    assert lake.rows("db.t") == [(4, "x", 1)]


def test_a_tag_created_midway_keeps_its_files(
    proc_server: ServerProcess, hook_dir: Path, tmp_path: Path
) -> None:  # noqa: F811
    """Between deleting snapshot files and deleting data files, expire_snapshots re-reads the
    roots."""
    lake = local_lake(proc_server, tmp_path)
    lake.create("db.t")
    for i in range(1, 4):
        lake.overwrite("db.t", [row(i)])
    second = lake.data_files("db.t", snapshot=2)
    snapshot_2 = lake.table("db.t").snapshot_manager().get_snapshot_by_id(2)
    paused = Paused(lake, hook_dir, "expire_snapshots", f"'db.t', NULL, 1, {FUTURE}", point="files")
    lake.table("db.t").tag_manager().create_tag(
        snapshot_2, "late"
    )  # another engine tags snapshot 2
    paused.resume()
    assert paused.result == [(2,)], paused.error
    assert second <= set(lake.files("db.t")) and lake.rows("db.t", tag="late") == [(2, "x", 1)]


def test_procedure_timeout_cancels(
    proc_server: ServerProcess, hook_dir: Path, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    base(lake, "db.t")
    try:
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_timeout_second' = '1')")
        paused = Paused(lake, hook_dir, "delete_tag", "'db.t', 't1'")
        paused._thread.join(30)
        assert (
            paused.error is not None
            and paused.error[0] == 1317
            and "procedure timeout" in paused.error[1]
        )
    finally:
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_timeout_second' = '3600')")
        Path(f"{paused.base}.resume").unlink(missing_ok=True)
    assert lake.tags("db.t") == {"base": 3, "t1": 1}
    with pytest.raises(pymysql.err.MySQLError):
        lake.call("delete_tag", "'db.t', 'gone'")
