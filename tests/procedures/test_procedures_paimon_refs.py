"""Paimon procedures over tags and branches: create_tag, delete_tag, rename_tag, create_branch,
delete_branch, rename_branch, fast_forward, merge_branch (local warehouse and local S3 server),
plus the pypaimon defects drydock works around (test_upstream_*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.support.paimon_procs import Lake, any_lake, local_lake, row, s3_lake
from tests.support.s3 import S3Server

FUTURE = "'2999-01-01 00:00:00'"


@pytest.fixture(params=["local", "s3", "rest", "jdbc"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    return any_lake(request, proc_server, tmp_path)


def three(lake: Lake, options: dict[str, str] | None = None) -> None:
    lake.create("db.t", options=options or {})
    for i in range(1, 4):
        lake.append("db.t", [row(i)])


def test_tags(lake: Lake) -> None:
    three(lake)
    assert lake.call("create_tag", "table => 'db.t', tag => 'latest'") == [(1,)]
    assert lake.call("create_tag", "'db.t', 'first', 1") == [(1,)]
    assert lake.call("create_tag", "'db.t', 'kept', 2, '1 d'") == [(1,)]
    assert lake.tags("db.t") == {"first": 1, "kept": 2, "latest": 3}
    assert lake.table("db.t").tag_manager().get("kept").tag_time_retained.days == 1
    assert lake.rows("db.t", tag="first") == [(1, "x", 1)]
    assert lake.call("rename_tag", "table => 'db.t', tag => 'first', target_tag => 'one'") == [(1,)]
    assert lake.tags("db.t") == {"kept": 2, "latest": 3, "one": 1}
    assert lake.rows("db.t", tag="one") == [(1, "x", 1)]
    assert lake.call("rename_tag", "'db.t', 'one', 'first'") == [(1,)]
    assert lake.call("delete_tag", "'db.t', 'first,latest'") == [(1,)]
    assert lake.tags("db.t") == {"kept": 2}
    assert lake.call("delete_tag", "table => 'db.t', tag => 'kept'") == [(1,)]
    assert lake.tags("db.t") == {}
    assert lake.snapshots("db.t") == [1, 2, 3] and len(lake.rows("db.t")) == 3


def test_branches(lake: Lake) -> None:
    three(lake)
    lake.call("create_tag", "'db.t', 't2', 2")
    assert lake.call("create_branch", "'db.t', 'dev', 't2'") == [(1,)]
    assert lake.call("create_branch", "table => 'db.t', branch => 'empty'") == [(1,)]
    assert lake.call(
        "create_branch", "table => 'db.t', branch => 'dev', ignoreIfExists => true"
    ) == [(1,)]
    assert lake.branches("db.t") == ["dev", "empty"]
    assert lake.rows("db.t", branch="dev") == [(1, "x", 1), (2, "x", 1)]
    assert lake.rows("db.t", branch="empty") == []
    lake.append("db.t", [row(20, "dev")], branch="dev")
    assert lake.call("rename_branch", "'db.t', 'dev', 'feature'") == [(1,)]
    assert lake.branches("db.t") == ["empty", "feature"]
    assert lake.rows("db.t", branch="feature") == [(1, "x", 1), (2, "x", 1), (20, "dev", 1)]
    assert lake.snapshots("db.t", branch="feature") == [2, 3]
    assert lake.call(
        "rename_branch", "table => 'db.t', from_branch => 'feature', to_branch => 'dev'"
    ) == [(1,)]
    assert lake.rows("db.t", branch="dev") == [(1, "x", 1), (2, "x", 1), (20, "dev", 1)]
    assert lake.call("delete_branch", "'db.t', 'empty'") == [(1,)]
    assert lake.call("delete_branch", "table => 'db.t', branch => 'dev'") == [(1,)]
    assert lake.branches("db.t") == []
    assert lake.rows("db.t") == [(1, "x", 1), (2, "x", 1), (3, "x", 1)] and lake.snapshots(
        "db.t"
    ) == [1, 2, 3]


def test_create_branch_from_a_tag_whose_snapshot_expired(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    three(lake)
    lake.call("create_tag", "'db.t', 't1', 1")
    lake.call("expire_snapshots", f"'db.t', NULL, 1, {FUTURE}")
    assert lake.snapshots("db.t") == [3]
    assert lake.call("create_branch", "'db.t', 'old', 't1'") == [(1,)]
    assert lake.rows("db.t", branch="old") == [(1, "x", 1)]
    assert lake.append("db.t", [row(5)], branch="old") == 2


def test_fast_forward(lake: Lake) -> None:
    three(lake)
    lake.call("create_tag", "'db.t', 'base', 3")
    lake.call("create_branch", "'db.t', 'dev', 'base'")
    lake.append("db.t", [row(10, "dev")], branch="dev")
    lake.append("db.t", [row(11, "dev")], branch="dev")
    expected = lake.rows("db.t", branch="dev")
    assert lake.call("fast_forward", "table => 'db.t', branch => 'dev'") == [(1,)]
    assert lake.snapshots("db.t") == [1, 2, 3, 4, 5]
    assert lake.rows("db.t") == expected and lake.tags("db.t") == {"base": 3}
    assert lake.append("db.t", [row(12)]) == 6  # main goes on from the branch's head
    assert len(lake.rows("db.t")) == 6
    assert lake.rows("db.t", branch="dev") == expected  # the branch is untouched
    lake.append("db.t", [row(13, "dev")], branch="dev")
    assert (
        lake.error("fast_forward", "'db.t', 'dev'")[0] == 1235
    )  # main's snapshot 6 is not the branch's
    lake.call("rollback_to", "'db.t', NULL, 5")
    assert lake.call("fast_forward", "'db.t', 'dev'") == [
        (1,)
    ]  # again: main is an ancestor of the branch
    assert lake.snapshots("db.t") == [1, 2, 3, 4, 5, 6] and lake.rows("db.t") == lake.rows(
        "db.t", branch="dev"
    )
    _, notes = lake.call_with_warnings("fast_forward", "'db.t', 'dev'")
    assert "already is at branch 'dev''s head 6" in notes[0][2]


def test_fast_forward_refuses_once_main_advanced(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    three(lake)
    lake.call("create_tag", "'db.t', 'base', 2")
    lake.call("create_branch", "'db.t', 'dev', 'base'")
    lake.append("db.t", [row(10, "dev")], branch="dev")
    before = (lake.files("db.t", "snapshot"), lake.rows("db.t"))
    code, message = lake.error("fast_forward", "'db.t', 'dev'")
    assert (
        code == 1235
        and "main of" in message
        and "is at snapshot 3, a commit branch 'dev' does not have" in message
    )
    assert "base snapshot 2" in message and "merge_branch" in message
    assert (lake.files("db.t", "snapshot"), lake.rows("db.t")) == before
    lake.call("create_branch", "'db.t', 'blank'")
    lake.append("db.t", [row(30)], branch="blank")
    assert lake.error("fast_forward", "'db.t', 'blank'")[0] == 1235  # an unrelated history
    code, message = lake.error("fast_forward", "'db.t', 'nope'")
    assert code == 1108 and "branch 'nope' doesn't exist" in message


def test_upstream_pypaimon_fast_forward_corrupts_main_after_main_advanced(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    """pypaimon 2.1.0's FileSystemBranchManager.fast_forward copies the branch's snapshot files over
    main's without deleting main's later snapshots: main keeps reading its own latest snapshot and
    its snapshot 3 is silently replaced by the branch's. drydock's fast_forward refuses this case
    (test_fast_forward_refuses_once_main_advanced). If this starts failing upstream fixed it."""
    lake = local_lake(proc_server, tmp_path)
    three(lake)  # main: 1, 2, 3
    lake.table("db.t").create_tag("base", 2)
    lake.table("db.t").branch_manager().create_branch("dev", "base")
    lake.append("db.t", [row(10, "dev")], branch="dev")  # branch snapshot 3
    branch_rows = lake.rows("db.t", branch="dev")
    lake.append("db.t", [row(4)])  # main snapshot 4
    main_snapshot_3 = lake.rows("db.t", snapshot=3)
    lake.table("db.t").branch_manager().fast_forward("dev")
    assert lake.rows("db.t") != branch_rows, "main did not move to the branch"
    assert lake.snapshots("db.t") == [1, 2, 3, 4]
    assert lake.rows("db.t", snapshot=3) == branch_rows != main_snapshot_3, (
        "main's snapshot 3 was overwritten"
    )


def test_upstream_pypaimon_rename_branch_does_nothing_on_s3(
    proc_server: ServerProcess, s3: S3Server
) -> None:  # noqa: F811
    """pypaimon 2.1.0's rename_branch renames the branch directory with FileIO.rename, which cannot
    move a directory on S3 and returns False; pypaimon ignores that and reports success. drydock's
    rename_branch copies the objects instead (test_branches[s3]). If this starts failing upstream
    fixed it."""
    lake = s3_lake(proc_server, s3)
    three(lake)
    lake.table("db.t").create_tag("t", 1)
    lake.table("db.t").branch_manager().create_branch("dev", "t")
    lake.table("db.t").rename_branch("dev", "feature")  # no error...
    assert lake.branches("db.t") == ["dev"]  # ...and no rename


def merge_table(lake: Lake) -> None:
    three(lake, {"branch-merge.enabled": "true"})
    lake.call("create_tag", "'db.t', 'base', 3")
    lake.call("create_branch", "'db.t', 'dev', 'base'")
    lake.append("db.t", [row(10, "dev")], branch="dev")
    lake.append("db.t", [row(11, "dev")], branch="dev")
    lake.append("db.t", [row(4, "main")])


def test_merge_branch(lake: Lake) -> None:
    merge_table(lake)
    rows, notes = lake.call_with_warnings("merge_branch", "'db.t', 'dev'")
    assert rows == [(1,)] and "merged 2 data files (2 rows)" in notes[0][2]
    assert [r[0] for r in lake.rows("db.t")] == [1, 2, 3, 4, 10, 11]
    assert lake.snapshots("db.t") == [1, 2, 3, 4, 5]
    assert lake.latest("db.t").properties["drydock.source-branch"] == "dev"
    _, notes = lake.call_with_warnings("merge_branch", "table => 'db.t', branch => 'dev'")
    assert "nothing merged" in notes[0][2] and lake.snapshots("db.t") == [1, 2, 3, 4, 5]
    # Into another branch: main's new files flow to 'dev'.
    assert lake.call(
        "merge_branch", "table => 'db.t', branch => 'main', target_branch => 'dev'"
    ) == [(1,)]
    assert [r[0] for r in lake.rows("db.t", branch="dev")] == [1, 2, 3, 4, 10, 11]
    assert lake.rows("db.t", snapshot=4) == [(i, "x" if i < 4 else "main", 1) for i in range(1, 5)]


def test_merge_branch_refuses_what_a_file_merge_cannot_do_exactly(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    plain = local_lake(proc_server, tmp_path)
    three(plain)
    plain.call("create_branch", "'db.t', 'dev'")
    code, message = plain.error("merge_branch", "'db.t', 'dev'")
    assert code == 1235 and "'branch-merge.enabled' = 'true'" in message
    lake = local_lake(proc_server, tmp_path)
    merge_table(lake)
    lake.overwrite("db.t", [row(99)])  # pypaimon does not enforce the guard; drydock checks history
    code, message = lake.error("merge_branch", "'db.t', 'dev'")
    assert code == 1235 and "not pure-append" in message and "OVERWRITE" in message
    assert lake.error("merge_branch", "'db.t', 'dev', 'dev'")[0] == 1108
    assert lake.snapshots("db.t") == [1, 2, 3, 4, 5]
