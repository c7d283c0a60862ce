"""The ``arena`` command line: thin commands over the library.

Errors are one clear line on stderr and a non-zero exit: 1 for a failure
(a bot that does not load, an unknown game), 2 for a usage mistake.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
import yaml

from arena.config import DEFAULT_DB, load_config
from arena.games import GAMES, find_game
from arena.games.base import ArenaError, Game
from arena.human import HUMAN_SPEC, HumanPlayer
from arena.match import resolve_game_options
from arena.play import MatchSummary, bot_labels, play_match
from arena.players import (
    BotLoadError,
    BotNotFoundError,
    Player,
    PlayerFailure,
    load_bot,
    split_spec,
)
from arena.ratings import SYSTEMS, RatingSettings
from arena.record import GameRecord
from arena.sandbox import ProcessPlayer, bot_command, is_command
from arena.store import Store

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(command: F) -> F:
    """Turn arena's errors into one line and exit code 1 (a bot's traceback follows)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BotLoadError as exc:
            if exc.details:
                click.echo(exc.details.rstrip(), err=True)
            raise click.ClickException(str(exc)) from None
        except ArenaError as exc:
            raise click.ClickException(str(exc)) from None
        except sqlite3.Error as exc:  # a full disk, a locked or damaged file
            raise click.ClickException(
                f"the results database: {exc}; finished games are kept — fix this and run "
                "the same command again to resume") from None
        except OSError as exc:  # a full disk or a folder arena may not write to
            raise click.ClickException(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` with a YAML value (``limit=500`` gives the integer 500)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--option")
    try:
        return name.strip(), yaml.safe_load(value)
    except yaml.YAMLError:
        return name.strip(), value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def cli() -> None:
    """Tournaments, ratings and reports for bots playing dice games."""


@cli.command()
def games() -> None:
    """List the games and their options."""
    for name in sorted(GAMES):
        info = GAMES[name].info
        seats = (str(info.min_seats) if info.min_seats == info.max_seats
                 else f"{info.min_seats}-{info.max_seats}")
        click.echo(f"{name}: {info.title} ({seats} players)")
        for option in info.options:
            choices = f", one of {', '.join(map(str, option.choices))}" if option.choices else ""
            click.echo(f"  --option {option.name}=… (default {option.default}{choices}): "
                       f"{option.help}")


@cli.command()
@click.argument("game_name", metavar="GAME")
@click.argument("bots", nargs=-1, required=True, metavar="BOT...")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the match.")
@click.option("--games", "count", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play; seats rotate, each rotation group shares its dice.")
@click.option("--option", "-o", "raw_options", multiple=True, metavar="NAME=VALUE",
              help="A game option (see `arena games`); repeatable.")
@click.option("--dice", type=click.Choice(["standard", "miwin"]),
              help="Dice variant, for games that have one (same as -o dice=…).")
@click.option("--board", type=click.Path(exists=True, dir_okay=False),
              help="Board file, for games played on a board (same as -o board=…).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write each game's record to this file as JSON Lines.")
@click.option("--isolation", type=click.Choice(["process", "none"]), default="process",
              show_default=True,
              help="Run each bot in a process of its own, or inside arena (trusted bots).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True),
              help="Seconds per decision (default: no limit).")
@reports_errors
def play(game_name: str, bots: Sequence[str], seed: int, count: int,
         raw_options: Sequence[str], dice: str | None, board: str | None,
         json_path: str | None, isolation: str, time_limit: float | None) -> None:
    """Play GAME between BOTs: one game as a log, several as a summary.

    A BOT is path/to/bot.py, path/to/bot.py:Name, module:attr, an installed
    entry point, or `human` to play yourself in the terminal.
    """
    game = find_game(game_name)
    given = dict(parse_option(o) for o in raw_options)
    given.update({k: v for k, v in (("dice", dice), ("board", board)) if v is not None})
    options = resolve_game_options(game, given, len(bots))
    players: list[Player] = []
    out = None
    try:
        players.extend(load_player(game, spec, isolation) for spec in bots)
        results = play_match(game, players, seed, count, options, time_limit=time_limit)
        out = open(json_path, "w", encoding="utf-8") if json_path else None  # noqa: SIM115
        if count == 1:
            _order, record = next(results)
            _save(out, record)
            show_game(game, record)
        else:
            show_summary(game, players, seed, count, results, out)
    finally:
        if out:
            out.close()
        for player in players:
            if isinstance(player, ProcessPlayer):
                player.close()


def load_player(game: Game, spec: str, isolation: str = "process") -> Player:
    """A human, a bot in its own process (its handshake done), or a trusted in-process bot."""
    if spec == HUMAN_SPEC:
        return HumanPlayer(game)
    if isolation == "none" and not is_command(spec):
        return load_bot(spec).player
    if not is_command(spec):
        target, _attr = split_spec(spec)
        if target.endswith(".py") and not Path(target).is_file():
            raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
    player = ProcessPlayer(bot_command(spec, {}), label=spec)
    try:
        player.ensure_running()
    except PlayerFailure as failure:
        head, _, tail = failure.detail.partition("\n--- stderr ---\n")
        raise BotLoadError(f"bot {spec!r} cannot be loaded: {head}", tail) from None
    return player


def _save(out: Any, record: GameRecord) -> None:
    if out is not None:
        out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        out.flush()


def show_game(game: Game, record: GameRecord) -> None:
    names = ", ".join(f"seat {i}: {s.name}@{s.version}" for i, s in enumerate(record.seats))
    click.echo(f"{game.info.title}, seed {record.seed} ({names})")
    for line in game.describe_game(record):
        click.echo(line)
    for seat, status in enumerate(record.seats):
        if status.status != "ok":
            first = status.detail.splitlines()[0] if status.detail else ""
            click.echo(f"seat {seat} ({status.name}) lost by {status.status}: {first}")


def show_summary(game: Game, players: Sequence[Player], seed: int, count: int,
                 results: Any, out: Any) -> None:
    summary = MatchSummary(bot_labels(players), len(players))
    with click.progressbar(results, length=count, label="playing", file=sys.stderr) as bar:
        for order, record in bar:
            _save(out, record)
            summary.add(order, record)
    click.echo(f"{count} games of {game.info.title}, seed {seed}, seats rotated "
               f"(each group of {len(players)} games shares its dice)")
    for line in summary.lines():
        click.echo(line)


@cli.command()
@click.option("--board", "board_path", type=click.Path(exists=True, dir_okay=False),
              help="Board file (default: the Sonnentau board).")
@click.option("--record", "record_path", type=click.Path(exists=True, dir_okay=False),
              help="A game record file (JSON Lines, from `arena play --json`).")
@click.option("--game", "game_index", type=click.IntRange(min=1), default=1, show_default=True,
              help="Which game of the record file.")
@click.option("--move", type=click.IntRange(min=0),
              help="Show the position after this many moves (default: the end).")
@click.option("--svg", "svg_path", required=True, type=click.Path(dir_okay=False),
              help="Where to write the drawing.")
@reports_errors
def board(board_path: str | None, record_path: str | None, game_index: int,
          move: int | None, svg_path: str) -> None:
    """Draw a Sonnentau board, or a recorded game's position on it, as SVG."""
    from arena.boards import draw

    Path(svg_path).write_text(draw(board_path, record_path, game_index, move),
                              encoding="utf-8")
    click.echo(f"wrote {svg_path}")


@cli.command()
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
@click.option("--progress/--no-progress", default=True, show_default=True)
@click.option("-v", "--verbose", is_flag=True, help="Echo the log to the terminal.")
@reports_errors
def run(config_path: str, dry_run: bool, progress: bool, verbose: bool,
        **overrides: Any) -> None:
    """Run (or resume) the tournament described by CONFIG."""
    from arena.runner import dry_run_lines, run_from_cli

    config = load_config(config_path, **overrides)
    if dry_run:
        for line in dry_run_lines(config):
            click.echo(line)
        return
    run_from_cli(config, progress=progress, verbose=verbose)


DB_OPTION = click.option("--db", default=DEFAULT_DB, show_default=True,
                         help="Results database.")
SYSTEM_OPTION = click.option("--system", type=click.Choice(SYSTEMS), default="trueskill",
                             show_default=True, help="Rating system.")


@cli.command()
@click.option("--game", "game_name", help="Only this game (default: every game played).")
@DB_OPTION
@SYSTEM_OPTION
@reports_errors
def ratings(game_name: str | None, db: str, system: str) -> None:
    """The all-time leaderboard of every bot version."""
    from arena.versions import games_played, leaderboard

    with open_store(db) as store:
        names = [find_game(game_name).info.name] if game_name else games_played(store)
        for name in names:
            rows = leaderboard(store, name, RatingSettings(system=system))
            click.echo(f"{name} ({system}, {len(rows)} versions)")
            click.echo(f"  {'#':>3}  {'bot':<20} {'version':<10} {'mu':>7} {'sigma':>6} "
                       f"{'mu-3sigma':>9} {'games':>6} {'wins':>5} {'draws':>5} {'losses':>6}")
            for place, row in enumerate(rows, 1):
                bot, r, t = row.bot.identity, row.rating, row.tally
                click.echo(f"  {place:>3}  {bot.name:<20} {bot.version:<10} {r.mu:7.2f} "
                           f"{r.sigma:6.2f} {r.conservative:9.2f} {t.games:6d} {t.wins:5d} "
                           f"{t.draws:5d} {t.losses:6d}")


@cli.command()
@click.argument("name")
@click.option("--game", "game_name", help="Only this game (default: every game it played).")
@DB_OPTION
@SYSTEM_OPTION
@reports_errors
def history(name: str, game_name: str | None, db: str, system: str) -> None:
    """Each version of bot NAME: its rating and games after every tournament."""
    import datetime

    from arena.versions import games_played
    from arena.versions import history as version_history

    with open_store(db) as store:
        names = [find_game(game_name).info.name] if game_name else games_played(store)
        shown = 0
        for game in names:
            rows = version_history(store, name, game, RatingSettings(system=system))
            if not rows:
                continue
            shown += 1
            click.echo(f"{name} in {game} ({system})")
            click.echo(f"  {'version':<10} {'tournament':<32} {'when':<16} {'mu':>7} "
                       f"{'sigma':>6} {'mu-3sigma':>9} {'games':>6}")
            for row in rows:
                when = datetime.datetime.fromtimestamp(row.finished).strftime("%Y-%m-%d %H:%M")
                r = row.rating
                click.echo(f"  {row.version:<10} {row.tournament:<32} {when:<16} {r.mu:7.2f} "
                           f"{r.sigma:6.2f} {r.conservative:9.2f} {row.games:6d}")
        if not shown:
            raise ArenaError(f"bot {name!r} has no rated games in {db}")


@cli.command()
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
    from arena.compare import parse_version, play_comparison, stored_comparison
    from arena.console import ProgressBar
    from arena.stats import SprtSettings

    settings = SprtSettings(elo0, elo1, alpha, beta) if use_sprt else None
    with open_store(db) as store:
        game = _common_game(store, game_name, first, second)
        bots = [store.find_bot(game, *parse_version(label)) for label in (first, second)]
        if pairs is None and not use_sprt:
            result = stored_comparison(store, game, bots[0], bots[1])
            if result.score.games == 0:
                raise ArenaError(f"{first} and {second} have not met in {db}; "
                                 "play some with --games N or --sprt")
        else:
            bar = ProgressBar(enabled=progress)
            try:
                result = play_comparison(store, game, bots[0], bots[1], pairs=pairs or 5000,
                                         seed=seed,
                                         workers=workers, db=db, settings=settings,
                                         progress=bar)
            finally:
                bar.close()
        for line in result.lines():
            click.echo(line)


def _common_game(store: Store, game_name: str | None, *labels: str) -> str:
    from arena.compare import parse_version

    if game_name:
        return find_game(game_name).info.name
    names = [parse_version(label)[0] for label in labels]
    games = [g for g in sorted({b.game for b in store.bots()})
             if all(any(b.identity.name == n for b in store.bots(g)) for n in names)]
    if len(games) != 1:
        found = ", ".join(games) if games else "none"
        raise ArenaError(f"name the game with --game (games with both bots: {found})")
    return games[0]


@cli.command()
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
            click.echo(f"wrote {path}")


@cli.group()
def bots() -> None:
    """Write a new bot from a template, or check one."""


@bots.command("new")
@click.argument("name")
@click.option("--game", "game_name", required=True, help="The game the bot plays.")
@click.option("--folder", default="bots", show_default=True, type=click.Path(file_okay=False))
@reports_errors
def bots_new(name: str, game_name: str, folder: str) -> None:
    """Write bots/NAME.py (a bot that plays legal moves) and a test for it."""
    from arena.submit import new_bot

    for path in new_bot(name, game_name, Path(folder)):
        click.echo(f"wrote {path}")


@bots.command("validate")
@click.argument("spec")
@click.option("--game", "game_name", help="The game to check (default: the bot's own "
              "`games`, else every game).")
@click.option("--games", "count", type=click.IntRange(min=2), default=6, show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True)
@reports_errors
def bots_validate(spec: str, game_name: str | None, count: int, time_limit: float) -> None:
    """Load SPEC in isolation, play it against random, and give a verdict."""
    from arena.submit import validate

    _check_bot_file(spec)
    verdict = validate(spec, game=game_name, games=count, time_limit=time_limit)
    for line in verdict.lines():
        click.echo(line)
    if not verdict.valid:
        raise SystemExit(1)


@cli.command()
@click.argument("spec")
@click.option("--game", "game_name", help="The game (default: the bot's own `games`).")
@click.option("--db", default=DEFAULT_DB, show_default=True, help="Results database.")
@click.option("--folder", default="results/submissions", show_default=True,
              help="Where submitted code is kept.")
@reports_errors
def submit(spec: str, game_name: str | None, db: str, folder: str) -> None:
    """Validate SPEC, keep a copy of its code and register it for tournaments and ratings."""
    from arena.submit import submit as submit_bot

    _check_bot_file(spec)
    with Store(db) as store:
        verdict, copy = submit_bot(spec, store, game=game_name, folder=Path(folder))
    for line in verdict.lines():
        click.echo(line)
    if copy is None:
        raise SystemExit(1)
    click.echo(f"submitted {verdict.name}@{verdict.version} for {', '.join(verdict.games)}: "
               f"code kept as {copy}; use that path as the bot's spec in a tournament")


def _check_bot_file(spec: str) -> None:
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")


def open_store(db: str) -> Store:
    if not Path(db).exists():
        raise ArenaError(f"no results database at {db} (run a tournament first, or pass --db)")
    return Store(db)


def main() -> None:
    cli(prog_name="arena")
