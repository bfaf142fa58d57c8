"""Lance procedures over the wire: SHOW PROCEDURE(S), positional and named forms with their happy
paths on local disk, every validation error, privileges, audit and the index-job fence.

After every procedure the cross-engine check (tests/support/procedures_lance_support.py) opens the
table fresh with pylance and with DuckDB and compares rows, versions, tags and branches.
Cleanup procedures (expire_snapshots, remove_orphan_files) have their own module, and so do
concurrent commits, cancellation and the local S3 server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import (
    Warehouse,
    admit,
    create_catalog,
    create_user,
    local_warehouse,
    set_config,
    wait_job,
)
from tests.support.procedures_lance_support import Table, call, check, fails, make_table

ALL = [
    "compact",
    "create_branch",
    "create_tag",
    "delete_branch",
    "delete_tag",
    "expire_snapshots",
    "optimize_indices",
    "remove_orphan_files",
    "rename_tag",
    "rollback_to",
    "rollback_to_as_latest",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("procs") / "data").start()
    yield proc
    proc.stop()


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    return local_warehouse(tmp_path / "wh")


@pytest.fixture
def t(server: ServerProcess, wh: Warehouse) -> Table:
    """db.tN with versions 1..3 (10 rows each)."""
    return make_table(server, wh)


def test_show_procedures_lists_every_lance_procedure(server: ServerProcess, t: Table) -> None:
    columns, listed = call(server, f"SHOW PROCEDURES FROM {t.catalog}")
    assert columns == [
        "Catalog",
        "Procedure",
        "CatalogType",
        "Signature",
        "ResultColumns",
        "ChangesMetadata",
        "Comment",
    ]
    assert [r[1] for r in listed] == [f"sys.{p}" for p in ALL]
    assert {r[0] for r in listed} == {t.catalog} and {r[2] for r in listed} == {"lance"}
    by_name = {r[1]: r for r in listed}
    assert by_name["sys.expire_snapshots"][3] == (
        "expire_snapshots(table STRING, retain_max INT DEFAULT None, retain_min INT DEFAULT 1, "
        "older_than STRING DEFAULT None, max_deletes INT DEFAULT None)"
    )
    assert (
        by_name["sys.rollback_to_as_latest"][4]
        == "previous_snapshot_id, rolled_back_snapshot_id, current_snapshot_id"
    )
    assert by_name["sys.rollback_to"][5] == "NO" and by_name["sys.compact"][5] == "YES"
    assert "Tagged versions are never expired" in by_name["sys.expire_snapshots"][6]
    assert "'would_delete'" in by_name["sys.remove_orphan_files"][6]
    columns, args = call(server, f"SHOW PROCEDURE {t.catalog}.sys.compact")
    assert columns == ["Argument", "Type", "Required", "Default", "Comment"]
    assert [a[:4] for a in args] == [
        ("table", "STRING", "YES", ""),
        ("options", "STRING", "NO", ""),
    ]
    assert "target_rows_per_fragment" in args[1][4]
    assert fails(server, f"SHOW PROCEDURE {t.catalog}.sys.nope")[0] == 1305


def test_compact_positional_and_named(server: ServerProcess, t: Table) -> None:
    t.append(5)  # versions 1..4, four small fragments
    columns, out = call(server, f"CALL {t.catalog}.sys.compact('{t.arg}')")
    assert columns == [
        "result",
        "fragments_removed",
        "fragments_added",
        "files_removed",
        "files_added",
        "previous_snapshot_id",
        "current_snapshot_id",
    ]
    assert out == [(1, 4, 1, 4, 1, 4, 6)]  # compaction commits two versions
    check(t, versions=[1, 2, 3, 4, 5, 6])
    assert len(t.ds().get_fragments()) == 1
    for _ in range(3):
        t.append(10)
    columns, out = call(
        server,
        f"CALL {t.catalog}.sys.compact(table => '{t.arg}', "
        "options => 'target_rows_per_fragment=20, materialize_deletions=true')",
    )
    assert out[0][0] == 1 and out[0][5] == 9 and out[0][6] == 11
    check(t, versions=list(range(1, 12)))
    assert sorted(f.count_rows() for f in t.ds().get_fragments()) == [
        30,
        35,
    ]  # the three small ones merged
    # nothing to compact: no commit, the same version before and after
    assert call(
        server,
        f"CALL {t.catalog}.sys.compact(table => '{t.arg}', options => "
        "'target_rows_per_fragment=10')",
    )[1] == [(1, 0, 0, 0, 0, 11, 11)]
    check(t, versions=list(range(1, 12)))


def test_optimize_indices_positional_and_named(server: ServerProcess, t: Table) -> None:
    ds = t.ds()
    ds.create_scalar_index("id", "BTREE")
    ds.create_scalar_index("cat", "BITMAP")  # versions 4 and 5
    t.append(7)  # version 6: 7 unindexed rows in each index
    columns, out = call(server, f"CALL {t.catalog}.sys.optimize_indices('{t.arg}', 'id_idx')")
    assert columns == [
        "result",
        "indexes",
        "unindexed_rows_before",
        "unindexed_rows_after",
        "previous_snapshot_id",
        "current_snapshot_id",
    ]
    assert out == [(1, "id_idx", 7, 0, 6, 7)]
    assert t.ds().stats.index_stats("cat_idx")["num_unindexed_rows"] == 7
    check(t, versions=list(range(1, 8)))
    out = call(
        server,
        f"CALL {t.catalog}.sys.optimize_indices(table => '{t.arg}', num_indices_to_merge => 0, "
        "retrain => false)",
    )[1]
    assert out == [(1, "cat_idx,id_idx", 7, 0, 7, 8)]
    check(t, versions=list(range(1, 9)))
    assert call(
        server,
        f"CALL {t.catalog}.sys.optimize_indices(table => '{t.arg}', index_names => 'cat_idx', "
        "retrain => true)",
    )[1][0][:4] == (1, "cat_idx", 0, 0)
    check(t)


def test_rollback_to_as_latest_by_snapshot_and_by_tag(server: ServerProcess, t: Table) -> None:
    first_ids = list(range(10))
    columns, out = call(server, f"CALL {t.catalog}.sys.rollback_to_as_latest('{t.arg}', NULL, 1)")
    assert columns == ["previous_snapshot_id", "rolled_back_snapshot_id", "current_snapshot_id"]
    assert out == [(3, 1, 4)]
    check(t, ids=first_ids, versions=[1, 2, 3, 4])
    assert t.ds(version=3).count_rows() == 30  # later versions are kept
    t.ds().tags.create("two", 2)
    out = call(
        server, f"CALL {t.catalog}.sys.rollback_to_as_latest(tag => 'two', table => '{t.arg}')"
    )[1]
    assert out == [(4, 2, 5)]
    check(t, ids=list(range(20)), versions=[1, 2, 3, 4, 5], tags={"two": 2})
    code, text = fails(
        server, f"CALL {t.catalog}.sys.rollback_to(table => '{t.arg}', snapshot_id => 1)"
    )
    assert (
        code == 1235
        and text.startswith("rollback_to is not supported for Lance")
        and "use rollback_to_as_latest" in text
    )
    assert fails(server, f"CALL {t.catalog}.sys.rollback_to('{t.arg}', 'two')")[0] == 1235
    check(t, ids=list(range(20)), versions=[1, 2, 3, 4, 5], tags={"two": 2})


def test_tags_positional_and_named(server: ServerProcess, t: Table) -> None:
    columns, out = call(server, f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'v1', 1)")
    assert (columns, out) == (["result", "tag", "snapshot_id"], [(1, "v1", 1)])
    assert call(server, f"CALL {t.catalog}.sys.create_tag(table => '{t.arg}', tag => 'latest.1')")[
        1
    ] == [(1, "latest.1", 3)]
    check(t, versions=[1, 2, 3], tags={"v1": 1, "latest.1": 3})
    assert t.ds(version="v1").count_rows() == 10
    columns, out = call(server, f"CALL {t.catalog}.sys.rename_tag('{t.arg}', 'v1', 'first')")
    assert (columns, out) == (
        ["result", "tag", "target_tag", "snapshot_id"],
        [(1, "v1", "first", 1)],
    )
    assert call(
        server,
        f"CALL {t.catalog}.sys.rename_tag(target_tag => 'newest', tag => 'latest.1', "
        f"table => '{t.arg}')",
    )[1] == [(1, "latest.1", "newest", 3)]
    check(t, versions=[1, 2, 3], tags={"first": 1, "newest": 3})
    assert call(server, f"SELECT count(*) FROM {t.fq}@tag('first')")[1] == [(10,)]
    call(server, f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'two', 2)")
    assert call(server, f"CALL {t.catalog}.sys.delete_tag('{t.arg}', 'first')")[1] == [
        (1, "first", 1)
    ]
    assert call(
        server, f"CALL {t.catalog}.sys.delete_tag(tag => 'two,newest', table => '{t.arg}')"
    )[1] == [(1, "two", 2), (1, "newest", 3)]
    check(t, versions=[1, 2, 3], tags={})


def test_branches_positional_and_named(server: ServerProcess, t: Table) -> None:
    columns, out = call(server, f"CALL {t.catalog}.sys.create_branch('{t.arg}', 'dev')")
    assert (columns, out) == (["result", "branch", "snapshot_id"], [(1, "dev", 3)])
    t.ds().tags.create("one", 1)
    assert call(
        server,
        f"CALL {t.catalog}.sys.create_branch(table => '{t.arg}', branch => 'from_tag', "
        "tag => 'one')",
    )[1] == [(1, "from_tag", 1)]
    assert call(
        server, f"CALL {t.catalog}.sys.create_branch('{t.arg}', 'from_v2', NULL, false, 2)"
    )[1] == [(1, "from_v2", 2)]
    assert call(
        server,
        f"CALL {t.catalog}.sys.create_branch(table => '{t.arg}', branch => 'dev', "
        "ignoreIfExists => true)",
    )[1] == [(0, "dev", 3)]
    check(t, versions=[1, 2, 3], tags={"one": 1}, branches=["dev", "from_tag", "from_v2"])
    assert t.ds().checkout_version(("from_tag", None)).count_rows() == 10
    assert t.ds().checkout_version(("from_v2", None)).count_rows() == 20
    branch = t.ds().checkout_version(("dev", None))
    import lance

    from tests.support.procedures_lance_support import ids_table

    lance.write_dataset(
        ids_table(1000, 4), t.uri + "/tree/dev", mode="append"
    )  # a write on the branch
    assert t.ds().checkout_version(("dev", None)).count_rows() == branch.count_rows() + 4
    check(t, versions=[1, 2, 3])  # main is unchanged by the branch's commit
    columns, out = call(server, f"CALL {t.catalog}.sys.delete_branch('{t.arg}', 'dev')")
    assert (columns, out) == (["result", "branch"], [(1, "dev")])
    assert not (t.local_path / "tree" / "dev").exists()
    assert call(
        server,
        f"CALL {t.catalog}.sys.delete_branch(branch => 'from_v2,from_tag', table => '{t.arg}')",
    )[1] == [(1, "from_v2"), (1, "from_tag")]
    check(t, versions=[1, 2, 3], tags={"one": 1}, branches=[])


def test_every_validation_error_is_clear_and_changes_nothing(
    server: ServerProcess, t: Table
) -> None:
    ds = t.ds()
    ds.tags.create("v1", 1)
    ds.create_branch("dev", 2)
    ds.tags.create("on_dev", ("dev", 2))
    ds.create_branch("parent", 1)
    t.ds().checkout_version(("parent", None)).create_branch("child")
    before = t.state()
    c, a = t.catalog, t.arg
    bad = 1108  # PROCEDURE_BAD_ARGUMENT
    cases = [
        # binding (every procedure binds through the same code)
        (
            f"CALL {c}.sys.create_tag('{a}', tag => 'x')",
            bad,
            "named and positional arguments cannot be mixed",
        ),
        (
            f"CALL {c}.sys.compact(table => '{a}', nope => 1)",
            bad,
            "unknown argument 'nope'; expected compact(",
        ),
        (
            f"CALL {c}.sys.compact(table => '{a}', table => '{a}')",
            bad,
            "duplicate argument 'table'",
        ),
        (f"CALL {c}.sys.create_tag(table => '{a}')", bad, "missing required argument 'tag'"),
        (
            f"CALL {c}.sys.create_tag('{a}', 'x', 'abc')",
            bad,
            "argument 'snapshot' must be an LONG, got 'abc'",
        ),
        (f"CALL {c}.sys.create_tag('{a}', 'x', 1, 2)", bad, "4 arguments given, at most 3"),
        (f"CALL {c}.sys.create_tag('{a}', NULL)", bad, "argument 'tag' must not be NULL"),
        (
            f"CALL {c}.sys.remove_orphan_files('{a}', NULL, 'maybe')",
            bad,
            "must be a BOOLEAN (true/false)",
        ),
        (f"CALL {c}.sys.compact(5)", bad, "argument 'table' must be a STRING"),
        (
            f"CALL {c}.sys.compact('{t.name}')",
            bad,
            f"table must be 'database.table', got '{t.name}'",
        ),
        (f"CALL {c}.sys.compact('db.*')", bad, "Lance procedures act on one table"),
        (
            f"CALL {c}.sys.compact('db.nope')",
            1146,
            f"Table 'db.nope' doesn't exist in catalog '{c}'",
        ),
        (f"CALL {c}.sys.compact('nodb.t')", 1146, f"Table 'nodb.t' doesn't exist in catalog '{c}'"),
        (f"CALL {c}.sys.vacuum('{a}')", 1305, "PROCEDURE vacuum does not exist"),
        (f"CALL {c}.other.compact('{a}')", 1235, "procedures live in the 'sys' namespace"),
        # compact
        (
            f"CALL {c}.sys.compact('{a}', 'target_rows_per_fragment')",
            bad,
            "options must be 'key=value' pairs",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'speed=11')",
            bad,
            "unknown option 'speed'; supported: target_rows_per_fragment",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'num_threads=1,num_threads=2')",
            bad,
            "option 'num_threads' is given more than once",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'target_rows_per_fragment=0')",
            bad,
            "must be a positive integer, got '0'",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'materialize_deletions=maybe')",
            bad,
            "must be true or false",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'materialize_deletions_threshold=2')",
            bad,
            "fraction between 0 and 1",
        ),
        (
            f"CALL {c}.sys.compact('{a}', 'compaction_mode=fast')",
            bad,
            "must be one of reencode, try_binary_copy",
        ),
        # optimize_indices
        (
            f"CALL {c}.sys.optimize_indices('{a}', 'nope_idx')",
            bad,
            "index 'nope_idx' does not exist on table",
        ),
        (
            f"CALL {c}.sys.optimize_indices('{a}', 'a,,b')",
            bad,
            "index_names must be a comma-separated list",
        ),
        (
            f"CALL {c}.sys.optimize_indices('{a}', NULL, -1)",
            bad,
            "'num_indices_to_merge' must be >= 0, got -1",
        ),
        # expire_snapshots
        (f"CALL {c}.sys.expire_snapshots('{a}', 0)", bad, "'retain_max' must be >= 1, got 0"),
        (f"CALL {c}.sys.expire_snapshots('{a}', NULL, 0)", bad, "'retain_min' must be >= 1, got 0"),
        (
            f"CALL {c}.sys.expire_snapshots('{a}', 2, 3)",
            bad,
            "retain_max (2) must be >= retain_min (3)",
        ),
        (
            f"CALL {c}.sys.expire_snapshots('{a}', NULL, NULL, 'yesterday')",
            bad,
            "argument 'older_than' must be 'YYYY-MM-DD HH:MM:SS[.ffffff]' or epoch milliseconds",
        ),
        (
            f"CALL {c}.sys.expire_snapshots(table => '{a}', max_deletes => 0)",
            bad,
            "'max_deletes' must be >= 1",
        ),
        (
            f"CALL {c}.sys.expire_snapshots(table => '{a}', max_deletes => 100001)",
            bad,
            "max_deletes 100001 exceeds the configured procedure_max_deletes (100000)",
        ),
        # remove_orphan_files
        (
            f"CALL {c}.sys.remove_orphan_files('{a}', '2999-01-01 00:00:00')",
            bad,
            "is in the future",
        ),
        (
            f"CALL {c}.sys.remove_orphan_files('{a}', 'soon')",
            bad,
            "argument 'older_than' must be 'YYYY",
        ),
        (
            f"CALL {c}.sys.remove_orphan_files(table => '{a}', max_deletes => -5)",
            bad,
            "'max_deletes' must be >= 1",
        ),
        (
            f"CALL {c}.sys.remove_orphan_files('{a}', NULL, false, 0)",
            bad,
            "'parallelism' must be >= 1, got 0",
        ),
        (
            f"CALL {c}.sys.remove_orphan_files('{a}', NULL, false, 65)",
            bad,
            "'parallelism' must be <= 64, got 65",
        ),
        (
            f"CALL {c}.sys.remove_orphan_files(table => '{a}', mode => 'cloud')",
            bad,
            "argument 'mode' must be one of local, distributed, got 'cloud'",
        ),
        # rollback
        (
            f"CALL {c}.sys.rollback_to_as_latest('{a}', 'v1', 1)",
            bad,
            "Must specify exactly one of tag and snapshot_id.",
        ),
        (
            f"CALL {c}.sys.rollback_to_as_latest('{a}')",
            bad,
            "Must specify exactly one of tag and snapshot_id.",
        ),
        (
            f"CALL {c}.sys.rollback_to_as_latest('{a}', 'nope')",
            1105,
            f"Tag 'nope' of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.rollback_to_as_latest('{a}', NULL, 99)",
            1105,
            f"Version 99 of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.rollback_to_as_latest('{a}', 'on_dev')",
            bad,
            "tag 'on_dev' points at branch 'dev'",
        ),
        (
            f"CALL {c}.sys.rollback_to('{a}', NULL, 1)",
            1235,
            "rollback_to is not supported for Lance",
        ),
        # tags
        (
            f"CALL {c}.sys.create_tag('{a}', 'bad name')",
            bad,
            "argument 'tag': 'bad name' is not a valid name",
        ),
        (f"CALL {c}.sys.create_tag('{a}', 'v1')", bad, "tag 'v1' already exists on table"),
        (
            f"CALL {c}.sys.create_tag('{a}', 'x', 42)",
            1105,
            f"Version 42 of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.delete_tag('{a}', 'v1,nope')",
            1105,
            f"Tag 'nope' of table '{a}' does not exist",
        ),
        (f"CALL {c}.sys.delete_tag('{a}', 'v1,v1')", bad, "tag lists 'v1' more than once"),
        (f"CALL {c}.sys.rename_tag('{a}', 'v1', 'v1')", bad, "tag and target_tag are both 'v1'"),
        (
            f"CALL {c}.sys.rename_tag('{a}', 'nope', 'x')",
            1105,
            f"Tag 'nope' of table '{a}' does not exist",
        ),
        (f"CALL {c}.sys.rename_tag('{a}', 'v1', 'on_dev')", bad, "tag 'on_dev' already exists"),
        (
            f"CALL {c}.sys.rename_tag('{a}', 'v1', '-x')",
            bad,
            "argument 'target_tag': '-x' is not a valid name",
        ),
        # branches
        (
            f"CALL {c}.sys.create_branch('{a}', 'main')",
            bad,
            "'main' is the name of the default branch",
        ),
        (
            f"CALL {c}.sys.create_branch('{a}', 'a/b')",
            bad,
            "argument 'branch': 'a/b' is not a valid name: it must not contain '/'",
        ),
        (
            f"CALL {c}.sys.create_branch('{a}', 'x', 'v1', false, 1)",
            bad,
            "Must specify at most one of tag and snapshot.",
        ),
        (
            f"CALL {c}.sys.create_branch('{a}', 'x', 'v1', 1)",
            bad,
            "argument 'ignoreIfExists' must be a BOOLEAN",
        ),
        (f"CALL {c}.sys.create_branch('{a}', 'dev')", bad, "branch 'dev' already exists on table"),
        (
            f"CALL {c}.sys.create_branch('{a}', 'x', 'nope')",
            1105,
            f"Tag 'nope' of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.create_branch('{a}', 'x', NULL, false, 9)",
            1105,
            f"Version 9 of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.delete_branch('{a}', 'nope')",
            1105,
            f"Branch 'nope' of table '{a}' does not exist",
        ),
        (
            f"CALL {c}.sys.delete_branch('{a}', 'dev')",
            bad,
            "branch 'dev' has tags (on_dev); delete them first",
        ),
        (
            f"CALL {c}.sys.delete_branch('{a}', 'parent')",
            bad,
            "branch 'parent' has child branches (child)",
        ),
        (
            f"CALL {c}.sys.delete_branch('{a}', 'child,child')",
            bad,
            "branch lists 'child' more than once",
        ),
    ]
    for sql, code, message in cases:
        got_code, text = fails(server, sql)
        assert (got_code, message in text) == (code, True), (sql, got_code, text)
        assert "Traceback" not in text
    assert t.state() == before
    check(t, versions=[1, 2, 3], tags={"v1": 1, "on_dev": 2}, branches=["child", "dev", "parent"])
    # a parent listed with its child goes, the child first
    assert call(server, f"CALL {c}.sys.delete_branch('{a}', 'parent,child')")[1] == [
        (1, "parent"),
        (1, "child"),
    ]
    check(t, versions=[1, 2, 3], branches=["dev"])


def test_privilege_denial_and_audit(server: ServerProcess, t: Table) -> None:
    reader = create_user(server, [f"SELECT_PRIV ON {t.catalog}.db.*"])
    sql = f"CALL {t.catalog}.sys.create_tag(table => '{t.arg}', tag => 'denied')"
    code, text = fails(server, sql, reader, "pw")
    assert code == 1142 and text.startswith(f"ALTER command denied to user '{reader}'")
    assert call(server, f"SHOW PROCEDURES FROM {t.catalog}", create_user(server, []), "pw")[1] == []
    check(t, tags={})
    writer = create_user(server, [f"ALTER_PRIV ON {t.catalog}.db.{t.name}"])
    assert call(server, f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'granted')", writer, "pw")[
        1
    ] == [(1, "granted", 3)]
    fails_code = fails(server, f"CALL {t.catalog}.sys.create_tag('db.other', 'x')", writer, "pw")[0]
    assert fails_code in (1142, 1146)
    check(t, tags={"granted": 3})
    records = [
        json.loads(line) for line in (server.data_dir / "audit.jsonl").read_text().splitlines()
    ]
    mine = [
        r for r in records if r["kind"] == "CallProcedure" and f"{t.catalog}.sys." in r["statement"]
    ]
    assert [(r["user"], r["outcome"], r["error_code"]) for r in mine][-3:] == [
        (reader, "error", 1142),
        (writer, "ok", 0),
        (writer, "error", fails_code),
    ]
    assert mine[-3]["statement"] == sql
    shown = call(server, "SHOW AUDIT LIMIT 20")[1]
    assert any(r[4] == "CallProcedure" and "'granted'" in r[-1] for r in shown)


def test_the_index_job_fence_refuses_changes_until_the_job_is_resolved(tmp_path: Path) -> None:
    server = ServerProcess(data_dir=tmp_path / "data").start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        t = make_table(server, wh, catalog=create_catalog(server, wh))
        set_config(
            server,
            lance_index_job_dispatcher_paused=True,
            enable_lance_index_mutation=True,
            enable_lance_index_local_file_mutation=True,
        )
        job = admit(server, f"CREATE INDEX idx ON {t.fq} (id) USING BTREE")
        for sql in (
            f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'x')",
            f"CALL {t.catalog}.sys.compact('{t.arg}')",
            f"CALL {t.catalog}.sys.remove_orphan_files('{t.arg}', NULL, true)",
            f"CALL {t.catalog}.sys.expire_snapshots('{t.arg}', 1)",
        ):
            code, text = fails(server, sql)
            assert code == 1105 and text.endswith(
                f"refused: table {t.arg} has unresolved Lance index job {job}; wait for it or "
                f"resolve it first"
            ), text
        assert (
            fails(server, f"CALL {t.catalog}.sys.rollback_to('{t.arg}', NULL, 1)")[0] == 1235
        )  # changes nothing
        other = make_table(server, wh, catalog=t.catalog)  # another table is not fenced
        call(server, f"REFRESH DATABASE {t.catalog}.db")  # the table listing is cached
        assert call(server, f"CALL {t.catalog}.sys.create_tag('{other.arg}', 'x')")[1] == [
            (1, "x", 3)
        ]
        check(t, versions=[1, 2, 3], tags={})
        call(server, f"CANCEL LANCE INDEX JOB {job}")
        wait_job(server, job)
        assert call(server, f"CALL {t.catalog}.sys.create_tag('{t.arg}', 'x')")[1] == [(1, "x", 3)]
        check(t, versions=[1, 2, 3], tags={"x": 3})
    finally:
        server.stop()
