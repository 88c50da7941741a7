"""Generation slots: how many answers may be generated at once; the rest are told to come back.

Taking a slot never waits: a request that finds every slot busy gets 503 with ``Retry-After``
at once, so no client queues without bound behind a model that answers in seconds.
"""

from __future__ import annotations

import math
import statistics
import threading
from collections import deque


class GenerationSlots:
    """A non-blocking counting semaphore that also remembers how long generations take."""

    def __init__(self, total: int, default_retry_after_s: int = 5) -> None:
        if total < 1:
            raise ValueError("at least one generation slot is needed")
        self.total = total
        self._busy = 0
        self._lock = threading.Lock()
        self._recent_s: deque[float] = deque(maxlen=20)
        self._default_retry_after_s = default_retry_after_s

    @property
    def busy(self) -> int:
        return self._busy

    def try_take(self) -> bool:
        with self._lock:
            if self._busy >= self.total:
                return False
            self._busy += 1
            return True

    def give_back(self, held_s: float) -> None:
        with self._lock:
            if self._busy <= 0:
                raise RuntimeError("a generation slot was given back twice")
            self._busy -= 1
            self._recent_s.append(held_s)

    def retry_after_s(self) -> int:
        """The typical time a slot is held lately (whole seconds, 1 to 120)."""
        with self._lock:
            if not self._recent_s:
                return self._default_retry_after_s
            typical = statistics.median(self._recent_s)
        return min(120, max(1, math.ceil(typical)))
