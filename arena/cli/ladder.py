"""``arena ladder``: run a continuous ladder, and look after it while it runs."""

from __future__ import annotations

import logging
import shlex
import signal
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from arena.cli.common import (
    DB_OPTION,
    BarLines,
    carry_on_without_reader,
    echo,
    echo_notice,
    echo_wrapped,
    open_store,
    progress_bar,
    reports_errors,
    terminal_width,
)
from arena.games.base import ArenaError
from arena.results.store import Store
from arena.tournaments.config import db_option

if TYPE_CHECKING:
    from arena.tournaments.ladder import LadderControl
    from arena.tournaments.tasks import GameResult

log = logging.getLogger(__name__)


@click.group()
def ladder() -> None:
    """A continuous ladder: bots join and leave while it runs."""


@ladder.command("run", short_help="Run a ladder until stopped, or resume it.")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--rounds", type=click.IntRange(min=1),
              help="Stop once the ladder has played this many rounds in all.")
@click.option("--workers", type=click.IntRange(min=0),
              help="Worker processes (0 = one per CPU; default from the config).")
@click.option("--db", help="Results database (default from the config).")
@click.option("--executor", type=click.Choice(["local", "dask"]),
              help="Where games run: local worker processes, or a Dask cluster.")
@click.option("--scheduler", help="The Dask scheduler's address, e.g. tcp://host:8786.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Show the rounds and games as they are played.")
@click.option("-v", "--verbose", is_flag=True, help="A line per finished game.")
@reports_errors
def ladder_run(config_path: str, rounds: int | None, progress: bool, verbose: bool,
               **overrides: Any) -> None:
    """Run the ladder of CONFIG until stopped (Ctrl-C finishes the games being played;
    running it again resumes)."""
    from arena.cli.console import close_logging, setup_logging
    from arena.results.ladder_book import COMPLETE
    from arena.tournaments.ladder import LadderControl, find_ladder, run_ladder
    from arena.tournaments.ladder_config import load_ladder_config

    config = load_ladder_config(config_path, **overrides)
    control = LadderControl(rounds=rounds)
    setup_logging(config.play.output_dir / "arena.log", verbose=verbose)
    view = LadderView(enabled=progress, verbose=verbose)
    signals = StoppingOnSignals(control, view)
    try:
        with carry_on_without_reader(), Store(config.play.db) as store, signals:
            run_ladder(config, store, control, view.progress())
            view.close()
            from arena.results.ladder_book import LadderBook

            row = find_ladder(store, config.name)
            games = LadderBook(store, row.id).games_after(0)[0]
            if row.status == COMPLETE:
                echo_wrapped(f"ladder {config.name!r} is complete: {games} games in "
                             f"{config.play.db}")
            else:
                echo_wrapped(f"ladder {config.name!r} stopped: {games} games in "
                             f"{config.play.db}; run the same command again to resume")
            _show_status(store, config.name)
            if signals.received and row.status != COMPLETE:  # a script tells it from done
                raise SystemExit(128 + signals.received)
    except KeyboardInterrupt:
        view.close()
        echo(err=True)
        echo_notice("interrupted: the finished games are kept; run the same command again "
                     "to resume")
        raise SystemExit(128 + (signals.received or signal.SIGINT)) from None
    finally:
        close_logging()


def _id(store: Store, name: str) -> int:
    from arena.tournaments.ladder import find_ladder

    return find_ladder(store, name).id


def _show_status(store: Store, name: str) -> None:
    from arena.tournaments.ladder import find_ladder
    from arena.tournaments.ladder_status import status_lines

    for line in status_lines(store, find_ladder(store, name), terminal_width()):
        echo(line)


class StoppingOnSignals:
    """The first Ctrl-C (or SIGTERM) asks the ladder to stop after the games being played;
    a second one stops at once."""

    def __init__(self, control: LadderControl, view: LadderView) -> None:
        self.control, self.view = control, view
        self.previous: dict[int, Any] = {}
        self.received = 0
        """The signal that asked the ladder to stop (0: none); its exit status is 128 plus
        it, as ``arena run``'s: 130 for Ctrl-C, 143 for SIGTERM."""

    def _asked(self, number: int, frame: FrameType | None) -> None:
        if self.control.stop:
            raise KeyboardInterrupt
        self.received = self.received or number
        self.control.stop = True
        self.view.note("stopping: finishing the games being played (Ctrl-C again to stop "
                       "at once; those games are then played again next time)")

    def __enter__(self) -> None:
        for number in (signal.SIGINT, signal.SIGTERM):
            self.previous[number] = signal.signal(number, self._asked)

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)


class LadderView(BarLines):
    """A running count of the ladder's games on stderr, its notes above it, and with
    ``verbose`` a line per game."""

    def __init__(self, *, enabled: bool, verbose: bool) -> None:
        from arena.cli.console import FailureLog

        self.enabled, self.verbose = enabled, verbose
        self.games = 0
        self.failures = FailureLog()

    def progress(self) -> Any:
        from arena.tournaments.ladder import LadderProgress

        return LadderProgress(note=self.note, game_done=self._game_done,
                              round_done=self._round_done)

    def note(self, text: str) -> None:
        """A note of the ladder's, its prose wrapped between words to the terminal."""
        from arena.results.standings import wrap

        for line in wrap(text, terminal_width()) or [""]:
            self.write(line)

    def _game_done(self, result: GameResult, labels: list[str]) -> None:
        from arena.cli.console import result_line

        self.games += 1
        names = [labels[bot] if bot < len(labels) else f"bot {bot}" for bot in result.task.seats]
        if self.verbose:
            self.write_wrapped(result_line(names, result))
        for line in self.failures.new_failures(names, result):
            self.write_wrapped(line)
        if self.enabled:
            if self.bar is None:
                self.bar = progress_bar()
            self.bar.update(1)

    def _round_done(self, index: int, games: int) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"round {index + 1}, {games} games in all", refresh=True)



@ladder.command("status", short_help="Entrants, games and ratings of a ladder.")
@click.argument("name")
@DB_OPTION
@reports_errors
def ladder_status(name: str, db: str) -> None:
    """Entrants (active, retired, error), games, ratings with σ, and games per hour."""
    with open_store(db) as store:
        _show_status(store, name)


@ladder.command("retire", short_help="Retire a bot: it plays no more games.")
@click.argument("label", metavar="NAME@VERSION")
@click.option("--ladder", "ladder_name", help="The ladder (default: the only one).")
@DB_OPTION
@reports_errors
def ladder_retire(label: str, ladder_name: str | None, db: str) -> None:
    """Retire a bot from the ladder: it plays no more games, and keeps its rating."""
    from arena.results.ladder_book import LadderBook
    from arena.tournaments.ladder_intake import retire

    with open_store(db) as store:
        row = only_ladder(store, ladder_name)
        if row.status != "running":
            raise ArenaError(f"ladder {row.name!r} is {row.status}: its bots are fixed")
        echo(f"{retire(LadderBook(store, row.id), row.game, label)} retired from ladder "
             f"{row.name!r}; it plays no more games")


@ladder.command("freeze", short_help="Take no more submissions; play the final games.")
@click.argument("name")
@DB_OPTION
@reports_errors
def ladder_freeze(name: str, db: str) -> None:
    """Take no more submissions; play the final games and publish the final standing."""
    from arena.tournaments.ladder import freeze

    with open_store(db) as store:
        row = freeze(store, name)
        games = row.config.get("ladder", {}).get("final_games", 0)
        echo_wrapped(f"ladder {name!r} is frozen: it takes no more submissions, and plays "
                     f"{games} final games among its active bots at its next round")


def only_ladder(store: Store, name: str | None) -> Any:
    from arena.tournaments.ladder import find_ladder

    if name is not None:
        return find_ladder(store, name)
    ladders = [r for r in store.tournaments() if r.config.get("format") == "ladder"]
    if len(ladders) != 1:
        raise ArenaError(f"{len(ladders)} ladders in {store.path}: name one with --ladder")
    return ladders[0]


def submit_to_ladder(spec: str, name: str, db: str) -> None:
    """Queue the bot file ``spec`` (a package's folder or ``__init__.py``: the package,
    ``:Attr`` kept) for the ladder ``name`` (validated at its next round)."""
    from arena.bots.loading import split_spec
    from arena.results.ladder_book import LadderBook
    from arena.tournaments.ladder_intake import ladder_home, stage

    if not Path(db).exists():
        raise ArenaError(f"no results database at {db}: a ladder takes submissions once "
                         "`arena ladder run CONFIG` has started it (give its db with --db)")
    with open_store(db) as store:
        row = only_ladder(store, name)
        if row.status != "running":
            raise ArenaError(f"ladder {row.name!r} is {row.status}: it takes no submissions")
        target, attr = split_spec(spec)  # a package (its folder or __init__.py) whole
        file = Path(target)
        package = file.parent if file.name == "__init__.py" else None
        submission = stage(LadderBook(store, row.id), ladder_home(store, row.name), file,
                           "arena submit", attr=attr, package=package)
    at = db_option(db)
    echo_wrapped(f"submission {submission} queued for ladder {row.name!r}: the ladder "
                 "validates it as it runs (`arena ladder run` its config, if it is not "
                 f"running) and, if it is valid, lets it join at the round after; "
                 f"`arena ladder status {shlex.quote(row.name)}{at}` shows how it fares")
