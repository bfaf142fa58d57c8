"""A durable Lance index job record: one row of ``lance_index_jobs``."""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from drydock.engine.jobs.control.states import (
    CompletionReason,
    JobFacts,
    MutationState,
    MutationType,
    RefreshState,
    ResultCode,
    TerminationProof,
)
from drydock.engine.store.metastore import StoreRow

MAX_FORCE_TEXT_BYTES = 1024
MAX_DURABLE_TEXT_BYTES = 1024
MAX_PROPERTIES_JSON_BYTES = 4096
MAX_INVOCATION_ID_BYTES = 256


@dataclass(frozen=True)
class FenceKey:
    """Same-name fence: (catalog, dataset locator, normalized index name)."""

    catalog_id: int
    locator: str
    index_key: str


@dataclass(frozen=True)
class JobRecord:
    id: int
    catalog_id: int
    catalog_name: str
    db: str
    tbl: str
    index_name: str
    index_key: str
    locator: str
    operation: MutationType
    index_type: str
    column_name: str
    properties: str
    if_not_exists: bool
    if_exists: bool
    creator: str
    state: MutationState
    refresh_state: RefreshState
    completion_reason: CompletionReason
    result_code: ResultCode | None
    message: str
    external_metadata_advanced: bool | None
    possible_live_owned: bool
    termination_proof: TerminationProof
    backend_id: str
    process_epoch: str
    invocation_id: str
    index_uuid: str
    deadline_ms: int | None
    admitted_version: int
    schema_contract: str
    schema_contract_version: int
    force_released: bool
    force_actor: str
    force_time: float | None
    force_note: str
    force_warning: str
    progress: str
    refresh_failed_at: float | None
    created_at: float
    updated_at: float
    revision: int
    # admission-time bounds (lance_index_max_num_*): the dispatch carries these, never the config
    # values of the moment it is sent (migration 6)
    max_num_partitions: int
    max_num_sub_vectors: int
    dispatch_attempts: int  # failed dispatch preparations while PENDING (bounded retry)

    # records are immutable; the dispatcher asks for every live job each round
    @functools.cached_property
    def facts(self) -> JobFacts:
        return JobFacts(
            self.state,
            self.refresh_state,
            self.force_released,
            self.possible_live_owned,
            self.termination_proof,
        )

    @property
    def fence(self) -> FenceKey:
        return FenceKey(self.catalog_id, self.locator, self.index_key)

    def replace(self, **changes: Any) -> JobRecord:
        return dataclasses.replace(self, **changes)


_ENUMS: dict[str, type[enum.Enum]] = {
    "operation": MutationType,
    "state": MutationState,
    "refresh_state": RefreshState,
    "completion_reason": CompletionReason,
    "termination_proof": TerminationProof,
}
_BOOLS = ("if_not_exists", "if_exists", "possible_live_owned", "force_released")
# value → member tables: replay and SHOW convert every row, and Enum(value) is slow in bulk
_MEMBERS = {key: {m.value: m for m in members} for key, members in _ENUMS.items()}
_RESULT_CODES = {m.value: m for m in ResultCode}
_FIELD_ORDER = tuple(f.name for f in dataclasses.fields(JobRecord))
_FIELD_NAMES = frozenset(_FIELD_ORDER)


def from_row(row: StoreRow) -> JobRecord:
    # zip, not dict(row): sqlite3.Row looks a key up by a linear, case-insensitive scan of the
    # column names, which made dict(row) the cost of replaying or listing 100k records.
    values = dict(zip(row.keys(), row))
    values.pop("change_seq", None)  # the store's bookkeeping, not part of the record
    for key, members in _MEMBERS.items():
        member = members.get(values[key])
        if member is None:
            if key != "state":
                raise ValueError(f"{values[key]!r} is not a valid {_ENUMS[key].__name__}")
            # A replayed record whose state is missing or damaged is UNKNOWN (fail safe).
            member = MutationState.UNKNOWN
        values[key] = member
    code = values["result_code"]
    if code:
        if code not in _RESULT_CODES:
            raise ValueError(f"{code!r} is not a valid ResultCode")
        values["result_code"] = _RESULT_CODES[code]
    else:
        values["result_code"] = None
    for key in _BOOLS:
        values[key] = bool(values[key])
    ema = values["external_metadata_advanced"]
    values["external_metadata_advanced"] = None if ema is None else bool(ema)
    return build(values)


def build(values: dict[str, Any]) -> JobRecord:
    """``JobRecord(**values)``. With every field present, the frozen instance is filled directly:
    the generated __init__ of a 45-field frozen dataclass (object.__setattr__ per field) cost more
    than the rest of the conversion put together when replaying or listing 100k records, and ~10 µs
    of each admission. A field too many or too few: the constructor says which."""
    if values.keys() != _FIELD_NAMES:
        return JobRecord(**values)
    job = object.__new__(JobRecord)
    job.__dict__.update(values)
    return job


_ENUM_TYPES = (
    MutationType,
    MutationState,
    RefreshState,
    CompletionReason,
    TerminationProof,
    ResultCode,
)
# A value's type → how it is stored: members by their value, bools as 0/1, anything else as it is.
# Looked up by exact type: an enum with members and bool cannot be subclassed, so this answers what
# isinstance did, without walking a tuple of classes per field (admission converts 44 per job).
_STORED_AS: dict[type, Callable[[Any], Any]] = {
    **{t: attrgetter("value") for t in _ENUM_TYPES},
    bool: int,
}


def _column_values(job: JobRecord, names: Iterable[str]) -> list[Any]:
    values = job.__dict__  # the fields (a frozen dataclass without slots)
    out = []
    for name in names:
        value = values[name]
        store_as = _STORED_AS.get(type(value))
        out.append(value if store_as is None else store_as(value))
    return out


def to_columns(job: JobRecord, only: Container[str] | None = None) -> dict[str, Any]:
    """Column → stored value, in field order; with ``only``, just those fields (a transition's)."""
    names = _FIELD_ORDER if only is None else [name for name in _FIELD_ORDER if name in only]
    return dict(zip(names, _column_values(job, names)))


# The admission insert (every column but the id, which the store assigns), built once; its last
# parameter is the write's change sequence number (not a record field: see JobManager._catch_up).
_INSERT_FIELDS = tuple(name for name in _FIELD_ORDER if name != "id")
INSERT_SQL = (
    f"INSERT INTO lance_index_jobs ({', '.join(_INSERT_FIELDS)}, change_seq) "
    f"VALUES ({', '.join('?' for _ in _INSERT_FIELDS)}, ?)"
)


def insert_values(job: JobRecord) -> tuple[Any, ...]:
    """The parameters of :data:`INSERT_SQL` for ``job`` (as :func:`to_columns` converts them)."""
    return tuple(_column_values(job, _INSERT_FIELDS))


def with_id(job: JobRecord, job_id: int) -> JobRecord:
    """``job.replace(id=job_id)`` without the generated __init__ of a 45-field frozen dataclass
    (one object.__setattr__ per field), on the admission path; nothing else differs."""
    copy = object.__new__(JobRecord)
    copy.__dict__.update(job.__dict__)
    copy.__dict__["id"] = job_id
    return copy


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def clip(text: str, limit: int = MAX_DURABLE_TEXT_BYTES) -> str:
    """Cut durable text to ``limit`` UTF-8 bytes without splitting a character."""
    raw = text.encode("utf-8")
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")
