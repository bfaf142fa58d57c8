"""Paimon procedures: every validation error (positional and named forms answer identically and
change nothing), exact target resolution, privileges, the audit log, SHOW PROCEDURES, and the P2
partition procedures."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.paimon_procs import PARTED, ROWS, Lake, any_lake, local_lake, row, s3_lake
from tests.support.s3 import S3Server
from tests.security.test_audit import audit_rows

ALL = [
    "clear_consumers",
    "compact",
    "create_branch",
    "create_tag",
    "delete_branch",
    "delete_tag",
    "expire_partitions",
    "expire_snapshots",
    "fast_forward",
    "mark_partition_done",
    "merge_branch",
    "remove_orphan_files",
    "rename_branch",
    "rename_tag",
    "reset_consumer",
    "rollback_to",
    "rollback_to_as_latest",
]

# (procedure, positional arguments, the same as named arguments, code, message fragment)
CASES: list[tuple[str, str, str | None, int, str]] = [
    ("expire_snapshots", "'t'", "table => 't'", 1108, "table must be 'database.table', got 't'"),
    ("expire_snapshots", "'db.nope'", "table => 'db.nope'", 1146, "db.nope"),
    ("expire_snapshots", "'nodb.t'", "table => 'nodb.t'", 1146, "nodb.t"),
    ("expire_snapshots", "'db.t$branch_dev'", "table => 'db.t$branch_dev'", 1146, "t$branch_dev"),
    (
        "expire_snapshots",
        "'db.t', 'abc'",
        "table => 'db.t', retain_max => 'abc'",
        1108,
        "'retain_max' must be an INT",
    ),
    (
        "expire_snapshots",
        "'db.t', NULL, 0",
        "table => 'db.t', retain_min => 0",
        1108,
        "'retain_min' must be at least 1",
    ),
    (
        "expire_snapshots",
        "'db.t', 1, 2",
        "table => 'db.t', retain_max => 1, retain_min => 2",
        1108,
        "retain_max (1) must not be smaller than retain_min (2)",
    ),
    (
        "expire_snapshots",
        "'db.t', NULL, NULL, 'yesterday'",
        "table => 'db.t', older_than => 'yesterday'",
        1108,
        "'older_than' must be 'YYYY-MM-DD HH:MM:SS[.ffffff]'",
    ),
    (
        "expire_snapshots",
        "'db.t', NULL, NULL, NULL, 0",
        "table => 'db.t', max_deletes => 0",
        1108,
        "'max_deletes' must be at least 1",
    ),
    (
        "expire_snapshots",
        "'db.t', NULL, NULL, NULL, NULL, 'a=b'",
        "table => 'db.t', options => 'a=b'",
        1108,
        "options supports only",
    ),
    (
        "expire_snapshots",
        "'db.t', 1, 1, NULL, NULL, NULL, 7",
        None,
        1108,
        "7 arguments given, at most 6",
    ),
    (
        "rollback_to",
        "'db.t'",
        "table => 'db.t'",
        1108,
        "Must specify exactly one of tag and snapshot_id.",
    ),
    (
        "rollback_to",
        "'db.t', 't1', 1",
        "table => 'db.t', tag => 't1', snapshot_id => 1",
        1108,
        "exactly one",
    ),
    (
        "rollback_to",
        "'db.t', NULL, 99",
        "table => 'db.t', snapshot_id => 99",
        1108,
        "snapshot 99 doesn't exist",
    ),
    (
        "rollback_to",
        "'db.t', 'nope'",
        "table => 'db.t', tag => 'nope'",
        1108,
        "tag 'nope' doesn't exist",
    ),
    (
        "rollback_to_as_latest",
        "'db.t'",
        "table => 'db.t'",
        1108,
        "Must specify exactly one of tag and snapshot_id.",
    ),
    (
        "rollback_to_as_latest",
        "'db.t', NULL, 99",
        "table => 'db.t', snapshot_id => 99",
        1108,
        "snapshot 99",
    ),
    (
        "rollback_to_as_latest",
        "'db.empty', NULL, 1",
        "table => 'db.empty', snapshot_id => 1",
        1108,
        "snapshot 1",
    ),
    (
        "remove_orphan_files",
        "'db.t', 'soon'",
        "table => 'db.t', older_than => 'soon'",
        1108,
        "'older_than' must be",
    ),
    (
        "remove_orphan_files",
        "'db.t', NULL, 'maybe'",
        "table => 'db.t', dry_run => 'maybe'",
        1108,
        "'dry_run' must be a BOOLEAN",
    ),
    (
        "remove_orphan_files",
        "'db.t', NULL, false, 0",
        "table => 'db.t', parallelism => 0",
        1108,
        "'parallelism' must be at least 1",
    ),
    (
        "remove_orphan_files",
        "'db.t', NULL, false, NULL, 'x'",
        "table => 'db.t', mode => 'x'",
        1108,
        "Unknown mode: x",
    ),
    (
        "compact",
        "'db.t', NULL, 'id > 1'",
        "table => 'db.t', `where` => 'id > 1'",
        1235,
        "'where' is not supported",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, 'zorder', 'id'",
        "table => 'db.t', order_strategy => 'zorder', order_by => 'id'",
        1235,
        "order_strategy 'zorder' is not supported",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, 'random'",
        "table => 'db.t', order_strategy => 'random'",
        1108,
        "order_strategy must be none, order, zorder or hilbert",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, 'order'",
        "table => 'db.t', order_strategy => 'order'",
        1108,
        "order_by is required with order_strategy 'order'",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, 'order', 'nope'",
        "table => 'db.t', order_strategy => 'order', order_by => 'nope'",
        1108,
        "order_by column(s) nope",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, NULL, NULL, 'k=v'",
        "table => 'db.t', options => 'k=v'",
        1235,
        "'options'",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, NULL, NULL, NULL, '1 h'",
        "table => 'db.t', partition_idle_time => '1 h'",
        1235,
        "'partition_idle_time' is not supported",
    ),
    (
        "compact",
        "'db.t', NULL, NULL, NULL, NULL, NULL, NULL, 'big'",
        "table => 'db.t', compact_strategy => 'big'",
        1108,
        "compact_strategy must be 'full' or 'minor'",
    ),
    (
        "compact",
        "'db.t', 'dt=a'",
        "table => 'db.t', partitions => 'dt=a'",
        1108,
        "is not partitioned",
    ),
    (
        "compact",
        "'db.p', 'nope=a'",
        "table => 'db.p', partitions => 'nope=a'",
        1108,
        "over partition keys dt",
    ),
    ("compact", "'db.pk'", "table => 'db.pk'", 1235, "it has a primary key"),
    (
        "create_tag",
        "'db.t', ''",
        "table => 'db.t', tag => ''",
        1108,
        "argument 'tag' must not be blank",
    ),
    (
        "create_tag",
        "'db.t', '123'",
        "table => 'db.t', tag => '123'",
        1108,
        "pure numeric string but is '123'",
    ),
    (
        "create_tag",
        "'db.t', 'a/b'",
        "table => 'db.t', tag => 'a/b'",
        1108,
        "argument 'tag': 'a/b' is not a valid tag name: it must not contain '/'",
    ),
    ("create_tag", "'db.t', 't1'", "table => 'db.t', tag => 't1'", 1108, "Tag 't1' already exists"),
    (
        "create_tag",
        "'db.t', 'n', 99",
        "table => 'db.t', tag => 'n', snapshot => 99",
        1108,
        "snapshot 99 doesn't exist",
    ),
    (
        "create_tag",
        "'db.t', 'n', NULL, 'soon'",
        "table => 'db.t', tag => 'n', time_retained => 'soon'",
        1108,
        "'time_retained' is not a duration",
    ),
    (
        "create_tag",
        "'db.empty', 'n'",
        "table => 'db.empty', tag => 'n'",
        1105,
        "has no snapshot to tag",
    ),
    ("create_tag", "'db.t'", "table => 'db.t'", 1108, "missing required argument 'tag'"),
    (
        "delete_tag",
        "'db.t', 't1,nope'",
        "table => 'db.t', tag => 't1,nope'",
        1108,
        "tag 'nope' doesn't exist",
    ),
    ("delete_tag", "'db.t', 't1,t1'", "table => 'db.t', tag => 't1,t1'", 1108, "names a tag twice"),
    (
        "rename_tag",
        "'db.t', 'nope', 'x'",
        "table => 'db.t', tag => 'nope', target_tag => 'x'",
        1108,
        "'nope' doesn't",
    ),
    (
        "rename_tag",
        "'db.t', 't1', 'base'",
        "table => 'db.t', tag => 't1', target_tag => 'base'",
        1108,
        "Tag 'base' already exists",
    ),
    (
        "create_branch",
        "'db.t', 'main'",
        "table => 'db.t', branch => 'main'",
        1108,
        "'main' is the default branch",
    ),
    ("create_branch", "'db.t', '42'", "table => 'db.t', branch => '42'", 1108, "pure numeric"),
    (
        "create_branch",
        "'db.t', 'dev'",
        "table => 'db.t', branch => 'dev'",
        1108,
        "Branch name 'dev' already exists",
    ),
    (
        "create_branch",
        "'db.t', 'nb', 'nope'",
        "table => 'db.t', branch => 'nb', tag => 'nope'",
        1108,
        "tag 'nope'",
    ),
    (
        "delete_branch",
        "'db.t', 'dev,nope'",
        "table => 'db.t', branch => 'dev,nope'",
        1108,
        "branch 'nope' doesn't",
    ),
    (
        "delete_branch",
        "'db.t', 'main'",
        "table => 'db.t', branch => 'main'",
        1108,
        "'main' is the default branch",
    ),
    (
        "rename_branch",
        "'db.t', 'nope', 'x'",
        "table => 'db.t', from_branch => 'nope', to_branch => 'x'",
        1108,
        "branch 'nope' doesn't exist",
    ),
    (
        "rename_branch",
        "'db.t', 'dev', 'blank'",
        "table => 'db.t', from_branch => 'dev', to_branch => 'blank'",
        1108,
        "Branch name 'blank' already exists",
    ),
    (
        "fast_forward",
        "'db.t', 'blank'",
        "table => 'db.t', branch => 'blank'",
        1105,
        "does not have snapshot",
    ),
    (
        "fast_forward",
        "'db.t', 'main'",
        "table => 'db.t', branch => 'main'",
        1108,
        "'main' is the default branch",
    ),
    (
        "merge_branch",
        "'db.t', 'dev', 'dev'",
        "table => 'db.t', branch => 'dev', target_branch => 'dev'",
        1108,
        "branch and target_branch must differ",
    ),
    (
        "merge_branch",
        "'db.t', 'nope'",
        "table => 'db.t', branch => 'nope'",
        1108,
        "branch 'nope' doesn't exist",
    ),
    (
        "expire_partitions",
        "'db.t', '1 d'",
        "table => 'db.t', expiration_time => '1 d'",
        1108,
        "is not partitioned",
    ),
    (
        "expire_partitions",
        "'db.p', 'later'",
        "table => 'db.p', expiration_time => 'later'",
        1108,
        "'expiration_time' is not a duration",
    ),
    (
        "expire_partitions",
        "'db.p', '1 d', 'yyyy-MM-dd', '$nope'",
        "table => 'db.p', expiration_time => '1 d', timestamp_formatter => 'yyyy-MM-dd', "
        "timestamp_pattern => '$nope'",
        1108,
        "unknown partition field(s) nope",
    ),
    (
        "expire_partitions",
        "'db.p', '1 d', 'EEE dd'",
        "table => 'db.p', expiration_time => '1 d', timestamp_formatter => 'EEE dd'",
        1108,
        "uses letters drydock does not parse",
    ),
    (
        "expire_partitions",
        "'db.p', '1 d', NULL, NULL, 'sometime'",
        "table => 'db.p', expiration_time => '1 d', expire_strategy => 'sometime'",
        1108,
        "expire_strategy must be",
    ),
    (
        "mark_partition_done",
        "'db.p', 'dt=2001-01-09'",
        "table => 'db.p', partitions => 'dt=2001-01-09'",
        1108,
        "partition 'dt=2001-01-09' doesn't exist",
    ),
    (
        "mark_partition_done",
        "'db.p', 'x=1'",
        "table => 'db.p', partitions => 'x=1'",
        1108,
        "must name every partition key",
    ),
]


@pytest.fixture(scope="module")
def fixed(proc_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Lake:  # noqa: F811
    lake = local_lake(proc_server, tmp_path_factory.mktemp("fixed"))
    lake.create("db.t")
    for i in range(1, 4):
        lake.append("db.t", [row(i)])
    lake.create("db.empty")
    lake.create("db.pk", ROWS, primary_keys=["id"], options={"bucket": "1"})
    lake.create("db.p", PARTED, partition_keys=["dt"])
    lake.append("db.p", [{"id": 1, "item": "a", "dt": "2001-01-01"}])
    lake.call("create_tag", "'db.t', 't1', 1")
    lake.call("create_tag", "'db.t', 'base', 3")
    lake.call("create_branch", "'db.t', 'dev', 'base'")
    lake.call("create_branch", "'db.t', 'blank'")
    return lake


def state(lake: Lake) -> tuple:
    return (
        lake.snapshots("db.t"),
        lake.tags("db.t"),
        lake.branches("db.t"),
        lake.files("db.t"),
        lake.snapshots("db.p"),
        lake.files("db.p"),
    )


@pytest.mark.parametrize(
    "procedure,positional,named,code,fragment",
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_validation_errors(
    fixed: Lake, procedure: str, positional: str, named: str | None, code: int, fragment: str
) -> None:
    before = state(fixed)
    answer = fixed.error(procedure, positional)
    assert answer[0] == code and fragment in answer[1], answer
    if named is not None:
        assert fixed.error(procedure, named) == answer  # both forms validate identically
    assert state(fixed) == before


def test_argument_binding_errors(fixed: Lake) -> None:
    code, message = fixed.error("expire_snapshots", "table => 'db.t', bogus => 1")
    assert (
        code == 1108
        and "unknown argument 'bogus'" in message
        and "expire_snapshots(table STRING" in message
    )
    assert "cannot be mixed" in fixed.error("expire_snapshots", "'db.t', retain_min => 1")[1]
    assert (
        "duplicate argument"
        in fixed.error("expire_snapshots", "table => 'db.t', TABLE => 'db.t'")[1]
    )
    assert "must not be NULL" in fixed.error("expire_snapshots", "NULL")[1]
    assert (
        fixed.error("create_branch", "table => 'db.t', branch => 'dev', IGNOREIFEXISTS => 'yes'")[0]
        == 1108
    )
    assert fixed.error("no_such_procedure", "'db.t'")[0] == 1305


def test_show_procedures_lists_every_paimon_procedure(fixed: Lake) -> None:
    rows = fixed.sql(f"SHOW PROCEDURES FROM {fixed.catalog}")
    assert sorted(r[1] for r in rows) == [f"sys.{p}" for p in ALL]
    args = fixed.sql(f"SHOW PROCEDURE {fixed.catalog}.sys.rollback_to_as_latest")
    assert [a[0] for a in args] == ["table", "tag", "snapshot_id"]


def test_privileges_and_audit(fixed: Lake) -> None:
    fixed.sql("CREATE USER 'maint'@'%' IDENTIFIED BY 'pw'")
    fixed.sql(f"GRANT SELECT_PRIV ON {fixed.catalog}.db.t TO 'maint'@'%'")
    before = state(fixed)
    code, message = fixed.error("expire_snapshots", "'db.t', NULL, 1", user="maint", password="pw")
    assert code == 1142 and "ALTER" in message
    code, _ = fixed.error("remove_orphan_files", "'db.*'", user="maint", password="pw")
    assert code == 1227  # the database-wide form needs ADMIN
    fixed.sql(f"GRANT ALTER_PRIV ON {fixed.catalog}.db.t TO 'maint'@'%'")
    assert fixed.call("create_tag", "'db.t', 'granted'", user="maint", password="pw") == [(1,)]
    fixed.call("delete_tag", "'db.t', 'granted'")
    assert fixed.error("delete_tag", "'db.t', 'granted'")[0] == 1108
    assert state(fixed)[:3] == before[:3]
    records = [r for r in audit_rows(fixed.server, 200) if "CALL" in r["Statement"]]
    ours = [r for r in records if fixed.catalog in r["Statement"]]
    assert any(r["User"] == "maint" and r["ErrorCode"] == 1142 for r in ours)
    assert any(
        r["User"] == "maint"
        and r["Kind"] == "CallProcedure"
        and r["Outcome"] == "ok"
        and "create_tag" in r["Statement"]
        and r["Object"] == f"{fixed.catalog}.db.t"
        for r in ours
    )
    assert any(r["Outcome"] == "error" and r["ErrorCode"] == 1108 for r in ours)


def partitioned(lake: Lake) -> None:
    lake.create("db.p", PARTED, partition_keys=["dt"])
    today = dt.date.today()
    for days in (40, 20, 0):
        day = (today - dt.timedelta(days=days)).isoformat()
        lake.append("db.p", [{"id": days, "item": day, "dt": day}])


@pytest.fixture(params=["local", "s3", "rest", "jdbc"])
def any_where(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    return any_lake(request, proc_server, tmp_path)


def test_expire_partitions_and_mark_partition_done(any_where: Lake) -> None:
    lake = any_where
    partitioned(lake)
    today = dt.date.today()
    old = [(today - dt.timedelta(days=d)).isoformat() for d in (40, 20)]
    assert lake.call("expire_partitions", "'db.p', '30 d'") == [(f"dt={old[0]}",)]
    assert [r[0] for r in lake.rows("db.p")] == [0, 20]
    assert lake.call("expire_partitions", "table => 'db.p', expiration_time => '30 d'") == [
        ("No expired partitions.",)
    ]
    assert lake.call(
        "expire_partitions",
        "table => 'db.p', expiration_time => '1 d', "
        "timestamp_formatter => 'yyyy-MM-dd', timestamp_pattern => '$dt', max_expires => 5",
    ) == [(f"dt={old[1]}",)]
    assert [r[0] for r in lake.rows("db.p")] == [0]
    assert lake.snapshots("db.p") == [1, 2, 3, 4, 5]
    # update-time: every partition was written just now.
    assert lake.call("expire_partitions", "'db.p', '1 d', NULL, NULL, 'update-time'") == [
        ("No expired partitions.",)
    ]
    day = today.isoformat()
    assert lake.call("mark_partition_done", f"'db.p', 'dt={day}'") == [(1,)]
    assert lake.exists("db.p", f"dt={day}/_SUCCESS")
    assert lake.call("mark_partition_done", f"table => 'db.p', partitions => 'dt={day}'") == [(1,)]
    lake.call("remove_orphan_files", "'db.p', '2999-01-01 00:00:00'")
    assert lake.exists("db.p", f"dt={day}/_SUCCESS")  # not a Paimon data file name: kept


def test_mark_partition_done_refuses_other_actions(
    proc_server: ServerProcess, tmp_path: Path
) -> None:  # noqa: F811
    lake = local_lake(proc_server, tmp_path)
    lake.create(
        "db.p",
        PARTED,
        partition_keys=["dt"],
        options={"partition.mark-done-action": "done-partition"},
    )
    lake.append("db.p", [{"id": 1, "item": "a", "dt": "x"}])
    code, message = lake.error("mark_partition_done", "'db.p', 'dt=x'")
    assert code == 1235 and "done-partition" in message


def test_secrets_never_leak_from_s3_procedure_errors(
    proc_server: ServerProcess, s3: S3Server
) -> None:  # noqa: F811
    from tests.support.s3 import ACCESS_KEY, SECRET_KEY

    lake = s3_lake(proc_server, s3)
    lake.create("db.t")
    lake.append("db.t", [row(1)])
    messages = [
        lake.error("rollback_to", "'db.t', NULL, 5")[1],
        lake.error("fast_forward", "'db.t', 'x'")[1],
    ]
    lake.call("remove_orphan_files", "'db.t', '2999-01-01 00:00:00', true")
    for text in [*messages, proc_server.log_text(), str(audit_rows(proc_server, 100))]:
        assert SECRET_KEY not in text and ACCESS_KEY not in text
    with pytest.raises(pymysql.err.MySQLError):
        lake.call("expire_snapshots", "'db.t', NULL, 1, 'never'")
