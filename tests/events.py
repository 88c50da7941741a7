"""Reading server-sent events as a browser's EventSource does, for the streaming tests."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

STREAM_HEADERS = {"Accept": "text/event-stream"}


def read_events(lines: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """Each event of a stream as (its name, its data read as JSON); comments (pings) skipped."""
    name, data = "message", list[str]()
    for line in lines:
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").removeprefix(" "))
    if data:
        yield name, json.loads("\n".join(data))
