"""The repository's prose stands on its own: nothing cites a document outside the repository, and
every repository path that comments, docstrings, docs and the README mention exists.

Both checks read every text file of the repository (product code, tests, docs, README, scripts,
CI), skipping only tool and cache directories and the paths in
:data:`PENDING_MERGE_EXCLUSIONS`. Each check is also run on planted files, so a scanner that
matches nothing fails.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Files other branches are cleaning at the same time; empty this set once they are merged.
PENDING_MERGE_EXCLUSIONS: frozenset[str] = frozenset()

# Directories that hold tools' output or installed packages, never the project's own text.
NOT_PROJECT_TEXT = frozenset(
    {
        ".git",
        ".venv",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "drydock.egg-info",
        "build",
        "dist",
    }
)

SECTION = "\u00a7"  # spelled as an escape so this file does not match its own patterns
# A citation of something that is not in this repository: a section sign (documents here are
# cited by path, not by section number), a path that climbs out of the repository to a markdown
# document, the shared workspace's documents, or the design/style notes kept outside it.
OUTSIDE_CITATIONS = re.compile(
    SECTION
    + r"|\.\./[\w./-]*\.md\b"
    + r"|\.\./shared\b"
    + r"|\bshared/(?:reference|DESIGN|STYLE)\b"
    + r"|\b(?:DESIGN|STYLE)\.md\b"
)

# A repository path in prose: starts at a top-level folder, names a .py/.md/.lark file; a ``*``
# is a glob that must match at least one file.
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:engine|server|grammar|tests|regression|bench|docs|scripts)/[\w/.*-]*?"
    r"\.(?:py|md|lark))(?!\w)"
)


def _excluded(relative: str) -> bool:
    return any(
        relative == p or (p.endswith("/") and relative.startswith(p))
        for p in PENDING_MERGE_EXCLUSIONS
    )


def _text_files(root: Path) -> Iterator[tuple[str, str]]:
    """(path relative to ``root``, text) of every text file under ``root``."""
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_PROJECT_TEXT)
        for name in sorted(files):
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            if _excluded(relative):
                continue
            data = path.read_bytes()
            if b"\0" in data:
                continue  # binary
            try:
                yield relative, data.decode("utf-8")
            except UnicodeDecodeError:
                continue  # binary


def _prose(relative: str, text: str) -> str:
    """What a reader reads as prose: comments and docstrings of Python files (strings in code are
    data, e.g. paths of a planted test tree), the whole text of anything else."""
    if not relative.endswith(".py"):
        return text
    parts = [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            parts.append(node.value.value)
    return "\n".join(parts)


def outside_citations(root: Path) -> list[str]:
    """``path:line: text`` of every line under ``root`` that cites a document outside it."""
    found = []
    for relative, text in _text_files(root):
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE_CITATIONS.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def missing_paths(root: Path) -> list[str]:
    """``file: path`` for every repository path mentioned in prose under ``root`` that is not
    there."""
    found = []
    for relative, text in _text_files(root):
        if not relative.endswith(
            (".py", ".md", ".lark", ".toml", ".sh", ".cfg", ".txt")
        ) and not relative.startswith(("scripts/", ".ci/")):
            continue
        for match in REPO_PATH.finditer(_prose(relative, text)):
            mentioned = match.group(1)
            exists = any(root.glob(mentioned)) if "*" in mentioned else (root / mentioned).exists()
            if not exists:
                found.append(f"{relative}: {mentioned}")
    return found


def test_the_scan_reads_the_whole_repository() -> None:
    read = {relative for relative, _text in _text_files(ROOT)}
    for expected in (
        "README.md",
        "pyproject.toml",
        "engine/errors.py",
        "server/wire.py",
        "docs/upstream-facts.md",
        "tests/unit/test_repo_text.py",
        "scripts/test",
    ):
        assert expected in read
    assert len(read) > 300
    assert not any(_excluded(r) for r in read)


def test_nothing_cites_documents_outside_the_repository() -> None:
    assert outside_citations(ROOT) == []


def test_every_mentioned_repository_path_exists() -> None:
    assert missing_paths(ROOT) == []


@pytest.mark.parametrize(
    "citation",
    [
        "see the design notes (" + ".." + "/shared/" + "DES" + "IGN.md)",
        "the handshake hangs (reference: mysql-mimic facts " + SECTION + "4)",
        "(reference " + SECTION + "3)",
        "README: `" + ".." + "/shared/" + "reference/doris.md`",
        "documented in " + "STYLE" + ".md",
        "measured in ../notes/" + "facts.md",
    ],
)
def test_a_planted_outside_citation_is_found(tmp_path: Path, citation: str) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "clean.py").write_text('"""Facts: docs/upstream-facts.md."""\n')
    (tmp_path / "engine" / "cited.py").write_text(f"x = 1\n# {citation}\n")
    assert outside_citations(tmp_path) == [f"engine/cited.py:2: # {citation}"]


def test_a_planted_missing_path_is_found_in_comments_docstrings_and_docs(tmp_path: Path) -> None:
    (tmp_path / "engine" / "sql").mkdir(parents=True)
    (tmp_path / "engine" / "sql" / "query.py").write_text(
        '"""Moved from engine/query.py; see engine/sql/query.py."""\n'
        "# the tests: tests/sql/test_q*.py\n"
        'PLANTED = "engine/not_prose.py"  # a string in code is data, not a mention\n'
    )
    (tmp_path / "README.md").write_text("Start at `server/app.py` and engine/sql/query.py.\n")
    assert missing_paths(tmp_path) == [
        "README.md: server/app.py",
        "engine/sql/query.py: tests/sql/test_q*.py",
        "engine/sql/query.py: engine/query.py",
    ]
