"""CPU cuts on the index-admission path (issue 13 item 10) change no answer and no byte written.

Each test pins the cut against the behaviour it replaced: the character set a session answers in,
the columns a job row is written with, the schema contract admission captures, the change sequence
a single-frontend store stamps, and the audit line of an admission.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import lance
import pytest
from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities, ServerStatus

from drydock.grammar.redact import redact_sql
from drydock.engine.security.audit import AuditLog, AuditSettings
from drydock.engine.errors import DrydockError
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control import records
from drydock.engine.jobs.control.admission import schema_contract
from drydock.engine.jobs.control.contract import ContractError, field_contract
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.records import JobRecord, insert_values, to_columns
from drydock.engine.jobs.control.validation import IndexSpec
from drydock.engine.store.metastore import MetaStore
from drydock.server.session import results_charset
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import vector_table
from tests.support.wire_fakes import FakeSession, result_writer

LIMITS = (8, 64, 256)


def _charset_by_walking_the_enum(name: Any) -> CharacterSet:
    """The lookup the dict replaced (server/session.py before the cut); ``binary`` results are
    values as stored, utf8mb4 (mariadb-dump sets it)."""
    if str(name).lower() == "binary":
        return CharacterSet.utf8mb4
    return (
        next((c for c in CharacterSet if c.name == str(name).lower()), CharacterSet.utf8mb4)
        if name
        else CharacterSet.utf8mb4
    )


@pytest.mark.parametrize(
    "name",
    [
        *(c.name for c in CharacterSet),
        *(c.name.upper() for c in CharacterSet),
        "Latin1",
        "UTF8MB4",
        None,
        "",
        0,
        "nonsense",
        "utf-8",
        " latin1",
        "binary",
        "NULL",
    ],
)
def test_results_charset_answers_as_the_enum_walk_did(name: Any) -> None:
    assert results_charset(name) is _charset_by_walking_the_enum(name)


def test_every_character_set_is_found_by_its_name() -> None:
    for charset in CharacterSet:
        expected = CharacterSet.utf8mb4 if charset is CharacterSet.binary else charset
        assert results_charset(charset.name) is expected
        assert results_charset(charset.name.upper()) is expected


# -- change sequence numbers on a store no other frontend writes
# ------------------------------------


def _counter(store: MetaStore) -> int:
    row = store.query_one("SELECT value FROM change_counters WHERE name = 'jobs'")
    assert row is not None
    return int(row["value"])


def _seqs(store: MetaStore) -> list[int]:
    return [
        int(r["change_seq"])
        for r in store.query("SELECT change_seq FROM lance_index_jobs ORDER BY id")
    ]


def _admit_and_run(jobs: JobManager, name: str) -> None:
    job = jobs.create(new_job(name), *LIMITS)
    assert (
        jobs.mark_running(
            job.id,
            invocation_id="inv",
            index_uuid="u",
            deadline_ms=1 << 50,
            process_epoch="e",
            backend_id="local",
        )
        is not None
    )


def test_a_single_frontend_store_takes_no_change_numbers_and_replays_everything(
    tmp_path: Path,
) -> None:
    store = MetaStore(tmp_path / "meta.db")
    try:
        jobs = JobManager(store)
        for name in ("a", "b", "c"):
            _admit_and_run(jobs, name)
        assert _counter(store) == 0, "no write took a number"
        assert _seqs(store) == [0, 0, 0], (
            "rows carry the last number, which catch-up never reads past"
        )
        reopened = JobManager(store)
        assert sorted(j.index_name for j in reopened.live_jobs()) == ["a", "b", "c"]
        assert [j.state for j in reopened.live_jobs()] == [st.MutationState.RUNNING] * 3
        with pytest.raises(DrydockError):
            reopened.create(new_job("b"), *LIMITS)  # the replayed fence holds
    finally:
        store.close()


def test_a_shared_store_still_numbers_every_write(tmp_path: Path) -> None:
    """The same code on a store marked shared: each write transaction takes the next number and
    stamps its rows (what catch-up across frontends reads)."""
    store = MetaStore(tmp_path / "meta.db")
    store.shared = True  # SQLite speaks the same SQL; only the flag differs
    try:
        jobs = JobManager(store)
        _admit_and_run(jobs, "a")  # admission, then a transition: two numbers
        _admit_and_run(jobs, "b")
        assert _counter(store) == 4
        assert _seqs(store) == [2, 4], (
            "each row carries the number of the write that last changed it"
        )
        other = JobManager(store)  # another frontend's view, then a write it has not seen
        _admit_and_run(jobs, "c")
        assert other.sync() == 1 and other.fence_holder(new_job("c").fence) is not None
    finally:
        store.close()


# -- the columns a job row is written with
# ----------------------------------------------------------


def _columns_by_isinstance(job: JobRecord) -> dict[str, Any]:
    """The conversion the type lookup replaced (engine/jobs/control/records.py before the cut)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(JobRecord):
        value = getattr(job, f.name)
        if isinstance(value, records._ENUM_TYPES):  # noqa: SLF001 - the same classes, by design
            value = value.value
        elif isinstance(value, bool):
            value = int(value)
        out[f.name] = value
    return out


def _varied_jobs() -> list[JobRecord]:
    base = new_job("v")
    jobs = [
        base,
        base.replace(
            id=7,
            if_not_exists=True,
            if_exists=True,
            possible_live_owned=True,
            force_released=True,
            external_metadata_advanced=False,
            deadline_ms=12,
            force_time=1.5,
            refresh_failed_at=2.5,
            message="m",
            result_code=st.ResultCode.NATIVE_OK,
        ),
    ]
    jobs.append(
        base.replace(external_metadata_advanced=True, result_code=st.ResultCode.NO_TRUSTED_RESULT)
    )
    for state in st.MutationState:
        for proof in st.TerminationProof:
            jobs.append(base.replace(state=state, termination_proof=proof))
    for refresh, reason, operation in zip(st.RefreshState, st.CompletionReason, st.MutationType):
        jobs.append(
            base.replace(refresh_state=refresh, completion_reason=reason, operation=operation)
        )
    return jobs


def test_job_columns_are_what_the_isinstance_conversion_gave() -> None:
    for job in _varied_jobs():
        expected = _columns_by_isinstance(job)
        columns = to_columns(job)
        assert columns == expected and list(columns) == list(expected)
        assert all(
            type(columns[k]) is type(expected[k]) for k in expected
        )  # 1, not True; 'X', not a member
        assert insert_values(job) == tuple(v for k, v in expected.items() if k != "id")
        changes = {
            "state": job.state,
            "updated_at": 3.0,
            "possible_live_owned": True,
            "message": "",
        }
        only = to_columns(job, only=changes)
        assert list(only) == [k for k in expected if k in changes]
        assert only == {k: v for k, v in expected.items() if k in changes}


# -- the schema contract admission captures
# ---------------------------------------------------------


class _CountingDataset:
    """A dataset that counts reads of ``schema`` (pylance builds a new schema on every read)."""

    def __init__(self, dataset: Any):
        self._dataset = dataset
        self.schema_reads = 0

    @property
    def schema(self) -> Any:
        self.schema_reads += 1
        return self._dataset.schema

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dataset, name)


@pytest.mark.parametrize(
    "column, spec",
    [
        ("id", IndexSpec("BTREE", "BTREE", {})),
        ("ID", IndexSpec("BITMAP", "BITMAP", {})),
        ("body", IndexSpec("INVERTED", "INVERTED", {})),
        ("emb", IndexSpec("ANN", "IVF_PQ", {"num_sub_vectors": 4})),
    ],
)
def test_the_schema_contract_reads_the_schema_once_and_is_the_workers(
    tmp_path: Path, column: str, spec: IndexSpec
) -> None:
    dataset = lance.write_dataset(vector_table(300), tmp_path / "t.lance")
    counting = _CountingDataset(dataset)
    name, contract = schema_contract(counting, column, spec)
    assert counting.schema_reads == 1
    assert name == column.lower()
    assert contract == field_contract(dataset, name)  # what the worker recomputes from the dataset
    lance_field = dataset.lance_schema.field(name)
    assert lance_field is not None and contract["fieldId"] == lance_field.id()
    with pytest.raises(ContractError):
        field_contract(dataset, "missing", dataset.schema)


# -- the audit line of an admission
# ------------------------------------------------------------------


@pytest.mark.parametrize(
    "user, host, text",
    [
        ("root", "127.0.0.1", "CREATE INDEX a1 ON c.db.t (id) USING BTREE"),
        (
            "bøb",
            "::1",
            "CREATE INDEX ünï ON c.db.t (id) USING BTREE COMMENT '€ \"q\" \\\\ \\n\t\x00'",
        ),
        ("a\udcffb", "h" * 300, "CREATE USER 'x'@'%' IDENTIFIED BY 'secret 😀'"),
    ],
)
def test_audit_lines_are_the_bytes_json_dumps_wrote_and_settings_are_read_once(
    tmp_path: Path, user: str, host: str, text: str
) -> None:
    reads = []

    def settings() -> AuditSettings:
        reads.append(1)
        return AuditSettings()

    log = AuditLog(
        tmp_path / "audit.jsonl", redact_sql, settings=settings, clock=lambda: 1_000_000.25
    )
    rec = log.record(
        user=user,
        host=host,
        connection_id=3,
        kind="CreateIndex",
        obj="c.db.t",
        error_code=0,
        started=time.monotonic(),
        statement=text,
    )
    assert len(reads) == 1, "one settings object per record (each is built from the config)"
    log.close()
    expected = (json.dumps(vars(rec), ensure_ascii=False) + "\n").encode("utf-8", "replace")
    assert (tmp_path / "audit.jsonl").read_bytes() == expected


# -- status flags of every OK/EOF
# ---------------------------------------------------------------------


def _flags_the_intflag_way(
    base: ServerStatus, in_transaction: bool, autocommit: bool
) -> ServerStatus:
    """server/connection.py's status_flags before the cut, on the IntFlag."""
    flags = base & ~(ServerStatus.SERVER_STATUS_IN_TRANS | ServerStatus.SERVER_STATUS_AUTOCOMMIT)
    if in_transaction:
        flags |= ServerStatus.SERVER_STATUS_IN_TRANS
    if autocommit:
        flags |= ServerStatus.SERVER_STATUS_AUTOCOMMIT
    return flags


@pytest.mark.parametrize(
    "base",
    [
        ServerStatus(0),
        ServerStatus.SERVER_STATUS_AUTOCOMMIT,
        ServerStatus.SERVER_STATUS_IN_TRANS | ServerStatus.SERVER_STATUS_NO_INDEX_USED,
        ServerStatus.SERVER_MORE_RESULTS_EXISTS,
    ],
)
@pytest.mark.parametrize(
    "in_transaction, autocommit", [(False, True), (True, True), (True, False), (False, False)]
)
@pytest.mark.parametrize(
    "capabilities",
    [
        Capabilities.CLIENT_PROTOCOL_41,
        Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_DEPRECATE_EOF,
    ],
)
def test_ok_and_eof_packets_carry_the_same_status_bytes(
    base: ServerStatus, in_transaction: bool, autocommit: bool, capabilities: Capabilities
) -> None:
    conn = result_writer(
        capabilities,
        FakeSession(
            in_transaction=in_transaction,
            autocommit=autocommit,
            statement_warnings=2,
            affected_rows=5,
            last_insert_id=7,
        ),
    )
    conn.base_status = int(base)
    expected = _flags_the_intflag_way(base, in_transaction, autocommit)
    assert conn.status_flags == expected and type(conn.status_flags) is ServerStatus
    more = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)  # type: ignore[attr-defined]
    assert conn.ok(affected_rows=5, flags=more) == packets.make_ok(
        capabilities, expected, affected_rows=5, flags=more
    )
    assert conn.eof(warnings=2) == packets.make_eof(capabilities, expected, warnings=2)
    assert conn.end_of_rows() == (
        packets.make_ok(capabilities, expected, eof=True, warnings=2)
        if Capabilities.CLIENT_DEPRECATE_EOF in capabilities
        else packets.make_eof(capabilities, expected, warnings=2)
    )


def test_a_record_built_from_every_field_is_the_constructors() -> None:
    for job in _varied_jobs():
        values = {f.name: getattr(job, f.name) for f in dataclasses.fields(JobRecord)}
        built = records.build(dict(values))
        assert (
            type(built) is JobRecord and built == JobRecord(**values) and built.facts == job.facts
        )
        assert repr(built) == repr(JobRecord(**values))
        with pytest.raises(dataclasses.FrozenInstanceError):
            built.state = st.MutationState.RUNNING  # type: ignore[misc]
    values.pop("revision")
    with pytest.raises(TypeError, match="revision"):
        records.build(values)
    with pytest.raises(TypeError, match="bogus"):
        records.build({**values, "revision": 0, "bogus": 1})
