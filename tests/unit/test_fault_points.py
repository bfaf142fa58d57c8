"""engine/support/faults.py's POINTS lists exactly the pause points the engine calls."""

from __future__ import annotations

import ast
from pathlib import Path

from drydock.engine.support import faults

ROOT = Path(__file__).resolve().parents[2]


def _called_points() -> set[str]:
    points = set()
    for path in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if name == "pause_point" and isinstance(first, ast.Constant):
                points.add(first.value)
    return points


def test_points_lists_every_pause_point_the_engine_calls_and_no_other() -> None:
    called = _called_points()
    assert "during_procedure_delete" in called  # the scan sees calls (not vacuous)
    assert called == set(faults.POINTS)
    assert len(faults.POINTS) == len(set(faults.POINTS))
