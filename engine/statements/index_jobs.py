"""CREATE/DROP INDEX (admission), SHOW LANCE INDEX JOB(S), RESOLVE … AS FORCE_RELEASE, CANCEL."""

from __future__ import annotations

import time
from typing import NamedTuple

from drydock.engine import ast
from drydock.engine.session import INTERNAL
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.support.faults import pause_point
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.admission import admit_create, admit_drop
from drydock.engine.jobs.control.manager import FORCE_RELEASE_WARNING
from drydock.engine.jobs.control.records import MAX_FORCE_TEXT_BYTES, JobRecord, utf8_len
from drydock.engine.jobs.control.visibility import JobVisibility
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.statements import internal_index
from drydock.engine.statements.registry import handles, job_target, table_target

INTERNAL_CATALOG_ID = 0  # the internal catalog has no row in `catalogs` (engine/store/metastore.py)
JOB_ID_COLUMN = ["JobId"]
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
WHERE_HINT = (
    'Where clause should looks like: TableName = "your_table_name" or '
    'State = "PENDING|RUNNING|COMMITTED|NOT_COMMITTED|UNKNOWN", or compound predicate with '
    "operator AND"
)


def _time(ts: float | None) -> str:
    return "" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def _yes(flag: bool) -> str:
    return "YES" if flag else "NO"


def _job_id_result(job: JobRecord | None) -> Result:
    rows = [] if job is None else [(str(job.id),)]
    return Result(columns=JOB_ID_COLUMN, rows=rows, column_types={"JobId": "VARCHAR"})


@handles(ast.CreateIndex, audit=table_target)
def create_index(engine: Engine, stmt: ast.CreateIndex, ctx: SessionContext) -> Result:
    if (
        internal_index.is_internal(engine, ctx, stmt.table)
        and stmt.using in internal_index.PLAIN_METHODS
    ):
        return internal_index.create(engine, stmt, ctx)  # a plain DuckDB index, MySQL-style
    if not stmt.using:
        raise Errors.PARSE.error(
            detail="line 1:0 mismatched input '<EOF>' expecting USING "
            "(a Lance index needs USING ANN|BTREE|BITMAP|INVERTED)"
        )
    return _job_id_result(admit_create(engine.admission, stmt, ctx))


@handles(ast.DropIndex, audit=table_target)
def drop_index(engine: Engine, stmt: ast.DropIndex, ctx: SessionContext) -> Result:
    if internal_index.is_internal(engine, ctx, stmt.table):
        return internal_index.drop(engine, stmt, ctx)
    return _job_id_result(admit_drop(engine.admission, stmt, ctx))


def _list_row(job: JobRecord, catalog_name: str) -> tuple[str, ...]:
    return (
        str(job.id),
        catalog_name,
        job.db,
        job.tbl,
        job.index_name,
        job.operation.value,
        job.state.value,
        job.refresh_state.value,
        _yes(st.holds_possible_live_slot(job.facts)),
        _time(job.created_at),
        _time(job.updated_at),
        job.message,
        "YES" if job.force_released else "",
        job.force_actor,
        _time(job.force_time),
    )


def _where_filters(where: ast.WhereClause | None) -> tuple[str | None, str | None]:
    """Validate SHOW ... WHERE (EqualTo on TableName / State, joined by AND) → (table, state)."""
    if where is None:
        return None, None
    if any(c != "AND" for c in where.connectives):
        raise Errors.SHOW_JOBS_INVALID.error(
            detail="Only allow compound predicate with operator AND"
        )
    table = state = None
    seen: set[str] = set()
    for predicate in where.predicates:
        column = predicate.left.lower()
        if (
            not predicate.left_is_column
            or column not in ("tablename", "state")
            or predicate.op != "="
            or not predicate.right_is_string
        ):
            raise Errors.SHOW_JOBS_INVALID.error(detail=WHERE_HINT)
        if column in seen:
            raise Errors.SHOW_JOBS_INVALID.error(
                detail="column names on both sides of operator AND should be different"
            )
        seen.add(column)
        if column == "tablename":
            table = predicate.right
        else:
            value = predicate.right.upper()
            if value not in st.MutationState.__members__:
                raise Errors.SHOW_JOBS_INVALID.error(
                    detail=f"Unknown Lance index job state: {predicate.right}; {WHERE_HINT}"
                )
            state = value
    return table, state


@handles(ast.ShowLanceIndexJobs)
def show_lance_index_jobs(
    engine: Engine, stmt: ast.ShowLanceIndexJobs, ctx: SessionContext
) -> Result:
    table, state = _where_filters(stmt.where)
    if len(stmt.scope) > 2:
        raise Errors.SHOW_JOBS_INVALID.error(
            detail=f"Only support SHOW LANCE INDEX JOBS FROM [catalog.]database, but get: "
            f"[{'.'.join(stmt.scope)}]"
        )
    clauses: list[str] = []
    params: list[object] = []
    if stmt.scope:
        clauses.append("catalog_id = ?")
        params.append(_scope_catalog_id(engine, ctx, stmt.scope))
        clauses.append("db = ?")
        params.append(stmt.scope[-1])
    if table is not None:
        clauses.append("tbl = ?")
        params.append(table)
    if state is not None:
        clauses.append("state = ?")
        params.append(state)
    visibility = JobVisibility(engine.catalogs, engine.privileges, ctx)
    scope = visibility.sql_scope()  # a user who may see 1% of the jobs reads ~1% of the rows
    if scope is not None:
        clauses.append(scope[0])
        params.extend(scope[1])
    sql = f"SELECT {', '.join(_Listed._fields)} FROM lance_index_jobs"
    sql += (f" WHERE {' AND '.join(clauses)}" if clauses else "") + " ORDER BY id"
    rows = []
    for raw in engine.store.query(sql, tuple(params)):
        job = _Listed(*raw)
        if not visibility.may_see(job):
            continue  # silently: no count leak
        rows.append(_listed_row(job, visibility.catalog_name(job), engine.jobs.progress(job.id)))
    return Result(
        columns=[*LIST_COLUMNS, "Progress"],
        rows=rows,
        column_types={c: "VARCHAR" for c in [*LIST_COLUMNS, "Progress"]},
    )


def _scope_catalog_id(engine: Engine, ctx: SessionContext, scope: tuple[str, ...]) -> int:
    """FROM [catalog.]db → the catalog's id. A catalog that does not exist and one the user may not
    see both answer ``Unknown catalog`` with the name as written (no existence leak)."""
    name = scope[0] if len(scope) == 2 else ctx.catalog
    if name.lower() == INTERNAL:
        return INTERNAL_CATALOG_ID  # exists; holds no Lance index jobs
    record = engine.catalogs.find(name)
    if record is None or not engine.privileges.sees_catalog(ctx, record.name):
        raise Errors.UNKNOWN_CATALOG.error(name=name)
    return record.id


class _Listed(NamedTuple):
    """The columns SHOW LANCE INDEX JOBS lists, plus the locator visibility compares. A narrow read
    without a full JobRecord per row: converting whole records dominated listing 100k of them."""

    id: int
    catalog_id: int
    db: str
    tbl: str
    locator: str
    index_name: str
    operation: str
    state: str
    refresh_state: str
    possible_live_owned: int
    termination_proof: str
    force_released: int
    created_at: float
    updated_at: float
    message: str
    force_actor: str
    force_time: float | None


_STATES = {m.value: m for m in st.MutationState}
_REFRESH_STATES = {m.value: m for m in st.RefreshState}
_PROOFS = {m.value: m for m in st.TerminationProof}


def _listed_row(job: _Listed, catalog_name: str, progress: str) -> tuple[str, ...]:
    """The same row as ``_list_row`` of the full record
    (tests/jobs/test_index_jobs_show_resolve.py)."""
    state = _STATES.get(
        job.state, st.MutationState.UNKNOWN
    )  # damaged → UNKNOWN, as replay reads it
    facts = st.JobFacts(
        state,
        _REFRESH_STATES.get(job.refresh_state, st.RefreshState.REQUIRED),
        bool(job.force_released),
        bool(job.possible_live_owned),
        _PROOFS.get(job.termination_proof, st.TerminationProof.NONE),
    )  # unknown proof: none
    return (
        str(job.id),
        catalog_name,
        job.db,
        job.tbl,
        job.index_name,
        job.operation,
        state.value,
        job.refresh_state,
        _yes(st.holds_possible_live_slot(facts)),
        _time(job.created_at),
        _time(job.updated_at),
        job.message,
        "YES" if job.force_released else "",
        job.force_actor,
        _time(job.force_time),
        progress,
    )


def _visible_job(
    engine: Engine, ctx: SessionContext, job_id: int
) -> tuple[JobRecord, JobVisibility]:
    job = engine.jobs.get(job_id)
    visibility = JobVisibility(engine.catalogs, engine.privileges, ctx)
    if job is None or not visibility.may_see(job):
        raise Errors.LANCE_INDEX_JOB_NOT_FOUND.error(job_id=job_id)
    return job, visibility


@handles(ast.ShowLanceIndexJob)
def show_lance_index_job(
    engine: Engine, stmt: ast.ShowLanceIndexJob, ctx: SessionContext
) -> Result:
    job, visibility = _visible_job(engine, ctx, stmt.job_id)
    ema = "" if job.external_metadata_advanced is None else _yes(job.external_metadata_advanced)
    row = (
        *_list_row(job, visibility.catalog_name(job)),
        job.creator,
        job.result_code.value if job.result_code else "",
        job.completion_reason.value,
        ema,
        job.backend_id,
        job.process_epoch,
        job.invocation_id,
        "" if job.deadline_ms is None else str(job.deadline_ms),
        job.termination_proof.value,
        str(job.admitted_version),
        str(job.schema_contract_version),
        str(job.revision),
        job.force_note,
        job.force_warning,
        _yes(job.if_not_exists),
        _yes(job.if_exists),
        job.index_type,
        job.column_name,
        engine.jobs.progress(job.id),
    )
    columns = [*DETAIL_COLUMNS, "Progress"]
    return Result(columns=columns, rows=[row], column_types={c: "VARCHAR" for c in columns})


@handles(ast.ResolveLanceIndexJob, audit=job_target)
def resolve_lance_index_job(
    engine: Engine, stmt: ast.ResolveLanceIndexJob, ctx: SessionContext
) -> Result:
    """Doris' check order (docs/doris-compatibility.md); never gated by
    enable_lance_index_mutation."""
    warning = [Errors.LANCE_INDEX_JOB_FORCE_RELEASED.warning(detail=FORCE_RELEASE_WARNING)]
    job = engine.jobs.get(stmt.job_id)
    # authoritative: the persisted locator is compared with the table as it is now
    # (docs/doris-compatibility.md, defect 8)
    visibility = JobVisibility(engine.catalogs, engine.privileges, ctx, authoritative=True)
    if job is None or not visibility.may_alter(job):  # orphans need ADMIN; both answer "not found"
        raise Errors.LANCE_INDEX_JOB_NOT_FOUND.error(job_id=stmt.job_id)
    actor = f"'{ctx.user}'@'{ctx.account_host}'"
    for _ in range(_RESOLVE_ATTEMPTS):
        verdict = st.resolve_verdict(job.state, job.force_released)
        if verdict is st.ResolveVerdict.ALREADY_RELEASED:
            return Result.ok(warnings=warning)  # idempotent: this retry's or a concurrent release
        if verdict is st.ResolveVerdict.NOT_UNKNOWN:
            raise Errors.LANCE_INDEX_JOB_NOT_UNKNOWN.error(job_id=job.id, state=job.state.value)
        _check_releasable(visibility, job, stmt.note)
        pause_point("during_resolve")
        if engine.jobs.force_release(job.id, job.revision, actor, stmt.note) is not None:
            return Result.ok(warnings=warning)
        # the revision moved under us: a concurrent RESOLVE released it (→ the idempotent
        # success above) or another change landed (→ decide again on the new revision)
        latest = engine.jobs.get(job.id)
        if latest is None:
            raise Errors.LANCE_INDEX_JOB_NOT_FOUND.error(job_id=stmt.job_id)
        job = latest
    raise Errors.LANCE_INDEX_JOB_RESOLUTION_INCOMPLETE.error(
        job_id=job.id,
        detail="the job changed concurrently while still UNKNOWN; retry the statement",
    )


# a job that keeps changing while UNKNOWN (not by a release) is reported, not chased forever
_RESOLVE_ATTEMPTS = 5


def _check_releasable(visibility: JobVisibility, job: JobRecord, note: str) -> None:
    """5105 when the target can't be resolved, then the note rules (Doris' check order)."""
    if visibility.resolution(job).failed:
        raise Errors.LANCE_INDEX_JOB_RESOLUTION_INCOMPLETE.error(
            job_id=job.id,
            detail="the persisted target could not be resolved with current catalog metadata; "
            "see the server log for the cause",
        )
    if not note.strip():
        raise Errors.LANCE_INDEX_INVALID.error(detail="force release note must not be empty")
    if utf8_len(note) > MAX_FORCE_TEXT_BYTES:
        raise Errors.LANCE_INDEX_INVALID.error(
            detail=f"force release note exceeds {MAX_FORCE_TEXT_BYTES} UTF-8 bytes"
        )


@handles(ast.CancelLanceIndexJob, audit=job_target)
def cancel_lance_index_job(
    engine: Engine, stmt: ast.CancelLanceIndexJob, ctx: SessionContext
) -> Result:
    job = engine.jobs.get(stmt.job_id)
    visibility = JobVisibility(engine.catalogs, engine.privileges, ctx)
    if job is None or not visibility.may_alter(job):
        raise Errors.LANCE_INDEX_JOB_NOT_FOUND.error(job_id=stmt.job_id)
    if job.state is st.MutationState.PENDING and engine.jobs.cancel_pending(job.id) is not None:
        return Result.ok()
    current = engine.jobs.get(job.id) or job
    if current.state is st.MutationState.RUNNING and engine.cancel_running(current):
        return Result.ok()
    raise Errors.LANCE_INDEX_JOB_TERMINAL.error(job_id=job.id, state=current.state.value)
