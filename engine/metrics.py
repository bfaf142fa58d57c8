"""Prometheus metrics (prometheus-client), served over HTTP when a port is configured.

Gauges that mirror engine state (queue depth, in-flight workers, jobs by state) are computed at
scrape time from the engine, so they can never drift from the truth.
"""

from __future__ import annotations

import logging
from collections import Counter as TallyCounter
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily

if TYPE_CHECKING:
    from engine.core import Engine

logger = logging.getLogger(__name__)


class _EngineCollector:
    def __init__(self, engine: Engine):
        self._engine = engine

    def collect(self) -> Any:
        engine = self._engine
        status = engine.dispatcher.supervisor.status()
        yield GaugeMetricFamily("drydock_supervisor_queue_depth", "Submissions waiting for a worker",
                                value=status["queue_depth"])
        yield GaugeMetricFamily("drydock_supervisor_inflight_workers", "Index worker processes running",
                                value=status["inflight"])
        yield GaugeMetricFamily("drydock_possible_live_slots", "Jobs whose worker may still run",
                                value=engine.jobs.slots_in_use())
        by_state = GaugeMetricFamily("drydock_lance_index_jobs", "Lance index job records by state",
                                     labels=["state", "refresh_state"])
        tally: TallyCounter[tuple[str, str]] = TallyCounter()
        for row in engine.store.query("SELECT state, refresh_state, count(*) AS n FROM lance_index_jobs "
                                      "GROUP BY state, refresh_state"):
            tally[(row["state"], row["refresh_state"])] += int(row["n"])
        for (state, refresh), n in sorted(tally.items()):
            by_state.add_metric([state, refresh], n)
        yield by_state


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.statement_seconds = Histogram("drydock_statement_seconds", "Statement latency", ["kind"],
                                           registry=self.registry)
        self.job_seconds = Histogram("drydock_lance_index_job_seconds", "Admission to outcome of index jobs",
                                     ["operation", "state"], registry=self.registry,
                                     buckets=(1, 5, 15, 60, 300, 900, 3600, float("inf")))
        self.worker_exits = Counter("drydock_worker_exits_total", "Index worker exits by cause", ["cause"],
                                    registry=self.registry)
        self.procedure_calls = Counter("drydock_procedure_calls_total", "CALL statements", ["procedure", "outcome"],
                                       registry=self.registry)
        self._server: Any = None

    def attach(self, engine: Engine) -> None:
        self.registry.register(_EngineCollector(engine))

    def serve(self, port: int, host: str = "127.0.0.1") -> int:
        server, _thread = start_http_server(port, addr=host, registry=self.registry)
        self._server = server
        return int(server.server_address[1])

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
