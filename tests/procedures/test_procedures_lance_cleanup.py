"""expire_snapshots and remove_orphan_files on local disk: retention rules, tagged and branch
versions, the orphan cases (tag-only, branch-only, young, real), bounds, KILL QUERY and the
timeout. The server deletes in batches of 2 here (DRYDOCK_FAULT_PROCEDURE_BATCH, test-only) so
that a cancel or a concurrent commit can land between two batches.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import lance
import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import Warehouse, local_warehouse, set_config
from tests.support.procedures_lance_support import (
    Table,
    backdate,
    call,
    check,
    fails,
    ids_table,
    make_table,
    paused,
    stray,
    warnings_of,
)
from tests.support.waiting import wait_until

EXPIRE_COLUMNS = [
    "deleted_snapshots_count",
    "deleted_data_files_count",
    "deleted_deletion_files_count",
    "deleted_index_files_count",
    "deleted_transaction_files_count",
    "bytes_removed",
    "kept_tagged_snapshots_count",
    "kept_branch_snapshots_count",
    "current_snapshot_id",
]


@pytest.fixture(scope="module")
def fault_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, fault_dir: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        data_dir=tmp_path_factory.mktemp("cleanup") / "data",
        env={"DRYDOCK_FAULT_PROCEDURE_DIR": str(fault_dir), "DRYDOCK_FAULT_PROCEDURE_BATCH": "2"},
    ).start()
    yield proc
    proc.stop()


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    return local_warehouse(tmp_path / "wh")


def overwrite(t: Table, start: int, n: int) -> None:
    lance.write_dataset(ids_table(start, n), t.uri, mode="overwrite")
    t.ids = list(range(start, start + n))
    t.next_id = start + n


def local_now() -> str:
    return dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")


def test_expire_by_count_keeps_tagged_and_branch_versions(
    server: ServerProcess, wh: Warehouse
) -> None:
    t = make_table(server, wh, versions=1)
    overwrite(t, 100, 10)  # v2: v1's data file is now referenced by v1 only
    for _ in range(4):
        t.append(5)  # v3..v6
    t.ds().tags.create("keep", 2)
    t.ds().create_branch("dev", 3)
    columns, out = call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 2)")
    assert columns == EXPIRE_COLUMNS
    # v1..v4 are beyond retain_max=2; v2 is tagged and v3 is the branch's base: v1 and v4 go
    deleted, data_files, _, _, txn_files, removed, tagged, bases, current = out[0]
    assert (deleted, data_files, txn_files, tagged, bases, current) == (2, 1, 2, 1, 1, 6)
    assert removed > 0
    check(t, versions=[2, 3, 5, 6], tags={"keep": 2}, branches=["dev"])
    with pytest.raises((OSError, ValueError)):
        t.ds(version=1)
    assert t.ds(version="keep").count_rows() == 10
    assert t.ds().checkout_version(("dev", None)).count_rows() == 15
    # the tagged version goes once its tag is gone (named form)
    call(server, f"CALL {t.catalog}.sys.delete_tag('{t.arg}', 'keep')")
    out = call(
        server,
        f"CALL {t.catalog}.sys.expire_snapshots(table => '{t.arg}', retain_max => 2, "
        "retain_min => 1)",
    )[1]
    assert out[0][0] == 1 and out[0][6:] == (0, 1, 6)
    check(t, versions=[3, 5, 6], tags={}, branches=["dev"])


def test_expire_by_age_retain_min_and_the_default(server: ServerProcess, wh: Warehouse) -> None:
    t = make_table(server, wh, versions=3)
    time.sleep(0.05)
    cutoff = local_now()
    time.sleep(0.05)
    t.append(5)
    t.append(5)  # v4, v5 are younger than the cutoff
    # the default (older than 14 days) expires nothing here
    assert call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}')")[1] == [
        (0, 0, 0, 0, 0, 0, 0, 0, 5)
    ]
    check(t, versions=[1, 2, 3, 4, 5])
    # retain_min keeps the newest four although three are older than the cutoff
    out = call(
        server,
        f"CALL {t.catalog}.sys.expire_snapshots(table => '{t.arg}', older_than => '{cutoff}', "
        "retain_min => 4)",
    )[1]
    assert out[0][0] == 1
    check(t, versions=[2, 3, 4, 5])
    out = call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', NULL, NULL, '{cutoff}')")[
        1
    ]
    assert out[0][0] == 2 and out[0][-1] == 5
    check(t, versions=[4, 5])
    epoch_ms = str(int(time.time() * 1000) + 1000)
    out = call(
        server,
        f"CALL {t.catalog}.sys.expire_snapshots(table => '{t.arg}', older_than => '{epoch_ms}')",
    )[1]
    assert out[0][0] == 1  # everything older, but the latest always stays
    check(t, versions=[5])


def test_expire_max_deletes_leaves_the_rest_with_a_warning(
    server: ServerProcess, wh: Warehouse
) -> None:
    t = make_table(server, wh, versions=6)
    result, warnings = warnings_of(
        server,
        f"CALL {t.catalog}.sys.expire_snapshots(table => '{t.arg}', "
        "retain_max => 1, max_deletes => 3)",
    )
    assert result[0][0] == 3
    assert warnings == [
        (
            "Warning",
            1105,
            "expire_snapshots stopped at max_deletes=3: 2 more expired snapshots remain; call it "
            "again",
        )
    ]
    check(t, versions=[4, 5, 6])
    set_config(server, procedure_max_deletes=1)
    try:
        result, warnings = warnings_of(
            server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)"
        )
        assert result[0][0] == 1 and "max_deletes=1" in warnings[0][2]
    finally:
        set_config(server, procedure_max_deletes=100000)
    check(t, versions=[5, 6])


def orphan_layout(server: ServerProcess, wh: Warehouse) -> tuple[Table, dict[str, list[str]]]:
    """A table where each kind of file exists once; every file looks 3 days old except 'young'."""
    t = make_table(server, wh, versions=1)
    t.ds().tags.create("old", 1)
    overwrite(t, 100, 10)  # v2
    t.append(5)  # v3
    assert (
        call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)")[1][0][0] == 1
    )  # v2 goes
    branch = t.ds().create_branch("dev", 3)
    lance.write_dataset(ids_table(500, 3), branch.uri, mode="append")
    t.ds().create_scalar_index("id", "BTREE")  # v4: live index files must stay
    root = t.local_path
    v1_file = t.ds(version="old").get_fragments()[0].data_files()[0].path
    dev_files = [p for p in t.files() if p.startswith("tree/dev/data/")]
    assert len(dev_files) == 1
    live_index = [p for p in t.files() if p.startswith("_indices/")]
    assert live_index
    backdate(root)
    kinds = {
        "tag_only": [f"data/{v1_file}"],
        "branch_only": dev_files,
        "young": [stray(root, "data/young.lance", mtime=None)],
        "orphans": [
            stray(root, "_indices/0c0ffee0-0000-4000-8000-000000000000/part.lance"),
            stray(root, "_deletions/7-1-12345.arrow"),
            stray(root, "data/orphan.lance"),
            stray(root, "tree/dev/data/orphan-dev.lance"),
        ],
        "never": [
            stray(root, "_versions/junk.txt"),
            stray(root, "tree/gone/data/x.lance"),
            stray(root, "misc/file.bin"),
            stray(root, "_refs/tags/notes.txt"),
        ],
    }
    assert kinds["tag_only"][0] in t.files()
    kinds["never"] += live_index
    return t, kinds


def test_remove_orphan_files_deletes_only_old_unreferenced_files(
    server: ServerProcess, wh: Warehouse
) -> None:
    t, kinds = orphan_layout(server, wh)
    before = t.files()
    columns, out = call(server, f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}', NULL, true)")
    assert columns == ["result", "size_bytes", "action"]
    assert out == [(p, 64, "would_delete") for p in sorted(kinds["orphans"])]
    assert t.files() == before  # a dry run deletes nothing
    out = call(server, f"CALL {t.catalog}.sys.remove_orphan_files(table => '{t.arg}')")[1]
    assert out == [(p, 64, "deleted") for p in sorted(kinds["orphans"])]
    assert t.files() == sorted(set(before) - set(kinds["orphans"]))
    assert not (t.local_path / "_indices" / "0c0ffee0-0000-4000-8000-000000000000").exists()
    for kind in ("tag_only", "branch_only", "young", "never"):
        assert set(kinds[kind]) <= set(t.files()), kind
    check(t, versions=[1, 3, 4], tags={"old": 1}, branches=["dev"])
    assert t.ds(version="old").count_rows() == 10
    assert sorted(t.ds().checkout_version(("dev", None)).to_table()["id"].to_pylist()) == t.ids + [
        500,
        501,
        502,
    ]
    # the young orphan goes once it is older than older_than (named form, explicit time)
    time.sleep(0.01)
    out = call(
        server,
        f"CALL {t.catalog}.sys.remove_orphan_files(table => '{t.arg}', older_than => "
        f"'{local_now()}', "
        "dry_run => false)",
    )[1]
    assert out == [("data/young.lance", 64, "deleted")]
    assert call(server, f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}')")[1] == []
    check(t, versions=[1, 3, 4], tags={"old": 1}, branches=["dev"])
    assert set(kinds["tag_only"] + kinds["branch_only"] + kinds["never"]) <= set(t.files())


def test_remove_orphan_files_max_deletes(server: ServerProcess, wh: Warehouse) -> None:
    t = make_table(server, wh)
    for i in range(3):
        stray(t.local_path, f"data/o{i}.lance")
    result, warnings = warnings_of(
        server, f"CALL {t.catalog}.sys.remove_orphan_files(table => '{t.arg}', max_deletes => 2)"
    )
    assert result == [("data/o0.lance", 64, "deleted"), ("data/o1.lance", 64, "deleted")]
    assert warnings == [
        (
            "Warning",
            1105,
            "remove_orphan_files stopped at max_deletes=2: 1 more orphan files remain; call it "
            "again",
        )
    ]
    assert call(server, f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}')")[1] == [
        ("data/o2.lance", 64, "deleted")
    ]
    check(t, versions=[1, 2, 3])


def test_kill_query_between_batches_reports_what_was_deleted(
    server: ServerProcess, wh: Warehouse, fault_dir: Path
) -> None:
    t = make_table(server, wh)
    orphans = [stray(t.local_path, f"data/o{i}.lance") for i in range(5)]
    with server.connect() as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            [(connection_id,)] = cur.fetchall()
        sql = f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}')"
        with paused(server, fault_dir, "remove_orphan_files.batch", sql, connection=conn) as run:
            call(server, f"KILL QUERY {connection_id}")
        code, text = run.error
    assert code == 1317
    assert text == (
        "Query execution was interrupted by KILL QUERY; done before that: deleted 2 of 5 orphan "
        "files (data/o0.lance .. data/o1.lance)"
    )
    assert sorted(set(orphans) & set(t.files())) == orphans[2:]
    check(t, versions=[1, 2, 3])
    # a KILL before the first deletion: nothing was changed
    with server.connect() as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            [(connection_id,)] = cur.fetchall()
        sql = f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)"
        with paused(server, fault_dir, "expire_snapshots", sql, connection=conn) as run:
            call(server, f"KILL QUERY {connection_id}")
        assert run.error == (
            1317,
            "Query execution was interrupted by KILL QUERY; done before that: nothing was changed",
        )
        with conn.cursor() as cur:  # the connection survives KILL QUERY
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
    check(t, versions=[1, 2, 3])


def test_the_procedure_timeout_cancels_cooperatively(
    server: ServerProcess, wh: Warehouse, fault_dir: Path
) -> None:
    t = make_table(server, wh)
    set_config(server, procedure_timeout_second=1)
    try:
        started = time.monotonic()
        with paused(
            server, fault_dir, "create_tag", f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'late')"
        ) as run:
            wait_until(lambda: run.outcome, 10, "the CALL is answered")
        assert run.error == (
            1317,
            (
                "Query execution was interrupted by the procedure timeout; done before that: "
                "nothing was changed"
            ),
        )
        assert time.monotonic() - started < 10
    finally:
        set_config(server, procedure_timeout_second=3600)
    check(t, versions=[1, 2, 3], tags={})


def test_a_commit_between_delete_batches_stops_expire_with_what_was_done(
    server: ServerProcess, wh: Warehouse, fault_dir: Path
) -> None:
    t = make_table(server, wh, versions=6)
    sql = f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)"
    with paused(server, fault_dir, "expire_snapshots.batch", sql) as run:
        t.append(1)  # v7, between the first batch (v1, v2) and the second
    code, text = run.error
    assert code == 1105 and text == (
        f"PROCEDURE expire_snapshots stopped: concurrent commit on {t.arg} (validated version 6, "
        f"found version 7); "
        "done before that: expired snapshots 1..2 (2 removed) — retry the call"
    )
    check(t, versions=[3, 4, 5, 6, 7])
    assert fails(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 0)")[0] == 1108
    assert call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)")[1][0][0] == 4
    check(t, versions=[7])
