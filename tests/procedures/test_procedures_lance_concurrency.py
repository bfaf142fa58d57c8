"""Lance procedures against a concurrent external commit, and on the local S3 server.

Concurrency is deterministic: the server runs with DRYDOCK_FAULT_PROCEDURE_DIR (test-only), the
test arms the pause point of one procedure, the call stops after validation and planning, pylance
commits from outside, and the call then goes on. It must fail with the clear "concurrent commit"
error and change nothing: every file that was there is still there, and the versions, tags and
branches are the validated ones plus the external commit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import lance
import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import Warehouse, local_warehouse, s3_warehouse
from tests.support.procedures_lance_support import (
    Table,
    call,
    check,
    ids_table,
    make_table,
    paused,
    stray,
)
from tests.support.procedures_lance_support import fails as call_error
from tests.support.s3 import SECRET_KEY, S3Server


@pytest.fixture(scope="module")
def fault_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, fault_dir: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        data_dir=tmp_path_factory.mktemp("concurrency") / "data",
        env={"DRYDOCK_FAULT_PROCEDURE_DIR": str(fault_dir)},
    ).start()
    yield proc
    proc.stop()


def _index(t: Table) -> None:
    t.ds().create_scalar_index("id", "BTREE")  # v4
    t.append(5)  # v5: 5 unindexed rows


def _tag(t: Table) -> None:
    t.ds().tags.create("t1", 1)


def _branch(t: Table) -> None:
    t.ds().create_branch("b1", 2)


def _orphan(t: Table) -> None:
    stray(t.local_path, "data/orphan.lance")


# procedure → (setup, the arguments after the table)
CASES: dict[str, tuple[Callable[[Table], None] | None, str]] = {
    "compact": (None, ""),
    "optimize_indices": (_index, ""),
    "expire_snapshots": (None, ", retain_max => 1"),
    "remove_orphan_files": (_orphan, ""),
    "rollback_to_as_latest": (None, ", snapshot_id => 1"),
    "create_tag": (None, ", tag => 'new'"),
    "delete_tag": (_tag, ", tag => 't1'"),
    "rename_tag": (_tag, ", tag => 't1', target_tag => 't2'"),
    "create_branch": (None, ", branch => 'new'"),
    "delete_branch": (_branch, ", branch => 'b1'"),
}


@pytest.mark.parametrize("procedure", sorted(CASES))
def test_a_concurrent_commit_fails_the_call_and_nothing_is_deleted(
    server: ServerProcess, tmp_path: Path, fault_dir: Path, procedure: str
) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    setup, more = CASES[procedure]
    if setup is not None:
        setup(t)
    versions, tags, branches, files = t.state()
    sql = f"CALL {t.catalog}.sys.{procedure}(table => '{t.arg}'{more})"
    with paused(server, fault_dir, procedure, sql) as run:
        t.append(3)  # the external writer commits between validation and execution
    code, text = run.error
    latest = versions[-1]
    assert code == 1105 and text == (
        f"PROCEDURE {procedure} stopped: concurrent commit on {t.arg} (validated version {latest}, "
        f"found version "
        f"{latest + 1}); nothing was deleted — retry the call"
    ), text
    assert set(files) <= set(t.files())  # nothing deleted
    check(t, versions=versions + [latest + 1], tags=tags, branches=branches)
    # a retry sees the new version and succeeds
    call(server, sql)
    if procedure == "rollback_to_as_latest":
        t.ids = list(range(10))
    check(t)


def test_a_concurrent_tag_change_is_a_concurrent_commit_too(
    server: ServerProcess, tmp_path: Path, fault_dir: Path
) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    sql = f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)"
    with paused(server, fault_dir, "expire_snapshots", sql) as run:
        t.ds().tags.create("pin", 1)  # would protect v1, which the call planned to delete
    code, text = run.error
    assert code == 1105 and "(validated no tags, found tags pin@1); nothing was deleted" in text
    check(t, versions=[1, 2, 3], tags={"pin": 1})
    out = call(server, sql)[1]
    assert out[0][0] == 1 and out[0][6] == 1  # retried: v2 expired, the tagged v1 kept
    check(t, versions=[1, 3], tags={"pin": 1})


# -- the local S3 server
# ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def s3wh(s3: S3Server) -> Warehouse:  # noqa: F811
    return s3_warehouse(s3)


def test_every_procedure_on_s3(server: ServerProcess, s3wh: Warehouse) -> None:
    t = make_table(server, s3wh, versions=4, rows=5)
    c, a = t.catalog, t.arg
    assert call(server, f"CALL {c}.sys.compact('{a}')")[1] == [(1, 4, 1, 4, 1, 4, 6)]
    check(t, versions=[1, 2, 3, 4, 5, 6])
    t.ds().create_scalar_index("id", "BTREE")  # v7
    t.append(5)  # v8
    assert call(server, f"CALL {c}.sys.optimize_indices('{a}')")[1] == [(1, "id_idx", 5, 0, 8, 9)]
    assert call(server, f"CALL {c}.sys.create_tag('{a}', 'first', 1)")[1] == [(1, "first", 1)]
    assert call(server, f"CALL {c}.sys.rename_tag('{a}', 'first', 'v1')")[1] == [
        (1, "first", "v1", 1)
    ]
    assert call(server, f"CALL {c}.sys.create_branch('{a}', 'dev', 'v1')")[1] == [(1, "dev", 1)]
    check(t, versions=list(range(1, 10)), tags={"v1": 1}, branches=["dev"])
    out = call(server, f"CALL {c}.sys.expire_snapshots(table => '{a}', retain_max => 2)")[1]
    assert out[0][0] == 6 and out[0][6:] == (
        1,
        0,
        9,
    )  # v2..v7 go; v1 is tagged (and the branch's base)
    check(t, versions=[1, 8, 9], tags={"v1": 1}, branches=["dev"])
    assert call(server, f"CALL {c}.sys.rollback_to_as_latest('{a}', 'v1')")[1] == [(9, 1, 10)]
    check(t, ids=list(range(5)), versions=[1, 8, 9, 10])
    t.ids = list(range(5))
    assert call(server, f"CALL {c}.sys.delete_branch('{a}', 'dev')")[1] == [(1, "dev")]
    assert call(server, f"CALL {c}.sys.delete_tag('{a}', 'v1')")[1] == [(1, "v1", 1)]
    check(t, versions=[1, 8, 9, 10], tags={}, branches=[])
    assert call_error(server, f"CALL {c}.sys.rollback_to('{a}', NULL, 1)")[0] == 1235
    check(t, versions=[1, 8, 9, 10])
    assert SECRET_KEY not in (server.data_dir / "audit.jsonl").read_text()
    assert SECRET_KEY not in server.log_text()


def test_remove_orphan_files_on_s3(server: ServerProcess, s3wh: Warehouse, s3: S3Server) -> None:  # noqa: F811
    t = make_table(server, s3wh, versions=1)
    t.ds().tags.create("old", 1)
    lance.write_dataset(
        ids_table(100, 5), t.uri, mode="overwrite", storage_options=s3wh.storage_options
    )
    t.ids, t.next_id = list(range(100, 105)), 105
    assert (
        call(server, f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)")[1][0][6] == 1
    )  # v1 tagged: kept
    branch = t.ds().create_branch("dev", 2, storage_options=s3wh.storage_options)
    lance.write_dataset(
        ids_table(500, 2), branch.uri, mode="append", storage_options=s3wh.storage_options
    )
    bucket, prefix = t.uri[len("s3://") :].split("/", 1)
    client = s3.client()
    client.put_object(Bucket=bucket, Key=f"{prefix}/data/orphan.lance", Body=b"x" * 32)
    client.put_object(Bucket=bucket, Key=f"{prefix}/tree/dev/data/orphan-dev.lance", Body=b"x" * 32)
    time.sleep(
        2.2
    )  # S3 keeps whole seconds: put the cutoff clearly between the two groups of files
    cutoff = str(int(time.time() * 1000) - 100)
    time.sleep(1.1)
    client.put_object(Bucket=bucket, Key=f"{prefix}/data/young.lance", Body=b"x" * 32)
    referenced = t.files()
    out = call(server, f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}', '{cutoff}', true)")[1]
    assert out == [
        ("data/orphan.lance", 32, "would_delete"),
        ("tree/dev/data/orphan-dev.lance", 32, "would_delete"),
    ]
    out = call(
        server,
        f"CALL {t.catalog}.sys.remove_orphan_files(table => '{t.arg}', older_than => '{cutoff}', "
        "parallelism => 2, mode => 'distributed')",
    )[1]
    assert [r[2] for r in out] == ["deleted", "deleted"]
    assert t.files() == sorted(
        set(referenced) - {"data/orphan.lance", "tree/dev/data/orphan-dev.lance"}
    )
    assert "data/young.lance" in t.files()
    check(t, versions=[1, 2], tags={"old": 1}, branches=["dev"])
    assert t.ds(version="old").count_rows() == 10
    assert t.ds().checkout_version(("dev", None)).count_rows() == 7
