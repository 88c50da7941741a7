"""The models that write answers, behind the ``Generator`` port the answerer talks to.

``generators`` calls a model over HTTP (OpenAI-compatible, Anthropic, Ollama) or echoes;
``tapes`` records generations and replays them; ``local_model`` names the default local model's
weights. The local model runs in a process of its own: ``worker`` is that process (``python -m
edgar_rag.model.worker``), ``process`` finds, starts, stops and restarts it, and ``generator`` is
the ``Generator`` over it. A native crash in llama.cpp ends the worker, never the CLI or the
service that asked. Nothing here reads a question or a filing: that is ``answer``'s.
"""
