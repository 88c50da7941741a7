"""The commands installed tooling adds to edgar-rag (entry points of ``edgar_rag.commands``),
and the one line a user reads when the tooling is not installed."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from edgar_rag.cli.app import EdgarRagGroup


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return CliRunner()


def test_a_tool_that_is_not_installed_answers_one_line_and_exits_2(runner: CliRunner) -> None:
    group = EdgarRagGroup(name="edgar-rag", find_tools=dict)
    for args in (["eval", "financebench", "--replay"], ["dev", "--help"], ["thresholds"]):
        result = runner.invoke(group, args)
        assert result.exit_code == 2, result.output
        assert result.stderr.strip() == (
            f"Error: edgar-rag {args[0]} belongs to the project's evaluation and benchmark "
            "tooling (edgar_rag_dev), which is not installed: `make setup` in a checkout of "
            "the repository installs it"
        )
    listed = runner.invoke(group, ["--help"]).stdout
    assert "eval" not in listed
    assert "thresholds" not in listed


def test_an_installed_tool_joins_the_group_under_its_entry_point_name(runner: CliRunner) -> None:
    @click.command()
    def hello() -> None:
        """Say hello."""
        click.echo("hello")

    group = EdgarRagGroup(name="edgar-rag", find_tools=lambda: {"greet": lambda: hello})
    assert runner.invoke(group, ["greet"]).stdout == "hello\n"
    assert "Say hello." in runner.invoke(group, ["--help"]).stdout
    assert runner.invoke(group, ["nothing"]).exit_code == 2  # click's own "No such command"


def test_an_entry_point_that_is_no_command_is_a_bug_named_in_one_line(runner: CliRunner) -> None:
    group = EdgarRagGroup(name="edgar-rag", find_tools=lambda: {"broken": lambda: "text"})
    result = runner.invoke(group, ["broken"])
    assert result.exit_code == 1
    assert "is not a click command" in result.stderr
