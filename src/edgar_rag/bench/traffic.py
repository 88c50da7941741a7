"""Client side of the load benchmark: concurrent HTTP clients against a running service.

Each client sends its next request as soon as its last one returned (a closed loop), so the
clients' count is the number of requests in flight. Latency is measured per request from send to
the whole response; the clients run in one asyncio loop in the benchmark's process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
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
    latency_ms = (time.perf_counter() - started) * 1000
    return Reply(response.status_code, latency_ms, response.headers.get("retry-after"))


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
    """What to send while one question holds the service's only generation slot."""

    holder: Any
    """The /ask body whose (paced) generation holds the slot."""
    probes: Sequence[Any]
    """/ask bodies sent while the slot is held; they should all be turned away."""
    searches: Sequence[Any]
    """/search bodies sent while the slot is held; they should not wait for it."""
    rounds: int = 3
    burst: int = 16
    one_at_a_time: int = 4
    idle_searches: int = 12


async def saturate(url: str, plan: SaturationPlan) -> dict[str, Any]:
    """Hold the generation slot with ``plan.holder``, ``plan.rounds`` times; meanwhile send a
    burst of /ask requests at once, then /ask and /search one at a time."""
    limits = httpx.Limits(max_connections=plan.burst + 4)
    burst: list[Reply] = []
    single: list[Reply] = []
    held_searches: list[Reply] = []
    holders: list[Reply] = []
    retry_after_by_round: list[list[str]] = []
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S, limits=limits) as client:
        for search in plan.searches:  # warm, as closed_loop does: the first calls load caches
            await send(client, "POST", "/search", search)
        idle = [
            await send(client, "POST", "/search", plan.searches[n % len(plan.searches)])
            for n in range(plan.idle_searches)
        ]
        for _ in range(plan.rounds):
            holder = asyncio.create_task(send(client, "POST", "/ask", plan.holder))
            await _wait_until_slots_busy(client, holder)
            sent_at_once = await asyncio.gather(
                *(
                    send(client, "POST", "/ask", plan.probes[n % len(plan.probes)])
                    for n in range(plan.burst)
                )
            )
            for n in range(plan.one_at_a_time):
                single.append(await send(client, "POST", "/ask", plan.probes[n % len(plan.probes)]))
                search = plan.searches[n % len(plan.searches)]
                held_searches.append(await send(client, "POST", "/search", search))
            if holder.done():
                raise RuntimeError(
                    "the held generation ended before the probes did; record a longer one"
                )
            holders.append(await holder)
            burst.extend(sent_at_once)
            retry_after_by_round.append(sorted({r.retry_after or "-" for r in sent_at_once}))
    return {
        "rounds": plan.rounds,
        "holder": _rows(holders),
        "ask_at_once": _rows(burst),
        "ask_one_at_a_time": _rows(single),
        "search_while_held": _rows(held_searches),
        "search_idle": _rows(idle),
        "retry_after_s_by_round": retry_after_by_round,
    }


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


async def _wait_until_slots_busy(
    client: httpx.AsyncClient, holder: asyncio.Task[Reply], timeout_s: float = 30.0
) -> None:
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        slots = (await client.get("/health")).json()["slots"]
        if slots["busy"] >= slots["total"]:
            return
        if holder.done():
            raise RuntimeError(f"the holding question was answered at once: {holder.result()}")
        await asyncio.sleep(0.005)
    raise RuntimeError(f"the generation slots were not all busy within {timeout_s} s")
