"""Client side of the load benchmark: concurrent HTTP clients against a running service.

Each client sends its next request as soon as its last one returned (a closed loop), so the
clients' count is the number of requests in flight. Latency is measured per request from send to
the whole response; the clients run in one asyncio loop in the benchmark's process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx
import numpy as np

TIMEOUT_S = 120.0
"""Per request; a paced generation or a busy 2-core machine can take tens of seconds."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    latency_ms: float
    retry_after: str | None = None
    ended_s: float = 0.0
    """``time.perf_counter()`` when the whole reply had come."""


def percentiles_ms(replies: Sequence[Reply]) -> dict[str, float | None]:
    """P50, P95 and the maximum of the replies' latencies (None when there are none)."""
    if not replies:
        return {"p50_ms": None, "p95_ms": None, "max_ms": None}
    latencies = [reply.latency_ms for reply in replies]
    return {
        "p50_ms": round(float(np.percentile(latencies, 50)), 2),
        "p95_ms": round(float(np.percentile(latencies, 95)), 2),
        "max_ms": round(max(latencies), 2),
    }


def summarise_level(
    endpoint: str, clients: int, replies: Sequence[Reply], seconds: float
) -> dict[str, Any]:
    """One row of the load table: counts by status, throughput, latency of the 200s."""
    ok = [reply for reply in replies if reply.status == 200]
    busy = sum(reply.status == 503 for reply in replies)
    return {
        "endpoint": endpoint,
        "clients": clients,
        "requests": len(replies),
        "ok": len(ok),
        "busy": busy,
        "other": len(replies) - len(ok) - busy,
        "seconds": round(seconds, 3),
        "requests_per_s": round(len(replies) / seconds, 2),
        "ok_per_s": round(len(ok) / seconds, 2),
        **percentiles_ms(ok),
    }


async def send(client: httpx.AsyncClient, method: str, path: str, body: Any = None) -> Reply:
    started = time.perf_counter()
    response = await client.request(method, path, json=body)
    ended_s = time.perf_counter()
    latency_ms = (ended_s - started) * 1000
    return Reply(response.status_code, latency_ms, response.headers.get("retry-after"), ended_s)


async def closed_loop(
    url: str, path: str, bodies: Sequence[Any], clients: int, duration_s: float
) -> tuple[list[Reply], float]:
    """``clients`` clients POST ``bodies`` in turn to ``path`` for ``duration_s``; every reply,
    and the seconds from the first send to the last reply."""
    replies: list[Reply] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S, limits=limits) as client:
        for body in bodies:  # warm: connections open, each question's path through the code run
            await send(client, "POST", path, body)
        started = time.perf_counter()
        deadline = started + duration_s

        async def one_client(first: int) -> None:
            turn = first
            while time.perf_counter() < deadline:
                replies.append(await send(client, "POST", path, bodies[turn % len(bodies)]))
                turn += clients

        await asyncio.gather(*(one_client(number) for number in range(clients)))
        return replies, time.perf_counter() - started


@dataclass(frozen=True, slots=True)
class SaturationPlan:
    """What to send around a server with one generation slot and ``queue`` places."""

    holder: Any
    """The narrative /ask body whose (paced) generation holds the slot; as many more of it
    fill the queue."""
    figures: Sequence[Any]
    """Figure /ask bodies, answered in code: never waiting for the slot."""
    probes: Sequence[Any]
    """Narrative /ask bodies sent once the queue is full: each should be turned away with 503
    and Retry-After."""
    searches: Sequence[Any]
    """/search bodies sent while the slot is held; they should not wait for it."""
    queue: int
    rounds: int = 3
    burst: int = 16
    one_at_a_time: int = 4
    idle_searches: int = 12


@dataclass(slots=True)
class _Sent:
    """What a saturation run sent, by what it was sent as."""

    figures_idle: list[Reply] = field(default_factory=list)
    figures_generating: list[Reply] = field(default_factory=list)
    figures_single: list[Reply] = field(default_factory=list)
    past_the_queue: list[Reply] = field(default_factory=list)
    searches_held: list[Reply] = field(default_factory=list)
    holders: list[Reply] = field(default_factory=list)
    queued: list[Reply] = field(default_factory=list)
    waits: list[dict[str, Any]] = field(default_factory=list)


async def saturate(url: str, plan: SaturationPlan) -> dict[str, Any]:
    """``plan.rounds`` times: a burst of figure questions with nothing generating; then the
    holder's generation with the queue filled behind it, a burst of narrative questions past
    the queue (503s), a burst of figure questions and figure and search requests one at a
    time, all while it generates; then the time until the queue ahead of the 503s had been
    answered, against the Retry-After they were told."""
    limits = httpx.Limits(max_connections=2 * plan.burst + plan.queue + 4)
    sent = _Sent()
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S, limits=limits) as client:
        for search in plan.searches:  # warm, as closed_loop does: the first calls load caches
            await send(client, "POST", "/search", search)
        for figure in plan.figures:
            await send(client, "POST", "/ask", figure)
        idle = [
            await send(client, "POST", "/search", plan.searches[n % len(plan.searches)])
            for n in range(plan.idle_searches)
        ]
        for number in range(plan.rounds):
            sent.figures_idle += await _at_once(client, plan.figures, plan.burst)
            await _generating_round(client, plan, sent, number)
    return {
        "rounds": plan.rounds,
        "queue": plan.queue,
        "figure_at_once_idle": _rows(sent.figures_idle),
        "figure_at_once_generating": _rows(sent.figures_generating),
        "figure_one_at_a_time_generating": _rows(sent.figures_single),
        "ask_past_the_queue": _rows(sent.past_the_queue),
        "search_while_held": _rows(sent.searches_held),
        "search_idle": _rows(idle),
        "holder": _rows(sent.holders),
        "queued": _rows(sent.queued),
        "waits": sent.waits,
    }


async def _generating_round(
    client: httpx.AsyncClient, plan: SaturationPlan, sent: _Sent, number: int
) -> None:
    holder = asyncio.create_task(send(client, "POST", "/ask", plan.holder))
    await _wait_until(client, holder, lambda slots: slots["busy"] >= slots["total"])
    queued = []
    for _ in range(plan.queue):
        queued.append(asyncio.create_task(send(client, "POST", "/ask", plan.holder)))
        await _wait_until(client, holder, partial(_waiting_at_least, len(queued)))
    turned_away = await _at_once(client, plan.probes, plan.burst)
    sent.figures_generating += await _at_once(client, plan.figures, plan.burst)
    for n in range(plan.one_at_a_time):
        sent.figures_single.append(
            await send(client, "POST", "/ask", plan.figures[n % len(plan.figures)])
        )
        search = plan.searches[n % len(plan.searches)]
        sent.searches_held.append(await send(client, "POST", "/search", search))
    slots = (await client.get("/health")).json()["slots"]
    if slots["busy"] < slots["total"]:  # the queued generations hold the slot after the holder
        raise RuntimeError("the generations ended before the probes did; record a longer one")
    held = [await holder, *await asyncio.gather(*queued)]
    sent.holders.append(held[0])
    sent.queued += held[1:]
    drained_s = max(reply.ended_s for reply in held)
    busy = [reply for reply in turned_away if reply.status == 503]
    sent.past_the_queue += turned_away
    sent.waits.append(
        {
            "round": number + 1,
            "retry_after_s": sorted({int(r.retry_after) for r in busy if r.retry_after}),
            "waited_s": [round(drained_s - reply.ended_s, 2) for reply in busy],
        }
    )


def _waiting_at_least(count: int, slots: dict[str, int]) -> bool:
    return slots["waiting"] >= count


async def _at_once(client: httpx.AsyncClient, bodies: Sequence[Any], count: int) -> list[Reply]:
    """``count`` /ask requests sent at once, cycling through ``bodies``."""
    return list(
        await asyncio.gather(
            *(send(client, "POST", "/ask", bodies[n % len(bodies)]) for n in range(count))
        )
    )


def _rows(replies: Sequence[Reply]) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for reply in replies:
        statuses[str(reply.status)] = statuses.get(str(reply.status), 0) + 1
    with_retry_after = sum(r.status == 503 and r.retry_after is not None for r in replies)
    return {
        "requests": len(replies),
        "statuses": statuses,
        "busy_with_retry_after": with_retry_after,
        **percentiles_ms(replies),
    }


async def _wait_until(
    client: httpx.AsyncClient,
    holder: asyncio.Task[Reply],
    check: Callable[[dict[str, int]], bool],
    timeout_s: float = 30.0,
) -> None:
    """Until ``check`` holds of /health's slots, while the holder is still generating."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        if check((await client.get("/health")).json()["slots"]):
            return
        if holder.done():
            raise RuntimeError(f"the holding question was answered at once: {holder.result()}")
        await asyncio.sleep(0.005)
    raise RuntimeError(f"the generation queue did not fill within {timeout_s} s")
