"""Arrow types of Lance datasets: how DESC / information_schema show them, and the view DuckDB
scans when a dataset has half floats (DuckDB has no float16)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.dataset as pds

from drydock.engine.lakehouse.catalogs.lance_scan import IndexedScan, indexed_scanner

if TYPE_CHECKING:
    import lance

_SIMPLE_TYPES: dict[pa.DataType, tuple[str, str]] = {
    pa.bool_(): ("BOOLEAN", "tinyint"),
    pa.int8(): ("TINYINT", "tinyint"),
    pa.int16(): ("SMALLINT", "smallint"),
    pa.int32(): ("INT", "int"),
    pa.int64(): ("BIGINT", "bigint"),
    pa.uint8(): ("TINYINT UNSIGNED", "tinyint"),
    pa.uint16(): ("SMALLINT UNSIGNED", "smallint"),
    pa.uint32(): ("INT UNSIGNED", "int"),
    pa.uint64(): ("BIGINT UNSIGNED", "bigint"),
    pa.float16(): ("FLOAT16", "float"),
    pa.float32(): ("FLOAT", "float"),
    pa.float64(): ("DOUBLE", "double"),
    pa.string(): ("VARCHAR", "varchar"),
    pa.large_string(): ("VARCHAR", "varchar"),
    pa.binary(): ("VARBINARY", "varbinary"),
    pa.large_binary(): ("VARBINARY", "varbinary"),
    pa.date32(): ("DATE", "date"),
    pa.date64(): ("DATE", "date"),
    pa.null(): ("NULL", "text"),
}
_FRACTION_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 6}


def arrow_type(t: pa.DataType) -> tuple[str, str]:
    """Arrow type → (DESC type, information_schema DATA_TYPE). A vector shows its dimension:
    ``fixed_size_list<float>[128]`` → ``ARRAY<FLOAT>(128)``; MySQL has no arrays, so composite
    types are ``text`` in DATA_TYPE, as the internal catalog shows them."""
    if pa.types.is_dictionary(t):
        return arrow_type(t.value_type)
    if t in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[t]
    if pa.types.is_timestamp(t):
        return f"DATETIME({_FRACTION_DIGITS.get(t.unit, 6)})", "datetime"  # MySQL stops at micros
    if pa.types.is_time(t):
        return "TIME", "time"
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision},{t.scale})", "decimal"
    if pa.types.is_fixed_size_binary(t):
        return f"BINARY({t.byte_width})", "binary"
    if pa.types.is_fixed_size_list(t):
        return f"ARRAY<{arrow_type(t.value_type)[0]}>({t.list_size})", "text"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"ARRAY<{arrow_type(t.value_type)[0]}>", "text"
    if pa.types.is_struct(t):
        inner = ",".join(
            f"{t.field(i).name}:{arrow_type(t.field(i).type)[0]}" for i in range(t.num_fields)
        )
        return f"STRUCT<{inner}>", "text"
    if pa.types.is_map(t):
        return f"MAP<{arrow_type(t.key_type)[0]},{arrow_type(t.item_type)[0]}>", "text"
    return str(t).upper(), "text"


# -- DuckDB
# ---------------------------------------------------------------------------------------------
def _widen(t: pa.DataType) -> pa.DataType:
    """float16 → float32, inside lists and structs too (DuckDB has no half float)."""
    if pa.types.is_float16(t):
        return pa.float32()
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, _widen(t.value_type)), t.list_size)
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, _widen(t.value_type)))
    if pa.types.is_large_list(t):
        return pa.large_list(pa.field(t.value_field.name, _widen(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _widen(f.type), f.nullable) for f in t])
    return t


def _widened(schema: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, _widen(f.type), f.nullable, f.metadata) for f in schema])


class _WidenedScanner:
    def __init__(self, scanner: Any):
        self._scanner = scanner

    def to_reader(self) -> pa.RecordBatchReader:
        reader = self._scanner.to_reader()
        schema = _widened(reader.schema)
        return pa.RecordBatchReader.from_batches(schema, (b.cast(schema) for b in reader))


class Float16AsFloat32(pds.Dataset):
    """A Lance dataset with half floats presented as float32 (DuckDB rejects Arrow's float16,
    "Unsupported Internal Arrow Type e", even for columns it does not read). Still a
    pyarrow Dataset, so DuckDB keeps pushing projections and filters into ``scanner``, where they
    are respelt for Lance's scalar indexes as in :class:`IndexedScan`."""

    def __init__(self, ds: lance.LanceDataset):  # pyarrow's own __init__ is for its C++ datasets
        self.lance_dataset = ds

    @property
    def schema(self) -> pa.Schema:  # type: ignore[override]
        return _widened(self.lance_dataset.schema)

    def scanner(self, *args: Any, **kwargs: Any) -> _WidenedScanner:  # type: ignore[override]
        return _WidenedScanner(indexed_scanner(self.lance_dataset, *args, **kwargs))

    def count_rows(self, **kwargs: Any) -> int:  # type: ignore[override]
        return int(self.lance_dataset.count_rows(**kwargs))


def _has_float16(t: pa.DataType) -> bool:
    return _widen(t) != t


def for_duckdb(ds: lance.LanceDataset) -> Any:
    """What DuckDB scans: the dataset with its pushed filters respelt for Lance's scalar indexes
    (engine/lakehouse/catalogs/lance_scan.py), float16-widened when it has half floats."""
    if any(_has_float16(f.type) for f in ds.schema):
        return Float16AsFloat32(ds)
    return IndexedScan(ds)


def lance_dataset_of(view: Any) -> Any:
    """The LanceDataset behind what :func:`for_duckdb` gave (None for anything else: a Paimon
    table's Arrow object, a system table)."""
    dataset = getattr(view, "lance_dataset", view)
    return dataset if hasattr(dataset, "describe_indices") else None


def widened_table(table: pa.Table) -> pa.Table:
    """``table`` with half floats as float32 (a search's rows, handed to DuckDB)."""
    schema = _widened(table.schema)
    return table if schema == table.schema else table.cast(schema)
