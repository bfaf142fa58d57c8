"""Table of contents: each statement object and the function that executes it.

One module per statement family; every handler has the same shape —
authorize → validate → execute → Result (rows + warnings).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import ast
from engine.statements import admin_config, diagnostics, session_control

Handler = Callable[[Any, Any, Any], Any]

HANDLERS: dict[type[ast.Statement], Handler] = {
    ast.AdminSetFrontendConfig: admin_config.admin_set_frontend_config,
    ast.AdminShowFrontendConfig: admin_config.admin_show_frontend_config,
    ast.ShowDiagnostics: diagnostics.show_diagnostics,
    ast.Kill: session_control.kill,
}

# Statements answered on the event loop (cheap, no I/O); everything else runs in a worker thread.
INLINE = (ast.ShowDiagnostics, ast.Kill)
