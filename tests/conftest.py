"""Shared fixtures: no test reaches past loopback; real sample filings, parsed once."""

from __future__ import annotations

import ipaddress
import socket
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from edgar_rag.domain import ParsedFiling
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pipeline import ingest_filing


def _is_loopback(address: Any) -> bool:
    if isinstance(address, str | bytes):  # a unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any connection to an address outside this machine."""
    connect = socket.socket.connect
    connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise ConnectionRefusedError(f"tests may not reach the network ({address!r})")
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise ConnectionRefusedError(f"tests may not reach the network ({address!r})")
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    """The sample shipped with the package: four real 10-Ks and a few pages of a PDF one."""
    return Path(str(resources.files("edgar_rag") / "sample"))


@pytest.fixture(scope="session")
def sample_filings(sample_dir: Path) -> dict[str, ParsedFiling]:
    """Each sample filing parsed once, keyed ``TICKER-YEAR`` (``3M-2018`` for the PDF)."""
    parsed = {}
    for local in find_local_filings([sample_dir]):
        filing = ingest_filing(local.load())
        key = filing.meta.ticker or filing.meta.company
        parsed[f"{key}-{filing.meta.fiscal_year}"] = filing
    return parsed


@pytest.fixture
def apple_2025(sample_filings: dict[str, ParsedFiling]) -> ParsedFiling:
    return sample_filings["AAPL-2025"]


@pytest.fixture
def sample_copy(tmp_path: Path, sample_dir: Path) -> Path:
    """A writable copy of the sample folder."""
    import shutil  # noqa: PLC0415

    target = tmp_path / "sample"
    shutil.copytree(sample_dir, target)
    return target
