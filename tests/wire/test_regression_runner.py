"""The regression runner reports what a suite really did: SKIP (with the reason) for a suite whose
switch is off or that ran no statement, never PASS; the closing line counts skips separately."""

from __future__ import annotations

from pathlib import Path

import pytest

from drydock.regression import runner
from drydock.regression.framework import SUITES, suite
from tests.conftest import ServerProcess, shared_server  # noqa: F401


def run(server: ServerProcess, tmp_path: Path, lance: str, *suites: str) -> int:
    conf = tmp_path / "regression.toml"
    conf.write_text(f'[otherConfigs]\nenableLanceTest = "{lance}"\n')
    args = ["--url", f"jdbc:mysql://{server.host}:{server.port}/", "--conf", str(conf)]
    for name in suites:
        args += ["--suite", name]
    return runner.main(args)


def test_switched_off_lance_suite_is_a_skip_with_its_reason(
    shared_server: ServerProcess,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run(shared_server, tmp_path, "false", "test_lance_catalog", "test_warnings")
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert (
        lines[0].startswith("SKIP test_lance_catalog (")
        and "enableLanceTest is 'false'" in lines[0]
    )
    assert lines[1].startswith("PASS test_warnings (")
    assert lines[-1] == "regression: 1 passed, 0 failed, 1 skipped"


def test_a_suite_that_runs_no_statement_is_a_skip_not_a_pass(
    shared_server: ServerProcess,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runner.load_suites()  # the real suites first, so main() does not register ours twice

    @suite("test_returns_early_probe", "p0")
    def body(s):  # type: ignore[no-untyped-def]
        if s.context.config.otherConfigs.get("enableSomethingElse") != "true":
            return  # the groovy idiom, without skip(): still not a PASS

    try:
        code = run(shared_server, tmp_path, "true", "test_returns_early_probe")
    finally:
        del SUITES[-1]
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0].startswith("SKIP test_returns_early_probe (") and "ran no statement" in lines[0]
    assert lines[-1] == "regression: 0 passed, 0 failed, 1 skipped"
