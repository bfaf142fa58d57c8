"""Issue 27 item 2: a job on a local (file) dataset is dispatched only while its store has exactly
one alive frontend, or when its catalog declares the warehouse a file system every frontend shares
(``warehouse.shared_filesystem = true``); otherwise it waits PENDING with a Message saying why, and
goes once the condition holds.

The rule as a table (engine/jobs/control/local_dispatch.py), then the dispatcher on an in-process
engine whose alive-frontend count the test sets, then the property's validation. Two real
frontends on PostgreSQL: tests/store/test_local_datasets_frontends.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drydock.engine.errors import DrydockError
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.local_dispatch import LOCAL_HOLD_MESSAGE, local_hold_reason
from drydock.engine.jobs.control.validation import IndexSpec
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import local_warehouse, vector_table

M = st.MutationState
BTREE = IndexSpec("BTREE", "BTREE", {}).to_json()


def several(n: int) -> str:
    return (
        f"waiting: {n} frontends are alive on this store and this local dataset's path may name "
        "another dataset (or none) on the leader's host; it is dispatched while exactly one "
        "frontend is alive, or set the catalog property 'warehouse.shared_filesystem' = 'true' if "
        "every frontend mounts the warehouse at the same path"
    )


@pytest.mark.parametrize(
    "local,switch_on,alive,shared",
    list(itertools.product([False, True], [False, True], [0, 1, 2, 3], [False, True])),
)
def test_the_rule_over_every_case(local: bool, switch_on: bool, alive: int, shared: bool) -> None:
    if not local:
        expected = None  # an object store is the same dataset from every frontend
    elif not switch_on:
        expected = LOCAL_HOLD_MESSAGE
    elif shared or alive == 1:
        expected = None
    else:
        expected = several(alive)
    assert (
        local_hold_reason(
            local=local, switch_on=switch_on, alive_frontends=alive, shared_filesystem=shared
        )
        == expected
    )


class Accepting:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    def __call__(self, dispatch: Any, deadline_ms: int) -> None:
        self.sent.append(dispatch)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Any]:
    from drydock.engine.core import Engine

    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(50))
    e = Engine(tmp_path / "data")
    e.catalogs.create("lc", {"type": "lance", "warehouse": wh.root}, "", False)
    yield e
    e.close()


def pending(engine: Any, name: str) -> Any:
    job = new_job(
        name,
        catalog_id=engine.catalogs.get("lc").id,
        locator=engine.catalogs.connector("lc").dataset_uri("db", "t"),
    )
    return engine.jobs.create(job.replace(properties=BTREE), 1000, 1000, 1000)


def test_held_while_several_frontends_are_alive_then_dispatched_when_one_is(engine: Any) -> None:
    engine.dispatcher.backend.submit = accepted = Accepting()
    alive = [2]
    engine.dispatcher._alive_frontends = lambda: alive[0]
    job = pending(engine, "a")
    for _ in range(3):
        engine.dispatcher.round()
    held = engine.jobs.get(job.id)
    assert (held.state, held.message, held.revision, held.dispatch_attempts) == (
        M.PENDING,
        several(2),
        1,  # the reason is written once, and is no failed attempt
        0,
    )
    assert not accepted.sent
    alive[0] = 1  # the other frontend stopped heartbeating
    engine.dispatcher.round()
    running = engine.jobs.get(job.id)
    assert (running.state, running.message) == (M.RUNNING, "")
    assert len(accepted.sent) == 1


def test_a_shared_filesystem_catalog_is_dispatched_with_several_frontends(engine: Any) -> None:
    engine.dispatcher.backend.submit = accepted = Accepting()
    engine.dispatcher._alive_frontends = lambda: 3
    job = pending(engine, "b")
    engine.dispatcher.round()
    assert engine.jobs.get(job.id).message == several(3)
    # settable while the job waits: it does not change where the catalog points
    engine.catalogs.set_properties("lc", {"warehouse.shared_filesystem": "true"})
    engine.dispatcher.round()
    assert engine.jobs.get(job.id).state is M.RUNNING and len(accepted.sent) == 1


def test_the_embedded_store_has_exactly_one_alive_frontend(engine: Any) -> None:
    assert engine.frontend.alive_count() == 1


@pytest.mark.parametrize(
    "properties,detail",
    [
        (
            {"warehouse.shared_filesystem": "maybe"},
            "Property 'warehouse.shared_filesystem' must be true or false, got 'maybe'",
        ),
        (
            {"warehouse": "s3://bucket/wh", "warehouse.shared_filesystem": "true"},
            "Property 'warehouse.shared_filesystem' applies only to a local (file) warehouse; an "
            "object-store warehouse is shared by every frontend already: remove it",
        ),
    ],
)
def test_the_property_is_validated_at_create_and_alter(
    engine: Any, tmp_path: Path, properties: dict[str, str], detail: str
) -> None:
    base = {"type": "lance", "warehouse": str(tmp_path / "wh")}
    with pytest.raises(DrydockError) as create:
        engine.catalogs.create("other", {**base, **properties}, "", False)
    with pytest.raises(DrydockError) as alter:
        engine.catalogs.set_properties("lc", properties)
    for info in (create, alter):
        assert detail in str(info.value)
    engine.catalogs.set_properties("lc", {"warehouse.shared_filesystem": "false"})
    assert engine.catalogs.get("lc").properties["warehouse.shared_filesystem"] == "false"
