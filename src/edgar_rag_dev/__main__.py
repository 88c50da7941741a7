"""``python -m edgar_rag_dev eval gate check``: the ``edgar-rag dev`` commands, run where the
entry points are not installed (a checkout on ``PYTHONPATH``), with the same one-line errors."""

from __future__ import annotations

from edgar_rag.cli.app import EdgarRagGroup
from edgar_rag_dev.cli import dev


def main() -> None:
    group = EdgarRagGroup(
        name="edgar_rag_dev", commands=dev.commands, help=dev.help, find_tools=dict
    )
    group(prog_name="python -m edgar_rag_dev")


if __name__ == "__main__":
    main()
