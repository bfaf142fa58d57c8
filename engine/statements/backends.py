"""SHOW BACKENDS: the in-process supervisor that runs Lance index workers, and — when the Ray
backend is selected — one row per Ray node (host, alive, CPUs, memory, running tasks). ADMIN only.

SHOW FRONTENDS: every frontend sharing the metadata store (engine/store/frontends.py), which one
holds
the dispatcher lease, and whether each is alive (a heartbeat within frontend_lease_second). ADMIN
only."""

from __future__ import annotations

import time
from typing import Any

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.support.config_keys import Key
from drydock.engine.support.url_secrets import mask_text, mask_value
from drydock.engine.statements.registry import handles

COLUMNS = [
    "BackendId",
    "Host",
    "Alive",
    "Isolation",
    "IsolationDetail",
    "QueueDepth",
    "InflightWorkers",
    "PossibleLiveSlots",
    "MaxInflight",
    "DispatcherPaused",
    "CPUs",
    "MemoryBytes",
    "RunningTasks",
    "DispatcherRounds",
    "ProcessEpoch",
]


@handles(ast.ShowBackends, columns=COLUMNS)
def show_backends(engine: Engine, stmt: ast.ShowBackends, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    backend = engine.dispatcher.backend
    status = backend.status()
    paused = "true" if engine.config.get(Key.LANCE_INDEX_JOB_DISPATCHER_PAUSED) else "false"
    rounds = engine.dispatcher.rounds
    rows: list[tuple[Any, ...]] = [
        (
            "local",
            "127.0.0.1",
            "true" if engine.dispatcher.running else "false",
            status["isolation"],
            status["detail"],
            status["queue_depth"],
            status["inflight"],
            engine.jobs.slots_in_use(),
            engine.config.get(Key.LANCE_INDEX_JOB_MAX_INFLIGHT_PER_BACKEND),
            paused,
            None,
            None,
            status["inflight"],
            rounds,
            status["epoch"],
        )
    ]
    nodes, error = backend.nodes()  # the Ray backend's; none for the local one
    if error:
        address = mask_value(str(engine.config.get(Key.LANCE_INDEX_RAY_ADDRESS)))
        rows.append(
            (
                "ray",
                address,
                "false",
                "ray",
                mask_text(error),
                None,
                None,
                None,
                None,
                paused,
                None,
                None,
                None,
                rounds,
                status["epoch"],
            )
        )
    for node in nodes:
        rows.append(
            (
                f"ray:{node['node_id'][:16]}",
                node["host"],
                "true" if node["alive"] else "false",
                "ray",
                "head node" if node["head"] else "worker node",
                None,
                status.get("ray_builds"),
                None,
                None,
                paused,
                node["cpus"],
                node["memory"],
                node["running"],
                rounds,
                status["epoch"],
            )
        )
    return Result(columns=COLUMNS, rows=rows)


FRONTEND_COLUMNS = [
    "Name",
    "Host",
    "QueryPort",
    "Role",
    "IsMaster",
    "Alive",
    "LastHeartbeat",
    "Epoch",
    "CurrentConnected",
]


@handles(ast.ShowFrontends, columns=FRONTEND_COLUMNS)
def show_frontends(engine: Engine, stmt: ast.ShowFrontends, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    me = engine.frontend.identity.name
    rows: list[tuple[Any, ...]] = [
        (
            mask_text(f.name),
            mask_text(f.host),
            f.query_port,
            "LEADER" if f.leader else "FOLLOWER",
            "true" if f.leader else "false",
            "true" if f.alive else "false",
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(f.last_heartbeat)),
            f.epoch,
            "Yes" if f.name == me else "No",
        )
        for f in engine.frontend.rows()
    ]
    return Result(columns=FRONTEND_COLUMNS, rows=rows)
