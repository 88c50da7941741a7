"""The options the tooling's commands share; their paths default to the repository's layout,
so the commands run from its root."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

Decorated = TypeVar("Decorated", bound=Callable[..., None])

PATH = click.Path(path_type=Path)


def path_option(name: str, default: str, what: str) -> Callable[[Decorated], Decorated]:
    return click.option(name, type=PATH, default=Path(default), show_default=True, help=what)


corpus_option = path_option(
    "--corpus", "../shared/corpus", "The shared corpus: filings/, its manifest.csv, financebench/."
)
index_option = path_option(
    "--index", "build/corpus.db", "The SQLite index of the corpus (`make build/corpus.db`)."
)
embedder_cache_option = path_option(
    "--cache", "build/cache/embedders", "Where the ONNX embedder's model lives."
)
