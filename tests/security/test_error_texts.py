"""Failure paths over the wire: bad or unrepresentable older_than values are 1108 naming the
argument (never a raw OverflowError/OSError as 1105), and library errors carry no server paths."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import local_warehouse
from tests.support.paimon_procs import local_lake
from tests.support.procedures_lance_support import fails, make_table

HUGE = ["99999-01-01", "9999-12-31 23:59:59", "9" * 30, "253402300800000"]
PROCEDURES = ["expire_snapshots", "remove_orphan_files"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("errtexts") / "data").start()
    yield proc
    proc.stop()


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("older_than", HUGE)
def test_lance_huge_older_than_is_a_bad_argument(
    server: ServerProcess, tmp_path: Path, procedure: str, older_than: str
) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    code, message = fails(
        server,
        f"CALL {t.catalog}.sys.{procedure}(table => '{t.arg}', older_than => '{older_than}')",
    )
    assert code == 1108 and "argument 'older_than'" in message, message


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("older_than", HUGE)
def test_paimon_huge_older_than_is_a_bad_argument(
    server: ServerProcess, tmp_path: Path, procedure: str, older_than: str
) -> None:
    lake = local_lake(server, tmp_path)
    lake.create("db.t")
    lake.append("db.t", [{"id": 1, "item": "x", "qty": 1}])
    code, message = fails(
        server,
        f"CALL {lake.catalog}.sys.{procedure}(table => 'db.t', older_than => '{older_than}')",
    )
    assert code == 1108 and "argument 'older_than'" in message, message


def test_a_library_failure_names_no_server_path(server: ServerProcess, tmp_path: Path) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    shutil.rmtree(Path(t.uri.removeprefix("file://")) / "data")  # every data file is gone
    code, message = fails(server, f"CALL {t.catalog}.sys.compact(table => '{t.arg}')")
    assert code == 1105, message
    assert str(tmp_path) not in message and "/tmp" not in message and "<path>" in message, message
