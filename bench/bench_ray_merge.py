"""Search latency of a Ray-built IVF_PQ index: its segments merged into one before the commit (what
drydock does now) vs committed as they were built (what it did before), against a single-node
``create_index`` of the same table (the baseline).

    .venv/bin/python bench/bench_ray_merge.py                    # 50k x 32, 2/4/8 segments
    .venv/bin/python bench/bench_ray_merge.py --rows 20000 --segments 2 4   # quick look

The segments are built by the Ray tasks' own functions (engine/jobs/runtime/ray_tasks.py: one
``train``, one ``build_segment`` per fragment group, ``merge_segments``) called in this process,
and the merged folder is moved to the job's uuid as the coordinator does
(segment_files.relocate_segment): the index files are the same whoever runs the tasks, so no Ray
cluster is started. Every variant is searched with the same queries (k=10, pylance's default
nprobes), in interleaved rounds; prints the median and p95 per query, the ratio of medians to the
single-node build, and recall@10 against brute force (merging must not change answers).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lance
import numpy as np
import pyarrow as pa

from bench.timing import fmt_ratio, interleaved, median, median_ratio, p95
from drydock.engine.jobs.runtime import ray_tasks
from drydock.engine.jobs.runtime.segment_files import relocate_segment

PARAMS: dict[str, int | str] = {
    "num_partitions": 64,
    "num_sub_vectors": 8,
    "sample_rate": 64,
    "max_iters": 20,
    "metric": "l2",
}


def write(uri: str, data: np.ndarray, fragment_rows: int) -> None:
    dim = data.shape[1]
    table = pa.table(
        {
            "id": pa.array(range(len(data)), pa.int64()),
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(data.ravel()), dim),
        }
    )
    lance.write_dataset(table, uri, max_rows_per_file=fragment_rows)


def single_node(uri: str) -> None:
    lance.dataset(uri).create_index(
        "emb",
        "IVF_PQ",
        num_partitions=int(PARAMS["num_partitions"]),
        num_sub_vectors=int(PARAMS["num_sub_vectors"]),
        sample_rate=int(PARAMS["sample_rate"]),
        max_iters=int(PARAMS["max_iters"]),
    )


def ray_build(uri: str, model: dict[str, object], segments: int, merge: bool) -> float:
    """The Ray path's segments over ``uri``, committed merged or as built; seconds the merge and
    the folder move took."""
    dataset = lance.dataset(uri)
    version = int(dataset.version)
    groups = ray_tasks.fragment_groups(
        [(f.fragment_id, f.count_rows()) for f in dataset.get_fragments()], segments
    )
    job_uuid = str(uuid.uuid4())
    built = [
        ray_tasks.build_segment(
            uri,
            version,
            {},
            "emb",
            "v",
            PARAMS,
            model,
            group,
            ray_tasks.segment_uuid(job_uuid, i),
            False,
            2,
            "",
            False,
        )["index"]
        for i, group in enumerate(groups)
    ]
    started = time.perf_counter()
    if merge and len(built) > 1:
        merged = ray_tasks.merge_segments(uri, version, {}, built, 2)["index"]
        relocate_segment(uri, {}, str(merged.uuid), job_uuid)
        built = [dataclasses.replace(merged, uuid=job_uuid)]
    merge_seconds = time.perf_counter() - started
    dataset.commit_existing_index_segments("v", "emb", built)
    return merge_seconds


def search_seconds(
    dataset: lance.LanceDataset, queries: np.ndarray
) -> tuple[list[float], list[list[int]]]:
    samples, answers = [], []
    for q in queries:
        started = time.perf_counter()
        got = dataset.to_table(columns=["id"], nearest={"column": "emb", "q": q, "k": 10})
        samples.append(time.perf_counter() - started)
        answers.append(got["id"].to_pylist())
    return samples, answers


def recall(data: np.ndarray, queries: np.ndarray, answers: list[list[int]]) -> float:
    hits = 0
    for q, got in zip(queries, answers, strict=True):
        truth = set(np.argsort(((data - q) ** 2).sum(axis=1))[:10].tolist())
        hits += len(truth & set(got))
    return hits / (10 * len(queries))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--fragments", type=int, default=16)
    parser.add_argument("--segments", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(3)
    centers = rng.normal(size=(256, args.dim)).astype("float32") * 4
    data = (
        centers[rng.integers(0, 256, args.rows)] + rng.normal(size=(args.rows, args.dim))
    ).astype("float32")
    queries = (
        data[rng.integers(0, args.rows, args.queries)]
        + rng.normal(size=(args.queries, args.dim)) * 0.5
    ).astype("float32")
    base = Path(tempfile.mkdtemp(prefix="dd-merge-bench-"))
    try:
        template = str(base / "template.lance")
        write(template, data, max(1, args.rows // args.fragments))
        variants: dict[str, str] = {"single-node create_index": str(base / "single.lance")}
        shutil.copytree(template, variants["single-node create_index"])
        single_node(variants["single-node create_index"])
        model = ray_tasks.train(template, 1, {}, "emb", PARAMS, 2)
        for count in args.segments:
            for merge in (False, True):
                label = f"ray, {count} segments, " + ("merged" if merge else "unmerged (before)")
                variants[label] = str(base / f"ray-{count}-{int(merge)}.lance")
                shutil.copytree(template, variants[label])
                merge_seconds = ray_build(variants[label], model, count, merge)
                if merge:
                    print(f"{count} segments: merge + folder move {merge_seconds:.3f}s")
        samples: dict[str, list[float]] = {label: [] for label in variants}
        answers: dict[str, list[list[int]]] = {}
        # opened once and warmed up (index loaded and cached), as a server keeps them
        opened = {label: lance.dataset(uri) for label, uri in variants.items()}
        for dataset in opened.values():
            search_seconds(dataset, queries[:20])
        for _, order in interleaved(list(variants), args.rounds):
            for label in order:
                seconds, answers[label] = search_seconds(opened[label], queries)
                samples[label].extend(seconds)
        baseline = samples["single-node create_index"]
        print(
            f"{args.rows} rows x {args.dim}, {args.fragments} fragments, "
            f"{args.queries} queries x {args.rounds} rounds, k=10"
        )
        print(f"{'index':<40} {'segs':>4} {'median ms':>10} {'p95 ms':>8} {'vs single':>9} recall")
        for label, dataset in opened.items():
            [description] = dataset.describe_indices()
            print(
                f"{label:<40} {len(description.segments):>4} "
                f"{median(samples[label]) * 1000:>10.2f} {p95(samples[label]) * 1000:>8.2f} "
                f"{fmt_ratio(median_ratio(samples[label], baseline)):>9} "
                f"{recall(data, queries, answers[label]):.3f}"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
