"""What the server's pages and its JSON API show, read from the store.

Nothing here computes a rating: the ladder keeps its entrants' current ratings,
their history after each round and the head-to-head results in the store as it
plays (:mod:`arena.results.ladder_book`), so a page is a few indexed reads
whatever the number of games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.results.ladder_book import ACTIVE, LadderBook, RatingLine, Submission
from arena.results.store import Store, StoredBot, TournamentRow

RECENT_GAMES = 20
ALL_OK = tuple(json.dumps(["ok"] * seats) for seats in (2, 3, 4))
RECENT_WINDOW = 5000
"""Recent games of a bot are looked for among the ladder's last this many games."""


@dataclass(frozen=True)
class BoardLine:
    place: int
    label: str
    name: str
    status: str
    mu: float
    sigma: float
    games: int
    change: float
    round: int

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "bot": self.label, "name": self.name,
                "status": self.status, "mu": self.mu, "sigma": self.sigma,
                "conservative": self.conservative, "games": self.games,
                "last_change": self.change, "round": self.round}


def leaderboard(store: Store, row: TournamentRow, *, everyone: bool = False,
                limit: int | None = None) -> list[BoardLine]:
    """The active entrants (with ``everyone``, the retired ones too) best first by μ − 3σ,
    from the ratings the ladder keeps (the first ``limit`` of them)."""
    rows = store.db.execute(
        "SELECT b.label, b.name, s.status, c.mu, c.sigma, c.games, c.change, c.round"
        " FROM ladder_current c JOIN submissions s ON s.tournament_id = c.tournament_id"
        " AND s.position = c.position JOIN bots b ON b.id = s.bot_id"
        " WHERE c.tournament_id = ? AND (? OR s.status = ?)"
        " ORDER BY c.mu - 3 * c.sigma DESC, b.label LIMIT ?",
        (row.id, int(everyone), ACTIVE, -1 if limit is None else limit))
    return [BoardLine(place, *line) for place, line in enumerate(rows, 1)]


def active_count(store: Store, row: TournamentRow) -> int:
    found = store.db.execute("SELECT count(*) FROM submissions WHERE tournament_id = ? AND"
                             " status = ?", (row.id, ACTIVE)).fetchone()
    return int(found[0])


@dataclass(frozen=True)
class Version:
    submission: Submission
    bot: StoredBot
    rating: RatingLine | None


@dataclass(frozen=True)
class BotPage:
    name: str
    versions: list[Version]
    history: list[RatingLine]
    head_to_head: list[tuple[str, int, float]]
    """Per opponent label: games, and this bot's (all versions') score."""
    recent: list[dict[str, Any]]
    owner: int | None

    @property
    def positions(self) -> set[int]:
        """The entrant positions of its versions."""
        return {v.submission.position for v in self.versions
                if v.submission.position is not None}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name,
                "versions": [{"bot": v.bot.label, "status": v.submission.status,
                              "submission": v.submission.id,
                              "mu": v.rating.mu if v.rating else None,
                              "sigma": v.rating.sigma if v.rating else None,
                              "games": v.rating.games if v.rating else 0}
                             for v in self.versions],
                "history": [{"round": h.round, "position": h.position, "mu": h.mu,
                             "sigma": h.sigma, "games": h.games} for h in self.history],
                "head_to_head": [{"opponent": o, "games": n, "score": s}
                                 for o, n, s in self.head_to_head],
                "recent_games": self.recent}


def bot_page(store: Store, row: TournamentRow, name: str) -> BotPage | None:
    """Every version of the bot called ``name`` in the ladder, or None."""
    book = LadderBook(store, row.id)
    current = book.current_ratings()
    versions = []
    for submission_id, bot_id in store.db.execute(
            "SELECT s.id, s.bot_id FROM submissions s JOIN bots b ON b.id = s.bot_id WHERE"
            " s.tournament_id = ? AND b.game = ? AND b.name = ? AND s.position IS NOT NULL"
            " ORDER BY s.id", (row.id, row.game, name)).fetchall():
        submission = book.submission(submission_id)
        assert submission.position is not None
        versions.append(Version(submission, store.bot(bot_id),
                                current.get(submission.position)))
    if not versions:
        return None
    positions = [v.submission.position for v in versions if v.submission.position is not None]
    labels = _labels(store, row)
    totals: dict[int, list[float]] = {}
    for position in positions:
        for other, (games, points) in book.pair_results(position).items():
            total = totals.setdefault(other, [0, 0.0])
            total[0] += games
            total[1] += points
    head = [(labels.get(other, "?"), int(n), points / n if n else 0.0)
            for other, (n, points) in sorted(totals.items(), key=lambda t: -t[1][0])
            if other not in positions]
    return BotPage(name, versions, book.rating_history(positions), head,
                   recent_games(store, row, set(positions), labels),
                   book.owner_of_name(name))


def _labels(store: Store, row: TournamentRow) -> dict[int, str]:
    rows = store.db.execute("SELECT e.position, b.label FROM entrants e JOIN bots b ON"
                            " b.id = e.bot_id WHERE e.tournament_id = ?", (row.id,))
    return {int(position): str(label) for position, label in rows}


def recent_games(store: Store, row: TournamentRow, positions: set[int],
                 labels: dict[int, str]) -> list[dict[str, Any]]:
    rows = store.db.execute(
        "SELECT key, seats, ranks, statuses, termination, finished FROM games WHERE"
        " tournament_id = ? ORDER BY finished DESC, id DESC LIMIT ?", (row.id, RECENT_WINDOW))
    found = []
    for key, seats, ranks, statuses, termination, finished in rows:
        seated = [int(s) for s in json.loads(seats)]
        if positions.intersection(seated):
            found.append({"key": key, "bots": [labels.get(s, "?") for s in seated],
                          "ranks": json.loads(ranks), "statuses": json.loads(statuses),
                          "termination": termination, "finished": finished})
            if len(found) >= RECENT_GAMES:
                break
    return found


def own_positions(book: LadderBook, participant: int) -> set[int]:
    """The entrant positions of the bots ``participant`` submitted to the ladder."""
    return {s.position for s in book.submitted_by(participant) if s.position is not None}


def failures(store: Store, row: TournamentRow, positions: set[int]) -> list[dict[str, Any]]:
    """The recent games the entrants at ``positions`` (one bot's versions) lost by a failure,
    with each failure's detail (its traceback or stderr tail): for its owner's eyes only."""
    labels = _labels(store, row)
    rows = store.db.execute(
        "SELECT key, seats, statuses, details FROM games WHERE tournament_id = ? AND"
        " statuses NOT IN (?, ?, ?) ORDER BY finished DESC, id DESC LIMIT ?",
        (row.id, *ALL_OK, RECENT_WINDOW))
    found = []
    for key, seats, statuses, details in rows:
        for seat, status, detail in zip(json.loads(seats), json.loads(statuses),
                                        json.loads(details), strict=False):
            if seat in positions and status != "ok":
                found.append({"key": key, "bot": labels.get(seat, "?"), "status": status,
                              "detail": detail})
        if len(found) >= RECENT_GAMES:
            break
    return found


def submission_view(store: Store, row: TournamentRow, submission: Submission
                    ) -> dict[str, Any]:
    bot = store.bot(submission.bot_id) if submission.bot_id else None
    return {"id": submission.id, "ladder": row.name, "status": submission.status,
            "bot": bot.label if bot else None, "bot_name": bot.identity.name if bot else None,
            "log": submission.log, "created": submission.created,
            "changed": submission.changed}


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    ratings: tuple[RatingLine | None, RatingLine | None]
    games: int
    score: float
    """a's points per game against b, in their games."""
    elo: float | None
    better: float | None
    """The chance that a's skill is above b's, by the ratings (TrueSkill's model)."""


def entrant_labels(store: Store, row: TournamentRow) -> list[str]:
    return sorted(_labels(store, row).values())


def compare_versions(store: Store, row: TournamentRow, a: str, b: str,
                     beta: float) -> Comparison | None:
    """Two entrants of the ladder head to head (None if either is not one)."""
    import math

    from arena.results.stats import elo_difference

    positions = {label: position for position, label in _labels(store, row).items()}
    if a not in positions or b not in positions or a == b:
        return None
    book = LadderBook(store, row.id)
    games, points = book.pair_results(positions[a]).get(positions[b], (0, 0.0))
    current = book.current_ratings()
    first, second = current.get(positions[a]), current.get(positions[b])
    score = points / games if games else 0.5
    better = None
    if first and second:
        spread = math.sqrt(first.sigma ** 2 + second.sigma ** 2 + 2 * beta * beta)
        better = 0.5 * (1 + math.erf((first.mu - second.mu) / spread / math.sqrt(2)))
    elo = elo_difference(score) if games and 0 < score < 1 else None
    return Comparison(a, b, (first, second), games, score, elo, better)


def organizer_submissions(store: Store, row: TournamentRow, names: dict[int, str]
                          ) -> list[dict[str, Any]]:
    """Every submission of the ladder, newest first, for the organizer: its number, where it
    came from, who sent it, its status and its bot (an active one can be retired)."""
    book = LadderBook(store, row.id)
    found = []
    for submission in sorted(book.submissions(), key=lambda s: -s.id):
        submitter = book.submitter_of(submission.id)
        found.append({"id": submission.id, "source": submission.source,
                      "status": submission.status,
                      "by": names.get(submitter, "?") if submitter is not None else "config",
                      "bot": store.bot(submission.bot_id).label if submission.bot_id else None})
    return found
