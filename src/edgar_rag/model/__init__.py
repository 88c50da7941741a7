"""The local model process: llama.cpp in a process of its own, shared by the CLI and the service.

``worker`` is that process (``python -m edgar_rag.model.worker``); ``process`` finds, starts,
stops and restarts it; ``generator`` is the ``Generator`` the answerer talks to. A native crash in
llama.cpp ends the worker, never the CLI or the service that asked.
"""
