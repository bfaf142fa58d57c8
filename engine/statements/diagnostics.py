"""SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*) WARNINGS|ERRORS: read the diagnostics area.

These are MySQL's diagnostic statements: they do not clear the area themselves, and their own
result reports zero warnings.
"""

from __future__ import annotations

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.statements.registry import handles


@handles(ast.ShowDiagnostics)
def show_diagnostics(engine: Engine, stmt: ast.ShowDiagnostics, ctx: SessionContext) -> Result:
    conditions = [d for d in ctx.diagnostics if d.level == "Error" or not stmt.errors_only]
    if stmt.count_only:
        name = "@@session.error_count" if stmt.errors_only else "@@session.warning_count"
        return Result(columns=[name], rows=[(len(conditions),)], column_types={name: "BIGINT"})
    if stmt.limit is not None:
        conditions = conditions[stmt.offset : stmt.offset + stmt.limit]
    return Result(
        columns=["Level", "Code", "Message"],
        rows=[(d.level, d.code, d.message) for d in conditions],
        column_types={"Level": "VARCHAR", "Code": "INTEGER", "Message": "VARCHAR"},
    )
