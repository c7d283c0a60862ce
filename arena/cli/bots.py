"""``arena bots new``, ``arena bots validate`` and ``arena submit``: bringing a bot in."""

from __future__ import annotations

import os
from pathlib import Path

import click

from arena.bots.loading import BotNotFoundError, bot_files_hash, split_spec
from arena.bots.process import is_command
from arena.bots.shipped import shipped_bot, shipped_spec, unknown_name
from arena.bots.template import new_bot
from arena.bots.validation import validate
from arena.cli.common import DB_OPTION, check_bot_file, echo, echo_wrapped, reports_errors
from arena.games import find_game, game_names
from arena.games.base import ArenaError
from arena.results.store import Store
from arena.tournaments.submissions import submit as submit_bot


def check_bot_files(spec: str) -> None:
    """A bot file's files must be regular files and folders, within the caps: else one line
    naming the entry that is not (:mod:`arena.bots.files`)."""
    target = split_spec(spec)[0]
    if not is_command(spec) and target.endswith(".py") and os.path.lexists(target):
        bot_files_hash(spec)


@click.group()
def bots() -> None:
    """Write a new bot from a template, or check one."""


@bots.command("new", short_help="Write a new bot and its test from a template.")
@click.argument("name")
@click.option("--game", "game_name", required=True, help="The game the bot plays.")
@click.option("--folder", default="bots", show_default=True, type=click.Path(file_okay=False),
              help="Where the bot and its test are written.")
@reports_errors
def bots_new(name: str, game_name: str, folder: str) -> None:
    """Write bots/NAME.py (a bot that plays legal moves) and a test for it."""
    for path in new_bot(name, game_name, Path(folder)):
        echo(f"wrote {path}")


@bots.command("validate", short_help="Play a bot against random and give a verdict.")
@click.argument("spec")
@click.option("--game", "game_name", help="The game to check (default: the bot's own "
              "`games`, else every game).")
@click.option("--games", "count", type=click.IntRange(min=2), default=6, show_default=True,
              help="Games against the random bot, seats swapped.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Seconds a decision may take.")
@reports_errors
def bots_validate(spec: str, game_name: str | None, count: int, time_limit: float) -> None:
    """Load SPEC in isolation, play it against random, and give a verdict."""
    games = [find_game(game_name).info.name] if game_name is not None else game_names()
    unknown = unknown_name(spec, games)
    if unknown is not None:
        raise BotNotFoundError(unknown)
    shipped_for = [game for game in games if shipped_bot(spec, game)]
    if len(shipped_for) > 1:
        raise ArenaError(f"{spec!r} is a bot shipped for {' and '.join(shipped_for)}: name "
                         "the game with --game")
    if shipped_for:
        spec = shipped_spec(spec, shipped_for[0])
    check_bot_file(spec)
    check_bot_files(spec)
    verdict = validate(spec, game=game_name, games=count, time_limit=time_limit)
    for line in verdict.lines():
        echo_wrapped(line, indent="  ")
    if not verdict.valid:
        raise SystemExit(1)


@click.command(short_help="Validate a bot and keep its code for tournaments.")
@click.argument("spec")
@click.option("--game", "game_name", help="The game (default: the bot's own `games`).")
@DB_OPTION
@click.option("--folder", default="results/submissions", show_default=True,
              help="Where submitted code is kept.")
@click.option("--ladder", "ladder_name", metavar="NAME",
              help="Queue SPEC for the ladder NAME instead (the ladder validates it as it runs).")
@click.option("--server", metavar="URL", help="Submit through a competition's server "
              "(arena serve) instead; with --token.")
@click.option("--token", metavar="TOKEN", envvar="ARENA_TOKEN",
              help="Your participant token for --server (or ARENA_TOKEN).")
@reports_errors
def submit(spec: str, game_name: str | None, db: str, folder: str,
           ladder_name: str | None, server: str | None, token: str | None) -> None:
    """Validate SPEC, keep a copy of its code and register it for tournaments and ratings
    (with --ladder: queue it for a ladder; with --server: upload it to a competition)."""
    check_bot_files(spec)
    if server is not None:
        from arena.cli.serve import submit_to_server

        if not token:
            raise click.UsageError("--server needs --token (or ARENA_TOKEN)")
        reply = submit_to_server(spec, server, token, ladder_name)
        echo_wrapped(f"submission {reply['submission']} queued at {server}; follow it at "
                     f"{server.rstrip('/')}{reply['page']} (signed in with your token)")
        return
    check_bot_file(spec)
    if ladder_name is not None:
        from arena.cli.ladder import submit_to_ladder

        submit_to_ladder(spec, ladder_name, db)
        return
    with Store(db) as store:
        verdict, copy, labels = submit_bot(spec, store, game=game_name, folder=Path(folder))
    for line in verdict.lines():
        echo_wrapped(line, indent="  ")
    if copy is None:
        raise SystemExit(1)
    echo_wrapped(f"submitted {', '.join(labels)} for {', '.join(verdict.games)}: code kept "
                 f"as {split_spec(copy)[0]}; use {copy} as the bot's spec in a tournament")
