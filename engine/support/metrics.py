"""Prometheus metrics (prometheus-client), served over HTTP when a port is configured.

Gauges that mirror engine state (queue depth, in-flight workers, jobs by state) are computed at
scrape time from the components that hold that state, so they can never drift from the truth.
"""

from __future__ import annotations

import logging
from collections import Counter as TallyCounter
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily


class Queryable(Protocol):
    """What the gauges read job rows from: the metadata store (engine/store/), passed in by the
    composition root, so that metrics need not know the store's classes."""

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]: ...


logger = logging.getLogger(__name__)


class _StateCollector:
    def __init__(
        self,
        supervisor_status: Callable[[], Mapping[str, Any]],
        slots_in_use: Callable[[], int],
        store: Queryable,
    ):
        self._supervisor_status = supervisor_status
        self._slots_in_use = slots_in_use
        self._store = store

    def collect(self) -> Any:
        status = self._supervisor_status()
        yield GaugeMetricFamily(
            "drydock_supervisor_queue_depth",
            "Submissions waiting for a worker",
            value=status["queue_depth"],
        )
        yield GaugeMetricFamily(
            "drydock_supervisor_inflight_workers",
            "Index worker processes running",
            value=status["inflight"],
        )
        yield GaugeMetricFamily(
            "drydock_possible_live_slots",
            "Jobs whose worker may still run",
            value=self._slots_in_use(),
        )
        by_state = GaugeMetricFamily(
            "drydock_lance_index_jobs",
            "Lance index job records by state",
            labels=["state", "refresh_state"],
        )
        tally: TallyCounter[tuple[str, str]] = TallyCounter()
        for row in self._store.query(
            "SELECT state, refresh_state, count(*) AS n FROM lance_index_jobs "
            "GROUP BY state, refresh_state"
        ):
            tally[(row["state"], row["refresh_state"])] += int(row["n"])
        for (state, refresh), n in sorted(tally.items()):
            by_state.add_metric([state, refresh], n)
        yield by_state


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.statement_seconds = Histogram(
            "drydock_statement_seconds", "Statement latency", ["kind"], registry=self.registry
        )
        self.job_seconds = Histogram(
            "drydock_lance_index_job_seconds",
            "Admission to outcome of index jobs",
            ["operation", "state"],
            registry=self.registry,
            buckets=(1, 5, 15, 60, 300, 900, 3600, float("inf")),
        )
        self.worker_exits = Counter(
            "drydock_worker_exits_total",
            "Index worker exits by cause",
            ["cause"],
            registry=self.registry,
        )
        self.procedure_calls = Counter(
            "drydock_procedure_calls_total",
            "CALL statements",
            ["procedure", "outcome"],
            registry=self.registry,
        )
        self._server: Any = None

    def attach(
        self,
        supervisor_status: Callable[[], Mapping[str, Any]],
        slots_in_use: Callable[[], int],
        store: Queryable,
    ) -> None:
        """The scrape-time gauges: the supervisor's queue, the jobs' live slots, job rows by
        state."""
        self.registry.register(_StateCollector(supervisor_status, slots_in_use, store))

    def serve(self, port: int, host: str = "127.0.0.1") -> int:
        server, _thread = start_http_server(port, addr=host, registry=self.registry)
        self._server = server
        return int(server.server_address[1])

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
