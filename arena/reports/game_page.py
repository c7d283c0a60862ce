"""One stored game on a page of its own, in the report's game viewer.

    >>> html = game_page_html(store, store.find_tournament("seasons-round-robin"),
    ...                       "r0-t1-s0-o1", back_link=("/", "All games"))  # doctest: +SKIP

The page is self-contained as the report is (:mod:`arena.reports.html`: inline CSS,
script and board drawing; no network), rendered with the report's Jinja2
environment (autoescaping on) and its viewer markup, data and script, so the game
steps exactly as in the report. It shows the seats with their bots, the result,
how the game ended, its seed (not while a secret seed is kept: a tournament with
``seed: secret`` that is not complete), and its moves. A failed seat's detail (the
bot's traceback and stderr) is shown only for the seats in ``detail_seats``: only the
seat's owner may read it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Container, Mapping
from typing import Any

from arena.games import find_game
from arena.referee.record import OK
from arena.reports import viewer
from arena.reports.html import (
    environment,
    failure_group,
    game_summary,
    page_assets,
    viewer_embed,
)
from arena.reports.model import Bot, FailureGroup, bot_colour, seat_details, shown_identity
from arena.results.store import GameRow, Store, StoreError, TournamentRow

TEMPLATE = "game_page.html.j2"
GAME_KEY = re.compile(r"r(\d+)-t(\d+)-s(\d+)-o(\d+)")
"""A game's key (:attr:`arena.tournaments.schedule.GameTask.key`): round, table, set and
rotation."""
NUMBER = 1
"""The game's number in the page's viewer, which holds this game alone (the viewer's links
read ``#game=1&move=5``)."""
ORDINALS = ("1st", "2nd", "3rd", "4th")


def game_page_html(store: Store, tournament: TournamentRow, key: str, *,
                   title: str | None = None, back_link: tuple[str, str] | None = None,
                   detail_seats: Container[int] = ()) -> str:
    """A standalone HTML page showing game ``key`` of ``tournament`` in the game viewer.

    ``title`` heads the page (by default the game's key); ``back_link`` is an ``(href,
    text)`` link shown at its top. A failed seat in ``detail_seats`` shows its detail (its
    traceback and stderr): name only the seats of the viewer's own bots. StoreError when
    the tournament has no game ``key`` or its record is damaged.
    """
    row = game_row(store, tournament, key)
    bots = seated_bots(store, tournament, row)
    views = viewer.viewer_data(functools.cache(functools.partial(store.record, tournament.id)),
                               [row], {position: bot.label for position, bot in bots.items()})
    game = views["games"][0]
    env = environment()
    board_svg, data = viewer_embed(env, tournament.game, bots, views["layout"], [game])
    summary = game_summary({position: bot.label for position, bot in bots.items()}, game)
    heading = title if title is not None else f"Game {row.key}"
    return env.get_template(TEMPLATE).render(
        title=heading, tournament=tournament.name,
        game_title=find_game(tournament.game).info.title,
        back_link=back_link, summary=summary, facts=game_facts(tournament, row, game),
        seats=seat_rows(store, tournament, row, bots, detail_seats),
        game=tournament.game, games=[(game["no"], f"{row.key}: {summary}")],
        viewer=views, board_svg=board_svg, data=data, **page_assets())


def game_row(store: Store, tournament: TournamentRow, key: str) -> GameRow:
    """The stored row of game ``key``, read by its key alone."""
    found = store.game(tournament.id, key) if GAME_KEY.fullmatch(key) else None
    if found is None:
        raise StoreError(f"no game {key!r} in tournament {tournament.name!r}")
    return found


def seated_bots(store: Store, tournament: TournamentRow, row: GameRow) -> dict[int, Bot]:
    """The bots that sat in the game, by entrant position (as the report's
    :func:`~arena.reports.model.entrant_bots` shows them): only those, read by position,
    however many entrants the tournament has."""
    seated = sorted(set(row.seats))
    marks = ",".join("?" * len(seated))
    found = {int(position): bot_id for position, bot_id in store.db.execute(
        f"SELECT position, bot_id FROM entrants WHERE tournament_id = ? AND position IN"
        f" ({marks})", (tournament.id, *seated))}
    if len(found) != len(seated):
        raise StoreError(f"game {row.key!r} of tournament {tournament.name!r} seats an "
                         "entrant it does not have")
    return {position: Bot(position, bot_id, shown_identity(store.bot(bot_id)),
                          bot_colour(position)) for position, bot_id in found.items()}


def shown_seed(tournament: TournamentRow, row: GameRow) -> str:
    """The game's seed as anyone may see it: hidden while the tournament keeps its seed
    secret (as :attr:`TournamentRow.shown_seed`), since every game seed derives from it."""
    hidden = tournament.shown_seed != str(tournament.seed)
    return tournament.shown_seed if hidden else str(row.seed)


def game_facts(tournament: TournamentRow, row: GameRow, game: dict[str, Any]
               ) -> dict[str, Any]:
    """The header facts of the game, as label -> value."""
    moves = len(game["z"]) if "z" in game else row.moves
    return {"tournament": tournament.name, "game": row.key, "termination": row.termination,
            "seed": shown_seed(tournament, row), "moves": moves,
            "duration": f"{row.duration:.1f} s"}


def seat_rows(store: Store, tournament: TournamentRow, row: GameRow, bots: Mapping[int, Bot],
              detail_seats: Container[int]) -> list[dict[str, Any]]:
    """One row per seat: its bot, score, place and status, and for a failed seat in
    ``detail_seats`` its detail as the report's failure panels show it."""
    shown = [seat for seat in range(len(row.seats)) if seat in detail_seats]
    details = seat_details(store, tournament.id, row) if shown else ()
    rows = []
    for seat, entrant in enumerate(row.seats):
        status = row.statuses[seat]
        detail = details[seat] if status != OK and seat in shown and seat < len(details) else ""
        rank = row.ranks[seat]
        rows.append({
            "seat": seat, "bot": bots[entrant], "score": f"{row.scores[seat]:g}",
            "place": ORDINALS[rank] if rank < len(ORDINALS) else f"{rank + 1}th",
            "status": status,
            "isolation": row.isolations[seat] if seat < len(row.isolations) else "",
            "failure": failure_group(FailureGroup(status, detail, (NUMBER,)))
            if detail else None})
    return rows


__all__ = ["game_page_html", "game_row"]
