"""Evidence-based resolution of UNKNOWN jobs (drydock's own; the Doris design leaves every UNKNOWN
to FORCE_RELEASE).

Once a job's worker is proven terminated, the dataset's version history can prove the outcome:
the build used a pre-assigned index uuid, so if the latest manifest lists that uuid or a version
after the admitted one carries a CreateIndex with it, the mutation COMMITTED; if the chain of
later versions is complete and readable and it never appears, it did NOT commit. For DROP: the
index still present with the same uuid proves it was not dropped. Gaps (cleaned-up versions) or
read failures prove nothing: the job stays UNKNOWN and FORCE_RELEASE remains for what evidence
cannot settle.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.records import MAX_DURABLE_TEXT_BYTES, JobRecord, clip

if TYPE_CHECKING:
    from drydock.engine.security.audit import AuditLog
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager
    from drydock.engine.jobs.control.manager import JobManager

logger = logging.getLogger(__name__)


def _created_uuids(dataset: Any, version: int) -> set[str] | None:
    """uuids of indexes a version's transaction created; None when the transaction can't be read
    (pylance 14.0.2 raises TypeError for the versions a compaction of an indexed dataset wrote:
    docs/job-contract.md, "Library behaviour relied on")."""
    try:
        transaction = dataset.read_transaction(version)
    except Exception:  # noqa: BLE001 - unreadable history proves nothing
        return None
    if transaction is None:
        return None
    operation = getattr(transaction, "operation", None)
    new_indices = getattr(operation, "new_indices", None) or []
    return {str(getattr(index, "uuid", "")) for index in new_indices}


def evidence(job: JobRecord, dataset: Any, storage_options: dict[str, str]) -> bool | None:
    """True = committed, False = provably not committed, None = cannot tell."""
    if job.operation is not st.MutationType.DROP and job.index_uuid in {
        str(i.get("uuid")) for i in dataset.list_indices()
    }:
        return True  # the pre-assigned uuid in the latest manifest proves the commit, gaps or not
    latest = int(dataset.latest_version)
    versions = {int(v["version"]) for v in dataset.versions()}
    later = list(range(job.admitted_version + 1, latest + 1))
    if any(v not in versions for v in later):
        return None  # a gap: cleaned versions could have held the commit
    if job.operation is st.MutationType.DROP:
        return _drop_evidence(job, dataset, storage_options)
    for version in later:
        created = _created_uuids(dataset, version)
        if created is None:
            return None
        if job.index_uuid in created:
            return True
    return False


def _drop_evidence(job: JobRecord, dataset: Any, storage_options: dict[str, str]) -> bool | None:
    import lance

    admitted = lance.dataset(
        job.locator, version=job.admitted_version, storage_options=storage_options
    )
    before = {i["uuid"] for i in admitted.list_indices() if i["name"] == job.index_name}
    now = {i["uuid"] for i in dataset.list_indices() if i["name"] == job.index_name}
    if before and before <= now:
        return False  # the same index is still there: the drop did not commit
    return None  # gone — by our drop or another writer's: cannot tell


def settled_message(cause: str, committed: bool) -> str:
    """What the evidence proved, after what was known before (how the worker ended: an OOM kill,
    a crash, a deadline), so settling never erases the cause."""
    verdict = (
        "version history shows the pre-assigned index uuid committed"
        if committed
        else "complete version history shows no commit of this job"
    )
    if not cause:
        return verdict
    # the verdict is never cut
    return f"{clip(cause, MAX_DURABLE_TEXT_BYTES - len(verdict) - 2)}; {verdict}"


def reconcile_job(
    jobs: JobManager, catalogs: CatalogManager, audit: AuditLog, job: JobRecord
) -> JobRecord | None:
    if not job.index_uuid and job.operation is not st.MutationType.DROP:
        return None  # never dispatched with a uuid: nothing to look for
    record = catalogs.by_id(job.catalog_id)
    if record is None:
        return None
    try:
        import lance

        options = catalogs.lance_connector(record.name).storage_options()
        dataset = lance.dataset(job.locator, storage_options=options)
        verdict = evidence(job, dataset, options)
    except Exception:  # noqa: BLE001 - unreachable or unreadable: stays UNKNOWN
        logger.info("job %s: version history unreadable; stays UNKNOWN", job.id)
        return None
    if verdict is None:
        return None
    reconciled = jobs.reconcile(job.id, verdict, settled_message(job.message, verdict))
    if reconciled is not None:
        audit.record(
            user="drydock",
            host="localhost",
            connection_id=0,
            kind="ReconcileLanceIndexJob",
            obj=f"{job.catalog_name}.{job.db}.{job.tbl}",
            error_code=0,
            started=time.monotonic(),
            statement=f"job {job.id}: {reconciled.state.value} (RECONCILED)",
        )
    return reconciled
