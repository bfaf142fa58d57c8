"""The search parameters a session sets (``SET ivf_nprobe = 32``; SHOW VARIABLES lists them),
with defaults measured on bench/bench_search.py to reach recall@10 >= 0.95 there."""

from __future__ import annotations

from typing import Any

from drydock.engine.errors import Errors
from drydock.engine.search.table_search import SearchSettings
from drydock.engine.session import SessionContext

IVF_NPROBE = "ivf_nprobe"  # IVF partitions probed (Doris' name)
HNSW_EF_SEARCH = "hnsw_ef_search"  # candidates HNSW keeps while searching (Doris' name)
VECTOR_REFINE_FACTOR = "vector_refine_factor"  # re-rank refine × k candidates exactly; 0: off

# measured on 1M × 128 float32 (bench/README.md "Search"): IVF_PQ at 8 partitions and a refine of
# 10 has recall@10 0.989; IVF_HNSW_SQ at ef 20 has 0.970 (pylance raises ef to k × refine)
DEFAULTS = {IVF_NPROBE: 8, HNSW_EF_SEARCH: 20, VECTOR_REFINE_FACTOR: 10}
# the most each may be set to: beyond these a search reads most of the index anyway
MAXIMUMS = {IVF_NPROBE: 65536, HNSW_EF_SEARCH: 100000, VECTOR_REFINE_FACTOR: 1000}
MINIMUMS = {IVF_NPROBE: 1, HNSW_EF_SEARCH: 1, VECTOR_REFINE_FACTOR: 0}

# (type, default, dynamic) in mysql-mimic's schema (server/session.py)
VARIABLES: dict[str, tuple[type, Any, bool]] = {
    name: (int, value, True) for name, value in DEFAULTS.items()
}


def value_for_set(name: str, value: Any) -> int:
    """``SET ivf_nprobe = v``: an integer within its range, else 1231/1232 as MySQL answers."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Errors.WRONG_TYPE_FOR_VAR.error(name=name)
    try:
        number = int(value)
    except ValueError:
        raise Errors.WRONG_TYPE_FOR_VAR.error(name=name) from None
    if not MINIMUMS[name] <= number <= MAXIMUMS[name]:
        raise Errors.WRONG_VALUE_FOR_VAR.error(name=name, value=value)
    return number


def session_settings(ctx: SessionContext, max_k: int) -> SearchSettings:
    def value(name: str) -> int:
        if ctx.variables is None:
            return DEFAULTS[name]
        try:
            return int(ctx.variables.get(name))
        except Exception:  # noqa: BLE001 - a variables object without the name: the default
            return DEFAULTS[name]

    return SearchSettings(
        nprobe=value(IVF_NPROBE),
        refine_factor=value(VECTOR_REFINE_FACTOR),
        ef=value(HNSW_EF_SEARCH),
        max_k=max_k,
    )
