"""Installing drydock adds one top-level name to site-packages: ``drydock``, with the repository's
folders under it (setup.py) — never generic top-level modules named engine, server or grammar."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_one_top_level_name_with_the_folders_under_it(tmp_path: Path) -> None:
    # built from a copy of the tracked files: setuptools writes build/ and *.egg-info where it
    # builds
    source = tmp_path / "src"
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path / "wheel"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = out.glob("drydock-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"drydock"}
    for expected in (
        "drydock/engine/core.py",
        "drydock/server/cli.py",
        "drydock/grammar/drydock.lark",
        "drydock/engine/jobs/worker.py",
        "drydock/regression/runner.py",
    ):
        assert expected in names, expected
    assert not any(n.startswith(("drydock/tests/", "drydock/bench/")) for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "drydock = drydock.server.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
