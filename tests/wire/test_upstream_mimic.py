"""The installed mysql-mimic 3.0.5 still has the defects drydock works around.

Each test pins one upstream defect with the library's own code (no server). If one of these starts
failing, upstream fixed that defect and the named workaround can go.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
import sqlglot
from mysql_mimic import packets, types
from mysql_mimic.connection import Connection
from mysql_mimic.constants import KillKind
from mysql_mimic.errors import MysqlError
from mysql_mimic.intercept import expression_to_value
from mysql_mimic.prepared import PreparedStatement
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.stream import MysqlStream
from mysql_mimic.types import Capabilities, ColumnType

from drydock.server.stmt_commands import PreparedStatement as DrydockStatement
from drydock.server.stmt_commands import prepare_response
from tests.support.wire_fakes import RecordingStream, result_writer

PROTO = Capabilities.CLIENT_PROTOCOL_41
DEPRECATE_EOF = PROTO | Capabilities.CLIENT_DEPRECATE_EOF


def _upstream(capabilities: Capabilities) -> Connection:
    """mysql-mimic's Connection, built by its constructor, for its packet-building methods (no
    socket; a session with only what they read)."""
    session = SimpleNamespace(variables=SimpleNamespace(get=lambda name: "utf8mb4"))
    conn = Connection(stream=None, session=session, control=None, identity_provider=None)  # type: ignore[arg-type]
    conn.capabilities = capabilities
    return conn


def test_upstream_read_str_null_loops_forever_without_nul() -> None:
    """If this starts failing, upstream fixed it; the workaround in server/wire.py can go.

    The compiled reader never returns on a string with no NUL terminator: one such handshake
    response froze the whole server. Run in a subprocess that is killed after 3 s."""
    code = "import io; from mysql_mimic import types; types.read_str_null(io.BytesIO(b'abc'))"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", code], timeout=3, capture_output=True)


def test_upstream_prepared_parameters_are_pasted_into_sql() -> None:
    """If this starts failing, upstream fixed it; the workaround in server/prepared.py can go."""
    literal = packets._encode_param_as_sql("x' OR '1'='1")  # noqa: SLF001
    assert literal == "'x' OR '1'='1'"  # the quote ends the literal: SQL injection
    where = sqlglot.parse_one(f"SELECT * FROM t WHERE b = {literal}", read="mysql").args["where"]
    assert isinstance(where.this, sqlglot.exp.Or)
    with pytest.raises(re.error, match="invalid group reference"):  # and a backslash breaks re.sub
        packets.REGEX_PARAM.sub(packets._encode_param_as_sql("a\\1b"), "SELECT ?", 1)  # noqa: SLF001


def test_upstream_prepare_response_sends_eof_despite_deprecate_eof() -> None:
    """If this starts failing, upstream fixed it; prepare_response in server/stmt_commands.py can
    go."""
    stmt = PreparedStatement(stmt_id=1, sql="SELECT ?", num_params=1)
    upstream = list(_upstream(DEPRECATE_EOF).com_stmt_prepare_response(stmt))
    assert upstream[-1][:1] == b"\xfe" and len(upstream[-1]) == 5  # an EOF the client must not get
    ours_stmt = DrydockStatement(stmt_id=1, sql="SELECT ?", num_params=1)
    ours = list(prepare_response(result_writer(DEPRECATE_EOF), ours_stmt))
    assert len(ours) == 2 and ours[-1].startswith(b"\x03def")
    classic = list(prepare_response(result_writer(PROTO), ours_stmt))
    assert classic[-1][:1] == b"\xfe"


def test_upstream_end_of_rows_carries_the_row_count() -> None:
    """If the upstream case starts failing, upstream fixed it; ResultWriter.end_of_rows in
    server/result_writer.py can go. (MariaDB Connector/J 2.x crashes on the non-zero value.)"""
    rows = ResultSet(rows=[(1,), (2,), (3,)], columns=[ResultColumn("a", ColumnType.LONGLONG)])
    upstream = _upstream(DEPRECATE_EOF)
    upstream.stream = RecordingStream()  # type: ignore[assignment]
    asyncio.run(upstream.write_text_resultset(rows))
    ours = result_writer(DEPRECATE_EOF)
    asyncio.run(ours.write_text_resultset(rows))
    for conn, affected in ((upstream, 3), (ours, 0)):
        last = conn.stream.packets[-1]  # type: ignore[attr-defined]
        assert last[:1] == b"\xfe"
        assert last[1] == affected  # affected_rows, a length-encoded integer


def test_upstream_handshake_says_autocommit_is_off() -> None:
    """If this starts failing, upstream fixed issue #79; ResultWriter.base_status
    (server/result_writer.py) can go."""
    conn = Connection(stream=None, session=None, control=None, identity_provider=None)  # type: ignore[arg-type]
    assert conn.status_flags == types.ServerStatus(0)


def test_upstream_kill_query_cancels_an_idle_connection() -> None:
    """If this starts failing, upstream fixed it: DrydockConnection.kill keeps an idle
    connection."""

    async def scenario() -> bool:
        conn = _upstream(PROTO)
        conn._task = asyncio.create_task(asyncio.sleep(30))  # an idle connection waiting to read
        await asyncio.sleep(0)
        Connection.kill(conn, KillKind.QUERY)
        try:
            await conn._task
        except asyncio.CancelledError:
            return True  # the whole connection task was cancelled: the connection drops
        return False

    assert asyncio.run(scenario())


def test_upstream_stream_read_fails_on_a_split_header() -> None:
    """If this starts failing, upstream fixed it; wire.PacketStream's read() can go."""

    async def scenario() -> None:
        reader = asyncio.StreamReader()
        stream = MysqlStream(reader, None)  # type: ignore[arg-type]
        reader.feed_data(b"\x05\x00")  # the first two bytes of a header; the rest comes later
        await stream.read()

    with pytest.raises(Exception) as broken:  # struct.error: 'unpack requires a buffer of 4 bytes'
        asyncio.run(asyncio.wait_for(scenario(), 3))
    assert "4 bytes" in str(broken.value)


def test_upstream_set_rejects_computed_values() -> None:
    """If this starts failing, upstream fixed it; DrydockSession._set_variable can go."""
    expression = sqlglot.parse_one(
        "SET sql_mode = concat(@@sql_mode, ',STRICT_TRANS_TABLES')", read="mysql"
    )
    value = expression.expressions[0].this.right
    with pytest.raises(MysqlError) as rejected:
        expression_to_value(value)
    assert rejected.value.code == 1235


def test_upstream_ok_packet_has_no_info_string() -> None:
    """make_ok has no info parameter and ends after the warning count: an UPDATE's OK would carry
    no ``Rows matched: …`` (mysql2's changedRows 0, mysqli->info NULL). Worked around by
    server/result_writer.py with_info, which appends it length-encoded as MySQL's server does."""
    from drydock.server.result_writer import with_info

    ok = packets.make_ok(PROTO, types.ServerStatus(0), affected_rows=1)
    assert ok == b"\x00\x01\x00\x00\x00\x00\x00"  # header, rows, id, status, warnings: nothing more
    info = "Rows matched: 1  Changed: 1  Warnings: 0"
    assert with_info(ok, info, PROTO) == ok + bytes([len(info)]) + info.encode()
