"""The schema contract (engine/jobs/control/contract.py): admission captures it, the worker
recomputes it
from the pinned version with the same function, and a contract that is empty never passes.

On small real datasets written with pylance; no server, no worker process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lance
import pytest

from drydock.engine.jobs.control.admission import drop_contract, schema_contract
from drydock.engine.jobs.control.contract import ContractError, contract_json, index_contract
from drydock.engine.jobs.control.backend import Dispatch
from drydock.engine.jobs.control.validation import IndexSpec
from drydock.engine.jobs.worker import contract_holds
from tests.support.lance_fixtures import odd_table, vector_table

BTREE = IndexSpec("BTREE", "BTREE", {})
ANN = IndexSpec("ANN", "IVF_PQ", {"num_partitions": 4, "num_sub_vectors": 4})
INVERTED = IndexSpec("INVERTED", "INVERTED", {})


def dispatch(
    operation: str, column: str, index_name: str, fields: list[dict[str, Any]]
) -> Dispatch:
    return Dispatch(
        job_id=1,
        invocation_id="i",
        operation=operation,
        uri="",
        storage_options={},
        admitted_version=1,
        index_name=index_name,
        index_uuid="",
        column=column,
        spec={},
        schema_contract=json.loads(json.dumps(contract_json(fields))),  # as it travels
        max_num_partitions=4096,
        max_num_sub_vectors=256,
        wall_clock_seconds=0.0,
    )


@pytest.fixture
def dataset(tmp_path: Path) -> Any:
    ds = lance.write_dataset(odd_table(), str(tmp_path / "o.lance"))
    ds.create_scalar_index("id", "BTREE", name="flat")
    ds.create_scalar_index("point.x", "BTREE", name="nested")
    return lance.dataset(str(tmp_path / "o.lance"))


@pytest.mark.parametrize("column, spec", [("emb", ANN), ("id", BTREE), ("name", INVERTED)])
def test_the_worker_recomputes_exactly_what_admission_captured(
    dataset: Any, column: str, spec: IndexSpec
) -> None:
    name, captured = schema_contract(dataset, column, spec)
    assert contract_holds(dispatch("CREATE", name, "i", [captured]), dataset)


def test_drop_captures_the_indexed_columns_field_from_the_index_metadata(dataset: Any) -> None:
    column, captured = drop_contract(dataset, "flat")
    assert (column, captured) == (
        "id",
        {"fieldId": 0, "name": "id", "type": "int64", "nullable": True},
    )
    assert contract_holds(dispatch("DROP", column, "flat", [captured]), dataset)


def test_an_empty_or_foreign_contract_never_passes(dataset: Any) -> None:
    """The old DROP contract was ``{"fields": []}`` and the worker skipped the check."""
    assert not contract_holds(dispatch("DROP", "id", "flat", []), dataset)
    _, other = drop_contract(dataset, "flat")
    assert not contract_holds(dispatch("DROP", "id", "flat", [{**other, "type": "int32"}]), dataset)
    assert not contract_holds(
        dispatch("DROP", "id", "gone", [other]), dataset
    )  # the index is not there


def test_an_index_on_a_nested_field_has_no_drop_contract(dataset: Any) -> None:
    with pytest.raises(ContractError, match="does not map to exactly one top-level column"):
        index_contract(dataset, "nested")


def test_the_contract_is_read_at_the_pinned_version(tmp_path: Path) -> None:
    uri = str(tmp_path / "v.lance")
    lance.write_dataset(vector_table(300), uri)
    lance.dataset(uri).create_scalar_index("id", "BTREE", name="x")  # version 2
    pinned = lance.dataset(uri, version=2)
    _, captured = drop_contract(pinned, "x")
    lance.dataset(uri).drop_index(
        "x"
    )  # version 3: gone at the latest, still there at the pinned one
    assert contract_holds(dispatch("DROP", "id", "x", [captured]), lance.dataset(uri, version=2))
