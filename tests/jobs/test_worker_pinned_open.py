"""Issue 27: how the worker labels a pinned version it cannot open.

STALE_ADMISSION only when a read-only open of the latest version observes a strictly newer version
than the pinned one; otherwise RESOURCE_REJECTED, and either way the Message carries the saved
open error (secrets masked), so the user and operator can tell why.
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import lance

from drydock.engine.jobs.control.backend import Dispatch
from drydock.engine.jobs.control.states import ResultCode
from drydock.engine.jobs.worker import execute, open_error_text, pinned_open_failed
from tests.support.lance_fixtures import vector_table


def dispatch(uri: str, admitted_version: int, **options: str) -> Dispatch:
    return Dispatch(
        job_id=7,
        invocation_id=uuid.uuid4().hex,
        operation="CREATE",
        uri=uri,
        storage_options=dict(options),
        admitted_version=admitted_version,
        index_name="idx",
        index_uuid=str(uuid.uuid4()),
        column="id",
        spec={"using": "BTREE", "index_type": "BTREE", "params": {}},
        schema_contract={"version": 1, "fields": []},
        max_num_partitions=4096,
        max_num_sub_vectors=256,
        wall_clock_seconds=60.0,
    )


def test_a_pinned_version_cleaned_away_after_newer_ones_is_stale_with_the_open_error(
    tmp_path: Path,
) -> None:
    uri = str(tmp_path / "t.lance")
    lance.write_dataset(vector_table(10), uri)
    lance.write_dataset(vector_table(5), uri, mode="append")
    lance.dataset(uri).cleanup_old_versions(older_than=dt.timedelta(0))
    result = execute(dispatch(uri, 1))
    assert result is not None
    assert result.code is ResultCode.PRE_INVOCATION_STALE_ADMISSION
    assert result.external_metadata_advanced
    assert result.message.startswith(
        "admitted version 1 could not be opened and version 2 exists: "
    )
    assert len(result.message) > len(
        "admitted version 1 could not be opened and version 2 exists: "
    )


def test_no_newer_version_is_resource_rejected_with_the_saved_open_error(tmp_path: Path) -> None:
    uri = str(tmp_path / "t.lance")
    lance.write_dataset(vector_table(10), uri)  # only version 1: a pinned 3 is not superseded
    result = execute(dispatch(uri, 3))
    assert result is not None
    assert (result.code, result.external_metadata_advanced) == (
        ResultCode.PRE_INVOCATION_RESOURCE_REJECTED,
        False,
    )
    assert result.message.startswith("admitted version 3 could not be opened (latest is 1): ")
    missing = execute(dispatch(str(tmp_path / "none.lance"), 1))  # latest unreadable too
    assert missing is not None and missing.code is ResultCode.PRE_INVOCATION_RESOURCE_REJECTED
    assert missing.message.startswith(
        "admitted version 1 could not be opened (the latest version could not be opened): "
    )
    assert "none.lance" in missing.message  # the library's own text, saved
    assert ".rs:" not in missing.message  # without lance's source locations


def test_the_verdict_table_and_the_saved_error_are_masked() -> None:
    d = dispatch("s3://bucket/t.lance", 5, aws_secret_access_key="hunter2secret")
    for latest, code in [
        (None, ResultCode.PRE_INVOCATION_RESOURCE_REJECTED),
        (4, ResultCode.PRE_INVOCATION_RESOURCE_REJECTED),
        (5, ResultCode.PRE_INVOCATION_RESOURCE_REJECTED),  # equal is not strictly newer
        (6, ResultCode.PRE_INVOCATION_STALE_ADMISSION),
    ]:
        assert pinned_open_failed(d, latest, "E").code is code
    text = open_error_text(
        d, OSError("denied with key hunter2secret at https://user:pw123@host/x\n" + "y" * 2000)
    )
    assert "hunter2secret" not in text and "pw123" not in text and "\n" not in text
    assert text.startswith("OSError: denied with key *** at https://") and len(text) <= 512
