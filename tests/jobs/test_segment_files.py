"""A failed distributed build's uncommitted segment folders are removed — exactly those — and a
merged segment's folder is moved to the job's uuid, on local disk and on object storage (a moto S3
server on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from drydock.engine.jobs.runtime.segment_files import (
    can_relocate,
    relocate_segment,
    remove_segments,
)
from tests.support.s3 import S3Server


def test_local_segment_folders_of_the_build_go_and_nothing_else(tmp_path: Path) -> None:
    indices = tmp_path / "t.lance" / "_indices"
    for name in ("seg-a", "seg-b", "committed"):
        (indices / name).mkdir(parents=True)
        (indices / name / "index.idx").write_bytes(b"x")
    left = remove_segments(
        str(tmp_path / "t.lance"), {}, ["seg-a", "seg-b", "never-written", "../escape", ""]
    )
    assert left == []
    assert sorted(p.name for p in indices.iterdir()) == ["committed"]
    assert (
        tmp_path.exists()
    )  # a uuid with a path separator is not a segment: nothing outside _indices


def test_segment_folders_on_object_storage_are_removed_with_the_catalog_credentials(
    s3: S3Server,
) -> None:  # noqa: F811
    bucket = s3.make_bucket("segments")
    client = s3.client()
    for key in (
        "wh/db/t.lance/_indices/seg-a/part-0.idx",
        "wh/db/t.lance/_indices/seg-a/part-1.idx",
        "wh/db/t.lance/_indices/seg-b/index.idx",
        "wh/db/t.lance/_indices/committed/index.idx",
        "wh/db/t.lance/data/0.lance",
    ):
        client.put_object(Bucket=bucket, Key=key, Body=b"x")
    left = remove_segments(
        f"s3://{bucket}/wh/db/t.lance", s3.lance_storage_options, ["seg-a", "seg-b", "nope"]
    )
    assert left == []
    # pyarrow keeps an emptied "directory" as a zero-byte marker object ("…/_indices/"); lance lists
    # around it (cleanup and index builds were checked with one in place)
    keys = sorted(
        o["Key"]
        for o in client.list_objects_v2(Bucket=bucket)["Contents"]
        if not o["Key"].endswith("/")
    )
    assert keys == ["wh/db/t.lance/_indices/committed/index.idx", "wh/db/t.lance/data/0.lance"]


def test_wrong_credentials_leave_the_folders_and_say_which(s3: S3Server) -> None:  # noqa: F811
    bucket = s3.make_bucket("segments-denied")
    s3.client().put_object(Bucket=bucket, Key="t.lance/_indices/seg-a/index.idx", Body=b"x")
    options = {
        **s3.lance_storage_options,
        "aws_endpoint": "http://127.0.0.1:1",
    }  # nothing listens there
    assert remove_segments(f"s3://{bucket}/t.lance", options, ["seg-a"]) == ["seg-a"]


def test_local_merged_folder_replaces_the_job_uuid_folder(tmp_path: Path) -> None:
    indices = tmp_path / "t.lance" / "_indices"
    for name, body in (("job", b"segment 0"), ("merged", b"merged"), ("other", b"x")):
        (indices / name).mkdir(parents=True)
        (indices / name / "index.idx").write_bytes(body)
    relocate_segment(str(tmp_path / "t.lance"), {}, "merged", "job")
    assert sorted(p.name for p in indices.iterdir()) == ["job", "other"]
    assert (indices / "job" / "index.idx").read_bytes() == b"merged"
    with pytest.raises(ValueError):
        relocate_segment(str(tmp_path / "t.lance"), {}, "other", "../escape")
    assert can_relocate(str(tmp_path)) and can_relocate("s3://b/t.lance")
    assert not can_relocate("gs://b/t.lance")


def test_merged_folder_on_object_storage_is_copied_to_the_job_uuid(s3: S3Server) -> None:
    bucket = s3.make_bucket("segments-relocate")
    client = s3.client()
    for key, body in (
        ("t.lance/_indices/job/index.idx", b"segment 0"),
        ("t.lance/_indices/job/stale.idx", b"segment 0 only"),
        ("t.lance/_indices/merged/index.idx", b"merged"),
        ("t.lance/_indices/merged/auxiliary.idx", b"aux"),
    ):
        client.put_object(Bucket=bucket, Key=key, Body=body)
    relocate_segment(f"s3://{bucket}/t.lance", s3.lance_storage_options, "merged", "job")
    keys = sorted(
        o["Key"]
        for o in client.list_objects_v2(Bucket=bucket)["Contents"]
        if not o["Key"].endswith("/")
    )
    assert keys == ["t.lance/_indices/job/auxiliary.idx", "t.lance/_indices/job/index.idx"]
    body = client.get_object(Bucket=bucket, Key="t.lance/_indices/job/index.idx")["Body"].read()
    assert body == b"merged"
