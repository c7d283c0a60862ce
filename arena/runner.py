"""``arena run``: a tournament from the terminal, with progress, CSV and standings."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import click

from arena.config import TournamentConfig
from arena.console import ProgressBar, close_logging, setup_logging
from arena.schedule import Table, round_robin_tables
from arena.standings import BotResults, table_lines
from arena.store import Store
from arena.swiss import pair_round
from arena.tournament import (
    RunReport,
    load_entrants,
    run_tournament,
    total_games,
)

log = logging.getLogger("arena.run")
PREVIEW_TABLES = 10


def dry_run_lines(config: TournamentConfig) -> list[str]:
    """The schedule's size and its first pairings, without playing."""
    labels = load_entrants(config).labels
    per_table = config.seats * config.games_per_pairing
    total = total_games(config)
    lines = [f"{config.name}: {config.format} of {config.game}, {len(labels)} bots, "
             f"{config.seats} seats per table, seed {config.seed}",
             f"{total} games: {total // per_table} tables of {per_table} games "
             f"({config.games_per_pairing} set(s) of {config.seats} seat rotations)"]
    if config.format == "round-robin":
        tables = round_robin_tables(len(labels), config.seats, config.rounds, config.seed)
        lines.append("first tables:")
    else:
        pairing = pair_round(len(labels), config.seats, [], [], float(per_table))
        tables = [Table(0, i, bots) for i, bots in enumerate(pairing.tables)]
        lines.append("round 1 tables:" + (
            f" (bye: {', '.join(labels[b] for b in pairing.byes)})" if pairing.byes else ""))
    for table in tables[:PREVIEW_TABLES]:
        lines.append(f"  round {table.round + 1}: " + " vs ".join(labels[b] for b in table.bots))
    if len(tables) > PREVIEW_TABLES:
        lines.append(f"  … and {len(tables) - PREVIEW_TABLES} more")
    return lines


def run_from_cli(config: TournamentConfig, *, progress: bool, verbose: bool) -> None:
    output = config.output_dir
    setup_logging(output / "arena.log", verbose=verbose)
    bar = ProgressBar(enabled=progress)
    bar.round_done = lambda index, results: _show_round(index, results)
    log.info("tournament %s: %s", config.name, config.defining())
    try:
        with Store(config.db) as store:
            try:
                report = run_tournament(config, store, bar)
            except KeyboardInterrupt:
                bar.close()
                done = len(store.finished_keys(_tournament_id(store, config.name)))
                click.echo(f"\ninterrupted: {done} finished games are kept in {config.db}; "
                           "run the same command again to resume", err=True)
                raise SystemExit(130) from None
            bar.close()
            _finish(config, store, report)
    finally:
        close_logging()


def _tournament_id(store: Store, name: str) -> int:
    row = store.db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
    return int(row[0]) if row else 0


def _show_round(index: int, results: Sequence[BotResults]) -> None:
    click.echo(f"\nstandings after round {index + 1}:", err=True)
    for line in table_lines(results, seats=False):
        click.echo(line, err=True)


def _finish(config: TournamentConfig, store: Store, report: RunReport) -> None:
    for problem in report.problems:
        click.echo(f"warning: {problem}", err=True)
    if report.played == 0 and report.complete:
        click.echo(f"tournament {config.name!r} is complete ({report.total} games in "
                   f"{config.db}); nothing to play")
    else:
        click.echo(f"tournament {config.name!r}: played {report.played} games "
                   f"({report.already_done} were already done), {report.total} in all")
    for line in table_lines(report.standings):
        click.echo(line)
    paths = write_csv(config, store, report)
    click.echo("wrote " + ", ".join(str(p) for p in paths))


def write_csv(config: TournamentConfig, store: Store, report: RunReport) -> list[Path]:
    """The CSV files and the HTML report of the tournament, in its output folder."""
    from arena.reports import write_reports

    return write_reports(store, store.find_tournament(config.name), config.output_dir)
