"""A durable Lance index job record: one row of ``lance_index_jobs``."""

from __future__ import annotations

import dataclasses
import sqlite3
from dataclasses import dataclass
from typing import Any

from engine.jobs.states import (CompletionReason, JobFacts, MutationState, MutationType, RefreshState,
                                ResultCode, TerminationProof)

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

    @property
    def facts(self) -> JobFacts:
        return JobFacts(self.state, self.refresh_state, self.force_released, self.possible_live_owned,
                        self.termination_proof)

    @property
    def fence(self) -> FenceKey:
        return FenceKey(self.catalog_id, self.locator, self.index_key)

    def replace(self, **changes: Any) -> JobRecord:
        return dataclasses.replace(self, **changes)


_ENUMS = {"operation": MutationType, "state": MutationState, "refresh_state": RefreshState,
          "completion_reason": CompletionReason, "termination_proof": TerminationProof}
_BOOLS = ("if_not_exists", "if_exists", "possible_live_owned", "force_released")


def from_row(row: sqlite3.Row) -> JobRecord:
    values = dict(row)
    for key, enum in _ENUMS.items():
        try:
            values[key] = enum(values[key])
        except ValueError:
            if key != "state":
                raise
            # A replayed record whose state is missing or damaged is UNKNOWN (fail safe).
            values[key] = MutationState.UNKNOWN
    values["result_code"] = ResultCode(values["result_code"]) if values["result_code"] else None
    for key in _BOOLS:
        values[key] = bool(values[key])
    ema = values["external_metadata_advanced"]
    values["external_metadata_advanced"] = None if ema is None else bool(ema)
    return JobRecord(**values)


def to_columns(job: JobRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in dataclasses.fields(job):
        value = getattr(job, field.name)
        if isinstance(value, (MutationType, MutationState, RefreshState, CompletionReason,
                              TerminationProof, ResultCode)):
            value = value.value
        elif isinstance(value, bool):
            value = int(value)
        out[field.name] = value
    return out


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def clip(text: str, limit: int = MAX_DURABLE_TEXT_BYTES) -> str:
    """Cut durable text to ``limit`` UTF-8 bytes without splitting a character."""
    raw = text.encode("utf-8")
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")
