"""The corpus: ``corpus/<topic>.sql`` files that read as documentation of what MySQL answers.

A file holds cases; each starts with a ``-- name: <case>`` line, then comment lines saying what it
shows, then statements. Statements before a ``-- check:`` line are setup (they must succeed on
both servers; their answers are not compared); every statement after it is compared. A case with
no ``-- check:`` line compares every statement. Statements are split by ``grammar/lexer.py``, the
one reader of MySQL text. Example::

    -- name: insert_multi_row_info
    -- A multi-row INSERT answers affected rows and the "Records: …" info string.
    CREATE TABLE t (id INT PRIMARY KEY);
    -- check:
    INSERT INTO t VALUES (1), (2);
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drydock.grammar.lexer import split_statements, statement_text

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
_NAME = "-- name:"
_CHECK = "-- check:"


@dataclass(frozen=True)
class Case:
    name: str
    topic: str  # the corpus file's stem
    doc: str
    setup: tuple[str, ...]
    checked: tuple[str, ...]


def _statements(text: str) -> tuple[str, ...]:
    parts = (statement_text(part) for part in split_statements(text))
    return tuple(part.rstrip(";").strip() for part in parts if part.strip())


def _case(topic: str, name: str, lines: list[str]) -> Case:
    doc_lines, first = [], 0
    for first, line in enumerate(lines + [""]):  # noqa: B007  # `first` is used after the loop
        if line.strip() and (not line.startswith("--") or line.startswith(_CHECK)):
            break
        doc_lines.append(line.removeprefix("--").strip())
    body = lines[first:]
    markers = [i for i, line in enumerate(body) if line.strip() == _CHECK]
    if len(markers) > 1:
        raise ValueError(f"{topic}.sql case {name}: more than one {_CHECK} line")
    cut = markers[0] if markers else 0
    setup = _statements("\n".join(body[:cut]))
    checked = _statements("\n".join(body[cut + 1 if markers else 0 :]))
    if not checked:
        raise ValueError(f"{topic}.sql case {name}: no statement to compare")
    return Case(name, topic, " ".join(d for d in doc_lines if d), setup, checked)


def load_corpus(directory: Path = CORPUS_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(directory.glob("*.sql")):
        name: str | None = None
        lines: list[str] = []
        for line in path.read_text().splitlines() + [_NAME + " <end>"]:
            if line.startswith(_NAME):
                if name is not None:
                    cases.append(_case(path.stem, name, lines))
                name, lines = line.removeprefix(_NAME).strip(), []
            elif name is not None:
                lines.append(line)
    names = [c.name for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"corpus case names used twice: {sorted(duplicates)}")
    return cases
