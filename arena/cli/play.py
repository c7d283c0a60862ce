"""``arena games``, ``arena play`` and ``arena board``: the games, games between bots, and
drawings of positions."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

import click

from arena.bots.human import HUMAN_SPEC, HumanPlayer
from arena.bots.isolation import ISOLATIONS, close_player, start_bot
from arena.cli.common import echo, parse_option, reports_errors
from arena.games import GAMES, find_game
from arena.games.base import Game
from arena.referee.match import resolve_game_options
from arena.referee.protocol import Player
from arena.referee.record import OK, GameRecord, game_log
from arena.tournaments.config import DEFAULT_TIME_LIMIT


@click.command()
def games() -> None:
    """List the games and their options."""
    for name in sorted(GAMES):
        info = GAMES[name].info
        seats = (str(info.min_seats) if info.min_seats == info.max_seats
                 else f"{info.min_seats}-{info.max_seats}")
        echo(f"{name}: {info.title} ({seats} players)")
        for option in info.options:
            choices = f", one of {', '.join(map(str, option.choices))}" if option.choices else ""
            echo(f"  --option {option.name}=… (default {option.default}{choices}): "
                       f"{option.help}")


@click.command()
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
@click.option("--isolation", type=click.Choice(ISOLATIONS),
              help="sandbox (the default where bubblewrap works), process (a plain process "
              "of its own, not a sandbox) or none (inside arena: trusted bots only).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True),
              help=f"Seconds per decision (default {DEFAULT_TIME_LIMIT:g}; none when a "
              "person plays).")
@click.option("--no-time-limit", is_flag=True, help="No limit on a decision's time.")
@reports_errors
def play(game_name: str, bots: Sequence[str], seed: int, count: int,
         raw_options: Sequence[str], dice: str | None, board: str | None,
         json_path: str | None, isolation: str | None, time_limit: float | None,
         no_time_limit: bool) -> None:
    """Play GAME between BOTs: one game as a log, several as a summary.

    A BOT is path/to/bot.py, path/to/bot.py:Name, module:attr, an installed
    entry point, or `human` to play yourself in the terminal.
    """
    from arena.tournaments.matches import play_match

    game = find_game(game_name)
    given = dict(parse_option(o) for o in raw_options)
    given.update({k: v for k, v in (("dice", dice), ("board", board)) if v is not None})
    options = resolve_game_options(game, given, len(bots))
    if time_limit is None and not no_time_limit and HUMAN_SPEC not in bots:
        time_limit = DEFAULT_TIME_LIMIT
    players: list[Player] = []
    out = None
    try:
        players.extend(HumanPlayer(game) if spec == HUMAN_SPEC else start_bot(spec, isolation)
                       for spec in bots)
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
            close_player(player)


def _save(out: IO[str] | None, record: GameRecord) -> None:
    if out is not None:
        out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        out.flush()


def show_game(game: Game, record: GameRecord) -> None:
    """One game: who sat where, its log, and why a seat lost if it failed."""
    names = ", ".join(f"seat {i}: {s.name}@{s.version}" for i, s in enumerate(record.seats))
    echo(f"{game.info.title}, seed {record.seed} ({names})")
    for line in game_log(record):
        echo(line)
    for seat, status in enumerate(record.seats):
        if status.status != OK:
            first = status.detail.splitlines()[0] if status.detail else ""
            echo(f"seat {seat} ({status.name}) lost by {status.status}: {first}")


def show_summary(game: Game, players: Sequence[Player], seed: int, count: int,
                 results: Iterator[tuple[list[int], GameRecord]], out: IO[str] | None) -> None:
    """Several games: results per bot and per seat, with a progress bar while they play."""
    from arena.tournaments.matches import MatchSummary, bot_labels

    summary = MatchSummary(bot_labels(players), len(players))
    with click.progressbar(results, length=count, label="playing", file=sys.stderr) as bar:
        for order, record in bar:
            _save(out, record)
            summary.add(order, record)
    echo(f"{count} games of {game.info.title}, seed {seed}, seats rotated "
               f"(each group of {len(players)} games shares its dice)")
    for line in summary.lines():
        echo(line)


@click.command()
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
    from arena.reports.boards import draw

    Path(svg_path).write_text(draw(board_path, record_path, game_index, move),
                              encoding="utf-8")
    echo(f"wrote {svg_path}")
