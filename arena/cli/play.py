"""``arena games``, ``arena play`` and ``arena board``: the games, games between bots, and
drawings of positions."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from arena.bots.files import BotFileError
from arena.bots.human import HUMAN_SPEC, GameAbandoned, HumanPlayer, Terminal
from arena.bots.identity import BotEntry, KeptCode, identity_hash, keep_code, start_kept
from arena.bots.instances import InstancePool, stop_bot
from arena.bots.interrupts import interrupt_status
from arena.bots.isolation import ISOLATIONS, is_shipped, resolve_isolation
from arena.bots.loading import (
    ENTRY_POINT_GROUP,
    BotFilesRefused,
    BotNotFoundError,
    not_a_bot,
    split_spec,
)
from arena.bots.process import is_command
from arena.bots.screen import SCREEN, terminal_size
from arena.bots.shipped import (
    shipped_for_other_games,
    shipped_hint,
    shipped_names,
    shipped_spec,
)
from arena.cli.common import (
    echo,
    echo_notice,
    echo_wrapped,
    parse_option,
    progress_bar,
    reports_errors,
    terminal_width,
)
from arena.games import GAMES, find_game
from arena.games.base import ArenaError, Game
from arena.referee.match import resolve_game_options
from arena.referee.protocol import Player, failure_excerpt
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
            default = option.default if option.default != "" else '""'
            echo(f"  --option {option.name}=… (default {default}{choices})")
            echo_wrapped(" " * 6 + option.help)


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
              help="Write each game's record to this file as JSON Lines (a file that "
              "exists is refused without --overwrite).")
@click.option("--overwrite", is_flag=True, help="Let --json replace a file that exists.")
@click.option("--workers", type=click.IntRange(min=0), default=1, show_default=True,
              help="Worker processes playing the games (0 = one per CPU); the results are "
              "the same with any number.")
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
         json_path: str | None, overwrite: bool, workers: int, isolation: str | None,
         time_limit: float | None, no_time_limit: bool) -> None:
    """Play GAME between BOTs: one game as a log, several as a summary.

    A BOT is the name of a bot shipped for GAME (greedy, as in the Python API),
    path/to/bot.py, path/to/bot.py:Name, module:attr, an installed entry point, or
    `human` to play yourself in the terminal.
    """
    from arena.tournaments.matches import bot_labels, play_match

    game = find_game(game_name)
    bots = [spec if spec == HUMAN_SPEC else shipped_spec(spec, game.info.name) for spec in bots]
    given = dict(parse_option(o) for o in raw_options)
    given.update({k: v for k, v in (("dice", dice), ("board", board)) if v is not None})
    options = resolve_game_options(game, given, len(bots))
    if json_path:
        check_folder_of(json_path)
    if json_path and Path(json_path).exists() and not overwrite:
        raise ArenaError(f"{json_path} exists already; pass --overwrite to replace it, or "
                         "name another file")
    if time_limit is None and not no_time_limit and HUMAN_SPEC not in bots:
        time_limit = DEFAULT_TIME_LIMIT
    if workers != 1 and HUMAN_SPEC in bots:
        raise ArenaError("a person plays one game at a time: leave out --workers")
    players: list[Player] = []
    terminal = Terminal(game) if HUMAN_SPEC in bots else None  # shared by the human seats
    if terminal is not None:
        columns, rows = terminal_size()
        if columns < SCREEN[0] or rows < SCREEN[1]:
            echo_notice(f"this terminal is {columns}×{rows}: the game's screens are made "
                        f"for {SCREEN[0]}×{SCREEN[1]} or more, so its rows may wrap")
    out = None
    try:
        kept = [None if spec == HUMAN_SPEC else _kept(spec, isolation, game) for spec in bots]
        players.extend(HumanPlayer(game, terminal=terminal) if code is None
                       else start_kept(spec, code) for spec, code in zip(bots, kept, strict=True))
        refuse_other_games(game, bots, players)
        revisions = _revisions(kept)
        labels = [HUMAN_SPEC if spec == HUMAN_SPEC else label for spec, label in zip(
            bots, bot_labels(players, revisions), strict=True)]
        if workers != 1 and count > 1:
            for player in players:  # each worker starts bots of its own
                stop_bot(player)
            out = open(json_path, "w", encoding="utf-8") if json_path else None  # noqa: SIM115
            show_summary_of_workers(game, kept, labels, seed, count, options,
                                    time_limit, workers, out)
            return
        if count > 1:  # no bot process plays two games on the same dice
            players[:] = [player if code is None else pooled(spec, code, player)
                          for spec, code, player in zip(bots, kept, players, strict=True)]
        results = play_match(game, players, seed, count, options, time_limit=time_limit,
                             on_move=terminal.on_move if terminal else None)
        first = next(results) if count == 1 else None  # before the file: it may be abandoned
        out = open(json_path, "w", encoding="utf-8") if json_path else None  # noqa: SIM115
        if first is not None:
            order, record = first
            _save(out, record, revisions, order)
            show_game(game, record, labels, watched=terminal is not None)
        else:
            show_summary(game, labels, seed, count, results, out, bar=terminal is None,
                         between=None if terminal is None else _pause(terminal, labels, count),
                         revisions=revisions)
    except KeyboardInterrupt as stop:
        if terminal is None:
            raise
        _abandon(stop)
    finally:
        if out:
            out.close()
        for player in players:
            stop_bot(player)


def check_folder_of(path: str) -> None:
    """ArenaError unless the folder a file is to be written in exists."""
    if not Path(path).absolute().parent.is_dir():
        raise ArenaError(f"{path}: no folder {Path(path).parent} to write it in; make it "
                         "first, or name another file")


def _kept(spec: str, isolation: str | None, game: Game) -> KeptCode:
    """``spec``'s code, read once, at the level it plays at; a bare name that is neither a
    shipped bot nor an installed one is refused with the names of the shipped bots."""
    from importlib.metadata import entry_points

    what = not_a_bot(spec)
    if what:
        raise BotNotFoundError(f"bot {spec!r}: {what}")
    hint = shipped_hint(spec, game.info.name)
    elsewhere = shipped_for_other_games(spec, game.info.name)
    if elsewhere and not entry_points(group=ENTRY_POINT_GROUP, name=spec):
        raise BotNotFoundError(
            f"bot {spec!r} is shipped for {' and '.join(elsewhere)}, not {game.info.name}; "
            f"the bots shipped for {game.info.name}: {', '.join(shipped_names(game.info.name))}")
    if hint and not entry_points(group=ENTRY_POINT_GROUP, name=spec):
        raise BotNotFoundError(f"bot {spec!r} not found: name a file (path/to/bot.py), "
                               f"path/to/bot.py:Name, module:attr, an installed entry point"
                               f"{hint}")
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
    level = resolve_isolation(isolation, shipped=is_shipped(spec))
    try:
        return keep_code(BotEntry(spec, isolation=level))
    except BotFileError as exc:
        raise BotFilesRefused(str(exc)) from None


def pooled(spec: str, kept: KeptCode, first: Player) -> Any:
    """``spec``'s instances, ``first`` among them: each game of a set gets another, from
    the same code."""
    return InstancePool(lambda: start_kept(spec, kept), first=first)


def _abandon(stop: KeyboardInterrupt) -> None:
    """A person stopped the game (Ctrl-C or the end of the input): one line, no traceback."""
    reason = stop.reason if isinstance(stop, GameAbandoned) else ""
    echo("\ngame abandoned" + (f": {reason}" if reason else ""), err=True)
    raise SystemExit(interrupt_status(stop)) from None


def _revisions(kept: Sequence[KeptCode | None]) -> list[str]:
    """Each bot's revision (its code hash as stored, without parameters); empty for a
    person or a bot whose code could not be read."""
    return ["" if code is None or not code.code else identity_hash(code.code, {})
            for code in kept]


def _save(out: IO[str] | None, record: GameRecord, revisions: Sequence[str] = (),
          order: Sequence[int] = ()) -> None:
    """Write ``record`` as a line of ``out``, with each seat's revision (``revisions`` by
    bot, ``order`` the bot of each seat) where known, so that ``arena view`` labels its
    seats as ``arena play`` does."""
    if out is None:
        return
    data = record.to_json()
    if revisions and order and any(revisions):
        from arena.reports.replay import META_KEY

        seated = [revisions[bot] or None for bot in order]
        data["meta"] = {**data.get("meta", {}), META_KEY: {"revisions": seated}}
    out.write(json.dumps(data, separators=(",", ":")) + "\n")
    out.flush()


def show_game(game: Game, record: GameRecord, labels: Sequence[str], *,
              watched: bool = False) -> None:
    """One game: who sat where (``labels``, by seat) and its log (only the result to a
    person who watched it played move by move), and why a seat lost if it failed."""
    lines = game_log(record, labels)
    if watched:
        lines = lines[-1:]
    else:
        names = ", ".join(f"seat {i}: {label}" for i, label in enumerate(labels))
        echo_wrapped(f"{game.info.title}, seed {record.seed} ({names})", indent="    ")
    for line in lines:
        echo_wrapped(line, indent="    ")
    for seat, status in enumerate(record.seats):
        if status.status != OK:
            first, *rest = failure_excerpt(status.detail) or [""]
            echo(f"seat {seat} ({labels[seat]}) lost by {status.status}: {first}")
            for line in rest:
                echo(f"    {line}")


def refuse_other_games(game: Game, specs: Sequence[str], players: Sequence[Player]) -> None:
    """A bot whose ``games`` leave out ``game`` is refused before the first move."""
    from arena.bots.loading import declared_games, other_games_problem

    for spec, player in zip(specs, players, strict=True):
        problem = other_games_problem(declared_games(player), game.info.name)
        if problem is not None:
            raise ArenaError(f"bot {spec} {problem}")


def show_summary(game: Game, labels: Sequence[str], seed: int, count: int,
                 results: Generator[tuple[list[int], GameRecord], None, None], out: IO[str] | None,
                 *, bar: bool = True,
                 between: Callable[[int, Sequence[int], GameRecord], None] | None = None,
                 revisions: Sequence[str] = ()) -> None:
    """Several games: results per bot (``labels``) and per seat, with a progress bar (games
    done and games per second) while they play, unless a person plays them; ``between``
    (the number of games done, the last one's bot of each seat and record) before each
    game but the first."""
    from arena.tournaments.matches import MatchSummary

    summary = MatchSummary(list(labels), len(labels))
    progress = progress_bar(count) if bar else None
    done = 0
    try:
        for order, record in results:
            _save(out, record, revisions, order)
            summary.add(order, record)
            done += 1
            if progress is not None:
                progress.update(1)
            if between is not None and done < count:
                try:
                    between(done, order, record)
                except KeyboardInterrupt as stop:  # between games: none is abandoned
                    results.close()
                    _interrupted(game, len(labels), seed, count, done, summary, progress,
                                 stop)
    except KeyboardInterrupt as stop:
        if not bar:  # a person's game: abandoned
            raise
        results.close()
        _interrupted(game, len(labels), seed, count, done, summary, progress, stop)
    if progress is not None:
        progress.close()
    _show_totals(game, len(labels), seed, count, summary)


def _pause(terminal: Terminal, labels: Sequence[str], count: int
           ) -> Callable[[int, Sequence[int], GameRecord], None]:
    """Between a person's games: the result of the one just played (its seats by the bots
    seated there: seats rotate between games), then Enter for the next (not the next
    game's first screen at once)."""
    def pause(done: int, order: Sequence[int], record: GameRecord) -> None:
        seated = [labels[bot] for bot in order]
        terminal.tell(["", f"game {done} of {count}: {game_log(record, seated)[-1]}"])
        terminal.ask(f"Press Enter for game {done + 1} of {count}: ")
        terminal.answered()
    return pause


def show_summary_of_workers(game: Game, kept: Sequence[KeptCode | None],
                            labels: Sequence[str], seed: int, count: int,
                            options: Mapping[str, Any], time_limit: float | None,
                            workers: int, out: IO[str] | None) -> None:
    """Several games played by worker processes from the bots' code as read once
    (``kept``); the records are written in game order (as one process would write them)
    as soon as the games before them are done."""
    from arena.tournaments.matches import MatchSummary, play_match_in_workers

    revisions = _revisions(kept)
    summary = MatchSummary(list(labels), len(labels))
    waiting: dict[int, tuple[list[int], GameRecord]] = {}
    written = 0
    bots = [code for code in kept if code is not None]  # no person plays with workers
    results = play_match_in_workers(game.info.name, bots, seed, count, options,
                                    workers=workers or os.cpu_count() or 1,
                                    time_limit=time_limit)
    progress = progress_bar(count)
    done = 0
    try:
        for index, order, record in results:
            summary.add(order, record)
            done += 1
            waiting[index] = (order, record)
            while written in waiting:
                seated, finished = waiting.pop(written)
                _save(out, finished, revisions, seated)
                written += 1
            progress.update(1)
    except KeyboardInterrupt as stop:
        results.close()  # the workers stop, and their bots with them
        _interrupted(game, len(labels), seed, count, done, summary, progress, stop)
    progress.close()
    _show_totals(game, len(labels), seed, count, summary)


def _interrupted(game: Game, seats: int, seed: int, count: int, done: int, summary: Any,
                 progress: Any, stop: KeyboardInterrupt) -> NoReturn:
    """Ctrl-C (or SIGTERM) during a match: the totals of the games finished so far, as
    cutechess shows them, and the signal's status."""
    if progress is not None:
        progress.close()
    echo("", err=True)
    if done:
        _show_totals(game, seats, seed, done, summary)
    echo(f"interrupted after {done} of {count} games", err=True)
    raise SystemExit(interrupt_status(stop))


def _show_totals(game: Game, seats: int, seed: int, count: int, summary: Any) -> None:
    from arena.results.standings import legend_lines, wrap

    width = terminal_width()
    legend = legend_lines(seats, width) if seats > 2 else []  # points are not wins there
    games = "1 game" if count == 1 else f"{count} games"
    for line in [*wrap(f"{games} of {game.info.title}, seed {seed}, seats rotated "
                       f"(each group of {seats} games shares its dice)", width),
                 *summary.lines(width), *legend]:
        echo(line)


@click.command(short_help="Draw a Sonnentau board or a recorded game's position.")
@click.option("--board", "board_path", type=click.Path(exists=True, dir_okay=False),
              help="Board file (default: the Sonnentau board).")
@click.option("--record", "record_path", type=click.Path(exists=True, dir_okay=False),
              help="A game record file (JSON Lines, from `arena play --json`).")
@click.option("--game", "game_index", type=click.IntRange(min=1), default=1, show_default=True,
              help="Which game of the record file.")
@click.option("--move", type=click.IntRange(min=0),
              help="Show the position after this many moves, a move being one line of the "
                   "game log, as in the report's viewer (default: the end).")
@click.option("--svg", "svg_path", required=True, type=click.Path(dir_okay=False),
              help="Where to write the drawing.")
@reports_errors
def board(board_path: str | None, record_path: str | None, game_index: int,
          move: int | None, svg_path: str) -> None:
    """Draw a Sonnentau board, or a recorded game's position on it, as SVG."""
    from arena.reports.boards import draw

    check_folder_of(svg_path)
    Path(svg_path).write_text(draw(board_path, record_path, game_index, move),
                              encoding="utf-8")
    echo(f"wrote {svg_path}")
