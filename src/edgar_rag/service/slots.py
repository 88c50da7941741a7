"""Generation slots and the queue before them: how many answers the model generates at once,
and how many more may wait for a slot, in the order they came.

Only a request that reaches the model takes a place (issue 41): an answer decided in code never
waits here. A request that finds every slot busy and every place taken is told at once to come
back after about as long as the queue ahead of it will take (``retry_after_s``), from the
median time a slot was held by the generations that finished lately.

All of it runs on the service's event loop, one thread: a place is a future that is given a
slot when one comes back, or told it was withdrawn (its client left while it waited).
"""

from __future__ import annotations

import asyncio
import math
import statistics
from collections import deque
from collections.abc import Callable

DEFAULT_GENERATION_S = 10.0
"""What a generation is taken to last before one has been timed: a narrative answer of the
default local model on 2 cores took about 10 s (issue 41; the README's generator P50)."""
MAX_RETRY_AFTER_S = 600
"""A client is never told to wait longer than this (five default generator timeouts)."""

PlaceMoved = Callable[[int], None]
"""Told a waiting place's new number (1: next to get a slot) each time it moves up."""


class Place:
    """One request's place: it holds a slot at once, or waits for one (``turn``)."""

    def __init__(self, queue: GenerationQueue, granted: asyncio.Future[bool]) -> None:
        self._queue = queue
        self._granted = granted
        self.on_move: PlaceMoved | None = None

    @property
    def waiting(self) -> bool:
        return not self._granted.done()

    @property
    def holds_slot(self) -> bool:
        granted = self._granted
        return granted.done() and not granted.cancelled() and granted.result()

    @property
    def number(self) -> int:
        """1 for the next place to get a slot, and so on; 0 once it holds one."""
        return self._queue.number_of(self)

    async def turn(self) -> bool:
        """True once this place holds a slot (give it back with ``GenerationQueue.leave``);
        False when it was withdrawn first. Cancelled while waiting, it leaves the queue."""
        try:
            return await asyncio.shield(self._granted)
        except asyncio.CancelledError:
            self._queue.abandon(self)
            raise

    def withdraw(self) -> None:
        """Leave the queue if still waiting (a no-op once the place holds its slot)."""
        self._queue.withdraw(self)

    def _grant(self, granted: bool) -> None:
        self._granted.set_result(granted)


class GenerationQueue:
    """``slots`` generations at once, ``places`` more waiting in arrival order, and how long
    the last 20 generations held their slot."""

    def __init__(
        self, slots: int, places: int, default_generation_s: float = DEFAULT_GENERATION_S
    ) -> None:
        if slots < 1:
            raise ValueError("at least one generation slot is needed")
        if places < 0:
            raise ValueError("the queue cannot have fewer than no places")
        self.total = slots
        self.places = places
        self._busy = 0
        self._waiting: deque[Place] = deque()
        self._recent_s: deque[float] = deque(maxlen=20)
        self._default_generation_s = default_generation_s

    @property
    def busy(self) -> int:
        return self._busy

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def enter(self) -> Place | None:
        """A place holding a free slot, or waiting last for one; None when every slot is
        busy and every place taken."""
        granted = asyncio.get_running_loop().create_future()
        place = Place(self, granted)
        if self._busy < self.total and not self._waiting:
            self._busy += 1
            granted.set_result(True)
            return place
        if len(self._waiting) >= self.places:
            return None
        self._waiting.append(place)
        return place

    def leave(self, held_s: float | None) -> None:
        """A slot comes back after ``held_s`` seconds of generation (None: not a generation to
        time, one that failed or was stopped); the first waiting place gets it."""
        if self._busy <= 0:
            raise RuntimeError("a generation slot was given back twice")
        if held_s is not None:
            self._recent_s.append(held_s)
        if self._waiting:
            self._waiting.popleft()._grant(True)  # the slot passes on: busy stays as it is
            self._tell_moves()
        else:
            self._busy -= 1

    def withdraw(self, place: Place) -> None:
        if place in self._waiting:
            self._waiting.remove(place)
            place._grant(False)
            self._tell_moves()

    def abandon(self, place: Place) -> None:
        """A place whose request was cancelled: out of the queue, or its slot given back."""
        if place in self._waiting:
            self._waiting.remove(place)
            self._tell_moves()
        elif place.holds_slot:
            self.leave(None)

    def number_of(self, place: Place) -> int:
        return self._waiting.index(place) + 1 if place in self._waiting else 0

    def generation_s(self) -> float:
        """The median time a slot was held by the generations that finished lately."""
        return statistics.median(self._recent_s) if self._recent_s else self._default_generation_s

    def retry_after_s(self, ahead: int | None = None) -> int:
        """Whole seconds until about when a request with ``ahead`` places before it (default:
        all that wait now) would get a slot: the generations running and those ahead, shared
        among the slots, each as long as the median lately; 1 to ``MAX_RETRY_AFTER_S``."""
        ahead = self.waiting if ahead is None else ahead
        wait_s = (ahead + 1) * self.generation_s() / self.total
        return min(MAX_RETRY_AFTER_S, max(1, math.ceil(wait_s)))

    def _tell_moves(self) -> None:
        for number, place in enumerate(self._waiting, 1):
            if place.on_move is not None:
                place.on_move(number)
