"""SHOW LANCE INDEX JOB(S), visibility and RESOLVE … AS FORCE_RELEASE over the wire.

What each test proves:
- SHOW LANCE INDEX JOBS has Doris' 15 columns (docs/doris-compatibility.md) plus Progress (SHOW JOB:
34 plus Progress),
  rows in id order, FROM/IN [ctl.]db scoping (one part = current catalog), and every WHERE rule and
  message of Doris (docs/doris-compatibility.md);
- a user with SELECT on one database sees exactly that database's jobs; every other job answers
  SHOW JOB / RESOLVE / CANCEL exactly like a missing one (5103), and SHOW omits it silently;
  RESOLVE needs ALTER;
- orphan rows (table gone, locator changed, catalog dropped) are shown to ADMIN only;
- RESOLVE's check order (5103 → 5104 → 5105 → note rules), the OK packet with one warning that
  SHOW WARNINGS returns (defect 4), idempotent retry (also for 8 clients racing one job, issue 27),
  the released fence; a job driven to UNKNOWN
  through the manager API; a job the dataset's history settles (RECONCILED) instead;
- defect 8: a job whose persisted locator differs from the table's current dataset is resolved only
  on the ADMIN/orphan path, and releasing it leaves the fence at the new location alone; a table
  deleted outside drydock is seen as gone by RESOLVE (an authoritative read, not a cached listing).
"""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pymysql
import pytest

from drydock.engine.jobs.control.manager import FORCE_RELEASE_WARNING
from tests.conftest import ServerProcess, make_server
from tests.support.pg import store_choice_for
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import (
    Warehouse,
    admit,
    create_catalog,
    create_user,
    drive_unknown,
    error_of,
    local_warehouse,
    offline_engine,
    pause,
    rows,
    show_job,
    show_jobs,
    vector_table,
    wait_job,
)

LIST_COLUMNS = [
    "JobId",
    "CatalogName",
    "DbName",
    "TableName",
    "IndexName",
    "Operation",
    "State",
    "RefreshState",
    "PossibleLive",
    "CreateTime",
    "UpdateTime",
    "Message",
    "ForceReleased",
    "ForceActor",
    "ForceTime",
]
DETAIL_COLUMNS = [
    *LIST_COLUMNS,
    "Creator",
    "ResultCode",
    "CompletionReason",
    "ExternalMetadataAdvanced",
    "BackendId",
    "BeProcessEpoch",
    "InvocationId",
    "DeadlineMs",
    "TerminationProof",
    "AdmittedDatasetVersion",
    "SchemaContractVersion",
    "Revision",
    "ForceNote",
    "ForceWarning",
    "IfNotExists",
    "IfExists",
    "IndexType",
    "ColumnName",
]
HINT = (
    'Where clause should looks like: TableName = "your_table_name" or '
    'State = "PENDING|RUNNING|COMMITTED|NOT_COMMITTED|UNKNOWN", or compound predicate with '
    "operator AND"
)


def not_found(job_id: int) -> tuple[int, str]:
    return 5103, f"Lance index job not found: {job_id}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("show") / "data").start()
    pause(proc)  # every job of this module stays PENDING unless a test cancels it
    yield proc
    proc.stop()


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    w = local_warehouse(tmp_path / "wh")
    small = vector_table(300)
    for db, table in (("db1", "t1"), ("db1", "t2"), ("db2", "t1")):
        w.write(db, table, small)
    return w


def test_show_columns_scoping_and_where_rules(server: ServerProcess, wh: Warehouse) -> None:
    c = create_catalog(server, wh)
    a = admit(server, f"CREATE INDEX a ON {c}.db1.t1 (id) USING BTREE")
    b = admit(server, f"CREATE INDEX b ON {c}.db1.t2 (id) USING BTREE")
    d = admit(server, f"CREATE INDEX d ON {c}.db2.t1 (name) USING BITMAP")
    e = admit(server, f"CREATE INDEX e ON {c}.db1.t1 (name) USING BTREE")
    server.query(f"CANCEL LANCE INDEX JOB {e}")
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SHOW LANCE INDEX JOBS FROM {c}.db1")
        assert [x[0] for x in cur.description] == [*LIST_COLUMNS, "Progress"]
        listed = cur.fetchall()
        cur.execute(f"SHOW LANCE INDEX JOB {a}")
        assert [x[0] for x in cur.description] == [*DETAIL_COLUMNS, "Progress"]
        detail = cur.fetchall()
    assert [r[0] for r in listed] == [str(a), str(b), str(e)]  # manager (id) order
    assert detail[0][: len(LIST_COLUMNS)] == listed[0][: len(LIST_COLUMNS)]

    def ids(suffix: str) -> list[int]:
        return [
            int(j["JobId"]) for j in show_jobs(server, suffix) if int(j["JobId"]) in (a, b, d, e)
        ]

    assert ids("") == [a, b, d, e]
    assert ids(f"IN {c}.db2") == [d]
    assert ids(f"FROM {c}.nodb") == []
    assert ids(f'FROM {c}.db1 WHERE TableName = "t1"') == [a, e]
    assert ids(f"FROM {c}.db1 WHERE tablename = 't1' AND state = 'pending'") == [a]
    assert ids(f"FROM {c}.db1 WHERE State = 'NOT_COMMITTED' AND TableName = 't1'") == [e]
    assert ids("WHERE STATE = 'Pending'") == [a, b, d]
    assert ids("WHERE State = 'UNKNOWN'") == []
    with server.connect() as conn, conn.cursor() as cur:  # one-part FROM: the current catalog
        cur.execute("SHOW LANCE INDEX JOBS FROM db1")
        assert [r for r in cur.fetchall() if int(r[0]) in (a, b, e)] == []  # internal catalog
        cur.execute(f"SWITCH {c}")
        cur.execute("SHOW LANCE INDEX JOBS FROM db1 WHERE TableName = 't2'")
        assert [int(r[0]) for r in cur.fetchall()] == [b]
        cur.execute("SHOW LANCE INDEX JOBS IN db2")
        assert [int(r[0]) for r in cur.fetchall()] == [d]
    invalid = [
        (
            "WHERE TableName = 't1' OR State = 'PENDING'",
            "Only allow compound predicate with operator AND",
        ),
        (
            "WHERE TableName = 't1' AND TableName = 't2'",
            "column names on both sides of operator AND should be different",
        ),
        (
            "WHERE State = 'PENDING' AND TableName = 't1' AND state = 'RUNNING'",
            "column names on both sides of operator AND should be different",
        ),
        ("WHERE State = 'DONE'", f"Unknown Lance index job state: DONE; {HINT}"),
        ("WHERE State = 'cancelled'", f"Unknown Lance index job state: cancelled; {HINT}"),
        ("WHERE TableName LIKE 't%'", HINT),
        ("WHERE TableName != 't1'", HINT),
        ("WHERE TableName = 5", HINT),
        ("WHERE JobId = '1'", HINT),
        ("WHERE IndexName = 'a'", HINT),
        (
            "FROM a.b.c",
            "Only support SHOW LANCE INDEX JOBS FROM [catalog.]database, but get: [a.b.c]",
        ),
    ]
    for suffix, message in invalid:
        assert error_of(server, f"SHOW LANCE INDEX JOBS {suffix}") == (1105, message), suffix
    for sql in (
        "SHOW LANCE INDEX JOBS ORDER BY JobId",
        "SHOW LANCE INDEX JOBS LIMIT 1",
        "SHOW LANCE INDEX JOB abc",
    ):
        code, text = error_of(server, sql)
        assert code == 1064 and "mismatched input" in text, sql
    assert error_of(server, "SHOW LANCE INDEX JOB 99999999") == not_found(99999999)


def test_show_from_an_unknown_or_invisible_catalog_answers_unknown_catalog(
    server: ServerProcess, wh: Warehouse
) -> None:
    c = create_catalog(server, wh)
    admit(server, f"CREATE INDEX v ON {c}.db1.t1 (id) USING BTREE")
    nobody = create_user(server, [])
    missing = (1105, "Unknown catalog 'nocat'")
    assert error_of(server, "SHOW LANCE INDEX JOBS FROM nocat.db") == missing
    assert (
        error_of(server, "SHOW LANCE INDEX JOBS FROM nocat.db", user=nobody, password="pw")
        == missing
    )
    # a catalog the user may not see answers byte for byte like one that does not exist
    assert error_of(server, f"SHOW LANCE INDEX JOBS FROM {c}.db1", user=nobody, password="pw") == (
        1105,
        f"Unknown catalog '{c}'",
    )
    assert (
        show_jobs(server, "FROM internal.db1") == []
    )  # the internal catalog exists, holds no jobs


def test_visibility_follows_table_privileges_and_hides_like_missing(
    server: ServerProcess, wh: Warehouse
) -> None:
    c = create_catalog(server, wh)
    j1 = admit(server, f"CREATE INDEX v ON {c}.db1.t1 (id) USING BTREE")
    j2 = admit(server, f"CREATE INDEX v ON {c}.db2.t1 (id) USING BTREE")
    reader = create_user(server, [f"SELECT_PRIV ON {c}.db2.*"])
    alterer = create_user(server, [f"ALTER_PRIV ON {c}.db2.t1"])
    table_reader = create_user(server, [f"SELECT_PRIV ON {c}.db1.t1"])
    nobody = create_user(server, [])
    as_ = {u: {"user": u, "password": "pw"} for u in (reader, alterer, table_reader, nobody)}

    def visible(user: str, suffix: str = "") -> list[int]:
        return [int(j["JobId"]) for j in show_jobs(server, suffix, **as_[user])]

    assert visible(reader) == [j2] and visible(reader, f"FROM {c}.db1") == []
    assert visible(alterer) == [j2] and visible(table_reader) == [j1] and visible(nobody) == []
    assert visible(reader, "WHERE State = 'PENDING'") == [j2]
    assert show_job(server, j2, **as_[reader])["IndexName"] == "v"
    for statement in (
        "SHOW LANCE INDEX JOB {}",
        "RESOLVE LANCE INDEX JOB {} AS FORCE_RELEASE COMMENT 'x'",
        "CANCEL LANCE INDEX JOB {}",
    ):
        # an invisible job answers byte for byte like one that never existed
        assert error_of(server, statement.format(j1), **as_[reader]) == not_found(j1)
        assert error_of(server, statement.format(j1), **as_[nobody]) == not_found(j1)
        assert error_of(server, statement.format(99999999), **as_[reader]) == not_found(99999999)
    # SELECT shows a job; acting on it needs ALTER (and RESOLVE then checks the state)
    assert error_of(
        server, f"RESOLVE LANCE INDEX JOB {j2} AS FORCE_RELEASE COMMENT 'x'", **as_[reader]
    ) == not_found(j2)
    assert error_of(server, f"CANCEL LANCE INDEX JOB {j2}", **as_[reader]) == not_found(j2)
    assert error_of(
        server, f"RESOLVE LANCE INDEX JOB {j2} AS FORCE_RELEASE COMMENT 'x'", **as_[alterer]
    ) == (5104, f"Lance index job {j2} cannot be resolved: not in UNKNOWN state (state is PENDING)")
    server.query(f"CANCEL LANCE INDEX JOB {j1}")
    rows(server, f"CANCEL LANCE INDEX JOB {j2}", **as_[alterer])
    assert show_job(server, j2)["State"] == "NOT_COMMITTED"


def test_orphan_rows_need_admin(server: ServerProcess, wh: Warehouse, tmp_path: Path) -> None:
    c = create_catalog(server, wh)
    gone = admit(server, f"CREATE INDEX o ON {c}.db1.t2 (id) USING BTREE")
    kept = admit(server, f"CREATE INDEX o ON {c}.db1.t1 (id) USING BTREE")
    for job in (gone, kept):
        server.query(f"CANCEL LANCE INDEX JOB {job}")  # resolved: the catalog may now change
    user = create_user(server, [f"SELECT_PRIV ON {c}.*.*", f"ALTER_PRIV ON {c}.*.*"])
    who = {"user": user, "password": "pw"}

    def seen(**kw: str) -> list[int]:
        return [int(j["JobId"]) for j in show_jobs(server, f"FROM {c}.db1", **kw)]

    assert seen(**who) == [gone, kept]
    shutil.rmtree(wh.uri("db1", "t2"))
    server.query(f"REFRESH CATALOG {c}")
    assert seen(**who) == [kept] and seen() == [gone, kept]  # table gone: ADMIN only
    assert error_of(server, f"SHOW LANCE INDEX JOB {gone}", **who) == not_found(gone)
    assert show_job(server, gone)["CatalogName"] == c
    moved = local_warehouse(tmp_path / "moved")
    moved.write("db1", "t1", vector_table(300))  # the same name at a new location
    server.query(f"ALTER CATALOG {c} SET PROPERTIES ('warehouse' = '{moved.root}')")
    assert seen(**who) == [] and seen() == [gone, kept]  # locator changed: ADMIN only
    fresh = admit(
        server, f"CREATE INDEX o ON {c}.db1.t1 (id) USING BTREE"
    )  # no fence: another dataset
    assert seen(**who) == [fresh]
    server.query(f"CANCEL LANCE INDEX JOB {fresh}")
    server.query(f"DROP CATALOG {c}")
    everything = {int(j["JobId"]): j for j in show_jobs(server)}
    assert [everything[j]["CatalogName"] for j in (gone, kept, fresh)] == [
        "",
        "",
        "",
    ]  # catalog gone
    assert show_job(server, kept)["CatalogName"] == ""
    assert {int(j["JobId"]) for j in show_jobs(server, **who)}.isdisjoint({gone, kept, fresh})
    assert error_of(
        server, f"RESOLVE LANCE INDEX JOB {kept} AS FORCE_RELEASE COMMENT 'x'", **who
    ) == not_found(kept)
    assert (
        error_of(server, f"RESOLVE LANCE INDEX JOB {kept} AS FORCE_RELEASE COMMENT 'x'")[0] == 5104
    )


def _resolve(server: ServerProcess, job_id: int, note: str, **who: str) -> tuple[int, list[tuple]]:
    """RESOLVE on one connection: (warning count of its OK packet, SHOW WARNINGS right after)."""
    with server.connect(**who) as conn, conn.cursor() as cur:
        cur.execute(f"RESOLVE LANCE INDEX JOB {job_id} AS FORCE_RELEASE COMMENT {note}")
        assert cur.description is None  # an OK packet, not a result set
        count = cur.warning_count
        cur.execute("SHOW WARNINGS")
        return count, list(cur.fetchall())


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_resolve_check_order_warning_row_idempotence_and_locator_mismatch(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    server = make_server(
        tmp_path, *store_choice_for(request, tmp_path / "data", store).args
    ).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        for table in ("t", "u", "gone"):
            wh.write("db", table, vector_table(300))
        c = create_catalog(server, wh)
        dead = create_catalog(
            server, Warehouse(str(tmp_path / "dead-wh"))
        )  # never created: unreachable
        pause(server)
        a = admit(server, f"CREATE INDEX a ON {c}.db.t (id) USING BTREE")  # → UNKNOWN, no uuid
        p = admit(server, f"CREATE INDEX p ON {c}.db.t (name) USING BITMAP")  # stays PENDING
        r = admit(server, f"CREATE INDEX r ON {c}.db.u (id) USING BTREE")  # → UNKNOWN with a uuid
        m_new = admit(
            server, f"CREATE INDEX m ON {c}.db.t (id) USING BTREE"
        )  # fence at the current location
        g = admit(
            server, f"CREATE INDEX g ON {c}.db.gone (id) USING BTREE"
        )  # → UNKNOWN, table deleted later
        with offline_engine(server) as engine:
            drive_unknown(engine, a, message="storage error while building")
            drive_unknown(engine, r, index_uuid=str(uuid.uuid4()))
            drive_unknown(engine, g)
            catalog_id = engine.catalogs.find(c).id
            old = engine.jobs.create(
                new_job(
                    "m",
                    catalog_id=catalog_id,
                    locator=str(tmp_path / "old-wh/db/t.lance"),
                    db="db",
                    tbl="t",
                ),
                8,
                64,
                256,
            )
            m_old = drive_unknown(engine, old.id).id
            d = drive_unknown(
                engine,
                engine.jobs.create(
                    new_job(
                        "x",
                        catalog_id=engine.catalogs.find(dead).id,
                        locator=str(tmp_path / "dead-wh/db/t.lance"),
                        db="db",
                        tbl="t",
                    ),
                    8,
                    64,
                    256,
                ).id,
            ).id
        server.start()
        alterer = create_user(server, [f"ALTER_PRIV ON {c}.db.*"])
        reader = create_user(server, [f"SELECT_PRIV ON {c}.db.t"])
        as_alterer, as_reader = (
            {"user": alterer, "password": "pw"},
            {"user": reader, "password": "pw"},
        )
        resolve = "RESOLVE LANCE INDEX JOB {} AS FORCE_RELEASE COMMENT '{}'"

        # 1. missing / unauthorized: 5103, identical
        assert error_of(server, resolve.format(99999999, "n")) == not_found(99999999)
        assert error_of(server, resolve.format(a, "n"), **as_reader) == not_found(a)
        # 2. not UNKNOWN: 5104, before the note is looked at
        assert error_of(server, resolve.format(p, "")) == (
            5104,
            f"Lance index job {p} cannot be resolved: not in UNKNOWN state (state is PENDING)",
        )
        # the history settles r (a pre-assigned uuid, worker proven gone, no later version):
        # RECONCILED
        settled_r = wait_job(
            server,
            r,
            lambda j: j["CompletionReason"] == "RECONCILED" and j["RefreshState"] == "DONE",
            timeout=30,
        )
        assert (
            settled_r["State"],
            settled_r["CompletionReason"],
            settled_r["TerminationProof"],
            settled_r["RefreshState"],
            settled_r["PossibleLive"],
        ) == ("NOT_COMMITTED", "RECONCILED", "BE_PROCESS_EPOCH_GONE", "DONE", "NO")
        assert error_of(server, resolve.format(r, "n"))[0] == 5104
        # 3. UNKNOWN without a uuid stays UNKNOWN; its old-epoch slot is proven gone
        unknown = wait_job(
            server, a, lambda j: j["TerminationProof"] == "BE_PROCESS_EPOCH_GONE", timeout=30
        )
        assert (
            unknown["State"],
            unknown["ResultCode"],
            unknown["Message"],
            unknown["PossibleLive"],
            unknown["ForceReleased"],
        ) == ("UNKNOWN", "NATIVE_IO", "storage error while building", "NO", "")
        assert error_of(server, f"CREATE INDEX a ON {c}.db.t (id) USING BTREE") == (
            5100,
            f"lance index 'a' is fenced by unresolved job {a}; resolve that job (FORCE_RELEASE) "
            f"before reusing the name",
        )
        # 4. note rules
        for note in ("", "   "):
            assert error_of(server, resolve.format(a, note)) == (
                5100,
                "force release note must not be empty",
            )
        assert error_of(server, resolve.format(a, "é" * 513)) == (
            5100,
            "force release note exceeds 1024 UTF-8 bytes",
        )
        # 5. success: an OK packet with one warning, and SHOW WARNINGS returns that row (defect 4)
        note = "é" * 512  # exactly 1024 UTF-8 bytes
        assert _resolve(server, a, f'"{note}"', **as_alterer) == (
            1,
            [("Warning", 5106, FORCE_RELEASE_WARNING)],
        )
        released = show_job(server, a)
        assert (
            released["State"],
            released["ForceReleased"],
            released["ForceActor"],
            released["ForceNote"],
            released["ForceWarning"],
            released["PossibleLive"],
            released["Message"],
        ) == (
            "UNKNOWN",
            "YES",
            f"'{alterer}'@'%'",
            note,
            FORCE_RELEASE_WARNING,
            "NO",
            "storage error while building",
        )
        assert released["ForceTime"] != ""
        # 6. retry is idempotent (even with an empty note) and changes nothing
        assert _resolve(server, a, "''") == (1, [("Warning", 5106, FORCE_RELEASE_WARNING)])
        again = show_job(server, a)
        assert (again["Revision"], again["ForceNote"], again["ForceActor"]) == (
            released["Revision"],
            note,
            f"'{alterer}'@'%'",
        )
        # 7. the fence is released
        assert admit(server, f"CREATE INDEX a ON {c}.db.t (id) USING BTREE") > a

        # defect 8: the persisted locator differs from the table's current dataset → orphan path
        assert m_old not in [int(j["JobId"]) for j in show_jobs(server, **as_alterer)]
        assert m_new in [int(j["JobId"]) for j in show_jobs(server, **as_alterer)]
        assert error_of(server, resolve.format(m_old, "n"), **as_alterer) == not_found(m_old)
        assert _resolve(server, m_old, "'the old location is retired'")[0] == 1  # ADMIN
        assert error_of(server, f"CREATE INDEX m ON {c}.db.t (id) USING BTREE") == (
            5100,
            f"lance index 'm' is fenced by unresolved job {m_new}; resolve that job "
            f"(FORCE_RELEASE) before reusing the name",
        )

        # a table deleted outside drydock: RESOLVE reads authoritatively, so only ADMIN may release
        assert [t[0] for t in rows(server, f"SHOW TABLES FROM {c}.db")] == [
            "gone",
            "t",
            "u",
        ]  # listing cached
        shutil.rmtree(wh.uri("db", "gone"))
        assert error_of(server, resolve.format(g, "n"), **as_alterer) == not_found(g)
        assert _resolve(server, g, "'table dropped outside'")[0] == 1

        # 5105: the target cannot be resolved (the catalog's warehouse is unreachable); fail closed
        assert error_of(server, resolve.format(d, "n")) == (
            5105,
            (
                f"Lance index job {d} was not released: the persisted target could not be resolved "
                f"with current "
                "catalog metadata; see the server log for the cause"
            ),
        )
        assert (
            show_job(server, d)["CatalogName"] == dead
            and show_job(server, d)["ForceReleased"] == ""
        )
        assert error_of(server, f"DROP CATALOG {dead}") == (
            1105,
            f"Catalog '{dead}' has unresolved Lance index job {d}; resolve it before DROP CATALOG",
        )

        # grammar: AS FORCE_RELEASE and COMMENT are mandatory
        for sql in (
            f"RESOLVE LANCE INDEX JOB {d} AS FORCE COMMENT 'x'",
            f"RESOLVE LANCE INDEX JOB {d} AS RELEASE COMMENT 'x'",
            f"RESOLVE LANCE INDEX JOB {d} AS FORCE RELEASE COMMENT 'x'",
            f"RESOLVE LANCE INDEX JOB {d} COMMENT 'x'",
            f"RESOLVE LANCE INDEX JOB {d} AS FORCE_RELEASE",
            f"RESOLVE LANCE INDEX JOB {d} AS FORCE_RELEASE COMMENT x",
        ):
            code, text = error_of(server, sql)
            assert code == 1064 and "mismatched input" in text, sql
    finally:
        server.stop()


CONCURRENT_RESOLVERS = 8


def _resolve_outcome(server: ServerProcess, job_id: int, barrier: threading.Barrier) -> object:
    """One client's RESOLVE, started together with the others: its (warnings, SHOW WARNINGS) or
    its error (code, message)."""
    with server.connect() as conn, conn.cursor() as cur:
        barrier.wait()
        try:
            cur.execute(f"RESOLVE LANCE INDEX JOB {job_id} AS FORCE_RELEASE COMMENT 'race'")
        except pymysql.err.MySQLError as exc:
            return exc.args[0], exc.args[1]
        count = cur.warning_count
        cur.execute("SHOW WARNINGS")
        return count, list(cur.fetchall())


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_concurrent_resolves_all_answer_the_idempotent_success(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    """Issue 27: 8 clients RESOLVE one UNKNOWN job at once. One release is written (one revision
    step); every client — the winner and the seven that raced it — gets the same OK packet with the
    same warning row, never 5105 "changed concurrently" for a release that already landed."""
    server = make_server(
        tmp_path, *store_choice_for(request, tmp_path / "data", store).args
    ).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", vector_table(300))
        c = create_catalog(server, wh)
        pause(server)
        jobs = [admit(server, f"CREATE INDEX i{n} ON {c}.db.t (id) USING BTREE") for n in range(3)]
        with offline_engine(server) as engine:
            for job in jobs:
                drive_unknown(engine, job)
        server.start()
        success = (1, [("Warning", 5106, FORCE_RELEASE_WARNING)])
        for job in jobs:  # several rounds: each one a fresh race
            before = int(show_job(server, job)["Revision"])
            barrier = threading.Barrier(CONCURRENT_RESOLVERS)
            with ThreadPoolExecutor(CONCURRENT_RESOLVERS) as pool:
                futures = [
                    pool.submit(_resolve_outcome, server, job, barrier)
                    for _ in range(CONCURRENT_RESOLVERS)
                ]
                outcomes = [future.result() for future in futures]
            assert outcomes == [success] * CONCURRENT_RESOLVERS
            released = show_job(server, job)
            assert (released["ForceReleased"], released["Revision"]) == (
                "YES",
                str(before + 1),
            )
    finally:
        server.stop()


def test_concurrent_resolves_through_two_frontends_on_postgresql(
    tmp_path: Path, pg_dsn: str
) -> None:
    """The same race with the 8 clients split over two frontends sharing one PostgreSQL store (the
    setting issue 27 found it in): each frontend's lost CAS catches up with the other's release."""
    from tests.store.test_frontends import _frontend

    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(300))
    first = _frontend(tmp_path, "fe_a", pg_dsn, lease=10)
    second: ServerProcess | None = None
    try:
        c = create_catalog(first, wh)
        pause(first)
        jobs = [admit(first, f"CREATE INDEX j{n} ON {c}.db.t (id) USING BTREE") for n in range(2)]
        with offline_engine(first) as engine:
            for job in jobs:
                drive_unknown(engine, job)
        first.start()
        second = _frontend(tmp_path, "fe_b", pg_dsn, lease=10)
        success = (1, [("Warning", 5106, FORCE_RELEASE_WARNING)])
        for job in jobs:
            before = int(show_job(second, job)["Revision"])
            barrier = threading.Barrier(CONCURRENT_RESOLVERS)
            with ThreadPoolExecutor(CONCURRENT_RESOLVERS) as pool:
                futures = [
                    pool.submit(_resolve_outcome, (first, second)[n % 2], job, barrier)
                    for n in range(CONCURRENT_RESOLVERS)
                ]
                outcomes = [future.result() for future in futures]
            assert outcomes == [success] * CONCURRENT_RESOLVERS
            for frontend in (first, second):
                released = show_job(frontend, job)
                assert (released["ForceReleased"], released["Revision"]) == ("YES", str(before + 1))
    finally:
        first.stop()
        if second is not None:
            second.stop()
