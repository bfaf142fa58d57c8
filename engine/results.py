"""What every command returns: columns + rows, or an OK with affected rows; plus warnings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Diagnostic:
    """One row of SHOW WARNINGS: level is 'Note', 'Warning' or 'Error'."""

    level: str
    code: int
    message: str


@dataclass
class Result:
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    affected_rows: int = 0
    warnings: list[Diagnostic] = field(default_factory=list)
    # Column types by name, for columns whose type must not be inferred from the first value
    # (e.g. an all-NULL column). Values are mysql_mimic ColumnType names.
    column_types: dict[str, str] = field(default_factory=dict)
    # Per column (by position), where it comes from (engine/result_origins.py Origin), for the
    # schema/table/org_table/org_name of MySQL's column definitions; empty when unknown.
    column_origins: list[Any] = field(default_factory=list)
    # The first AUTO_INCREMENT value an INSERT generated (the OK packet's last_insert_id), and
    # FOUND_ROWS() of a SELECT SQL_CALC_FOUND_ROWS with a LIMIT (engine/statement_info.py).
    last_insert_id: int = 0
    found_rows: int | None = None

    @property
    def is_result_set(self) -> bool:
        return bool(self.columns)

    @staticmethod
    def ok(affected_rows: int = 0, warnings: list[Diagnostic] | None = None,
           last_insert_id: int = 0) -> Result:
        return Result(affected_rows=affected_rows, warnings=list(warnings or []),
                      last_insert_id=last_insert_id)
