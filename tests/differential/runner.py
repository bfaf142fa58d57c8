"""Runs one corpus case on a server, in a fresh database of its own, and shows two answers side
by side."""

from __future__ import annotations

from dataclasses import dataclass

from tests.differential.answers import Answer, connect, run
from tests.differential.corpus import Case


@dataclass(frozen=True)
class Outcome:
    setup_failure: str | None  # the first setup statement that failed, with its error
    answers: tuple[Answer, ...]  # one per checked statement


def run_case(address: tuple[str, int], case: Case) -> Outcome:
    database = f"diff_{case.name}"
    conn = connect(*address)
    try:
        for sql in (f"DROP DATABASE IF EXISTS {database}", f"CREATE DATABASE {database}"):
            _must(conn, sql)
        _must(conn, f"USE {database}")
        for sql in case.setup:
            answer = run(conn, sql)
            if answer.error is not None:
                return Outcome(f"{sql}\n  -> {answer.render()[0]}", ())
        answers = tuple(run(conn, sql) for sql in case.checked)
        run(conn, f"DROP DATABASE IF EXISTS {database}")
        return Outcome(None, answers)
    finally:
        conn.close()


def _must(conn: object, sql: str) -> None:
    answer = run(conn, sql)  # type: ignore[arg-type]
    if answer.error is not None:
        raise AssertionError(f"{sql}: {answer.render()[0]}")


def side_by_side(
    case: Case,
    expected: tuple[list[str], ...],
    actual: tuple[list[str], ...],
    width: int = 60,
) -> str:
    """Each checked statement with MySQL's expected answer left and drydock's right (each answer
    rendered as lines); a statement whose answers differ is marked ``!!``, a line ``!``."""
    out = [f"case {case.name} ({case.topic}.sql): {case.doc}"]
    for sql, left, right in zip(case.checked, expected, actual, strict=True):
        out.append(f"{'   ' if left == right else '!! '}{sql}")
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else ""
            b = right[i] if i < len(right) else ""
            out.append(f"      {a:<{width}}{' | ' if a == b else ' ! '}{b}")
    return "\n".join(out)
