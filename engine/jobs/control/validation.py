"""Static validation of CREATE/DROP INDEX, before any metadata is read (docs/job-contract.md,
"Admission").

Property keys are case-insensitive; the allowed set depends on the index type and any other key is
an error — pylance silently ignores unknown keyword arguments, drydock must not. Texts match
Doris' LanceIndexMutationValidator where Doris has one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.support.names import MAX_LENGTH, name_problem, shown

RESERVED_PREFIX = "__lance_"
MAX_NAME_LENGTH = MAX_LENGTH
SCALAR_TYPES = ("BTREE", "BITMAP", "INVERTED")
ANN_INDEX_TYPES = ("IVF_PQ", "IVF_FLAT", "IVF_SQ", "IVF_HNSW_SQ")
METRICS = ("l2", "cosine", "dot")

# index_type → allowed keys and which of them are required (besides index_type itself)
ANN_KEYS: dict[str, tuple[set[str], set[str]]] = {
    "IVF_PQ": (
        {"metric", "num_partitions", "num_sub_vectors", "num_bits", "sample_rate", "max_iters"},
        {"num_partitions", "num_sub_vectors"},
    ),
    "IVF_FLAT": ({"metric", "num_partitions", "sample_rate", "max_iters"}, {"num_partitions"}),
    "IVF_SQ": ({"metric", "num_partitions", "sample_rate", "max_iters"}, {"num_partitions"}),
    "IVF_HNSW_SQ": (
        {"metric", "num_partitions", "sample_rate", "max_iters", "m", "ef_construction"},
        {"num_partitions"},
    ),
}
ALL_ANN_KEYS = {"index_type"} | set().union(*(allowed for allowed, _ in ANN_KEYS.values()))


def invalid(detail: str) -> DrydockError:
    return Errors.LANCE_INDEX_INVALID.error(detail=detail)


@dataclass(frozen=True)
class IndexSpec:
    """A validated index definition: what the worker builds and IF NOT EXISTS compares."""

    using: str  # ANN | BTREE | BITMAP | INVERTED
    index_type: str  # IVF_PQ ... for ANN; the scalar type otherwise
    params: dict[str, object]  # normalized: metric lower-case, numbers as int

    def to_json(self) -> str:
        return json.dumps(
            {"using": self.using, "index_type": self.index_type, "params": self.params},
            sort_keys=True,
        )

    @staticmethod
    def from_json(text: str) -> IndexSpec:
        data = json.loads(text)
        return IndexSpec(data["using"], data["index_type"], data["params"])


def validate_name(name: str) -> str:
    if len(name) > MAX_NAME_LENGTH:
        raise invalid(f"index name too long, the index name length at most is {MAX_NAME_LENGTH}.")
    if name.lower().startswith(RESERVED_PREFIX):
        raise invalid(
            f"index name '{name}' uses the reserved '{RESERVED_PREFIX}' prefix of Lance system "
            f"indexes"
        )
    if not name:
        raise invalid("index name must not be empty")
    problem = name_problem(name)
    if problem:
        raise invalid(f"index name {shown(name)} is not valid: it {problem}")
    return name


def _positive_int(key: str, raw: str, cap: int | None = None, cap_name: str = "") -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise invalid(f"{key} must be a positive integer")
    if cap is not None and value > cap:
        raise invalid(f"{key} must not exceed {cap} ({cap_name})")
    return value


def validate_spec(
    using: str,
    columns: tuple[str, ...],
    properties: tuple[tuple[str, str], ...],
    max_partitions: int,
    max_sub_vectors: int,
) -> IndexSpec:
    if len(columns) != 1:
        raise invalid("Lance index must be built on exactly one column")
    kind = using.upper()
    props: dict[str, str] = {}
    for key, value in properties:
        props[key.strip().lower()] = value
    if kind == "INVERTED":
        return IndexSpec(kind, kind, _inverted_params(props))
    if kind in SCALAR_TYPES:
        if props:
            raise invalid(f"{kind} indexes do not support properties")
        return IndexSpec(kind, kind, {})
    if kind != "ANN":
        raise invalid(f"Unsupported index method '{using}'; use ANN, BTREE, BITMAP or INVERTED")
    for key in props:
        if key not in ALL_ANN_KEYS:
            raise invalid(f"Unknown property '{key}' for Lance ANN index")
    index_type = props.get("index_type", "").strip().upper()
    if index_type not in ANN_KEYS:
        raise invalid(
            'Lance ANN index requires property "index_type" = "IVF_PQ"'
            if not index_type
            else f"index_type must be one of {', '.join(ANN_INDEX_TYPES)}"
        )
    allowed, required = ANN_KEYS[index_type]
    for key in props:
        if key != "index_type" and key not in allowed:
            raise invalid(f"Unknown property '{key}' for Lance {index_type} index")
    params: dict[str, object] = {"metric": props.get("metric", "l2").strip().lower()}
    if params["metric"] not in METRICS:
        raise invalid("metric must be one of l2, cosine, dot")
    for key in sorted(required):
        if key not in props:
            raise invalid(f"{key} must be a positive integer")
    if "num_partitions" in props:
        params["num_partitions"] = _positive_int(
            "num_partitions",
            props["num_partitions"],
            max_partitions,
            "lance_index_max_num_partitions",
        )
    if "num_sub_vectors" in props:
        params["num_sub_vectors"] = _positive_int(
            "num_sub_vectors",
            props["num_sub_vectors"],
            max_sub_vectors,
            "lance_index_max_num_sub_vectors",
        )
    if "num_bits" in props:
        if props["num_bits"].strip() != "8":
            raise invalid("num_bits must be 8")
        params["num_bits"] = 8
    for key in ("sample_rate", "max_iters", "m", "ef_construction"):
        if key in props:
            params[key] = _positive_int(key, props[key])
    return IndexSpec("ANN", index_type, params)


def _inverted_params(props: dict[str, str]) -> dict[str, object]:
    """INVERTED's one property, Doris' ``"support_phrase" = "true"``: keep word positions so that
    MATCH_PHRASE (and quoted phrases in boolean mode) can be answered (Lance's with_position)."""
    for key in props:
        if key != "support_phrase":
            raise invalid(
                f"Unknown property '{key}' for Lance INVERTED index (supported: support_phrase)"
            )
    value = props.get("support_phrase", "false").strip().lower()
    if value not in ("true", "false"):
        raise invalid('support_phrase must be "true" or "false"')
    return {"with_position": True} if value == "true" else {}


def same_definition(existing: dict[str, object], spec: IndexSpec) -> bool:
    """IF NOT EXISTS: compares only the properties given, never num_partitions (the index
    metadata does not record it)."""
    for key, value in spec.params.items():
        if key == "num_partitions":
            continue
        if key in existing and str(existing[key]).lower() != str(value).lower():
            return False
    return existing.get("index_type", spec.index_type) == spec.index_type
