"""Group commit for admissions: requests waiting at the same moment share one transaction and fsync.

Leader/follower: a submitter that finds no write under way becomes the writer, takes the whole
queue, writes it (one ``BEGIN IMMEDIATE … COMMIT``), marks every request of the batch done and
wakes the others; requests that arrived meanwhile form the next batch, whose first waiter to wake
writes it. No timer and no extra thread: with one client a batch is one request, written at once.

``write`` settles each request itself (a result or its own error), so one failing row never fails
the others; a request ``write`` left unsettled is answered with an internal error, never silence.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from drydock.engine.errors import Errors

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class Request(Generic[T, R]):
    item: T
    result: R | None = None
    error: BaseException | None = None
    done: bool = field(default=False, repr=False)

    def answer(self) -> R:
        if self.error is not None:
            raise self.error
        if self.result is None:
            raise Errors.INTERNAL.error(detail="admission was not written; retry the statement")
        return self.result


class GroupCommit(Generic[T, R]):
    def __init__(self, write: Callable[[list[Request[T, R]]], None]):
        self._write = write
        self._cond = threading.Condition(threading.Lock())
        self._queue: list[Request[T, R]] = []
        self._writing = False
        self.batches = 0  # batches written (tests and the bench read it)
        self.largest = 0

    def submit(self, item: T) -> R:
        """Returns only once ``item`` is durably written (or raises its own error)."""
        request: Request[T, R] = Request(item)
        with self._cond:
            self._queue.append(request)
            while not request.done:
                if self._writing:
                    self._cond.wait()
                else:
                    self._lead()
        return request.answer()

    def _lead(self) -> None:
        """Called with the condition held: write the queue as one batch, then wake everyone."""
        batch, self._queue = self._queue, []
        self._writing = True
        self.batches += 1
        self.largest = max(self.largest, len(batch))
        self._cond.release()
        try:
            self._write(batch)
        finally:
            self._cond.acquire()
            self._writing = False
            for request in batch:
                request.done = True
            self._cond.notify_all()
