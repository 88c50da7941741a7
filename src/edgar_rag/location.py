"""Where the index is (``EDGAR_RAG_DB``, ``EDGAR_RAG_DATABASE_URL``), read without pydantic.

Listing the filings needs only these two settings, and importing pydantic-settings alone takes
longer (0.4 to 0.5 s on two busy cores) than ``edgar-rag filings`` may take as a whole process
(0.3 s). The names, the ``.env`` file and their precedence are those of ``config.Settings``,
which takes its prefix, file and default from here; tests hold the two readers to one answer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PREFIX = "EDGAR_RAG_"
ENV_FILE = ".env"
DEFAULT_DB = Path("edgar-rag.db")


@dataclass(frozen=True, slots=True)
class IndexLocation:
    """The SQLite file, or the PostgreSQL URL that is used instead when set."""

    db: Path
    database_url: str | None


def locate_index(
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    env_file: Path = Path(ENV_FILE),
) -> IndexLocation:
    """The index's location as ``Settings(**overrides)`` would read it: keyword arguments, then
    the environment (names in any case, as pydantic-settings reads them), then ``.env``."""
    given = overrides or {}
    found = _read_env_file(env_file) | _lowered(os.environ if environ is None else environ)
    db = given["db"] if "db" in given else found.get(f"{ENV_PREFIX}db".lower(), DEFAULT_DB)
    url = (
        given["database_url"]
        if "database_url" in given
        else found.get(f"{ENV_PREFIX}database_url".lower())
    )
    if url is not None and hasattr(url, "get_secret_value"):  # a SecretStr passed as keyword
        url = url.get_secret_value()
    return IndexLocation(Path(db), None if url is None else str(url))


def _lowered(variables: Mapping[str, str | None]) -> dict[str, str]:
    return {name.lower(): value for name, value in variables.items() if value is not None}


def _read_env_file(path: Path) -> dict[str, str]:
    if not path.expanduser().is_file():
        return {}
    from dotenv import dotenv_values  # noqa: PLC0415 (pydantic-settings reads it the same way)

    return _lowered(dotenv_values(path.expanduser(), encoding="utf-8"))
