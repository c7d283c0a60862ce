"""What every command shares: one clear line for arena's errors, common options."""

from __future__ import annotations

import functools
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import yaml

from arena.bots.loading import BotLoadError, BotNotFoundError, split_spec
from arena.bots.process import is_command
from arena.games.base import ArenaError
from arena.referee.protocol import printable
from arena.results.ratings import SYSTEMS
from arena.results.store import Store
from arena.tournaments.config import DEFAULT_DB

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(command: F) -> F:
    """Turn arena's errors into one line and exit code 1 (a bot's traceback follows)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BotLoadError as exc:
            if exc.details:
                echo(exc.details.rstrip(), err=True)
            raise click.ClickException(printable(str(exc))) from None
        except ArenaError as exc:
            raise click.ClickException(printable(str(exc))) from None
        except sqlite3.Error as exc:  # a full disk, a locked or damaged file
            raise click.ClickException(
                f"the results database: {printable(str(exc))}; finished games are kept — fix "
                "this and run the same command again to resume") from None
        except OSError as exc:  # a full disk or a folder arena may not write to
            raise click.ClickException(printable(str(exc))) from None

    return wrapper  # type: ignore[return-value]


def echo(text: str = "", *, err: bool = False) -> None:
    """Print a line; what bots and configs supplied in it (names, stderr, tracebacks) cannot
    act on the terminal: control characters show as escapes."""
    click.echo(printable(text), err=err)


class BarLines:
    """Lines on stderr above a progress bar (a tqdm bar), when there is one."""

    bar: Any = None

    def write(self, line: str) -> None:
        """A line on stderr above the bar (what bots supplied in it made harmless)."""
        if self.bar is not None:
            self.bar.write(printable(line), file=sys.stderr)
        else:
            echo(line, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` with a YAML value (``limit=500`` gives the integer 500)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--option")
    try:
        return name.strip(), yaml.safe_load(value)
    except yaml.YAMLError:
        return name.strip(), value


DB_OPTION = click.option("--db", default=DEFAULT_DB, show_default=True,
                         help="Results database.")
SYSTEM_OPTION = click.option("--system", type=click.Choice(SYSTEMS), default="trueskill",
                             show_default=True, help="Rating system.")


def open_store(db: str) -> Store:
    """The results database at ``db``, which must exist already."""
    if not Path(db).exists():
        raise ArenaError(f"no results database at {db} (run a tournament first, or pass --db)")
    return Store(db)


def check_bot_file(spec: str) -> None:
    """A bot file spec must name a file that exists."""
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
