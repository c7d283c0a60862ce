"""``arena ratings``, ``history``, ``compare`` and ``report``: reading the stored results."""

from __future__ import annotations

import datetime
from pathlib import Path

import click

from arena.cli.common import DB_OPTION, SYSTEM_OPTION, echo, open_store, reports_errors
from arena.games import find_game
from arena.games.base import ArenaError
from arena.results.ratings import RatingSettings


@click.command()
@click.option("--game", "game_name", help="Only this game (default: every game played).")
@DB_OPTION
@SYSTEM_OPTION
@reports_errors
def ratings(game_name: str | None, db: str, system: str) -> None:
    """The all-time leaderboard of every bot version."""
    from arena.results.versions import games_played, leaderboard

    with open_store(db) as store:
        names = [find_game(game_name).info.name] if game_name else games_played(store)
        for name in names:
            rows = leaderboard(store, name, RatingSettings(system=system))
            echo(f"{name} ({system}, {len(rows)} versions)")
            echo(f"  {'#':>3}  {'bot':<20} {'version':<10} {'mu':>7} {'sigma':>6} "
                       f"{'mu-3sigma':>9} {'games':>6} {'wins':>5} {'draws':>5} {'losses':>6}")
            for place, row in enumerate(rows, 1):
                bot, r, t = row.bot.identity, row.rating, row.tally
                echo(f"  {place:>3}  {bot.name:<20} {bot.version:<10} {r.mu:7.2f} "
                           f"{r.sigma:6.2f} {r.conservative:9.2f} {t.games:6d} {t.wins:5d} "
                           f"{t.draws:5d} {t.losses:6d}")


@click.command()
@click.argument("name")
@click.option("--game", "game_name", help="Only this game (default: every game it played).")
@DB_OPTION
@SYSTEM_OPTION
@reports_errors
def history(name: str, game_name: str | None, db: str, system: str) -> None:
    """Each version of bot NAME: its rating and games after every tournament."""
    from arena.results.versions import games_played
    from arena.results.versions import history as version_history

    with open_store(db) as store:
        names = [find_game(game_name).info.name] if game_name else games_played(store)
        shown = 0
        for game in names:
            rows = version_history(store, name, game, RatingSettings(system=system))
            if not rows:
                continue
            shown += 1
            echo(f"{name} in {game} ({system})")
            echo(f"  {'version':<10} {'tournament':<32} {'when':<16} {'mu':>7} "
                       f"{'sigma':>6} {'mu-3sigma':>9} {'games':>6}")
            for row in rows:
                when = datetime.datetime.fromtimestamp(row.finished).strftime("%Y-%m-%d %H:%M")
                r = row.rating
                echo(f"  {row.version:<10} {row.tournament:<32} {when:<16} {r.mu:7.2f} "
                           f"{r.sigma:6.2f} {r.conservative:9.2f} {row.games:6d}")
        if not shown:
            raise ArenaError(f"bot {name!r} has no rated games in {db}")


@click.command()
@click.argument("first", metavar="NAME@V1")
@click.argument("second", metavar="NAME@V2")
@click.option("--game", "game_name", help="The game (needed when both play several).")
@click.option("--games", "pairs", type=click.IntRange(min=1),
              help="Play this many seat-swapped pairs now (with --sprt: at most this many).")
@click.option("--sprt", "use_sprt", is_flag=True,
              help="Play pairs until a sequential test decides (elo0 vs elo1).")
@click.option("--elo0", type=float, default=0.0, show_default=True)
@click.option("--elo1", type=float, default=10.0, show_default=True)
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--beta", type=float, default=0.05, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(min=0), default=0,
              help="Worker processes (0 = one per CPU).")
@click.option("--progress/--no-progress", default=True, show_default=True)
@DB_OPTION
@reports_errors
def compare(first: str, second: str, game_name: str | None, pairs: int | None,
            use_sprt: bool, elo0: float, elo1: float, alpha: float, beta: float, seed: int,
            workers: int, progress: bool, db: str) -> None:
    """Compare two bot versions: score, Elo difference, LOS, and an SPRT verdict.

    Without --games or --sprt the stored games in which the two met are used.
    """
    from arena.cli.console import ProgressBar
    from arena.results.comparison import common_game, parse_version, stored_comparison
    from arena.results.stats import SprtSettings
    from arena.tournaments.matches import play_comparison

    settings = SprtSettings(elo0, elo1, alpha, beta) if use_sprt else None
    labels = [parse_version(label) for label in (first, second)]
    with open_store(db) as store:
        game = (find_game(game_name).info.name if game_name
                else common_game(store, *(name for name, _version in labels)))
        bots = [store.find_bot(game, *label) for label in labels]
        if pairs is None and not use_sprt:
            result = stored_comparison(store, game, bots[0], bots[1])
            if result.score.games == 0:
                raise ArenaError(f"{first} and {second} have not met in {db}; "
                                 "play some with --games N or --sprt")
        else:
            bar = ProgressBar(enabled=progress)
            try:
                result = play_comparison(store, game, bots[0], bots[1], pairs=pairs or 5000,
                                         seed=seed, workers=workers, db=db, settings=settings,
                                         progress=bar)
            finally:
                bar.close()
        for line in result.lines():
            echo(line)


@click.command()
@click.argument("tournament", required=False)
@DB_OPTION
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Output folder (default: results/<tournament name>).")
@reports_errors
def report(tournament: str | None, db: str, out_dir: str | None) -> None:
    """Write the CSV files and the HTML report of TOURNAMENT (name or id; default: the
    latest)."""
    from arena.reports import write_reports

    with open_store(db) as store:
        rows = store.tournaments()
        if not rows:
            raise ArenaError(f"no tournaments in {db}")
        row = store.find_tournament(tournament) if tournament else rows[-1]
        folder = Path(out_dir) if out_dir else Path("results") / row.name
        for path in write_reports(store, row, folder):
            echo(f"wrote {path}")
