"""``arena ratings``, ``history``, ``compare`` and ``report``: reading the stored results."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.bots.interrupts import interrupt_status
from arena.cli.common import (
    DB_OPTION,
    SYSTEM_OPTION,
    echo,
    echo_notice,
    echo_wrapped,
    open_store,
    reports_errors,
    terminal_width,
)
from arena.games import find_game
from arena.games.base import ArenaError
from arena.results.ratings import SYSTEMS, RatingSettings, compared
from arena.results.standings import text_table, wrap

if TYPE_CHECKING:
    from arena.results.bradley_terry import SeatedGame
    from arena.results.luck_book import LuckSource
    from arena.results.stats import SprtSettings
    from arena.results.store import Store, StoredBot, TournamentRow
    from arena.results.versions import Variant


POOL_OPTION = click.option(
    "--pool", is_flag=True,
    help="Rate all variants of a game together (default: each variant, i.e. number of "
    "players and options such as the dice, on its own).")


def bradley_terry_lines(store: Store, game: str, variant: Variant | None,
                        anchor: str | None) -> list[str]:
    """The Bradley-Terry leaderboard of one variant: Elo, its 95 % interval, games; one
    table for each group of bots that met (directly or through common opponents)."""
    from arena.results.bradley_terry import connected_groups
    from arena.results.versions import seated_games

    games = seated_games(store, game, variant)
    if not games:
        return [f"{heading(game, variant)} (bt): no games"]
    anchored = None
    if anchor is not None:
        label, sep, value = anchor.rpartition("=")
        try:
            elo = float(value) if sep and label else math.nan
        except ValueError:
            elo = math.nan
        if not math.isfinite(elo):
            raise click.BadParameter(f"{anchor!r} is not BOT=ELO", param_hint="--anchor")
        if abs(elo) > MAX_ANCHOR:
            raise click.BadParameter(f"{anchor!r}: an anchor within ±{MAX_ANCHOR:,} Elo",
                                     param_hint="--anchor")
        anchor_bot = store.find_bot(game, label)
        if not any(anchor_bot.id in played.bots for played in games):
            raise ArenaError(f"--anchor {anchor}: {anchor_bot.label} has no rated game in "
                             f"{heading(game, variant)}, so nothing to anchor; name a bot of "
                             "the table")
        anchored = (anchor_bot.id, elo)
    labels = {bot.id: bot.label for bot in store.bots(game)}
    lines = wrap(f"{heading(game, variant)} (Bradley-Terry, {len(games)} games, 95 % "
                 "profile-likelihood intervals, corrected for the duplicate sets)",
                 terminal_width(), "  ")
    groups = connected_groups(games)
    idle = sorted(labels[bot] for bot in entered_bots(store, game, variant)
                  - {bot for played in games for bot in played.bots} if bot in labels)
    for number, group in enumerate(groups, 1):
        if len(groups) > 1:
            lines += wrap(f"  group {number} of {len(groups)}: bots that met each other, "
                          "directly or through common opponents, never one of another group "
                          "(ratings compare within a group only)", terminal_width(), "  ")
        in_group = anchored if anchored and any(anchored[0] in g.bots for g in group) else None
        lines += _bradley_terry_table(group, in_group, labels)
    if idle:
        lines += wrap(f"  no rated game yet (a bye, say), so no rating: {', '.join(idle)}",
                      terminal_width(), "  ")
    return lines


MAX_ANCHOR = 100_000
"""The largest anchor rating (in Elo) ``--anchor`` takes."""


def entered_bots(store: Store, game: str, variant: Variant | None) -> set[int]:
    """The bots that entered a tournament of ``game`` in ``variant`` (all, if None)."""
    from arena.results.versions import variant_of

    return {bot for t in store.tournaments(game)
            if variant is None or variant_of(t).key == variant.key
            for bot in store.entrants(t.id)}


def _bradley_terry_table(games: Sequence[SeatedGame], anchored: tuple[int, float] | None,
                         labels: Mapping[int, str]) -> list[str]:
    from arena.results.bradley_terry import fit

    result = fit(games, anchor=anchored)
    low, high = result.seat_interval
    lines = [f"  the earlier seat's advantage: {elo_number(result.seat_advantage, '+')} Elo "
             f"({elo_number(low, '+')} to {elo_number(high, '+')})"]
    anchor_bot = anchored[0] if anchored else None
    lines += text_table(["#", "bot", "elo", "95% low", "95% high", "games"],
                        [[place, labels.get(bot, "?"), elo_number(result.elo[bot]),
                          *(("anchor", "anchor") if bot == anchor_bot else
                            (elo_number(result.low[bot]), elo_number(result.high[bot]))),
                          result.games[bot]]
                         for place, bot in enumerate(result.order(), 1)], 2, terminal_width())
    if any(not math.isfinite(v) for v in (*result.low.values(), *result.high.values(), low,
                                          high)):
        lines += wrap("  none: the games set no bound on that side (a bot that won or lost "
                      "every game, or too few games)", terminal_width(), "  ")
    return lines


def elo_number(value: float, sign: str = "") -> str:
    """An Elo figure rounded to a whole number, without "-0"; ``none`` for no bound."""
    if not math.isfinite(value):
        return "none"
    return f"{round(value):{sign}d}"  # an int: no negative zero


def game_variants(store: Store, game: str, pool: bool) -> list[Variant | None]:
    from arena.results.versions import variants

    return [None] if pool else list(variants(store, game))


def heading(game: str, variant: Variant | None) -> str:
    return f"{game}, all variants pooled" if variant is None else f"{game}, {variant.label}"


@click.command()
@click.option("--game", "game_name", help="Only this game (default: every game played).")
@POOL_OPTION
@DB_OPTION
@click.option("--system", type=click.Choice([*SYSTEMS, "bt"]), default="trueskill",
              show_default=True, help="Rating system; bt: a Bradley-Terry fit over all "
              "games at once, in Elo with 95 % intervals.")
@click.option("--anchor", metavar="BOT=ELO", help="With --system bt: give this bot this "
              "rating (default: the mean is 0), e.g. random=0.")
@reports_errors
def ratings(game_name: str | None, pool: bool, db: str, system: str, anchor: str | None
            ) -> None:
    """The all-time leaderboard of every bot revision, per game variant.

    μ − 3σ (the order) is a rating the bot is very likely to be above. At tables of
    more than two players a win is a first place (shared first places are draws) and
    every other place is a loss.
    """
    from arena.results.versions import games_played, leaderboard, never_played

    if anchor is not None and system != "bt":
        raise click.BadParameter("goes with --system bt (TrueSkill and OpenSkill have no "
                                 "anchor)", param_hint="--anchor")
    with open_store(db) as store:
        played = games_played(store)
        names = [find_game(game_name).info.name] if game_name else played
        if not any(name in played or never_played(store, name) for name in names):
            what = f"{names[0]} games" if game_name else "games"
            echo_wrapped(f"no rated {what} in {db} yet: the games of tournaments and "
                         "ladders are rated (`arena run CONFIG`)")
        for name in names:
            if system == "bt":
                for variant in game_variants(store, name, pool):
                    for line in bradley_terry_lines(store, name, variant, anchor):
                        echo(line)
                continue
            for variant in game_variants(store, name, pool):
                rows = leaderboard(store, name, RatingSettings(system=system), variant)
                echo(f"{heading(name, variant)} ({system}, {len(rows)} bots)")
                for line in text_table(
                        ["#", "bot", "mu", "sigma", "mu-3sigma", "games", "wins", "draws",
                         "losses"],
                        [[place if row.tally.games else "-", row.bot.label,
                          f"{row.rating.mu:.2f}", f"{row.rating.sigma:.2f}",
                          f"{row.rating.conservative:.2f}", row.tally.games, row.tally.wins,
                          row.tally.draws, row.tally.losses]
                         for place, row in enumerate(rows, 1)], 2, terminal_width()):
                    echo(line)
                if any(not row.tally.games for row in rows):
                    echo_wrapped("  -: no rated game yet (a bye, say): after the others, at "
                                 "the rating every bot starts from", indent="  ")
            waiting = never_played(store, name)
            if waiting:
                for line in wrap(f"{name}: registered, in no tournament yet: "
                                 + ", ".join(bot.label for bot in waiting),
                                 terminal_width()):
                    echo(line)


@click.command(short_help="A bot's versions and their ratings over time.")
@click.argument("name")
@click.option("--game", "game_name", help="Only this game (default: every game it played).")
@POOL_OPTION
@DB_OPTION
@SYSTEM_OPTION
@reports_errors
def history(name: str, game_name: str | None, pool: bool, db: str, system: str) -> None:
    """Each version and revision of bot NAME: its all-time rating and games after every
    tournament, per game variant."""
    from arena.results.comparison import unknown_bot
    from arena.results.versions import games_played
    from arena.results.versions import history as version_history

    label, name = name, name.partition("@")[0]  # a label names its bot (no name holds @)
    with open_store(db) as store:
        names = [find_game(game_name).info.name] if game_name else games_played(store)
        if label != name:
            _check_revision(store, names, label)
        shown = 0
        for game in names:
            for variant in game_variants(store, game, pool):
                rows = version_history(store, name, game, RatingSettings(system=system),
                                       variant)
                if not rows:
                    continue
                shown += 1
                echo(f"{name} in {heading(game, variant)} ({system})")
                for line in text_table(
                        ["version", "tournament", "when", "mu", "sigma", "mu-3sigma",
                         "games"],
                        [[row.version, row.tournament, _when(row.finished),
                          f"{row.rating.mu:.2f}", f"{row.rating.sigma:.2f}",
                          f"{row.rating.conservative:.2f}", row.games] for row in rows], 3,
                        terminal_width()):
                    echo(line)
        if not shown:
            known = sorted({bot.identity.name for bot in store.bots()})
            if name in known:
                raise ArenaError(f"bot {name!r} has no rated games in {db}")
            raise ArenaError(unknown_bot(name, known, db))


def _check_revision(store: Store, games: Sequence[str], label: str) -> None:
    """ArenaError unless ``label`` (``name@version``, ``name@version+3f2a``) names one or
    more stored revisions of one of ``games``."""
    from arena.results.store import names_revision

    name, _, rest = label.partition("@")
    bots = [bot for game in games for bot in store.bots(game) if bot.identity.name == name]
    if any(names_revision(rest, bot.identity) for bot in bots):
        return
    known = f"; known: {', '.join(bot.label for bot in bots)}" if bots else ""
    raise ArenaError(f"no bot {label} in {store.path}{known}")


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


SPRT_MAX_PAIRS = 5000


@click.command(short_help="Compare two bots: score, Elo, LOS, SPRT.")
@click.argument("first", metavar="BOT1")
@click.argument("second", metavar="BOT2")
@click.option("--game", "game_name", help="The game (needed when both play several).")
@click.option("--games", "pairs", type=click.IntRange(min=1),
              help="Compare over this many seat-swapped pairs of the seed's dice, with the "
              "game's default options, playing those not stored yet (the same command "
              f"again plays none; with --sprt: at most this many; default {SPRT_MAX_PAIRS}).")
@click.option("--sprt", "use_sprt", is_flag=True,
              help="Play pairs until a sequential probability ratio test accepts elo0 or elo1.")
@click.option("--elo0", type=float, default=0.0, show_default=True,
              help="SPRT: the Elo difference of the null hypothesis (BOT1 no better).")
@click.option("--elo1", type=float, default=10.0, show_default=True,
              help="SPRT: the Elo difference of the alternative (BOT1 better by this much).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="SPRT: the false-positive rate (accepting elo1 when elo0 holds).")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="SPRT: the false-negative rate (accepting elo0 when elo1 holds).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the new games (the same seed plays the same dice again).")
@click.option("--workers", type=click.IntRange(min=0), default=0,
              help="Worker processes (0 = one per CPU).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Show a progress bar (and the SPRT's LLR) while playing.")
@click.option("--luck/--no-luck", default=True, show_default=True,
              help="Account for the dice's luck with the game's value model and print the "
              "luck-adjusted score too; the SPRT then tests the adjusted score.")
@click.option("--value-model", "value_model", metavar="FILE.py:NAME|MODULE:NAME",
              help="Your own value model for the luck accounting (trusted code: it runs in "
              "arena's process).")
@DB_OPTION
@reports_errors
def compare(first: str, second: str, game_name: str | None, pairs: int | None,
            use_sprt: bool, elo0: float, elo1: float, alpha: float, beta: float, seed: int,
            workers: int, progress: bool, luck: bool, value_model: str | None,
            db: str) -> None:
    """Compare two bots: score, Elo difference, LOS, and an SPRT verdict.

    BOT1 and BOT2 are NAME, NAME@VERSION or NAME@VERSION+REVISION, as `arena ratings`
    shows them; a name alone is enough while it has one version and revision. Without
    --games or --sprt the stored games are used: those in which the two met, and those
    each played against the same opponents on the same dice (two revisions of a version
    in the same config), paired game by game.
    """
    from arena.results.comparison import WIDTH
    from arena.results.luck_book import LuckSource
    from arena.results.stats import SprtSettings

    settings = SprtSettings(elo0, elo1, alpha, beta) if use_sprt else None
    source = LuckSource(value_model) if luck else None
    width = min(terminal_width(), WIDTH)  # a narrow terminal: its width, wrapped once
    with open_store(db) as store:
        lines = compared_lines(store, (first, second), game_name, db, pairs=pairs,
                               settings=settings, seed=seed, workers=workers,
                               progress=progress, luck=source, width=width)
    for line in lines:
        echo(line)


def compared_lines(store: Store, texts: tuple[str, str], game_name: str | None, db: str, *,
                   pairs: int | None, settings: SprtSettings | None, seed: int, workers: int,
                   progress: bool, luck: LuckSource | None, width: int = 80) -> list[str]:
    """What ``arena compare`` prints, within ``width`` columns: from the stored games, or
    from new pairs."""
    from arena.cli.console import ProgressBar
    from arena.results.comparison import common_game
    from arena.tournaments.matches import play_comparison

    game = (find_game(game_name).info.name if game_name
            else common_game(store, *(text.partition("@")[0] for text in texts)))
    first, second = (store.find_bot(game, text) for text in texts)
    if first.id == second.id:
        raise ArenaError(f"{texts[0]} and {texts[1]} are the same revision, {first.label}; "
                         "name two revisions to compare")
    if pairs is None and settings is None:
        return stored_lines(store, game, first, second, db, luck, workers, width)
    if settings is not None:
        echo_wrapped(f"playing seat-swapped pairs until the SPRT accepts elo0 "
                     f"{settings.elo0:g} or elo1 {settings.elo1:g} (alpha {settings.alpha:g}, "
                     f"beta {settings.beta:g}), at most {pairs or SPRT_MAX_PAIRS} pairs",
                     err=True)
    bar = ProgressBar(enabled=progress, unbounded=settings is not None)
    try:
        result = play_comparison(store, game, first, second, pairs=pairs or SPRT_MAX_PAIRS,
                                 seed=seed, workers=workers, db=db, settings=settings,
                                 progress=bar, luck=luck)
    except KeyboardInterrupt as stop:
        bar.close()
        echo(err=True)
        echo_notice(f"interrupted: the finished games are kept in {db}; run the same "
                     "command again to resume")
        raise SystemExit(interrupt_status(stop)) from None
    finally:
        bar.close()
    lines = result.lines(width)
    if result.sprt is not None and not result.sprt.is_finished:
        lines += wrap(f"  no decision within {pairs or SPRT_MAX_PAIRS} pairs (--games): run "
                      "again with a larger --games to go on from these", width, "  ")
    return lines


def stored_lines(store: Store, game: str, first: StoredBot, second: StoredBot, db: str,
                 luck: LuckSource | None, workers: int, width: int = 80) -> list[str]:
    """The stored games' comparisons: where the two met, and through their common
    opponents on the same dice; ArenaError where there are neither."""
    from arena.results.common_opponents import common_opponents, without_pairs
    from arena.results.comparison import stored_comparisons
    from arena.results.versions import variants

    played = list(store.played_games(game))
    met = [(variant, found.lines(width)) for variant, found in stored_comparisons(
        store, game, first, second, luck=luck, workers=workers, played=played)
        if found.score.games]
    through = [(variant, common_opponents(store, game, first, second, luck=luck,
                                          workers=workers, variant=variant.key, stored=played))
               for variant in variants(store, game)]
    if not met and not any(found.games for _, found in through):
        larger = [g for g in played if len(g.bots) > 2 and {first.id, second.id} <= set(g.bots)]
        counted = sum(1 for g in larger if compared(g.bots.index(first.id),
                                                    g.bots.index(second.id), g.failed,
                                                    len(g.bots)))
        raise ArenaError(without_pairs(common_opponents(store, game, first, second,
                                                        stored=played), db, counted,
                                       len(larger) - counted))
    shown = met + [(variant, found.lines(width)) for variant, found in through
                   if found.games]
    labelled = len({variant.key for variant, _ in shown}) > 1
    blocks = [[f"in {variant.label}:", *lines] if labelled else lines
              for variant, lines in shown]
    return [line for block in blocks for line in [*block, ""]][:-1]


@click.command(short_help="Write a tournament's CSV files and HTML report.")
@click.argument("tournament", required=False)
@DB_OPTION
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Output folder (default: results/<tournament name>, a comparison's "
              "under results/compare/).")
@click.option("--luck/--no-luck", default=None,
              help="Show the pairs' luck-adjusted scores (the games' luck accounted for with "
              "the game's value model, once; it is kept in the database) [default: on, unless "
              "more than 5,000 games wait for it].")
@click.option("--value-model", "value_model", metavar="FILE.py:NAME|MODULE:NAME",
              help="Your own value model for the luck accounting (trusted code).")
@click.option("--workers", type=click.IntRange(min=0), default=0,
              help="Processes for the luck accounting (0 = one per CPU).")
@click.option("--list", "listing", is_flag=True,
              help="List the database's tournaments instead (id, name, game, games, status).")
@reports_errors
def report(tournament: str | None, db: str, out_dir: str | None, luck: bool | None,
           value_model: str | None, workers: int, listing: bool) -> None:
    """Write the CSV files and the HTML report of TOURNAMENT (name or id; default: the
    latest run of a config, not of `arena compare --games`)."""
    from arena.cli.console import LuckBar, report_luck
    from arena.reports import write_reports
    from arena.results.luck_book import LuckSource
    from arena.tournaments.matches import COMPARE_PREFIX

    with open_store(db) as store:
        rows = store.tournaments()
        if not rows:
            raise ArenaError(f"no tournaments in {db}")
        if listing:
            for line in tournament_lines(store, rows):
                echo(line)
            return
        row = (store.find_tournament(tournament) if tournament else next(
            (r for r in reversed(rows) if not r.name.startswith(COMPARE_PREFIX)), rows[-1]))
        folder = Path(out_dir) if out_dir else report_folder(row.name, COMPARE_PREFIX)
        with LuckBar() as bar:
            paths = write_reports(store, row, folder,
                                  luck=report_luck(store, row.id, luck, LuckSource(value_model)),
                                  workers=workers, progress=bar.update)
        echo_wrapped("wrote " + ", ".join(str(path) for path in paths))


def tournament_lines(store: Store, rows: Sequence[TournamentRow]) -> list[str]:
    """The tournaments as a table, oldest first: what ``arena report`` takes."""
    table = [[str(row.id), row.name, row.game, row.status, store.finished_count(row.name)]
             for row in rows]
    return text_table(["id", "name", "game", "status", "games"], table, 4, terminal_width())


def report_folder(name: str, compare_prefix: str) -> Path:
    """``results/NAME``; a comparison's (``compare a@1.0+… vs b@1.0+… seed 0``) under
    ``results/compare/``, its spaces as ``-``, so that the path needs no quoting."""
    if not name.startswith(compare_prefix):
        return Path("results") / name
    return Path("results") / "compare" / re.sub(r"\s+", "-", name[len(compare_prefix):])
