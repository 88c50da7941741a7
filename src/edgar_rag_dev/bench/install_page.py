"""The install section of docs/performance.md and the README's row, from the ``install``
entry that ``bench/install.py`` measures (``make bench-install``); below ``report``, which
renders the page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from edgar_rag.markdown import table

SPLIT_EXTRAS = ("postgres", "serve", "mcp", "eval")
"""The extras that the default install held before issue 15 split them out."""
DEFAULT = "edgar-rag"
ALL = f"edgar-rag[{','.join(SPLIT_EXTRAS)}]"


def _names(modules: Sequence[str]) -> str:
    return ", ".join(f"`{name}`" for name in modules) if modules else "none"


def _rows(installs: Mapping[str, Any], ratio: Mapping[str, float]) -> list[list[object]]:
    rows: list[list[object]] = [
        [f"`{name}`", f"{row['p50_s']:.2f}", f"{min(row['seconds']):.2f}",
         f"{row['max_s']:.2f}", f"{row['size_mib']:.1f}", row["distributions"]]
        for name, row in installs.items()
    ]  # fmt: skip
    ratios = [f"{ratio[key]:.2f}" for key in ("p50_s", "size_mib", "distributions")]
    return [*rows, ["default / all", ratios[0], "", "", ratios[1], ratios[2]]]


def render_install(entry: Mapping[str, Any]) -> list[str]:
    """The install section of docs/performance.md."""
    installs, ratio = entry["installs"], entry["default_over_all"]
    default, everything = installs[DEFAULT], installs[ALL]
    low, high = entry["load_average_1m"]
    built = sorted({*default["built"], *everything["built"]})
    downloaded = sorted({*default["downloaded"], *everything["downloaded"]})
    links = f", torch's CPU build from `{entry['find_links']}`" if entry["find_links"] else ""
    return [
        "## Install size and time: the default install against all extras",
        "",
        f"Written by `make bench-install` (`edgar-rag dev bench install`): fresh virtual "
        f"environments filled by `uv pip install` (uv {entry['uv']}, Python {entry['python']}) "
        f"from `{entry['lock']}` as constraints{links}, as `make setup` installs, and this "
        f"checkout built once as a wheel. `{DEFAULT}` is the default install; `{ALL}` is what "
        f"the default install held before the extras {_names(entry['extras'])} were split out "
        f"of it. The times are with a warm uv cache (`{entry['uv_cache']}`): it held every "
        f"wheel both installs take (the lock's wheels, torch's CPU wheel and the wheel that "
        f"`make setup` built for llama-cpp-python, which PyPI ships as source only), and an "
        f"untimed install of all extras ran first. Each install ran `--offline`, so none "
        f"could download (downloads logged: {_names(downloaded)}; builds logged: "
        f"{_names(built)}), and copied its files from the cache (`--link-mode copy`), so the "
        f"size is the venv's own, without pip. {entry['rounds']} rounds, each installing both "
        f"side by side into fresh venvs in alternating order, {entry['cpus']} cores (load "
        f"average {low} at the start, {high} at the end).",
        "",
        *table(
            ["install", "P50 s", "fastest s", "slowest s", "size MiB", "distributions"],
            _rows(installs, ratio),
            align="lrrrrr",
        ),
        "",
        f"In the default venv `edgar-rag --version` printed `{default['version']}`, and "
        f"importing `edgar_rag.cli` loaded of the extras' modules: {_names(default['imported'])} "
        f"(installed there: {_names(default['installed'])}). In the all-extras venv, where "
        f"{_names(everything['installed'])} are installed, it loaded: "
        f"{_names(everything['imported'])}.",
        "",
    ]


def install_figures(entry: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The README's row: the default install against all extras."""
    default, everything = entry["installs"][DEFAULT], entry["installs"][ALL]
    ratio = entry["default_over_all"]
    return [
        (
            f"`{DEFAULT}` / `{ALL}` with uv from a warm cache: size, install P50, distributions",
            f"{default['size_mib']:.0f} / {everything['size_mib']:.0f} MiB "
            f"({ratio['size_mib']:.2f}x), {default['p50_s']:.1f} / {everything['p50_s']:.1f} s "
            f"({ratio['p50_s']:.2f}x), {default['distributions']} / "
            f"{everything['distributions']}",
            "[performance](docs/performance.md)",
        )
    ]
