"""SHOW BACKENDS: the in-process supervisor that runs Lance index workers, and — when the Ray
backend is selected — one row per Ray node (host, alive, CPUs, memory, running tasks). ADMIN only."""

from __future__ import annotations

from typing import Any

from engine import ast
from engine.core import Engine
from engine.results import Result
from engine.session import SessionContext
from engine.privileges import Privilege
from engine.config_keys import Key

COLUMNS = ["BackendId", "Host", "Alive", "Isolation", "IsolationDetail", "QueueDepth", "InflightWorkers",
           "PossibleLiveSlots", "MaxInflight", "DispatcherPaused", "CPUs", "MemoryBytes", "RunningTasks",
           "DispatcherRounds", "ProcessEpoch"]


def show_backends(engine: Engine, stmt: ast.ShowBackends, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    supervisor = engine.dispatcher.supervisor
    status = supervisor.status()
    paused = "true" if engine.config.get(Key.LANCE_INDEX_JOB_DISPATCHER_PAUSED) else "false"
    rounds = engine.dispatcher.rounds
    rows: list[tuple[Any, ...]] = [
        ("local", "127.0.0.1", "true" if engine.dispatcher.running else "false", status["isolation"],
         status["detail"], status["queue_depth"], status["inflight"], engine.jobs.slots_in_use(),
         engine.config.get(Key.LANCE_INDEX_JOB_MAX_INFLIGHT_PER_BACKEND), paused, None, None, status["inflight"],
         rounds, status["epoch"])]
    list_nodes = getattr(supervisor, "nodes", None)  # the Ray backend
    if list_nodes is not None:
        nodes, error = list_nodes()
        if error:
            rows.append(("ray", str(engine.config.get(Key.LANCE_INDEX_RAY_ADDRESS)), "false", "ray", error,
                         None, None, None, None, paused, None, None, None, rounds, status["epoch"]))
        for node in nodes:
            rows.append((f"ray:{node['node_id'][:16]}", node["host"], "true" if node["alive"] else "false", "ray",
                         "head node" if node["head"] else "worker node", None, status.get("ray_builds"), None,
                         None, paused, node["cpus"], node["memory"], node["running"], rounds, status["epoch"]))
    return Result(columns=COLUMNS, rows=rows)
