"""One MariaDB 10.11 and one drydock for the whole differential session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ServerProcess
from tests.support.mariadb import mariadb_server

# MySQL 8's defaults, so MariaDB answers as MySQL 8 would where it can: its sql_mode, utf8mb4, UTC
# (drydock's session time zone). MariaDB 10.11 has no utf8mb4_0900_ai_ci; utf8mb4_general_ci is
# its case- and accent-insensitive utf8mb4 collation (names are mapped in differences.py).
MYSQL8_DEFAULTS = (
    "--sql-mode=ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
    "--character-set-server=utf8mb4",
    "--collation-server=utf8mb4_general_ci",
    "--default-time-zone=+00:00",
    "--explicit-defaults-for-timestamp=ON",
    "--default-storage-engine=InnoDB",
)


@pytest.fixture(scope="session")
def mariadb_address() -> Iterator[tuple[str, int]]:
    with mariadb_server(MYSQL8_DEFAULTS) as address:
        yield address


@pytest.fixture(scope="session")
def drydock_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("differential") / "data").start()
    yield proc.host, proc.port
    proc.stop()
