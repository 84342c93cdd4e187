"""Plan answers kept for identical requests: in this process's memory, and in the database's plan
cache for the other workers, replicas and restarts.

A plan's document is a function of its key (:func:`gpuplan.web.service.plan_cache_key`: the
validated request, this gpuplan, the catalog's state, the day, the language), so an answer under a
key never goes stale: a new import, refresh, discount, bench result, step measurement or exchange
rate changes the key of every later request, and the old answers are simply no longer asked for
(they leave memory as newer ones come in). What is held in memory is bounded in bytes.

Concurrent identical requests are computed once per process: the first computes, the others wait
for its answer (a cold plan costs about half a second of CPU; fifty clients asking for it at once
must not cost twenty-five seconds).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuplan.catalog.job_store import JobStore

__all__ = ["AnswerCache"]

#: Memory for answers per process: about 500 plan documents of ~130 KB.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


class AnswerCache:
    """Answers by key, most recently used kept first, at most ``max_bytes`` of them."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._held: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._computing: dict[str, threading.Lock] = {}
        self.hits = 0
        self.computed = 0

    def _remember(self, key: str, answer: bytes) -> None:
        if len(answer) > self.max_bytes:
            return
        with self._lock:
            old = self._held.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._held[key] = answer
            self._bytes += len(answer)
            while self._bytes > self.max_bytes:
                _key, dropped = self._held.popitem(last=False)
                self._bytes -= len(dropped)

    def _in_memory(self, key: str) -> bytes | None:
        with self._lock:
            answer = self._held.get(key)
            if answer is not None:
                self._held.move_to_end(key)
                self.hits += 1
            return answer

    def get(self, jobs: JobStore, key: str) -> bytes | None:
        """The answer under ``key``: from memory, else from the database's plan cache (another
        worker's or a job's answer, or one from before a restart), else None."""
        answer = self._in_memory(key)
        if answer is not None:
            return answer
        text = jobs.cached_document(key)
        if text is None:
            return None
        answer = text.encode("utf-8")
        self._remember(key, answer)
        return answer

    def compute(self, jobs: JobStore, key: str, make: Callable[[], str]) -> bytes:
        """The answer under ``key``, made by ``make()`` and kept (memory and database) unless another
        thread of this process made it meanwhile; one ``make()`` per key at a time."""
        with self._lock:
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:
            try:
                answer = self.get(jobs, key)
                if answer is not None:
                    return answer
                text = make()
                jobs.cache_document(key, text)
                self.computed += 1
                answer = text.encode("utf-8")
                self._remember(key, answer)
                return answer
            finally:
                with self._lock:
                    if self._computing.get(key) is gate:
                        del self._computing[key]

    def remember(self, key: str, text: str) -> None:
        """Keep an answer made elsewhere (a queued job's, already in the database)."""
        self._remember(key, text.encode("utf-8"))
