"""Build job records for manager-level tests (no dataset involved)."""

from __future__ import annotations

import time

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.records import JobRecord


def new_job(
    name: str = "idx",
    catalog_id: int = 1,
    locator: str = "/w/db/t.lance",
    db: str = "db",
    tbl: str = "t",
    operation: st.MutationType = st.MutationType.CREATE,
    if_exists: bool = False,
) -> JobRecord:
    now = time.time()
    return JobRecord(
        id=0,
        catalog_id=catalog_id,
        catalog_name="lc",
        db=db,
        tbl=tbl,
        index_name=name,
        index_key=name.lower(),
        locator=locator,
        operation=operation,
        index_type="BTREE",
        column_name="id",
        properties="{}",
        if_not_exists=False,
        if_exists=if_exists,
        creator="'root'@'%'",
        state=st.MutationState.PENDING,
        refresh_state=st.RefreshState.NOT_REQUIRED,
        completion_reason=st.CompletionReason.NONE,
        result_code=None,
        message="",
        external_metadata_advanced=None,
        possible_live_owned=False,
        termination_proof=st.TerminationProof.NONE,
        backend_id="",
        process_epoch="",
        invocation_id="",
        index_uuid="",
        deadline_ms=None,
        admitted_version=1,
        schema_contract='{"fields": [], "version": 1}',
        schema_contract_version=1,
        force_released=False,
        force_actor="",
        force_time=None,
        force_note="",
        force_warning="",
        progress="",
        refresh_failed_at=None,
        created_at=now,
        updated_at=now,
        revision=0,
        max_num_partitions=4096,
        max_num_sub_vectors=256,
        dispatch_attempts=0,
    )
