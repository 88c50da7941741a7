"""The light commands' section of docs/performance.md, from the ``cli`` entry that
``bench/commands.py`` measures (``make bench-cli``); below ``report``, which renders the page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from edgar_rag.markdown import table

BASELINE = "python -c pass"
"""The bare interpreter each command is timed beside, and its name on the page."""


def render_cli(cli: Mapping[str, Any]) -> list[str]:
    """The light commands' section of docs/performance.md."""
    commands = cli["commands"]
    low, high = cli["load_average_1m"]
    return [
        "## The light commands as new processes",
        "",
        f"Written by `make bench-cli` (`edgar-rag dev bench cli`): {cli['rounds']} rounds, each "
        f"running every command below once as a new process from the shell, `filings` on "
        f"the corpus index ({cli['filings']} filings), {cli['cpus']} cores (load average {low} "
        f"at the start, {high} at "
        f"the end). The ratio is each command's P50 over that of `{BASELINE}` in the same "
        f"rounds; the target is {cli['target_s']} s for `--version`, `--help` and `filings`"
        + (
            f", {cli['ask_target_s']} s for a question `ask` answers in code (no model: its "
            "figures come from the filing's reported facts)."
            if "ask_target_s" in cli
            else "."
        ),
        "",
        *table(
            ["command", "P50 s", "slowest s", f"vs `{BASELINE}`", "target s", "met", "peak MiB"],
            [
                [
                    f"`{name}`",
                    f"{row['p50_s']:.3f}",
                    f"{row['max_s']:.3f}",
                    f"{row['vs_python']:.2f}x",
                    "-" if name == BASELINE else f"{_target_s(cli, name):g}",
                    "-"
                    if name == BASELINE
                    else ("yes" if row["p50_s"] <= _target_s(cli, name) else "no"),
                    f"{row['peak_mib']:.0f}" if "peak_mib" in row else "-",
                ]
                for name, row in commands.items()
            ],
            align="lrrrrrr",
        ),
        "",
    ]


def _target_s(cli: Mapping[str, Any], name: str) -> float:
    target: float = cli["ask_target_s"] if name.startswith("edgar-rag ask") else cli["target_s"]
    return target
