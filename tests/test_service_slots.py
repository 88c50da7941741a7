"""The generation queue on its own: slots, places in arrival order, and the wait it tells."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from edgar_rag.service.slots import (
    DEFAULT_GENERATION_S,
    MAX_RETRY_AFTER_S,
    GenerationQueue,
    Place,
)

_T = TypeVar("_T")


def on_loop(scenario: Callable[[], Awaitable[_T]]) -> _T:
    async def run() -> _T:
        return await scenario()

    return asyncio.run(run())


def entered(queue: GenerationQueue) -> Place:
    place = queue.enter()
    assert place is not None
    return place


def test_places_get_the_slot_in_the_order_they_came_and_are_told_as_they_move() -> None:
    async def scenario() -> None:
        queue = GenerationQueue(slots=1, places=2)
        first, second, third = entered(queue), entered(queue), entered(queue)
        moves: list[int] = []
        third.on_move = moves.append
        assert (first.waiting, second.number, third.number) == (False, 1, 2)
        assert queue.enter() is None  # every slot busy, every place taken
        assert await first.turn()

        queue.leave(3.0)
        assert await second.turn()
        assert (second.number, third.number, moves) == (0, 1, [1])
        assert (queue.busy, queue.waiting) == (1, 1)
        queue.leave(5.0)
        assert await third.turn()
        queue.leave(4.0)
        assert (queue.busy, queue.waiting) == (0, 0)

    on_loop(scenario)


def test_retry_after_is_the_queue_ahead_at_the_median_generation_shared_by_the_slots() -> None:
    async def scenario() -> None:
        queue = GenerationQueue(slots=2, places=3)
        places = [entered(queue) for _ in range(5)]
        # Nothing timed yet: each generation is taken to last the default.
        assert queue.retry_after_s() == math.ceil(4 * DEFAULT_GENERATION_S / 2)
        for held_s in (4.0, 8.0, 6.0):
            queue.leave(held_s)
        queue.leave(None)  # failed or stopped: not timed
        assert queue.generation_s() == 6.0
        assert queue.waiting == 0
        assert queue.retry_after_s() == math.ceil(1 * 6.0 / 2)
        assert queue.retry_after_s(ahead=3) == math.ceil(4 * 6.0 / 2)
        assert [await place.turn() for place in places] == [True] * 5

    on_loop(scenario)


@pytest.mark.parametrize(("held_s", "told_s"), [(0.01, 1), (10_000.0, MAX_RETRY_AFTER_S)])
def test_retry_after_is_at_least_one_second_and_at_most_the_cap(held_s: float, told_s: int) -> None:
    async def scenario() -> int:
        queue = GenerationQueue(slots=1, places=0)
        entered(queue)
        queue.leave(held_s)
        return queue.retry_after_s()

    assert on_loop(scenario) == told_s


def test_a_withdrawn_or_cancelled_place_leaves_the_queue_and_the_next_moves_up() -> None:
    async def scenario() -> None:
        queue = GenerationQueue(slots=1, places=3)
        holder, withdrawn, cancelled, last = (entered(queue) for _ in range(4))
        withdrawn.withdraw()
        assert not await withdrawn.turn()
        waiting = asyncio.ensure_future(cancelled.turn())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert (queue.waiting, last.number) == (1, 1)
        holder.withdraw()  # holds its slot: nothing to withdraw
        queue.leave(1.0)
        assert await last.turn()

    on_loop(scenario)


def test_a_place_cancelled_as_it_got_its_slot_gives_the_slot_back() -> None:
    async def scenario() -> None:
        queue = GenerationQueue(slots=1, places=1)
        holder, next_up = entered(queue), entered(queue)
        assert await holder.turn()
        waiting = asyncio.ensure_future(next_up.turn())
        await asyncio.sleep(0)
        queue.leave(1.0)  # the slot passes to next_up, whose request is cancelled at once
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert (queue.busy, queue.waiting) == (0, 0)

    on_loop(scenario)


def test_a_slot_given_back_twice_is_a_bug() -> None:
    async def scenario() -> None:
        queue = GenerationQueue(slots=1, places=0)
        entered(queue)
        queue.leave(1.0)
        with pytest.raises(RuntimeError, match="twice"):
            queue.leave(1.0)

    on_loop(scenario)
