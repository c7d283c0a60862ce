"""Where a ladder stands: its entrants with their ratings, its pace, its final standing.

Everything here is read from the store, so it works against a running ladder,
from any process.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.results.ladder_book import (
    ACTIVE,
    COMPLETE,
    ERROR,
    FROZEN,
    QUEUED,
    RETIRED,
    VALIDATED,
    VALIDATING,
    LadderBook,
    Submission,
)
from arena.results.standings import TABLE_WIDTH, text_table, wrap
from arena.results.store import Store, TournamentRow
from arena.tournaments.ladder import ratings_of
from arena.tournaments.ladder_intake import named_in_verdict

ORDER = {ACTIVE: 0, VALIDATED: 1, VALIDATING: 2, QUEUED: 3, RETIRED: 4, ERROR: 5}
LOG_LINES = 6
PHASES = {"running": "open for submissions", FROZEN: "frozen: playing its final games",
          COMPLETE: "complete"}


@dataclass(frozen=True)
class EntrantLine:
    submission: Submission
    label: str
    games: int
    mu: float | None
    sigma: float | None

    @property
    def conservative(self) -> float | None:
        return None if self.mu is None or self.sigma is None else self.mu - 3 * self.sigma


def entrant_lines(store: Store, row: TournamentRow) -> list[EntrantLine]:
    """Every submission, active ones first (best first by μ − 3σ), then the others, with
    the ratings the ladder keeps (through its last complete round)."""
    book = LadderBook(store, row.id)
    kept = book.current_ratings()
    lines = []
    for submission in book.submissions():
        label = (store.bot(submission.bot_id).label if submission.bot_id
                 else named_in_verdict(submission.log) or "-")
        rating = kept.get(submission.position) if submission.position is not None else None
        lines.append(EntrantLine(submission, label, rating.games if rating else 0,
                                 rating.mu if rating else None,
                                 rating.sigma if rating else None))
    return sorted(lines, key=lambda e: (ORDER.get(e.submission.status, 9),
                                        -(e.conservative if e.conservative is not None
                                          else -1e9), e.submission.id))


def status_lines(store: Store, row: TournamentRow, width: int = TABLE_WIDTH) -> list[str]:
    """The ladder's state, its entrants' table and (frozen) its final standing, in lines
    of at most ``width`` characters where the names allow it."""
    book = LadderBook(store, row.id)
    with store.snapshot():  # one moment: games go on being stored while the ladder runs
        games = book.games_after(0)[0]
        per_hour = book.games_since(time.time() - 3600)
        rounds = book.round_count()
        entrants = entrant_lines(store, row)
    counts = {status: 0 for status in ORDER}
    for line in entrants:
        counts[line.submission.status] = counts.get(line.submission.status, 0) + 1
    lines = [f"ladder {row.name}: {row.game}, {PHASES.get(row.status, row.status)}",
             f"{rounds} rounds, {games} games, {per_hour} in the last hour",
             "entrants: " + ", ".join(f"{n} {status}" for status, n in counts.items() if n)]
    table = [[line.submission.id, line.label, line.submission.status,
              line.submission.source, line.games, _number(line.mu), _number(line.sigma),
              _number(line.conservative)] for line in entrants]
    lines += text_table(["id", "bot", "status", "from", "games", "mu", "sigma", "mu-3sigma"],
                        table, 4, width)
    for line in entrants:
        if line.submission.status == ERROR:
            lines.append(f"submission {line.submission.id} ({line.submission.source}):")
            lines += [wrapped for text in line.submission.log.splitlines()[:LOG_LINES]
                      for wrapped in wrap(f"  {text}", width, "  ")]
    if row.status in (FROZEN, COMPLETE):
        lines += final_standing_lines(store, row, width)
    return lines


def final_standing(store: Store, row: TournamentRow) -> list[tuple[str, float, float, int]]:
    """The frozen set's standing from all games among its bots alone: label, μ, σ, games,
    best first by μ − 3σ."""
    active = set(LadderBook(store, row.id).active_positions())
    ratings = ratings_of(store, row, among=active)
    labels = {s.position: store.bot(s.bot_id).label for s in
              LadderBook(store, row.id).submissions(ACTIVE) if s.bot_id is not None}
    return [(labels[p], rating.mu, rating.sigma, ratings.games.get(p, 0))
            for p, rating in ratings.leaderboard() if p in labels]


def final_standing_lines(store: Store, row: TournamentRow,
                         width: int = TABLE_WIDTH) -> list[str]:
    title = "final standing" if row.status == COMPLETE else "final standing so far"
    rows = [[place, label, f"{mu:.2f}", f"{sigma:.2f}", f"{mu - 3 * sigma:.2f}", games]
            for place, (label, mu, sigma, games) in enumerate(final_standing(store, row), 1)]
    return [f"{title} (all games among the frozen bots):",
            *text_table(["#", "bot", "mu", "sigma", "mu-3sigma", "games"], rows, 2, width)]


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"
