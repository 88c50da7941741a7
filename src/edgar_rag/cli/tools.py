"""The commands another installed package adds to ``edgar-rag``: entry points of the group
``edgar_rag.commands``, each a click command under its entry point's name.

The project's evaluations and benchmarks (the package ``edgar_rag_dev``, beside this one in a
checkout, where ``make setup`` installs it; not in the ``edgar-rag`` wheel) add ``dev``, ``eval``
and ``thresholds`` this way, so the runtime imports none of them (``.importlinter`` forbids it).
Without them each of those names answers one line saying so, and exits 2. The entry points are
read only when a command is not one of the runtime's own, or when ``--help`` lists them, so
``--version`` and ``ask`` never pay for the lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import click

from edgar_rag.errors import MissingExtraError

ENTRY_POINTS = "edgar_rag.commands"
TOOLING = ("dev", "eval", "thresholds")
"""What the project's tooling adds: a user who runs one without it reads where it comes from."""

FindTools = Callable[[], Mapping[str, Callable[[], object]]]
"""The installed tool commands, by name, each a loader returning its click command."""


def installed_tools() -> dict[str, Callable[[], object]]:
    """The entry points of ``edgar_rag.commands`` of every installed distribution."""
    from importlib.metadata import entry_points  # noqa: PLC0415 (about 20 ms; --help only)

    return {entry.name: entry.load for entry in entry_points(group=ENTRY_POINTS)}


def load_tool(loader: Callable[[], object], name: str) -> click.Command:
    command = loader()
    if not isinstance(command, click.Command):
        raise TypeError(f"the entry point {name} of {ENTRY_POINTS} is not a click command")
    return command


def missing_tool(name: str) -> click.Command:
    """A hidden stand-in for a command of the tooling that is not installed: whatever its
    arguments, including ``--help``, it fails with one line."""

    def fail() -> None:
        raise MissingExtraError(
            f"edgar-rag {name} belongs to the project's evaluation and benchmark tooling "
            "(edgar_rag_dev), which is not installed: `make setup` in a checkout of the "
            "repository installs it"
        )

    return click.Command(
        name,
        callback=fail,
        hidden=True,
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
