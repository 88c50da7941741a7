"""Finding, starting, stopping and restarting the local model process.

Every edgar-rag process (a CLI call, the service) shares one worker per run folder (the model
cache, ``EDGAR_RAG_MODEL_DIR``): the first that needs it starts it, in a session of its own so it
outlives the CLI call that started it, and the rest find it through its state file. A file lock
keeps two starters from starting two workers. A worker that died is started again by the next
caller; the cause of its death is read from its exit status (when this process started it) or
from the last lines of its log (``faulthandler``'s ``Fatal Python error: ...``).
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from edgar_rag.errors import SourceError
from edgar_rag.model.state import (
    LOAD_FAILED,
    LOCK_FILE,
    LOG_FILE,
    LOG_TAG,
    STATE_FILE,
    ModelOptions,
    WorkerState,
    is_alive,
    read_state,
)

if TYPE_CHECKING:
    import httpx

_POLL_S = 0.1
_HEALTH_TIMEOUT_S = 5.0
_FATAL = "Fatal Python error: "
_LOG_TAIL_BYTES = 64 << 10

Announce = Callable[[str], None]
"""Told one line when the process is started or restarted (the CLI prints it on stderr)."""


@dataclass(frozen=True, slots=True)
class Status:
    """A running worker: its state file and what its ``/health`` says now."""

    state: WorkerState
    busy: bool
    requests: int
    idle_s: float


class ModelProcess:
    """The local model process for one model file and one run folder."""

    def __init__(
        self,
        model: Path,
        run_dir: Path,
        options: ModelOptions,
        *,
        announce: Announce | None = None,
        start_timeout_s: float = 180.0,
    ) -> None:
        self.model = model
        self.run_dir = run_dir
        self.options = options
        self.state_path = run_dir / STATE_FILE
        self.log_path = run_dir / LOG_FILE
        self._announce = announce
        self._start_timeout_s = start_timeout_s
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    @cached_property
    def _http(self) -> httpx.Client:
        """Made on first use: a client costs about 0.1 s (its TLS context), which a question
        answered in code never needs (issue 41), nor httpx's import."""
        import httpx  # noqa: PLC0415

        return httpx.Client(timeout=_HEALTH_TIMEOUT_S)

    def __repr__(self) -> str:
        return f"ModelProcess({str(self.model)!r}, run_dir={str(self.run_dir)!r})"

    def status(self) -> Status | None:
        """The running worker of this run folder, or None (a stale state file is ignored)."""
        state = read_state(self.state_path)
        if state is None or not is_alive(state.pid):
            return None
        import httpx  # noqa: PLC0415 (loaded with the client, ``_http``)

        try:
            health = self._http.get(f"{state.url}/health").json()
        except (httpx.HTTPError, ValueError):
            return None
        if not isinstance(health, dict) or health.get("pid") != state.pid:
            return None
        return Status(state, bool(health["busy"]), int(health["requests"]), float(health["idle_s"]))

    def ensure(self) -> WorkerState:
        """A worker ready to answer for this model and these options, started if need be.

        A worker running another model or other options is stopped and started anew.
        """
        self._reap()
        running = self.status()
        if running is not None and self._fits(running.state):
            return running.state
        with self._locked():
            running = self.status()
            if running is not None and self._fits(running.state):
                return running.state
            if running is not None:
                self._tell(
                    f"restarting the local model process (pid {running.state.pid}): "
                    "its model or settings differ from these"
                )
                self._terminate(running.state.pid)
            return self._start()

    def stop(self, timeout_s: float = 30.0) -> WorkerState | None:
        """Stop the running worker (SIGTERM, then SIGKILL after ``timeout_s``); its state."""
        with self._locked():
            running = self.status()
            if running is None:
                return None
            self._terminate(running.state.pid, timeout_s)
            return running.state

    def death(self, pid: int, wait_s: float = 0.0) -> str | None:
        """Why worker ``pid`` is gone, or None while it is alive (after ``wait_s`` seconds)."""
        deadline = time.monotonic() + wait_s
        while (cause := self._death(pid)) is None and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        return cause

    def _death(self, pid: int) -> str | None:
        child = self._children.get(pid)
        if child is not None:
            code = child.poll()
            if code is None:
                return None
            self._children.pop(pid, None)
            if code < 0:
                return self._log_cause(pid) or f"killed by {signal.Signals(-code).name}"
            return self._log_cause(pid) or f"exit status {code}"
        if is_alive(pid):
            return None
        return self._log_cause(pid) or "it exited without leaving a cause in its log"

    def _reap(self) -> None:
        """Collect the exit status of workers this process started that have ended since."""
        for pid, child in list(self._children.items()):
            if child.poll() is not None and not is_alive(pid):
                self._children.pop(pid, None)

    def close(self) -> None:
        if "_http" in self.__dict__:
            self._http.close()

    def _fits(self, state: WorkerState) -> bool:
        wanted = self.options
        have = state.options
        return state.model == str(self.model) and (
            (have.threads, have.ctx, have.idle_s, have.seed, have.prompt_lookup)
            == (wanted.threads, wanted.ctx, wanted.idle_s, wanted.seed, wanted.prompt_lookup)
            # The worker turns repacking off on a build that uses AMX: that still fits.
            and (have.repack == wanted.repack or not have.repack)
        )

    def _start(self) -> WorkerState:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.state_path.unlink(missing_ok=True)
        options = self.options
        command = [
            sys.executable, "-m", "edgar_rag.model.worker",
            "--model", str(self.model),
            "--state", str(self.state_path),
            "--threads", str(options.threads),
            "--ctx", str(options.ctx),
            "--repack", "on" if options.repack else "off",
            "--idle-s", f"{options.idle_s:g}",
            "--seed", str(options.seed),
            "--prompt-lookup", str(options.prompt_lookup),
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            child = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                close_fds=True,
            )
        self._children[child.pid] = child
        self._tell(
            f"starting the local model process (pid {child.pid}; it stops after "
            f"{options.idle_s:g} s unused; `edgar-rag model stop` ends it)"
        )
        deadline = time.monotonic() + self._start_timeout_s
        while time.monotonic() < deadline:
            cause = self.death(child.pid)
            if cause is not None:
                raise SourceError(
                    f"the local model process exited while loading the model ({cause}); "
                    f"see {self.log_path}"
                )
            state = read_state(self.state_path)
            if state is not None and state.pid == child.pid:
                return state
            time.sleep(_POLL_S)
        self._terminate(child.pid)
        raise SourceError(
            f"the local model process did not load the model within "
            f"{self._start_timeout_s:g} s; see {self.log_path}"
        )

    def _terminate(self, pid: int, timeout_s: float = 30.0) -> None:
        for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            if self.death(pid, wait_s) is not None:
                break
        self._children.pop(pid, None)
        state = read_state(self.state_path)
        if state is not None and state.pid == pid:
            self.state_path.unlink(missing_ok=True)

    def _log_cause(self, pid: int) -> str | None:
        """The failure worker ``pid`` wrote in the log: a fatal error or a failed load."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(max(log.seek(0, os.SEEK_END) - _LOG_TAIL_BYTES, 0))
                lines = log.read().decode(errors="replace").splitlines()
        except OSError:
            return None
        mine = False
        for line in lines:
            tag = LOG_TAG.search(line)
            if tag is not None:
                mine = tag[1] == str(pid)
                if mine and LOAD_FAILED in line:
                    return line[tag.end() :].strip()
            elif mine and line.startswith(_FATAL):
                return line.removeprefix(_FATAL).strip()
        return None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with (self.run_dir / LOCK_FILE).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _tell(self, line: str) -> None:
        if self._announce is not None:
            self._announce(line)


def _build_flags(system_info: str) -> str:
    """The CPU features a build uses, from ``llama_print_system_info()`` (``AVX2 = 1 | ...``)."""
    used = [
        part.split("=")[0].strip()
        for part in system_info.split("|")
        if part.strip().endswith("= 1")
    ]
    return " ".join(flag for flag in used if flag.startswith(("AVX", "AMX", "FMA", "F16C")))


def describe_status(status: Status, process: ModelProcess) -> str:
    """What ``edgar-rag model status`` prints for a running worker."""
    state, options = status.state, status.state.options
    uptime = time.time() - state.started_at
    return "\n".join(
        [
            f"running     pid {state.pid} at {state.url}, up {uptime:.0f} s, "
            f"{status.requests} requests, {'busy' if status.busy else 'idle'} "
            f"(idle for {status.idle_s:.0f} s; it stops after {options.idle_s:g} s idle)",
            f"model       {state.model}",
            f"settings    {options.threads} threads, {options.ctx} context tokens, "
            f"weight repacking {'on' if options.repack else 'off'}, "
            f"prompt lookup {options.prompt_lookup or 'off'}",
            f"build       {_build_flags(state.system_info) or state.system_info}",
            f"log         {process.log_path}",
        ]
    )


def status_json(status: Status | None, process: ModelProcess) -> dict[str, object]:
    """What ``edgar-rag model status --json`` prints."""
    if status is None:
        return {"running": False, "log": str(process.log_path)}
    state = status.state
    return {
        "running": True,
        "pid": state.pid,
        "url": state.url,
        "model": state.model,
        "started_at": state.started_at,
        "requests": status.requests,
        "busy": status.busy,
        "idle_s": status.idle_s,
        "options": asdict(state.options),
        "build": _build_flags(state.system_info),
        "log": str(process.log_path),
    }
