"""The schema contract (version 1; docs/job-contract.md, "Schema contract"): what admission
captured about the indexed field, and what the worker recomputes from the pinned dataset version
before it mutates anything.

One function computes it for both sides, so "recomputed" means exactly "computed again". CREATE and
REPLACE name their column; DROP finds it in the dataset's index metadata (the index's field ids),
which must map to exactly one top-level column.
"""

from __future__ import annotations

from typing import Any

CONTRACT_VERSION = 1


class ContractError(Exception):
    """The index or field the contract is about cannot be found, or is not one top-level column."""


def field_contract(dataset: Any, column: str, schema: Any = None) -> dict[str, Any]:
    """fieldId, name, type, nullable; for a fixed-size list also dimension and element type.

    ``schema``: ``dataset.schema`` when the caller has read it already (pylance builds a new one on
    every read of the property; admission reads it once)."""
    import pyarrow as pa

    if schema is None:
        schema = dataset.schema
    if column not in schema.names:
        raise ContractError(f"column '{column}' is not a top-level column")
    field = schema.field(column)
    contract: dict[str, Any] = {
        "fieldId": dataset.lance_schema.field(column).id(),
        "name": field.name,
        "type": str(field.type),
        "nullable": field.nullable,
    }
    if pa.types.is_fixed_size_list(field.type):
        contract.update(
            dimension=field.type.list_size,
            elementType=str(field.type.value_type),
            elementNullable=field.type.value_field.nullable,
        )
    return contract


def index_column(dataset: Any, index_name: str) -> str:
    """The one top-level column the named index covers, read from the index metadata's field ids."""
    found = [d for d in dataset.describe_indices() if d.name == index_name]
    if not found:
        raise ContractError(f"index '{index_name}' is not present")
    field_ids = {int(i) for d in found for i in d.fields}
    top_level = {f.id(): f.name() for f in dataset.lance_schema.fields()}
    if len(field_ids) != 1 or next(iter(field_ids)) not in top_level:
        names = sorted({n for d in found for n in d.field_names})
        raise ContractError(
            f"index '{index_name}' does not map to exactly one top-level column "
            f"(it covers {', '.join(names) or 'no column'})"
        )
    return top_level[next(iter(field_ids))]


def index_contract(dataset: Any, index_name: str) -> tuple[str, dict[str, Any]]:
    """DROP's contract: the indexed column and its field contract."""
    column = index_column(dataset, index_name)
    return column, field_contract(dataset, column)


def contract_json(fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": CONTRACT_VERSION, "fields": fields}
