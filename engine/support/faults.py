"""Test-only fault injection: deterministic pause points for the crash matrix.

Off unless the test sets ``DRYDOCK_FAULT_PAUSE_AT`` in the server's environment. When execution
reaches the named point, the server writes ``DRYDOCK_FAULT_MARKER`` (a file path) and blocks that
thread forever, so the test can ``kill -9`` the server at exactly that instant.
"""

from __future__ import annotations

import os
import threading

POINTS = (
    "after_admission_commit",  # the job row is durable; the client has not got its JobId yet
    "between_prepare_and_mark_running",  # the dispatch is built; the job is still PENDING
    "between_mark_running_and_submit",  # RUNNING is durable; nothing was sent to a worker
    "during_refresh",  # refresh RUNNING is durable; the metadata refresh has not finished
    "during_resolve",  # RESOLVE validated everything; the FORCE_RELEASE CAS has not run
    "during_gc",  # retention deleted rows inside its transaction; not committed
    "during_procedure_delete",  # a procedure is about to delete files
)


def pause_point(name: str) -> None:
    if os.environ.get("DRYDOCK_FAULT_PAUSE_AT") != name:
        return
    marker = os.environ.get("DRYDOCK_FAULT_MARKER")
    if marker:
        with open(marker, "w") as fh:
            fh.write(name)
    threading.Event().wait()  # forever: the test kills the process
