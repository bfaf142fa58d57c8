"""The Prometheus endpoint: served only when asked, with engine state and statement latency."""

from __future__ import annotations

import urllib.request
from pathlib import Path

from tests.conftest import make_server
from tests.support.waiting import wait_until


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


def test_metrics_endpoint_reports_engine_state_and_statements(tmp_path: Path) -> None:
    proc = make_server(tmp_path, "--metrics-port", "0").start()
    try:
        announced = wait_until(
            lambda: [
                line
                for line in proc.log_text().splitlines()
                if line.startswith("drydock metrics on 127.0.0.1:")
            ],
            10,
            "the metrics port announced in the log",
        )
        port = int(announced[0].rsplit(":", 1)[1])
        proc.query("SELECT 1")
        proc.query("ADMIN SHOW FRONTEND CONFIG LIKE 'x'")
        text = _scrape(port)
        assert "drydock_supervisor_queue_depth 0.0" in text
        assert "drydock_supervisor_inflight_workers 0.0" in text
        assert "drydock_possible_live_slots 0.0" in text
        assert 'drydock_statement_seconds_count{kind="Probe"}' in text
        assert 'drydock_statement_seconds_count{kind="AdminShowFrontendConfig"} 1.0' in text
    finally:
        proc.stop()


def test_no_metrics_port_unless_asked(tmp_path: Path) -> None:
    proc = make_server(tmp_path).start()
    try:
        assert "drydock metrics on" not in proc.log_text()
    finally:
        proc.stop()
