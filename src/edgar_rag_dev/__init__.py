"""edgar-rag's evaluations and benchmarks: the project measuring itself, beside the runtime.

``eval/`` scores answers and retrieval against the repository's question sets and gates them
(``make eval-ci``); ``bench/`` times ingest, search, the model, the service, the commands and
the install. ``cli`` is ``edgar-rag dev``, ``top_level`` holds ``edgar-rag thresholds`` and
``edgar-rag eval financebench``; they join the ``edgar-rag`` command by the entry points in
``dev/pyproject.toml`` (the distribution ``edgar-rag-dev``, which ``make setup`` installs
editable), and ``python -m edgar_rag_dev`` runs the ``dev`` commands without them.

This package imports ``edgar_rag``; ``edgar_rag`` never imports it (``.importlinter``), and the
``edgar-rag`` wheel does not hold it.
"""
