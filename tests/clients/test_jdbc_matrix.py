"""The JDBC row of the client matrix: tests/jdbc/DrydockJdbcMatrix.java (MariaDB Connector/J, the
jar Debian's libmariadb-java installs) run against one server. Checks: result metadata (getScale,
getPrecision, getTableName, getColumnName, VARCHAR), server-side PreparedStatement.getMetaData()
before execute, setMaxRows (SQL_SELECT_LIMIT), getWarnings, setBytes round trip, 1062 as
SQLIntegrityConstraintViolationException, 1146 as SQLSyntaxErrorException, allowMultiQueries,
getPrimaryKeys / getIndexInfo, and getCatalogs listing a Lance database as ``catalog.db`` that
setCatalog, getTables, getColumns and a query then use, and getTables/getColumns naming that
database as the catalog from the internal catalog."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

JAR = Path("/usr/share/java/mariadb-java-client.jar")
SOURCE = Path(__file__).resolve().parent.parent / "jdbc" / "DrydockJdbcMatrix.java"
CHECKS = [
    "result_metadata",
    "declared_column_metadata",
    "set_max_rows",
    "get_warnings",
    "set_bytes",
    "duplicate_key_is_integrity_violation",
    "unknown_table_is_syntax_error_class",
    "get_primary_keys",
    "get_index_info",
    "prepared_metadata_before_execute",
    "allow_multi_queries",
    "get_catalogs_lists_external_databases",
    "get_tables_with_the_catalog_named",
]


def _lance_database(server: ServerProcess, warehouse: Path) -> str:
    """A Lance catalog with one table ``items`` (2 rows): its ``catalog.db`` name."""
    import lance
    import pyarrow as pa

    lance.write_dataset(
        pa.table({"id": pa.array([1, 2], pa.int64())}), warehouse / "vec" / "items.lance"
    )
    server.query(
        f"CREATE CATALOG jm_lance PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
    )
    return "jm_lance.vec"


def test_connector_j_passes_every_matrix_check(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None or not JAR.exists():
        pytest.skip(
            f"needs javac, java and {JAR} (.ci/run installs default-jdk-headless libmariadb-java)"
        )
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(SOURCE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    lance_db = _lance_database(shared_server, tmp_path / "lance")
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{tmp_path}",
            "DrydockJdbcMatrix",
            shared_server.host,
            str(shared_server.port),
            lance_db,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )
    lines = result.stdout.splitlines()
    report = f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    assert [line for line in lines if line.startswith("FAIL ")] == [], report
    assert [c for c in CHECKS if f"OK {c}" not in lines] == [], report
    assert "DONE failures=0" in lines and result.returncode == 0, report
