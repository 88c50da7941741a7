"""What the model process is run with, and the state file through which other processes find it.

The worker writes its state file once the model is loaded and its port is open, and removes it
on the way out; a state file whose process is gone is stale and ignored. Writes are atomic
(a temporary file renamed over the old one), so a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

STATE_FILE = "model-process.json"
LOG_FILE = "model-process.log"
LOCK_FILE = "model-process.lock"
LOAD_FAILED = "could not load the model"
"""How the worker's log line begins when loading fails (the starter quotes that line)."""


def log_prefix(pid: int) -> str:
    """How each line the worker logs begins: a time and its pid (``LOG_TAG`` reads it back)."""
    return f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{pid}] "


LOG_TAG = re.compile(r"^\S+ \S+ \[(\d+)\] ")


@dataclass(frozen=True, slots=True)
class ModelOptions:
    """How llama.cpp runs the model: the settings ``EDGAR_RAG_MODEL_*`` name."""

    threads: int
    ctx: int = 4096
    repack: bool = False
    """llama.cpp's extra buffer types (weight repacking); see docs/performance.md."""
    idle_s: float = 900.0
    seed: int = 0
    prompt_lookup: int = 0
    """Tokens drafted from the prompt per step (llama.cpp's prompt-lookup speculative
    decoding); 0 decodes one token at a time."""


@dataclass(frozen=True, slots=True)
class WorkerState:
    """A running worker as its state file describes it."""

    pid: int
    port: int
    model: str
    options: ModelOptions
    started_at: float
    """Seconds since the epoch."""
    system_info: str
    """``llama_print_system_info()`` of the build that runs the model."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def write_state(path: Path, state: WorkerState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(asdict(state), out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_state(path: Path) -> WorkerState | None:
    """The state the file holds, or None when there is none or it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        options = ModelOptions(**data.pop("options"))
        return WorkerState(options=options, **data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def remove_state(path: Path, pid: int) -> None:
    """Remove the state file if it is still the one process ``pid`` wrote."""
    state = read_state(path)
    if state is not None and state.pid == pid:
        path.unlink(missing_ok=True)


def is_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie not yet reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return True
    return status.rsplit(")", 1)[-1].split()[0] != "Z"
