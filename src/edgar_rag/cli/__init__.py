"""The ``edgar-rag`` command: parse options, build through ``compose``, call one function, print.

Data goes to stdout, messages to stderr; an EdgarRagError becomes one line and a non-zero exit.
Each command imports what it runs in its own body (the stores, the embedders, the model, the
service's models): ``--version``, ``--help`` and a mistyped option answer without loading them.
The group and its shared options are in ``app``; the commands, by what they work on, in
``index``, ``ask`` and ``serve``. The project's evaluations and benchmarks (``dev``, ``eval``,
``thresholds``) are not part of this package: installed, they join by entry point (``tools``).
"""

from __future__ import annotations

from edgar_rag.cli.app import log_file_path, main
from edgar_rag.cli.ask import ask, model
from edgar_rag.cli.index import filings, ingest, search
from edgar_rag.cli.serve import mcp, serve

for command in (ingest, search, ask, model, serve, mcp, filings):
    main.add_command(command)

__all__ = ["log_file_path", "main"]
