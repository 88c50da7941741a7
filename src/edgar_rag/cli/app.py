"""The ``edgar-rag`` group every command joins: one line for an error, a log file for a bug,
the commands of installed tooling (``cli.tools``), and the options and output helpers the
commands share."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from edgar_rag import __version__
from edgar_rag.cli.tools import TOOLING, FindTools, installed_tools, load_tool, missing_tool
from edgar_rag.errors import EdgarRagError
from edgar_rag.extras import missing_extra

if TYPE_CHECKING:
    import logging

    from pydantic import BaseModel

    from edgar_rag.config import Settings


class EdgarRagGroup(click.Group):
    """Turns every EdgarRagError into one line on stderr and its exit code; never a traceback.
    An optional part used without its extra is one such line, naming the extra to install.

    What the package logs goes to the log file (``log_file_path``); an unexpected exception, a
    bug, is logged there with its traceback, and the user reads one line naming the file.

    A name that is none of the group's own commands is looked up among the installed tools
    (``find_tools``, read once), and a tool that is not installed answers one line."""

    def __init__(self, *args: Any, find_tools: FindTools = installed_tools, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._find_tools = find_tools
        self._tools: Mapping[str, Callable[[], object]] | None = None

    def tools(self) -> Mapping[str, Callable[[], object]]:
        if self._tools is None:
            self._tools = self._find_tools()
        return self._tools

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        loader = self.tools().get(cmd_name)
        if loader is not None:
            return load_tool(loader, cmd_name)
        return missing_tool(cmd_name) if cmd_name in TOOLING else None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.tools()})

    def invoke(self, ctx: click.Context) -> Any:
        import logging  # noqa: PLC0415 (--version and --help answer before this runs)

        log = logging.getLogger("edgar_rag")
        handler = _log_file_handler()
        log.addHandler(handler)
        try:
            return super().invoke(ctx)
        except EdgarRagError as error:
            failure = click.ClickException(str(error))
            failure.exit_code = error.exit_code  # type: ignore[misc]
            raise failure from error
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:
            missing = missing_extra(error) if isinstance(error, ImportError) else None
            if missing is not None:
                failure = click.ClickException(str(missing))
                failure.exit_code = missing.exit_code  # type: ignore[misc]
                raise failure from error
            log.exception("unexpected_failure", extra={"command": ctx.invoked_subcommand})
            raise click.ClickException(
                f"internal error ({type(error).__name__}: {error}); "
                f"the traceback is in {handler.baseFilename}"
            ) from error
        finally:
            log.removeHandler(handler)
            handler.close()


def log_file_path() -> Path:
    """The command's log: ``edgar-rag.log`` in the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``edgar-rag/``), beside the local model's own files by default."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "edgar-rag" / "edgar-rag.log"


def _log_file_handler() -> logging.FileHandler:
    """Appends to the log file, which is created only when something is logged."""
    import logging  # noqa: PLC0415

    path = log_file_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    return handler


def settings_for(db: Path | None) -> Settings:
    from edgar_rag.config import load_settings  # noqa: PLC0415

    settings = load_settings()
    return settings.model_copy(update={"db": db}) if db is not None else settings


db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite index file (default: EDGAR_RAG_DB or ./edgar-rag.db).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def json_text(body: BaseModel | Sequence[BaseModel]) -> str:
    """The body the service would send for the same data (``service.models``), indented."""
    from pydantic import BaseModel  # noqa: PLC0415

    if isinstance(body, BaseModel):
        return json.dumps(body.model_dump(mode="json"), indent=2)
    return json.dumps([row.model_dump(mode="json") for row in body], indent=2)


@click.group(cls=EdgarRagGroup)
@click.version_option(__version__, prog_name="edgar-rag")
def main() -> None:
    """Answers about SEC 10-K filings, every figure quoted from the passage it cites."""
