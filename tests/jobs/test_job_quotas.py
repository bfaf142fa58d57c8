"""The one unresolved-job quota check (engine/jobs/control/quotas.py), used by admission and the
manager."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.quotas import QUOTA_KEYS, quota_problem, require_positive_quotas
from drydock.engine.store.metastore import MetadataStore
from tests.support.jobfactory import new_job

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_positive_quotas_pass_unchanged() -> None:
    assert quota_problem((1, 1, 1)) is None
    assert require_positive_quotas((8, 64, 256)) == (8, 64, 256)


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("bad", [0, -3])
def test_a_non_positive_quota_is_named_and_refused_as_mutation_disabled(
    position: int, bad: int
) -> None:
    limits = [8, 64, 256]
    limits[position] = bad
    with pytest.raises(DrydockError) as info:
        require_positive_quotas((limits[0], limits[1], limits[2]))
    assert info.value.code == Errors.LANCE_INDEX_MUTATION_DISABLED.code
    assert f"{QUOTA_KEYS[position].value} = {bad};" in info.value.message


def test_the_first_non_positive_quota_is_the_one_named() -> None:
    problem = quota_problem((8, 0, -1))
    assert problem is not None and "lance_index_job_max_unresolved_per_catalog = 0" in problem
    assert "global" not in problem


def test_manager_create_refuses_a_zero_quota_and_writes_nothing(
    store_opener: Callable[[], MetadataStore],
) -> None:
    jobs = JobManager(store_opener())
    with pytest.raises(DrydockError) as info:
        jobs.create(new_job("idx"), 8, 64, 0)
    assert info.value.code == Errors.LANCE_INDEX_MUTATION_DISABLED.code
    assert "lance_index_job_max_unresolved_global = 0" in info.value.message
    assert jobs.create(
        new_job("idx"), 8, 64, 256
    ).id  # nothing was fenced or counted by the refusal


def test_the_quota_message_is_written_in_one_module_only() -> None:
    """Admission and the manager once each had their own copy of this check; keep one."""
    holders = sorted(
        str(path.relative_to(ENGINE))
        for path in ENGINE.rglob("*.py")
        if "positive unresolved-job quotas" in path.read_text()
    )
    assert holders == ["jobs/control/quotas.py"]
