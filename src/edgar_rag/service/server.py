"""Running the app with uvicorn in a background thread, on a free loopback port.

For tests and for embedding the service in another program (a notebook, a demo); the
``edgar-rag serve`` command uses ``app.serve`` instead, in the foreground.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.types import ASGIApp


@contextmanager
def serve_in_thread(
    app: ASGIApp, host: str = "127.0.0.1", start_timeout_s: float = 10.0
) -> Iterator[str]:
    """Serve ``app`` on a free port of ``host`` until the block ends; yields the base URL.

    The socket is bound before the server starts, so no other process can take the port in
    between. Leaving the block asks the server to stop and waits for it (open requests get a
    few seconds to finish).
    """
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="off", timeout_graceful_shutdown=5
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name="edgar-rag-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {host}:{port} did not start")
            time.sleep(0.02)
        yield f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=start_timeout_s + 5)
        listener.close()
