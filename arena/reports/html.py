"""The HTML report: one self-contained file (inline CSS, JS and SVG; no network).

The page is rendered by Jinja2 with autoescaping on, so every text a user or a bot
chose (bot names and versions, tournament names, a failure's traceback and stderr)
is escaped. Data for the script is embedded as
``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as
``\\u003c``-style escapes, so no text can close the script element.
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader
from markupsafe import Markup, escape

from arena import __version__
from arena.games import find_game
from arena.games.base import NORMAL
from arena.referee.record import SEAT_STATUSES
from arena.reports import charts, seasons_board, viewer
from arena.reports.model import Bot, FailureGroup, PairResult, ReportModel
from arena.reports.written import own_folder, write_text
from arena.results.comparison import elo_text
from arena.results.stats import elo_difference, elo_interval
from arena.results.store import Store

TEMPLATE = "report.html.j2"
SCRIPTS_IN_PAGE = 3
"""``<script>`` elements the page has (the guard, the data, the viewer): the page's
script checks the count, so an injected one is noticed."""
LOSS_RGB = (214, 69, 65)
WIN_RGB = (46, 158, 86)
MAX_GAME_LINKS = 30
"""Games listed (and linked to the viewer) per group of identical failures."""
MAX_DETAIL_CHARS = 8000
"""Characters of a failure's traceback and stderr shown (the end); records keep less."""
COMPACT_MATRIX = 10
"""From this many bots on, the pair matrix shows only the score in each cell."""
DENSE_MATRIX = 20
"""From this many bots on, the pair matrix's cells are narrower still and show the score
without its per cent sign: 34 columns fit beside the names in a 1280 px window."""


@functools.cache
def environment() -> Environment:
    """The report's templates (one environment, which compiles each template once)."""
    env = Environment(loader=PackageLoader("arena.reports", "templates"), autoescape=True,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["breakable"] = breakable
    return env


_BREAKS = re.compile(r"([@+])|([-_])")


def breakable(name: str) -> Markup:
    """A bot's name or label, escaped, that a narrow cell wraps where it reads well: before
    ``@`` and ``+``, after ``-`` and ``_`` (``<wbr>``), not inside a word."""
    return Markup(_BREAKS.sub(lambda m: f"<wbr>{m[1]}" if m[1] else f"{m[2]}<wbr>",
                              str(escape(name))))


@functools.cache
def asset(name: str) -> Markup:
    """A static file of the package (CSS or JS), to inline as it is (read once)."""
    return Markup(resources.files("arena.reports").joinpath("static", name)
                  .read_text(encoding="utf-8"))


def script_json(data: Any) -> Markup:
    """JSON that is safe inside a ``<script>`` element (no ``<``, ``>``, ``&`` as such)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(text)


PART_FILE = "part-{}.js"
"""A later part of the viewer's games (:func:`arena.reports.viewer.parts`), numbered from 2
(the page holds part 1), in the folder beside the page named after it (``report-games``)."""


def write_html(path: Path, store: Store, model: ReportModel) -> list[Path]:
    """Write the report to ``path`` and the viewer's later parts into the folder beside it
    (``report-games/part-2.js`` …; only for more games than the page holds itself, and
    stale parts of an earlier report removed); return the folder's path, if it has parts,
    then the page's."""
    records = functools.partial(store.record, model.tournament.id)
    views = viewer.viewer_data(records, model.rows, _labels(model))
    folder = path.with_name(f"{path.stem}-games")
    written = write_parts(folder, records, model, views["parts"][1:])
    write_text(path, render_html(store, model, views=views, folder=folder.name))
    return [folder, path] if written else [path]


def write_parts(folder: Path, records: Callable[[str], Any], model: ReportModel,
                parts: Sequence[Sequence[int]]) -> list[Path]:
    """Each part (``[first, last]`` game numbers) as a script that hands its games and
    their menu labels to the report's viewer: a page opened from disk may load a script
    beside it, but not read a file (``fetch`` of a ``file:`` URL is refused)."""
    written = []
    for number, (first, last) in enumerate(parts, 2):
        games = viewer.viewer_games(records, model.rows, range(first, last + 1),
                                    labels=_labels(model))
        data = {"games": games, "labels": [game_option(model, game) for game in games]}
        own_folder(folder)
        target = folder / PART_FILE.format(number)
        write_text(target, f"/* arena report: games {first}-{last} */\n"
                           f"arenaReportPart({number}, {script_json(data)});\n")
        written.append(target)
    if folder.is_dir():
        for stale in folder.glob(PART_FILE.format("*")):
            if stale not in written:
                stale.unlink()
        if not written and not any(folder.iterdir()):
            folder.rmdir()
    return written


def _labels(model: ReportModel) -> list[str]:
    return [bot.label for bot in model.bots]


def render_html(store: Store, model: ReportModel, *, views: dict[str, Any] | None = None,
                folder: str = "report-games") -> str:
    """The report page; ``views`` are the viewer's data (:func:`viewer.viewer_data`, read
    here if not given) and ``folder`` where its later parts are, beside the page."""
    env = environment()
    failures = failure_panels(model)
    if views is None:
        views = viewer.viewer_data(functools.partial(store.record, model.tournament.id),
                                   model.rows, _labels(model))
    held = views["parts"][-1][1] if views["parts"] else 0
    board_svg, data = viewer_embed(env, model.config.game, model.bots, views["layout"],
                                   views["games"], parts=views["parts"], folder=folder,
                                   part_keys=views.get("part_keys", ()))
    return env.get_template(TEMPLATE).render(
        title=model.tournament.name,
        game_title=find_game(model.config.game).info.title,
        facts=facts(model),
        dates=_dates(model),
        swiss=model.is_swiss, ladder=model.is_ladder,
        isolation_column=not shared_isolation(model),
        leaderboard=leaderboard_rows(model),
        matrix=matrix(model), luck_model=model.luck_model,
        charts=chart_svgs(model),
        highlighted=charts.HIGHLIGHTED,
        endings=ending_rows(model),
        terminations=termination_names(model),
        statuses=SEAT_STATUSES,
        failures=failures,
        held=held,
        games=[(g["no"], game_option(model, g)) for g in views["games"]],
        viewer={**views, "held": held, "folder": folder},
        board_svg=board_svg, data=data, **page_assets())


def page_assets() -> dict[str, Any]:
    """What every page with the viewer inlines: its CSS and script, the number of scripts
    it has (the script checks it) and arena's version."""
    return {"css": asset("report.css"), "js": asset("report.js"), "scripts": SCRIPTS_IN_PAGE,
            "version": __version__}


def viewer_embed(env: Environment, game: str, bots: Sequence[Bot] | Mapping[int, Bot],
                 layout: dict[str, Any], games: Sequence[dict[str, Any]], *,
                 parts: Sequence[Sequence[int]] = (), folder: str = "",
                 part_keys: Sequence[str] = ()) -> tuple[Markup, Markup]:
    """The viewer's board drawing and the page's script data for it: the game, the bots
    (by entrant position), the board ``layout`` (of :func:`viewer.viewer_data`, left as it
    is), the viewer's ``games`` and, where there are more than the page holds, its
    ``parts`` (``[first, last]`` game numbers, the first the page's) with their first
    games' keys (``part_keys``) and the ``folder`` beside the page that has the later
    ones."""
    shown = dict(layout)
    board = board_drawing(env, game, shown)
    data: dict[str, Any] = {"game": game, "bots": bot_data(bots), "layout": shown,
                            "games": list(games)}
    if len(parts) > 1:
        data.update(parts=[list(part) for part in parts], folder=folder,
                    partKeys=list(part_keys))
    return board, script_json(data)


def board_drawing(env: Environment, game: str, layout: dict[str, Any]) -> Markup:
    """The viewer's board, drawn once: the two circles, or the Sonnentau board (taken out
    of ``layout``, where the script does not need it)."""
    if game == "seasons":
        return _seasons_drawing(env)
    return Markup(layout.pop("svg", ""))


@functools.lru_cache(maxsize=4)
def _seasons_drawing(env: Environment) -> Markup:
    """The Seasons board (always the same two circles), drawn once per environment."""
    return Markup(env.get_template("seasons_board.svg.j2").render(board=seasons_board.board()))


def facts(model: ReportModel) -> dict[str, Any]:
    """The header facts of the tournament, as label -> value."""
    config, row = model.config, model.tournament
    shown: dict[str, Any] = {
        "game": config.game, "format": config.format, "seed": row.shown_seed,
        "games": f"{len(model.rows)} of {model.total}",
        "status": row.status, "rating system": config.ratings.system,
        "seats per table": config.seats, "games per pairing": config.games_per_pairing,
    }
    if model.is_ladder:
        shown["games"] = len(model.rows)
        del shown["games per pairing"]
    if config.format == "swiss":
        shown["rounds"] = config.rounds
    if config.options:
        shown["options"] = ", ".join(f"{k}={v}" for k, v in sorted(config.options.items()))
    isolation = shared_isolation(model)
    if isolation:
        shown["isolation"] = isolation
    return shown


def shared_isolation(model: ReportModel) -> str:
    """The isolation level of every bot when all share one (the leaderboard then shows no
    column of it), else empty."""
    levels = {model.isolations.get(bot.index, "") for bot in model.bots}
    return levels.pop() if len(levels) == 1 else ""


def _dates(model: ReportModel) -> dict[str, str]:
    """When the tournament was played: its start, and its end if it is complete."""
    row = model.tournament
    start = _when(row.created)
    if not row.finished:
        return {"started": start}
    end = _when(row.finished)
    same_day = end[:10] == start[:10]
    return {"played": f"{start} to {end[11:] if same_day else end}"}


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def bot_data(bots: Sequence[Bot] | Mapping[int, Bot]
             ) -> list[dict[str, str]] | dict[str, dict[str, str]]:
    """The bots as the viewer's script reads them, by entrant position: a list of every
    entrant, or (for a page of one game) an object of only the bots it seats."""
    if isinstance(bots, Mapping):
        return {str(position): _bot_entry(bot) for position, bot in bots.items()}
    return [_bot_entry(bot) for bot in bots]


def _bot_entry(bot: Bot) -> dict[str, str]:
    return {"label": bot.label, "colour": bot.colour, "ink": bot.ink}


# -- leaderboard ----------------------------------------------------------------------


def leaderboard_rows(model: ReportModel) -> list[dict[str, Any]]:
    """One row per bot in standings order, with the tournament's own rating."""
    rows = []
    for place, result in enumerate(model.standings, 1):
        bot, tally = model.bots[result.index], result.overall
        rating = model.rating(bot.index)
        rows.append({
            "place": place, "bot": bot, "mu": rating.mu, "sigma": rating.sigma,
            "conservative": rating.conservative, "rated": model.rated_games(bot.index) > 0,
            "games": tally.games, "wins": tally.wins,
            "draws": tally.draws, "losses": tally.losses, "points": result.total_points,
            "points_text": f"{result.total_points:.2f}".rstrip("0").rstrip("."),
            "byes": result.byes, "bye_points": result.bye_points,
            "buchholz": result.buchholz or 0.0,
            "score": tally.score, "score_text": percent(tally.score),
            "mean_score": tally.mean_score,
            "mean_rank": tally.mean_rank, "failures": model.counts[bot.index].failures,
            "isolation": model.isolations.get(bot.index, "")})
    return rows


def percent(score: float) -> str:
    """``51.7 %``; a score above 0 never reads as 0 (``0.1 %`` at least)."""
    value = 100 * score
    if 0 < value < 0.05:
        return "< 0.1 %"
    return f"{value:.1f} %"


# -- pair matrix -----------------------------------------------------------------------


def heat(score: float) -> str:
    """Red (0) through white (½) to green (1), as a CSS colour."""
    base = WIN_RGB if score >= 0.5 else LOSS_RGB
    strength = min(1.0, abs(score - 0.5) * 2) * 0.78
    mixed = (round(255 + (c - 255) * strength) for c in base)
    return "rgb({}, {}, {})".format(*mixed)


def matrix(model: ReportModel) -> dict[str, Any]:
    """The pair matrix in standings order: a row per bot, a cell per opponent."""
    order = model.standings_order()
    rows = []
    for bot in order:
        cells = [_cell(bot, other, model.pairs.get((bot.index, other.index))) for other in order]
        rows.append({"bot": bot, "cells": cells})
    return {"bots": order, "rows": rows, "compact": len(order) >= COMPACT_MATRIX,
            "dense": len(order) >= DENSE_MATRIX}


def _cell(bot: Bot, other: Bot, pair: PairResult | None) -> dict[str, Any]:
    if bot.index == other.index:
        return {"kind": "self"}
    if pair is None or pair.games == 0:
        return {"kind": "none", "title": f"{bot.label} and {other.label} did not meet"}
    interval = pair.interval
    title = (f"{bot.label} vs {other.label}: {pair.wins} W, {pair.draws} D, {pair.losses} L "
             f"in {pair.games} games; score {100 * pair.score:.1f} %; "
             f"{elo_text(pair.score, interval)}; LOS {100 * pair.los:.1f} %")
    adjusted, adjusted_bounds = pair.adjusted, pair.adjusted_interval
    shown = None
    if adjusted is not None and adjusted_bounds is not None:
        shown = adjusted.score
        low, high = adjusted_bounds
        if adjusted.raw_stands:
            why = ("the adjusted sets' mean fell outside 0 to 100 %, where no expected score "
                   "can be" if adjusted.outside else "every raw set had the same result, "
                   "which leaves no noise to take the luck out of")
            title += (f"; luck-adjusted: {why}, so the raw sets' score stands: "
                      f"{100 * adjusted.score:.1f} % (95 % interval "
                      f"{100 * low:.1f} to {100 * high:.1f} %)")
        else:
            title += (f"; luck-adjusted score {100 * adjusted.score:.1f} % (95 % interval "
                      f"{100 * low:.1f} to {100 * high:.1f} %)")
    return {"kind": "pair", "score": pair.score, "games": pair.games, "title": title,
            "colour": heat(pair.score), "elo": short_elo(pair.score, interval),
            "adjusted": shown, "raw_adjusted": adjusted is not None and adjusted.raw_stands,
            "game": pair.first_game}


def short_elo(score: float, interval: tuple[float, float]) -> str:
    """A pair cell's Elo: ``+35``; for a sweep, which has no estimate, the end of its
    interval (``> +287`` after 20 games won), or ``—`` without one."""
    elo = elo_difference(score)
    if math.isfinite(elo):
        return _signed(elo)
    bound = elo_interval(interval)[0 if elo > 0 else 1]
    if not math.isfinite(bound):
        return "—"
    return f"{'>' if elo > 0 else '<'} {_signed(bound)}"


def _signed(value: float) -> str:
    return f"{value:+.0f}".replace("-", "−")


# -- charts ----------------------------------------------------------------------------


def chart_svgs(model: ReportModel) -> dict[str, Markup]:
    """The rating charts as inline SVG, in the bots' colours, each wide and narrow (the
    page shows one of the two); none before the first game."""
    if not model.rows:
        return {}
    colours: dict[str, str] = {}
    for bot in model.bots:
        colours.setdefault(bot.name, bot.colour)
    sizes = (charts.WIDE, charts.NARROW)
    return {
        "progress": Markup("\n".join(charts.progression_chart(
            model.rating_order(), model.progress, model.ratings.rater.initial(),
            model.settings.system, size) for size in sizes)),
        "versions": Markup("\n".join(charts.versions_chart(model.history, colours, size)
                                     for size in sizes)),
    }


# -- terminations --------------------------------------------------------------------


def termination_names(model: ReportModel) -> list[str]:
    """Game terminations to show: the normal end first, then every other seen."""
    seen = set(model.terminations) - {NORMAL}
    return [NORMAL, *sorted(seen | _limits(model.config.game))]


def _limits(game: str) -> set[str]:
    return {"seasons": {"placement-limit"}, "sonnentau": {"turn-limit"}}.get(game, set())


def ending_rows(model: ReportModel) -> list[dict[str, Any]]:
    return [{"bot": bot, "statuses": model.counts[bot.index].statuses,
             "terminations": model.counts[bot.index].terminations,
             "failures": model.counts[bot.index].failures}
            for bot in model.standings_order()]


def failure_notes(model: ReportModel) -> list[tuple[Bot, str]]:
    notes = []
    for bot in model.standings_order():
        statuses = model.counts[bot.index].statuses
        failed = [f"{statuses[s]} {s}" for s in SEAT_STATUSES[1:] if statuses[s]]
        if failed:
            notes.append((bot, ", ".join(failed)))
    return notes


def failure_panels(model: ReportModel) -> list[dict[str, Any]]:
    """Per bot that failed (standings order): what it failed with, grouped, with the games."""
    notes = {bot.index: text for bot, text in failure_notes(model)}
    return [{"bot": bot, "lost": sum(len(g.games) for g in model.failures[bot.index]),
             "counts": notes.get(bot.index, ""),
             "groups": [failure_group(group) for group in model.failures[bot.index]]}
            for bot in model.standings_order() if model.failures.get(bot.index)]


def failure_group(group: FailureGroup) -> dict[str, Any]:
    body = group.body
    cut = len(body) > MAX_DETAIL_CHARS
    return {"status": group.status, "summary": group.summary, "count": len(group.games),
            "games": group.games[:MAX_GAME_LINKS],
            "more": max(0, len(group.games) - MAX_GAME_LINKS),
            "body": body[-MAX_DETAIL_CHARS:] if cut else body, "cut": cut,
            "stderr": group.has_stderr, "same_text": group.same_text}


# -- viewer ------------------------------------------------------------------------------


def game_option(model: ReportModel, game: dict[str, Any]) -> str:
    """The viewer's label of a game: number, seats, result."""
    return f"Game {game['no']}: {game_summary([bot.label for bot in model.bots], game)}"


def game_summary(labels: Sequence[str] | Mapping[int, str], game: dict[str, Any]) -> str:
    """A game of the viewer's data in a line: its seats (``labels``: the bots' labels by
    entrant position), scores and verdict, and how it ended if not normally."""
    seated = [labels[b] for b in game["s"]]
    scores = "-".join(f"{s:g}" for s in game["sc"])
    winners = [seated[seat] for seat, rank in enumerate(game["r"]) if rank == 0]
    verdict = f"{winners[0]} wins" if len(winners) == 1 else "draw"
    failed = [f"{seated[seat]} {status}" for seat, status in enumerate(game["st"])
              if status != "ok"]
    note = "" if game["t"] == NORMAL else f" [{', '.join(failed) or game['t']}]"
    return f"{' vs '.join(seated)} — {scores}, {verdict}{note}"
