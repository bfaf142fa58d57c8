"""The two kinds of Ray task a distributed IVF_PQ build runs (engine/jobs/runtime/ray_build.py
drives them).

This module imports nothing from drydock: it is shipped to the Ray workers by value (cloudpickle),
so a Ray node needs pylance and numpy, not drydock. Both tasks open the *pinned* dataset version.

- ``train``: IVF centroids and PQ codebook, once, on a sample — every segment must be encoded with
  this one model (segments that train their own model lose recall and cannot be merged). A table
  smaller than the sample is trained on (nearly) all its rows, as a local build does.
- ``build_segment``: one index segment over a group of fragments with pylance's segment API
  (``create_index_uncommitted``), under a uuid fixed by the coordinator, so a re-run overwrites the
  same folder instead of leaving a second copy. Nothing is committed here.
- ``merge_segments``: the segments merged into one (``merge_existing_index_segments``): a search
  then opens one index instead of one per segment. Nothing is committed here either.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from typing import Any

FAULT_KILL_SEGMENT = (
    "kill_segment"  # test-only (DRYDOCK_FAULT_RAY_MODE): the last segment's worker dies
)
FAULT_HOLD_SEGMENT = "hold_segment"  # test-only: segment tasks block until they are force-cancelled
# test-only: segment tasks raise an error that echoes the storage options, as storage errors can
FAULT_FAIL_SEGMENT = "fail_segment"


def _lance(threads: int) -> Any:
    # Lance sizes its CPU pool from this at first use; a fresh worker per task (max_calls=1) reads
    # it
    os.environ.setdefault("LANCE_CPU_THREADS", str(threads))
    os.environ.setdefault("LANCE_LOG", "error")
    import lance

    return lance


def segment_uuid(index_uuid: str, segment: int) -> str:
    """Segment 0 carries the job's pre-assigned index uuid itself, so the evidence rules that look
    for that uuid in the version history settle a distributed job exactly like a local one; the
    others are derived from it (uuid5), deterministic for the invocation."""
    return (
        index_uuid if segment == 0 else str(uuid.uuid5(uuid.UUID(index_uuid), f"segment-{segment}"))
    )


def fragment_groups(fragments: list[tuple[int, int]], segments: int) -> list[list[int]]:
    """Contiguous groups of (fragment id, rows) with about equal rows; never an empty group."""
    segments = max(1, min(segments, len(fragments)))
    total = sum(rows for _, rows in fragments) or len(fragments)
    groups: list[list[int]] = [[]]
    seen = 0
    for position, (fragment_id, rows) in enumerate(fragments):
        left = len(fragments) - position  # fragments still to place, this one included
        if (
            groups[-1]
            and len(groups) < segments
            and (seen >= total * len(groups) / segments or left <= segments - len(groups))
        ):
            groups.append([])
        groups[-1].append(fragment_id)
        seen += rows or 1
    return groups


def sample_rates(
    rows: int, num_partitions: int, num_bits: int, sample_rate: int
) -> tuple[int, int]:
    """The (IVF, PQ) sample rates to train with. pylance's global training refuses a table with
    fewer than ``sample_rate × k`` rows (k = partitions for IVF, 2^num_bits for PQ), where a local
    ``create_index`` trains on all the rows there are; lowering the rate to what the table holds
    trains on (nearly: a whole multiple of k) all of them, the same model a local build trains."""
    ivf = min(sample_rate, rows // max(1, num_partitions))
    pq = min(sample_rate, rows // (1 << num_bits))
    return max(1, ivf), max(1, pq)


def train(
    uri: str,
    version: int,
    storage_options: dict[str, str],
    column: str,
    params: dict[str, Any],
    threads: int,
) -> dict[str, Any]:
    """IVF centroids + PQ codebook of the pinned version (what pylance's ``prepare_global_ivf_pq``
    does, with the sample rates of ``sample_rates``)."""
    lance = _lance(threads)
    from lance.indices import IndicesBuilder

    started = time.monotonic()
    dataset = lance.dataset(uri, version=version, storage_options=storage_options or None)
    if int(dataset.version) != version:
        raise ValueError("pinned open returned another version")
    num_bits = int(params.get("num_bits", 8))
    max_iters = int(params.get("max_iters", 50))
    ivf_rate, pq_rate = sample_rates(
        dataset.count_rows(),
        int(params["num_partitions"]),
        num_bits,
        int(params.get("sample_rate", 256)),
    )
    builder = IndicesBuilder(dataset, column)
    ivf = builder.train_ivf(
        params["num_partitions"],
        distance_type=params.get("metric", "l2"),
        sample_rate=ivf_rate,
        max_iters=max_iters,
    )
    pq = builder.train_pq(
        ivf, params["num_sub_vectors"], sample_rate=pq_rate, max_iters=max_iters, num_bits=num_bits
    )
    return {
        "ivf_centroids": ivf.centroids,
        "pq_codebook": pq.codebook,
        "seconds": time.monotonic() - started,
    }


def build_segment(
    uri: str,
    version: int,
    storage_options: dict[str, str],
    column: str,
    name: str,
    params: dict[str, Any],
    model: dict[str, Any],
    fragment_ids: list[int],
    index_uuid: str,
    replace: bool,
    threads: int,
    fault: str,
    last: bool,
) -> dict[str, Any]:
    """One uncommitted segment; returns pylance's ``Index`` (its metadata, for the single
    commit)."""
    if fault == FAULT_KILL_SEGMENT and last:
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == FAULT_HOLD_SEGMENT:
        while True:  # only a force-cancel (which kills this worker) ends it
            time.sleep(0.2)
    if fault == FAULT_FAIL_SEGMENT:
        raise OSError(f"injected failure reading {uri} with options {storage_options}")
    lance = _lance(threads)
    started = time.monotonic()
    dataset = lance.dataset(uri, version=version, storage_options=storage_options or None)
    if int(dataset.version) != version:
        raise ValueError("pinned open returned another version")
    rows = sum(dataset.get_fragment(f).count_rows() for f in fragment_ids)
    index = dataset.create_index_uncommitted(
        column,
        "IVF_PQ",
        name=name,
        metric=params.get("metric", "l2"),
        replace=replace,
        num_partitions=params["num_partitions"],
        num_sub_vectors=params["num_sub_vectors"],
        ivf_centroids=model["ivf_centroids"],
        pq_codebook=model["pq_codebook"],
        fragment_ids=list(fragment_ids),
        index_uuid=index_uuid,
    )
    return {"index": index, "rows": rows, "seconds": time.monotonic() - started}


def merge_segments(
    uri: str,
    version: int,
    storage_options: dict[str, str],
    segments: list[Any],
    threads: int,
) -> dict[str, Any]:
    """The built segments (pylance ``Index`` each, all of one model) merged into one uncommitted
    segment, under a uuid pylance chooses; returns its ``Index``."""
    lance = _lance(threads)
    started = time.monotonic()
    dataset = lance.dataset(uri, version=version, storage_options=storage_options or None)
    if int(dataset.version) != version:
        raise ValueError("pinned open returned another version")
    merged = dataset.merge_existing_index_segments(list(segments))
    return {"index": merged, "seconds": time.monotonic() - started}
