"""A real JDBC program: MariaDB Connector/J (Debian's libmariadb-java) with default settings.

tests/jdbc/DrydockJdbcCheck.java is compiled with javac into tmp_path and run with java against a
server started here. It prints ``OK <check>`` or ``FAIL <check>: <detail>`` per check; every check
below must print OK. The checks: default-URL connect (Connector/J sends ``set autocommit=1,
sql_mode = concat(@@sql_mode, ...)``), product name/version, SELECT of several column types
(values and ResultSetMetaData types), executeUpdate affected rows, Statement.getWarnings() after
DROP TABLE IF EXISTS of a missing table, SHOW WARNINGS rows, SQLException code/SQLSTATE (1064
42000, 1105 HY000), client-side and server-side (useServerPrepStmts=true) PreparedStatements with
``it's`` and ``' OR '1'='1`` parameters, and DatabaseMetaData getCatalogs / getSchemas / getTables /
getColumns on a table the program created, and getTables / getColumns / SELECT on a Lance table of
an external catalog after ``USE catalog.db`` (the dataset is written here with pylance).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

JAR = Path("/usr/share/java/mariadb-java-client.jar")
SOURCE = Path(__file__).resolve().parents[1] / "jdbc" / "DrydockJdbcCheck.java"
INSTALL_HINT = "apt-get install default-jdk-headless libmariadb-java"
COMPILE_TIMEOUT_SECONDS = 120
RUN_TIMEOUT_SECONDS = 180

CHECKS = [
    "connect",
    "product_name_version",
    "select_types",
    "execute_update_affected_rows",
    "statement_get_warnings",
    "show_warnings_rows",
    "error_code_sqlstate",
    "prepared_client_side",
    "prepared_server_side",
    "metadata_get_catalogs",
    "metadata_get_schemas",
    "metadata_get_tables",
    "metadata_get_columns",
    "metadata_external_tables",
    "metadata_external_columns",
]


def _toolchain() -> tuple[str, str]:
    javac, java = shutil.which("javac"), shutil.which("java")
    missing = [name for name, path in (("javac", javac), ("java", java)) if path is None]
    if not JAR.exists():
        missing.append(str(JAR))
    if missing:
        pytest.skip(f"JDBC check needs {', '.join(missing)}: {INSTALL_HINT}")
    assert javac is not None and java is not None
    return javac, java


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    javac, java = _toolchain()
    out_dir = tmp_path_factory.mktemp("jdbc_classes")
    result = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(out_dir), str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, f"javac failed:\n{result.stdout}\n{result.stderr}"
    return java, out_dir


def _lance_table(server: ServerProcess, warehouse: Path) -> str:
    """A Lance catalog with one table (id BIGINT, cat VARCHAR, emb ARRAY<FLOAT>(4)):
    catalog.db.table."""
    import lance
    import pyarrow as pa

    values = pa.array([float(i) for i in range(12)], pa.float32())
    lance.write_dataset(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "cat": ["a", "b", "c"],
                "emb": pa.FixedSizeListArray.from_arrays(values, 4),
            }
        ),
        warehouse / "vec" / "items.lance",
    )
    server.query(
        f"CREATE CATALOG jdbc_lance PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
    )
    return "jdbc_lance.vec.items"


def test_jdbc_program_passes_every_check(
    compiled: tuple[str, Path], server: ServerProcess, tmp_path: Path
) -> None:
    java, classes = compiled
    external = _lance_table(server, tmp_path / "lance")
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{classes}",
            "DrydockJdbcCheck",
            server.host,
            str(server.port),
            external,
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )
    lines = result.stdout.splitlines()
    passed = {line[3:] for line in lines if line.startswith("OK ")}
    failed = [line for line in lines if line.startswith("FAIL ")]
    report = "\n".join(failed) + f"\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    assert not failed, report
    assert [c for c in CHECKS if c not in passed] == [], report
    assert result.returncode == 0, report
    assert "DONE failures=0" in lines, report


LOGIN_SOURCE = Path(__file__).resolve().parents[1] / "jdbc" / "DrydockJdbcLogin.java"


def test_jdbc_login_as_a_non_root_user(
    compiled: tuple[str, Path], server: ServerProcess, tmp_path: Path
) -> None:
    java, _ = compiled
    javac = shutil.which("javac")
    assert javac is not None
    out_dir = tmp_path / "login_classes"
    out_dir.mkdir()
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(out_dir), str(LOGIN_SOURCE)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_SECONDS,
    )
    assert built.returncode == 0, built.stderr
    for sql in [
        "CREATE DATABASE jdbc_priv",
        "CREATE TABLE jdbc_priv.allowed (a INT)",
        "CREATE TABLE jdbc_priv.denied (b INT)",
        "INSERT INTO jdbc_priv.allowed VALUES (1), (2)",
        "CREATE USER 'jdbc_user'@'%' IDENTIFIED BY 'jdbc-pw'",
        "GRANT SELECT_PRIV ON jdbc_priv.allowed TO 'jdbc_user'@'%'",
    ]:
        server.query(sql)
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{out_dir}",
            "DrydockJdbcLogin",
            server.host,
            str(server.port),
            "jdbc_user",
            "jdbc-pw",
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )
    lines = result.stdout.splitlines()
    assert lines == ["OK login-and-read", "OK denied", "OK bad-password"], (
        result.stdout + result.stderr[-2000:]
    )
    assert result.returncode == 0
