"""SHOW BACKENDS: the in-process supervisor that runs Lance index workers (ADMIN only)."""

from __future__ import annotations

from engine import ast
from engine.core import Engine
from engine.results import Result
from engine.session import SessionContext

COLUMNS = ["BackendId", "Host", "Alive", "Isolation", "IsolationDetail", "QueueDepth", "InflightWorkers",
           "PossibleLiveSlots", "MaxInflight", "DispatcherPaused", "ProcessEpoch"]


def show_backends(engine: Engine, stmt: ast.ShowBackends, ctx: SessionContext) -> Result:
    engine.privileges.require_global(ctx, "ADMIN_PRIV")
    status = engine.dispatcher.supervisor.status()
    row = ("local", "127.0.0.1", "true" if engine.dispatcher.running else "false", status["isolation"],
           status["detail"], status["queue_depth"], status["inflight"], engine.jobs.slots_in_use(),
           engine.config.get("lance_index_job_max_inflight_per_backend"),
           "true" if engine.config.get("lance_index_job_dispatcher_paused") else "false", status["epoch"])
    return Result(columns=COLUMNS, rows=[row])
