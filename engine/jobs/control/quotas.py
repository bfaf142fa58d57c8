"""The unresolved-job quotas (docs/job-contract.md, "Admission"): one check that all three are
positive.

Admission reads them from the config and checks them before its authoritative read (so a
misconfiguration fails early and reads nothing); JobManager.create checks the limits it is handed
again (its other callers bypass admission). Both go through ``require_positive_quotas``.
"""

from __future__ import annotations

from drydock.engine.support.config_keys import Key
from drydock.engine.errors import Errors

# In the order JobManager.create takes them: table, catalog, global.
QUOTA_KEYS = (
    Key.LANCE_INDEX_JOB_MAX_UNRESOLVED_PER_TABLE,
    Key.LANCE_INDEX_JOB_MAX_UNRESOLVED_PER_CATALOG,
    Key.LANCE_INDEX_JOB_MAX_UNRESOLVED_GLOBAL,
)


def quota_problem(limits: tuple[int, int, int]) -> str | None:
    """The message for the first non-positive quota, or None when all three are positive."""
    for key, value in zip(QUOTA_KEYS, limits, strict=True):
        if value <= 0:
            return (
                f"Lance index admission requires positive unresolved-job quotas, but {key.value} = "
                f"{value}; "
                "fix the FE configuration before enabling enable_lance_index_mutation"
            )
    return None


def require_positive_quotas(limits: tuple[int, int, int]) -> tuple[int, int, int]:
    """The limits unchanged, or LANCE_INDEX_MUTATION_DISABLED naming the first non-positive one:
    a zero quota would refuse every admission with a misleading 'quota exceeded'."""
    problem = quota_problem(limits)
    if problem is not None:
        raise Errors.LANCE_INDEX_MUTATION_DISABLED.error(detail=problem)
    return limits
