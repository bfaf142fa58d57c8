"""Paimon procedures over snapshots and files: expire_snapshots, remove_orphan_files, rollback_to,
rollback_to_as_latest, compact. Each happy path runs on a local warehouse and on the local S3
server; after every call an independent reader (pypaimon, opened fresh) checks rows, snapshots,
tags and files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.support.paimon_procs import PARTED, Lake, any_lake, local_lake, row

FUTURE = "'2999-01-01 00:00:00'"


@pytest.fixture(params=["local", "s3", "rest", "jdbc"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    return any_lake(request, proc_server, tmp_path)


def history(lake: Lake) -> dict[str, set[str]]:
    """db.t: s1 a (file A, tagged 'keep'), s2 overwrite b (B), s3 overwrite c (C), s4 d, s5 e."""
    lake.create("db.t")
    lake.append("db.t", [row(1, "a")])
    files = {"A": lake.data_files("db.t")}
    lake.call("create_tag", "'db.t', 'keep', 1")
    lake.overwrite("db.t", [row(2, "b")])
    files["B"] = lake.data_files("db.t")
    lake.overwrite("db.t", [row(3, "c")])
    files["C"] = lake.data_files("db.t")
    lake.append("db.t", [row(4, "d")])
    lake.append("db.t", [row(5, "e")])
    return files


def test_expire_snapshots_deletes_only_what_nothing_references(lake: Lake) -> None:
    files = history(lake)
    rows, notes = lake.call_with_warnings("expire_snapshots", f"'db.t', 10, 2, {FUTURE}")
    assert rows == [(3,)]
    assert "expired snapshots 1..3" in notes[0][2]
    # The independent reader: snapshots 4 and 5 remain, the tag still reads snapshot 1.
    assert lake.snapshots("db.t") == [4, 5]
    assert lake.tags("db.t") == {"keep": 1}
    assert lake.rows("db.t") == [(3, "c", 1), (4, "d", 1), (5, "e", 1)]
    assert lake.rows("db.t", tag="keep") == [(1, "a", 1)]
    stored = lake.files("db.t")
    assert all(f in stored for f in files["A"]), "held by the tag"
    assert not any(f in stored for f in files["B"]), "only snapshot 2 referenced it"
    assert all(f in stored for f in files["C"]), "still live"
    assert not any(f.startswith("snapshot/snapshot-") and f[-1] in "123" for f in stored)
    assert lake.call(
        "expire_snapshots", f"table => 'db.t', retain_min => 2, older_than => {FUTURE}"
    ) == [(0,)]


def test_expire_snapshots_defaults_limits_and_consumers(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    lake.create("db.t")
    for i in range(1, 13):
        lake.append("db.t", [row(i)])
    # Paimon's defaults: retain_min 10 and snapshot.time-retained 1 h: nothing is old enough.
    assert lake.call("expire_snapshots", "'db.t'") == [(0,)]
    assert lake.call("expire_snapshots", "'db.t', 5, 1") == [(7,)]  # retain_max forces 1..7 out
    assert lake.snapshots("db.t") == [8, 9, 10, 11, 12]
    assert lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}, 2") == [
        (2,)
    ]  # max_deletes: 2 snapshots
    assert lake.snapshots("db.t") == [10, 11, 12]
    # A streaming consumer still reading snapshot 11 protects it and everything after.
    lake.put("db.t", "consumer/consumer-reader", b'{"nextSnapshot": 11}')
    assert lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}") == [(1,)]
    assert lake.snapshots("db.t") == [11, 12]
    assert lake.rows("db.t") == [(i, "x", 1) for i in range(1, 13)]


def test_expire_snapshots_bounded_by_procedure_max_deletes(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    lake.create("db.t")
    for i in range(1, 7):
        lake.overwrite("db.t", [row(i)])  # every snapshot orphans the previous data file
    try:
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '7')")
        rows, notes = lake.call_with_warnings("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
        # Each expired snapshot costs its snapshot file, two manifest lists and its data file.
        assert rows == [(1,)] and any("procedure_max_deletes (7)" in n[2] for n in notes)
        assert lake.snapshots("db.t") == [2, 3, 4, 5, 6]
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '2')")
        code, message = lake.error("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
        assert (
            code == 1105 and "more than procedure_max_deletes (2); nothing was deleted" in message
        )
        assert lake.snapshots("db.t") == [2, 3, 4, 5, 6]
    finally:
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '100000')")
    assert lake.rows("db.t") == [(6, "x", 1)]


def make_old(lake: Lake, relative: str) -> None:
    """Backdate a local file by two days (S3 objects cannot be backdated; see the S3 branch)."""
    path = f"{lake.table_dir('db.t')}/{relative}"
    old = time.time() - 2 * 24 * 3600
    os.utime(path, (old, old))


def test_remove_orphan_files_keeps_tag_branch_and_young_files(lake: Lake) -> None:
    lake.create("db.t")
    lake.append("db.t", [row(1, "a")])
    lake.call("create_tag", "'db.t', 'old', 1")
    tagged = lake.data_files("db.t")
    lake.overwrite("db.t", [row(2, "b")])
    lake.call("create_tag", "'db.t', 'base', 2")
    lake.call("create_branch", "'db.t', 'dev', 'base'")
    lake.append("db.t", [row(9, "dev")], branch="dev")
    branch_only = lake.data_files("db.t", branch="dev") - lake.data_files("db.t")
    lake.append("db.t", [row(3, "c")])
    lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")  # now only the tag holds file A
    lake.call("delete_tag", "'db.t', 'base'")  # and only the branch holds snapshot 2's files
    assert lake.snapshots("db.t") == [3]
    lake.put("db.t", "bucket-0/data-orphan-real.parquet")
    lake.put("db.t", "bucket-0/notes.txt")  # not a Paimon file name: never touched
    if lake.s3 is None:
        make_old(lake, "bucket-0/data-orphan-real.parquet")
        make_old(lake, "bucket-0/notes.txt")
        for f in tagged | branch_only:
            make_old(lake, f)
        cutoff = "NULL"  # the default: now - 1 day
    else:
        time.sleep(1.5)  # S3 times have one-second resolution: cut at a whole second
        cutoff = f"'{int(time.time()) * 1000}'"
    lake.put("db.t", "bucket-0/data-orphan-young.parquet")
    before = lake.files("db.t")

    assert lake.call("remove_orphan_files", f"'db.t', {cutoff}, true")[0][0] == 1  # dry run
    assert lake.files("db.t") == before
    assert lake.call("remove_orphan_files", "'db.t', '2000-01-01 00:00:00'") == [
        (0, 0)
    ]  # nothing that old
    count, size = lake.call("remove_orphan_files", f"table => 'db.t', older_than => {cutoff}")[0]
    assert (count, size) == (1, len(b"orphan"))
    after = lake.files("db.t")
    assert set(before) - set(after) == {"bucket-0/data-orphan-real.parquet"}
    assert tagged <= set(after) and branch_only <= set(after)
    # The independent reader still reads main, the tag and the branch.
    assert lake.rows("db.t") == [(2, "b", 1), (3, "c", 1)]
    assert lake.rows("db.t", tag="old") == [(1, "a", 1)]
    assert lake.rows("db.t", branch="dev") == [(2, "b", 1), (9, "dev", 1)]
    assert lake.tags("db.t") == {"old": 1}


def test_remove_orphan_files_database_wide(proc_server: ServerProcess, tmp_path: Path) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    for name in ("db.a", "db.b"):
        lake.create(name)
        lake.append(name, [row(1)])
        lake.put(name, "bucket-0/data-stray.parquet")
    lake.put("db.b", "bucket-0/data-stray-2.parquet")
    try:  # procedure_max_deletes bounds one call across the database; the rest waits for the next
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '2')")
        rows, notes = lake.call_with_warnings("remove_orphan_files", f"'db.*', {FUTURE}")
    finally:
        proc_server.query("ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '100000')")
    assert rows == [(2, 12)] and any("procedure_max_deletes allows 1 more" in n[2] for n in notes)
    assert not lake.exists("db.a", "bucket-0/data-stray.parquet")
    assert lake.call("remove_orphan_files", f"'db.*', {FUTURE}") == [(1, 6)]
    assert lake.rows("db.a") == lake.rows("db.b") == [(1, "x", 1)]


def test_rollback_to_removes_later_snapshots_and_tags(lake: Lake) -> None:
    lake.create("db.t")
    for i in range(1, 5):
        lake.append("db.t", [row(i)])
    lake.call("create_tag", "'db.t', 't2', 2")
    lake.call("create_tag", "'db.t', 't4', 4")
    rows, notes = lake.call_with_warnings("rollback_to", "'db.t', NULL, 2")
    assert rows == [(4, 2)]
    assert "removed snapshots 3, 4 and tags t4" in notes[0][2]
    assert lake.snapshots("db.t") == [1, 2] and lake.tags("db.t") == {"t2": 2}
    assert lake.rows("db.t") == [(1, "x", 1), (2, "x", 1)]
    assert lake.append("db.t", [row(7)]) == 3  # the table goes on from snapshot 2
    assert lake.rows("db.t") == [(1, "x", 1), (2, "x", 1), (7, "x", 1)]
    # The tag form; a tag whose snapshot file was expired is restored from the tag.
    lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
    assert lake.snapshots("db.t") == [3]
    assert lake.call("rollback_to", "table => 'db.t', tag => 't2'") == [(3, 2)]
    assert lake.snapshots("db.t") == [2] and lake.rows("db.t") == [(1, "x", 1), (2, "x", 1)]
    assert (
        lake.table("db.t").snapshot_manager().try_get_earliest_snapshot().id == 2
    )  # EARLIEST follows


def test_rollback_to_refreshes_drydock_metadata(proc_server: ServerProcess, tmp_path: Path) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path, ttl="3600")  # only a refresh can show the change
    lake.create("db.t")
    lake.append("db.t", [row(1)])
    lake.append("db.t", [row(2)])
    assert lake.sql(f"SELECT count(*) FROM {lake.catalog}.db.t") == [(2,)]
    lake.call("rollback_to", "'db.t', NULL, 1")
    assert lake.sql(f"SELECT count(*) FROM {lake.catalog}.db.t") == [(1,)]


def test_rollback_to_as_latest_keeps_history(lake: Lake) -> None:
    lake.create("db.t")
    lake.append("db.t", [row(1, "a")])
    lake.overwrite("db.t", [row(2, "b")])
    lake.append("db.t", [row(3, "c")])
    lake.call("create_tag", "'db.t', 'later', 3")
    assert lake.call("rollback_to_as_latest", "'db.t', NULL, 1") == [(3, 1, 4)]
    assert lake.snapshots("db.t") == [1, 2, 3, 4]
    assert lake.rows("db.t") == [(1, "a", 1)]
    assert lake.rows("db.t", snapshot=3) == [(2, "b", 1), (3, "c", 1)]
    tags = lake.tags("db.t")
    protection = [t for t in tags if t.startswith("rollback-to-as-latest-1-")]
    assert tags["later"] == 3 and len(protection) == 1 and tags[protection[0]] == 1
    assert lake.latest("db.t").commit_kind == "OVERWRITE"
    assert lake.append("db.t", [row(4, "d")]) == 5
    assert lake.rows("db.t") == [(1, "a", 1), (4, "d", 1)]
    # The tag form creates no protection tag (the tag itself protects).
    assert lake.call("rollback_to_as_latest", "table => 'db.t', tag => 'later'") == [(5, 3, 6)]
    assert lake.rows("db.t") == [(2, "b", 1), (3, "c", 1)]
    assert len(lake.tags("db.t")) == 2
    # Expiring everything but the latest keeps what the new latest snapshot needs.
    lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
    assert lake.rows("db.t") == [(2, "b", 1), (3, "c", 1)]
    assert lake.rows("db.t", tag=protection[0]) == [(1, "a", 1)]


def test_compact_rewrites_files_without_changing_rows(lake: Lake) -> None:
    lake.create("db.p", PARTED, partition_keys=["dt"])
    for i in range(7):
        lake.append("db.p", [{"id": i, "item": f"i{i}", "dt": "aabbccc"[i]}])
    before = lake.rows("db.p")
    pinned = lake.latest("db.p").id

    def files(dt: str) -> set[str]:
        return {f for f in lake.data_files("db.p") if f.startswith(f"dt={dt}/")}

    assert len(files("a")) == 2 and len(files("c")) == 3
    rows, notes = lake.call_with_warnings("compact", "'db.p', 'dt=a;dt=b'")
    assert (
        rows == [(1,)]
        and "rewrote 4 data files into 2 in 2 bucket(s), 4 rows unchanged" in notes[0][2]
    )
    assert lake.rows("db.p") == before
    assert len(files("a")) == len(files("b")) == 1 and len(files("c")) == 3
    latest = lake.latest("db.p")
    assert latest.id == pinned + 1 and latest.commit_kind == "OVERWRITE"
    assert latest.properties["drydock.procedure"] == "compact"
    assert lake.rows("db.p", snapshot=pinned) == before  # time travel still reads the old files
    assert lake.call("compact", "table => 'db.p', order_strategy => 'order', order_by => 'id'") == [
        (1,)
    ]
    assert lake.rows("db.p") == before and all(len(files(d)) == 1 for d in "abc")
    _, notes = lake.call_with_warnings("compact", "'db.p'")
    assert "nothing to compact" in notes[0][2] and lake.latest("db.p").id == pinned + 2


def test_compact_refuses_primary_key_tables_and_skips_them_database_wide(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    from tests.support.paimon_procs import ROWS

    lake.create("db.pk", ROWS, primary_keys=["id"], options={"bucket": "1"})
    lake.create("db.log")
    for i in range(3):
        lake.append("db.pk", [row(i)])
        lake.append("db.log", [row(i)])
    code, message = lake.error("compact", "'db.pk'")
    assert code == 1235 and "it has a primary key" in message and "COMPACT snapshot" in message
    rows, notes = lake.call_with_warnings("compact", "'db.*'")
    assert rows == [(1,)]
    assert any("skipped" in n[2] and ".db.pk" in n[2] for n in notes)
    assert any("rewrote 3 data files into 1" in n[2] for n in notes)
    assert lake.snapshots("db.pk") == [1, 2, 3] and len(lake.data_files("db.log")) == 1
    # minor: only when compaction.min.file-num (default 5) small files wait.
    _, notes = lake.call_with_warnings("compact", "table => 'db.log', compact_strategy => 'minor'")
    assert "nothing to compact" in notes[0][2]
