"""sql_mode is stored as MySQL stores it: trimmed, upper-cased, no empty items, no duplicates,
combination modes expanded, canonical (bit) order; unknown modes are 1231."""

from __future__ import annotations

import pymysql
import pytest

from drydock.engine.errors import DrydockError
from drydock.engine.sql.session_variables import MYSQL_DEFAULT_SQL_MODE, normalize_sql_mode
from tests.conftest import ServerProcess


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("", ""),
        (",STRICT_TRANS_TABLES", "STRICT_TRANS_TABLES"),
        (
            "strict_trans_tables, ansi_quotes ,,STRICT_TRANS_TABLES,",
            "ANSI_QUOTES,STRICT_TRANS_TABLES",
        ),
        ("NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY", "ONLY_FULL_GROUP_BY,NO_ENGINE_SUBSTITUTION"),
        ("ANSI", "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI"),
        (
            "traditional",
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
            "ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION",
        ),
        (MYSQL_DEFAULT_SQL_MODE, MYSQL_DEFAULT_SQL_MODE),
        (0, ""),
        (4, "ANSI_QUOTES"),
        ((1 << 21) | 1, "REAL_AS_FLOAT,STRICT_TRANS_TABLES"),
    ],
)
def test_normalize(value: object, stored: str) -> None:
    assert normalize_sql_mode(value) == stored


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("NOT_A_MODE", "NOT_A_MODE"),
        ("ANSI_QUOTES,bogus", "BOGUS"),
        ("NO_AUTO_CREATE_USER", "NO_AUTO_CREATE_USER"),  # removed in MySQL 8.0
        (None, "NULL"),
        (1 << 4, "16"),
        (-1, "-1"),
    ],
)
def test_invalid_values_are_1231(value: object, shown: str) -> None:
    with pytest.raises(DrydockError) as err:
        normalize_sql_mode(value)
    assert err.value.code == 1231
    assert err.value.message == f"Variable 'sql_mode' can't be set to the value of '{shown}'"


def test_concat_onto_an_empty_sql_mode(shared_server: ServerProcess) -> None:
    """MariaDB Connector/J's ``concat(@@sql_mode, ',STRICT_TRANS_TABLES')`` after ``SET sql_mode =
    ''``."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET sql_mode = ''")
        cur.execute("SET sql_mode = concat(@@sql_mode, ',STRICT_TRANS_TABLES')")
        cur.execute("SELECT @@sql_mode")
        assert cur.fetchall() == (("STRICT_TRANS_TABLES",),)
        cur.execute("SET SESSION sql_mode = 'no_engine_substitution,ansi_quotes,ANSI_QUOTES'")
        cur.execute("SELECT @@session.sql_mode")
        assert cur.fetchall() == (("ANSI_QUOTES,NO_ENGINE_SUBSTITUTION",),)
        with pytest.raises(pymysql.err.MySQLError) as err:
            cur.execute("SET sql_mode = 'ANSI_QUOTES,NOPE'")
        assert err.value.args == (1231, "Variable 'sql_mode' can't be set to the value of 'NOPE'")
        cur.execute("SELECT @@sql_mode")
        assert cur.fetchall() == (("ANSI_QUOTES,NO_ENGINE_SUBSTITUTION",),)  # unchanged
        cur.execute("SET sql_mode = DEFAULT")
        cur.execute("SELECT @@sql_mode")
        assert cur.fetchall() == ((MYSQL_DEFAULT_SQL_MODE,),)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("PIPES_AS_CONCAT", "PIPES_AS_CONCAT"),
        ("ansi", "ANSI"),
        ("STRICT_TRANS_TABLES,HIGH_NOT_PRECEDENCE", "HIGH_NOT_PRECEDENCE"),
        (2, "PIPES_AS_CONCAT"),
    ],
)
def test_modes_drydock_does_not_honour_are_refused_and_never_set(
    shared_server: ServerProcess, value: object, shown: str
) -> None:
    """``||`` as CONCAT and a high-precedence NOT change what a statement means and drydock reads
    the default meaning: SET refuses them (1231, as MySQL refuses bad values) instead of showing
    a mode the statements do not follow."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
        with pytest.raises(pymysql.err.MySQLError) as err:
            cur.execute("SET sql_mode = %s", (value,))
        assert err.value.args == (
            1231,
            f"Variable 'sql_mode' can't be set to the value of '{shown}' "
            f"(drydock does not implement sql_mode {shown})",
        )
        cur.execute("SELECT @@sql_mode")
        assert cur.fetchall() == (("STRICT_TRANS_TABLES",),)


@pytest.mark.parametrize(
    "value",
    [
        "STRICT_TRANS_TABLES",
        "NO_ENGINE_SUBSTITUTION",
        "TRADITIONAL",
        "",
        MYSQL_DEFAULT_SQL_MODE,
        "STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO",
        "NO_BACKSLASH_ESCAPES",
        "ANSI_QUOTES",
        "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES",
    ],
)
def test_what_clients_set_at_connect_is_accepted(shared_server: ServerProcess, value: str) -> None:
    """Django's init_command, Laravel's strict/non-strict modes, Rails' STRICT_ALL_TABLES /
    NO_AUTO_VALUE_ON_ZERO, Connector/J's STRICT_TRANS_TABLES, and the two text modes."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET sql_mode = %s", (value,))
        cur.execute("SELECT @@sql_mode")
        assert cur.fetchall() == ((normalize_sql_mode(value),),)
