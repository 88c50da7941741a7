"""Reranker adapters: a local cross-encoder through sentence-transformers.

The model loads on the first ``rerank`` call, never at import or construction; torch and
sentence-transformers are imported there too, so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgar_rag.errors import ConfigError


class CrossEncoderReranker:
    """Scores (question, passage) pairs with a cross-encoder from a local folder; CPU only."""

    def __init__(self, model_path: Path, threads: int = 2, max_length: int = 256) -> None:
        self._model_path = model_path
        self._threads = threads
        self._max_length = max_length
        self._model: Any = None

    def rerank(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = self._loaded().predict(
            [(question, text) for text in texts], convert_to_numpy=True, show_progress_bar=False
        )
        return [float(score) for score in scores]

    def _loaded(self) -> Any:
        if self._model is None:
            import torch  # noqa: PLC0415  (heavy: imported on first use)
            from sentence_transformers import CrossEncoder  # noqa: PLC0415

            torch.set_num_threads(self._threads)
            try:
                self._model = CrossEncoder(
                    str(self._model_path),
                    device="cpu",
                    max_length=self._max_length,
                    local_files_only=True,  # a folder on disk: never ask a hub
                )
            except OSError as exc:
                raise ConfigError(f"no cross-encoder model in {self._model_path}: {exc}") from exc
        return self._model
