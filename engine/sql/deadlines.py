"""max_execution_time: one daemon thread that interrupts statements past their deadline.

A statement with a time limit arms a deadline (:meth:`Deadlines.arm`) before DuckDB starts it and
cancels it when it ends. At the deadline the thread calls the statement's ``fire`` callback (which
interrupts the session's DuckDB cursor), then again every :data:`RETRY_SECONDS` while the deadline
is armed and ``fire`` asks for it: an interrupt that lands just before DuckDB begins a query is
lost (DuckDB clears the flag when a query starts), the next one is not.

One thread for every session (no thread per statement); cancelled deadlines are dropped from the
heap once they are the majority, so a server default of an hour with thousands of statements a
second keeps the heap at the number of statements running.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable


from drydock.engine.sql.savepoints import RecordingCursor
from drydock.engine.errors import DrydockError, Errors

logger = logging.getLogger(__name__)

RETRY_SECONDS = 0.1
_COMPACT_AT = 64  # heap entries before cancelled ones are worth dropping
_LONGEST_WAIT = 3600.0  # Condition.wait() overflows past threading.TIMEOUT_MAX


class Deadline:
    """One armed deadline; :meth:`cancel` is idempotent and safe from any thread."""

    __slots__ = ("_owner", "cancelled", "fire", "queued")

    def __init__(self, owner: Deadlines, fire: Callable[[], bool]):
        self._owner = owner
        self.fire = fire
        self.cancelled = False
        self.queued = False  # in the heap (guarded by the owner's lock)

    def cancel(self) -> None:
        self._owner._cancel(self)


class Deadlines:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._seq = itertools.count()
        self._cancelled = 0
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, fire: Callable[[], bool]) -> Deadline:
        """``fire()`` runs ``seconds`` from now on the deadlines thread, and again every
        RETRY_SECONDS while it returns True and the deadline is not cancelled."""
        deadline = Deadline(self, fire)
        with self._cond:
            self._push(time.monotonic() + max(seconds, 0.0), deadline)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="drydock-deadlines", daemon=True
                )
                self._thread.start()
        return deadline

    def pending(self) -> int:
        """Armed deadlines not cancelled (tests)."""
        with self._cond:
            return sum(1 for _, _, d in self._heap if not d.cancelled)

    def _push(self, when: float, deadline: Deadline) -> None:
        heapq.heappush(self._heap, (when, next(self._seq), deadline))
        deadline.queued = True
        if self._heap[0][2] is deadline:
            self._cond.notify()

    def _cancel(self, deadline: Deadline) -> None:
        with self._cond:
            if deadline.cancelled:
                return
            deadline.cancelled = True
            if not deadline.queued:
                return
            self._cancelled += 1
            if len(self._heap) >= _COMPACT_AT and self._cancelled * 2 > len(self._heap):
                for entry in self._heap:
                    entry[2].queued = not entry[2].cancelled
                self._heap = [entry for entry in self._heap if not entry[2].cancelled]
                heapq.heapify(self._heap)
                self._cancelled = 0

    def _wait(self, seconds: float) -> None:
        self._cond.wait(seconds)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                when, _, deadline = self._heap[0]
                now = time.monotonic()
                if deadline.cancelled:
                    heapq.heappop(self._heap)
                    deadline.queued = False
                    self._cancelled = max(self._cancelled - 1, 0)
                    continue
                if when > now:
                    self._wait(min(when - now, _LONGEST_WAIT))  # a limit of years: no overflow
                    continue
                heapq.heappop(self._heap)
                deadline.queued = False
            try:
                again = deadline.fire()
            except Exception:  # noqa: BLE001 - one statement's callback must not stop the thread
                logger.exception("deadline callback failed")
                again = False
            if again:
                with self._cond:
                    if not deadline.cancelled:
                        self._push(time.monotonic() + RETRY_SECONDS, deadline)


DEADLINES = Deadlines()


class SessionDeadline:
    """max_execution_time of one session's statements, on its DuckDB cursor: a part of
    QuerySession (engine/sql/query.py), which sets these in its __init__."""

    _cursor: RecordingCursor  # engine/sql/savepoints.py
    # the armed deadline of the running statement, and whether it fired (an InterruptException is
    # then 3024, not KILL QUERY's 1317)
    _deadline_lock: threading.Lock
    _deadline: Deadline | None
    _deadline_token: object
    _deadline_fired: bool

    def limit_time(self, milliseconds: int) -> None:
        """Interrupt this session's statement once it has run ``milliseconds`` (0: no limit);
        replaces any earlier limit. :meth:`end_time_limit` disarms it: a statement whose rows are
        fetched after :meth:`run` returns must keep it armed until its last row."""
        with self._deadline_lock:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._deadline_fired = False
            if milliseconds <= 0:
                return
            token = object()  # this statement's: a deadline popped just before it was cancelled
            self._deadline_token = token  # (the thread already holds it) must not fire on the next
            self._deadline = DEADLINES.arm(
                milliseconds / 1000, lambda: self._deadline_passed(token)
            )

    def end_time_limit(self) -> None:
        with self._deadline_lock:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

    def _deadline_passed(self, token: object) -> bool:
        """On the deadlines thread: interrupt, and keep interrupting (every 0.1 s) until the
        statement ends and disarms the deadline."""
        with self._deadline_lock:
            if self._deadline is None or self._deadline_token is not token:
                return False
            self._deadline_fired = True
            self._cursor.interrupt()
            return True

    def interrupted_error(self) -> DrydockError:
        """The error of a statement DuckDB reports as interrupted: 3024 when its max_execution_time
        passed, else KILL QUERY's 1317."""
        with self._deadline_lock:
            fired = self._deadline_fired
        return Errors.EXECUTION_TIME_EXCEEDED.error() if fired else Errors.QUERY_INTERRUPTED.error()
