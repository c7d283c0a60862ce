"""``arena run``: a tournament from the terminal, with progress, standings, CSV and report."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import click

from arena.bots.interrupts import interrupt_status
from arena.cli.common import (
    carry_on_without_reader,
    echo,
    echo_notice,
    echo_wrapped,
    reports_errors,
    terminal_width,
)
from arena.results.standings import legend_lines, table_lines, wrap
from arena.results.store import Store
from arena.tournaments.config import TournamentConfig, load_config, report_command

if TYPE_CHECKING:
    from arena.results.luck_book import Progress
    from arena.tournaments.runner import RunReport, TournamentRun

log = logging.getLogger(__name__)
INTERIM_FROM = 500
"""Round-robins of this many games or more show their standings as they go."""
INTERIM_TABLES = 3
"""How many times they show them (at about a quarter, a half and three quarters)."""


@click.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, help="Override the config's seed.")
@click.option("--workers", type=click.IntRange(min=0),
              help="Worker processes (0 = one per CPU; default from the config).")
@click.option("--rounds", type=click.IntRange(min=1), help="Override the number of rounds.")
@click.option("--games-per-pairing", type=click.IntRange(min=1),
              help="Override how many seat-rotation sets each pairing plays.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True),
              help="Override the per-decision time limit (seconds).")
@click.option("--db", help="Results database (default results/arena.db).")
@click.option("--output", help="Output folder (default results/<name>).")
@click.option("--name", help="Override the tournament's name.")
@click.option("--executor", type=click.Choice(["local", "dask"]),
              help="Where games run: local worker processes, or a Dask cluster.")
@click.option("--scheduler", help="The Dask scheduler's address, e.g. tcp://host:8786.")
@click.option("--dry-run", is_flag=True, help="Print the schedule size and first pairings.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Show a progress bar (in a file or pipe: a line now and then).")
@click.option("--standings-every", type=click.IntRange(min=0), metavar="N",
              help=f"Show the standings every N games (default: {INTERIM_TABLES} times in a "
              f"round-robin of {INTERIM_FROM} games or more; 0: never). Swiss shows them "
              "every round.")
@click.option("-v", "--verbose", is_flag=True,
              help="A line per finished game (cutechess style) and arena's warnings.")
@click.option("--luck/--no-luck", default=None,
              help="Account for the dice's luck (the game's value model) and show the pairs' "
              "luck-adjusted scores in the report [default: on, unless more than 5,000 games "
              "wait for it].")
@reports_errors
def run(config_path: str, dry_run: bool, progress: bool, verbose: bool,
        standings_every: int | None, luck: bool | None, **overrides: Any) -> None:
    """Run (or resume) the tournament described by CONFIG.

    Running it again resumes it; with more rounds or games per pairing it grows (only the
    new games are played); after a bot changed, or with other bots, they play a new
    tournament NAME-2 and the old one is kept.
    """
    from arena.tournaments.runner import schedule_preview

    config = load_config(config_path, **overrides)
    if dry_run:
        from pathlib import Path

        from arena.results.store import Store

        if Path(config.db).exists():
            with Store(config.db) as store:
                lines = schedule_preview(config, store)
        else:
            lines = schedule_preview(config)
        for line in lines:
            echo_wrapped(line, indent="  ")
        return
    with carry_on_without_reader():
        run_from_cli(config, progress=progress, verbose=verbose,
                     standings_every=standings_every, luck=luck)


def interim_every(config: TournamentConfig, asked: int | None) -> int:
    """How often to show the standings while the games are played (0: never): by default
    :data:`INTERIM_TABLES` times in a round-robin of :data:`INTERIM_FROM` games or more,
    never after its last game (the final standings follow it)."""
    from arena.tournaments.runner import total_games

    if asked is not None:
        return asked
    total = total_games(config)
    if config.format != "round-robin" or total < INTERIM_FROM:
        return 0
    return total // (INTERIM_TABLES + 1) + 1


def run_from_cli(config: TournamentConfig, *, progress: bool, verbose: bool,
                 standings_every: int | None = None, luck: bool | None = None) -> None:
    """Play the tournament with a progress bar, then show and write its results."""
    from arena.cli.console import ProgressBar, close_logging, setup_logging
    from arena.tournaments.runner import run_tournament

    setup_logging(config.output_dir / "arena.log", verbose=verbose)
    bar = ProgressBar(enabled=progress, verbose=verbose,
                      standings_every=interim_every(config, standings_every))
    bar.round_done = lambda index, results: bar.write_standings(
        f"standings after round {index + 1}:", results)
    show_header = bar.opened

    def opened(run: TournamentRun) -> None:
        if run.config.output_dir != config.output_dir:  # a new tournament, NAME-2
            close_logging()
            setup_logging(run.config.output_dir / "arena.log", verbose=verbose)
        show_header(run)

    accountant = luck_while_playing(config, luck)

    def opened_and_accounting(run: TournamentRun) -> None:
        opened(run)
        accountant(run)

    bar.opened = opened_and_accounting
    log.info("tournament %s: %s", config.name, config.defining())
    try:
        with Store(config.db) as store:
            try:
                report = run_tournament(config, store, bar)
            except KeyboardInterrupt as stop:
                bar.close()
                name = bar.run.config.name if bar.run else config.name
                done = store.finished_count(name)
                echo(err=True)
                echo_notice(f"interrupted: {done} finished games are kept in {config.db}; "
                             "run the same command again to resume")
                raise SystemExit(interrupt_status(stop)) from None
            bar.close()
            store.check_file()  # the games are in the file at --db, or the run says not
            finished = bar.run.config if bar.run else config
            try:
                _finish(finished, store, report, luck=luck, progress=progress,
                        accountant=accountant)
            except KeyboardInterrupt as stop:
                echo(err=True)
                echo_notice(f"interrupted: all {report.total} games are kept in "
                            f"{config.db}; "
                            f"{report_command(finished.name, config.db, finished.output_dir)}"
                            " writes the report")
                raise SystemExit(interrupt_status(stop)) from None
    finally:
        accountant.stop()
        close_logging()


class LuckAccountant:
    """Starts :class:`~arena.results.luck_book.LuckWhilePlaying` once the tournament is
    open, where its report will account for the luck (see :func:`luck_while_playing`)."""

    def __init__(self, db: str | None) -> None:
        self.db = db
        self.running: Any = None

    def __call__(self, run: TournamentRun) -> None:
        from arena.results.luck_book import LuckWhilePlaying

        if self.db is not None and self.running is None:
            self.running = LuckWhilePlaying(self.db, run.tid).start()

    def stop(self) -> None:
        if self.running is not None:
            self.running.stop()
            self.running = None

    def finish(self, store: Store, *, alongside: bool, progress: Progress) -> None:
        """Account for what is left beside the running accountant (``alongside``: no pool to
        start, see :func:`~arena.results.luck_book.account_alongside`), or just stop it (the
        report's accounting then does the rest)."""
        from arena.results.luck_book import account_alongside

        if self.running is not None and alongside:
            account_alongside(store, self.running.tournament, self.running, progress=progress)
        self.stop()


def luck_while_playing(config: TournamentConfig, luck: bool | None) -> LuckAccountant:
    """An accountant for the luck while the games are played, idle unless the report will
    account for it: asked, or by default up to the report's limit of games."""
    from arena.cli.console import AUTO_LUCK_LIMIT
    from arena.results.luck_book import WHILE_PLAYING_FROM
    from arena.tournaments.runner import total_games

    games = total_games(config)
    wanted = games >= WHILE_PLAYING_FROM and (
        luck is True or (luck is None and games <= AUTO_LUCK_LIMIT))
    return LuckAccountant(config.db if wanted else None)


def _finish(config: TournamentConfig, store: Store, report: RunReport, *, luck: bool | None,
            progress: bool, accountant: LuckAccountant) -> None:
    from arena.cli.console import LuckBar, report_luck
    from arena.reports import write_reports
    from arena.results.luck_book import LuckSource

    for problem in report.problems:
        echo(f"warning: {problem}", err=True)
    width = terminal_width()
    if report.played == 0 and report.complete:
        summary = (f"tournament {config.name!r} is complete ({report.total} games in "
                   f"{config.db}); nothing to play")
    else:
        summary = (f"tournament {config.name!r}: played {report.played} games "
                   f"({report.already_done} were already done), {report.total} in all")
    for line in wrap(summary, width):
        echo(line)
    for line in table_lines(report.standings, width=width):
        echo(line)
    for line in legend_lines(config.seats, width,
                             byes=any(result.byes for result in report.standings)):
        echo(line)
    if any(result.overall.failures for result in report.standings):
        for line in wrap("every failure's detail: the `detail` column of games.csv and the "
                         "Terminations of report.html", width):
            echo(line)
    if config.secret_seed and report.complete:
        echo(f"the secret seed was {store.seed_of(report.tournament_id)}")
    row = store.find_tournament(config.name)
    source = report_luck(store, row.id, luck, LuckSource())
    with LuckBar(enabled=progress) as bar:
        if source is None:
            accountant.stop()
        else:  # two CPUs or fewer: this process and the accountant do the rest
            accountant.finish(store, alongside=config.worker_count <= 2, progress=bar.update)
        paths = write_reports(store, row, config.output_dir, luck=source,
                              workers=config.worker_count, progress=bar.update)
    for line in wrap("wrote " + ", ".join(str(p) for p in paths), terminal_width()):
        echo(line)
