"""The PostgreSQL metadata-store URL's password never reaches a message, whatever shape the URL
has. Broke before the fix in engine/store/metastore_pg.py: a URL libpq cannot parse (a bad %-escape
in the password) made libpq echo the password's token, and the scrubber, which learns the password
by parsing the URL, had nothing to take out. The other shapes held; they are pinned here too."""

from __future__ import annotations

import pytest

from drydock.engine.store.metastore import MetadataStoreUnavailable

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')")
from drydock.engine.store.metastore_pg import PostgresStore, redact  # noqa: E402 - needs psycopg

PW = "Zq9-s3cr3t"
DSNS = [
    # broke: invalid percent-encoded token: "Zq9-s3cr3t%zz"
    f"postgresql://u:{PW}%zz@127.0.0.1:1/db",
    f"postgresql://u:%zz{PW}@127.0.0.1:1/db",
    f"postgresql://u:{PW}%@127.0.0.1:1/db",
    f"postgres://u:{PW}%4@127.0.0.1:1/db",
    f"postgresql://u:{PW}@127.0.0.1:1/db%zz",
    f"postgresql://u:{PW}@[::1/db",
    f"postgresql://u:{PW}@127.0.0.1:1/db?bogus=1",
    f"postgresql://u:{PW}@127.0.0.1:notaport/db",
    f"postgresql://u:{PW}@127.0.0.1:1/db?sslmode=bogus",
    f"postgresql://u@127.0.0.1:1/db?password={PW}&port=bad",
    f"postgresql://u@127.0.0.1:1/db?password={PW}%zz",
    f"host=127.0.0.1 port=1 password={PW} dbname=x",
    f"host=127.0.0.1 port=1 password='{PW} x' dbname=x",
    f"host=127.0.0.1 password={PW} port=bad",
    f"host=127.0.0.1 password='{PW}",
    f"host=127.0.0.1 password={PW} bogus=1",
]


@pytest.mark.parametrize("dsn", DSNS)
def test_no_url_shape_puts_the_password_in_the_error(dsn: str) -> None:
    with pytest.raises(MetadataStoreUnavailable) as info:
        PostgresStore(dsn)
    message = str(info.value)
    for fragment in (PW, PW[:-1], PW[1:], PW.replace("-", "%2D")):
        assert fragment not in message, message
    assert fragment not in redact(dsn)
    assert message.startswith("metadata store postgresql://")
