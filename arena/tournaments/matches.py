"""Matches: a few games between given bots with rotated seats, and head-to-head
comparisons of two stored bot versions.

Game ``k`` of a match (:func:`play_match`) belongs to set ``k // n`` (``n`` seats) and
seats the bots rotated by ``k % n``, so every group of ``n`` consecutive games plays the
same dice in all seat rotations — the duplicate format that cancels luck between the bots.
The first set plays on ``seed`` itself, so a match's first game is the game
``play_game(game, players, seed)`` plays (``arena play --seed 7`` is
``arena.make(game).run(bots, seed=7)``); set ``s > 0`` plays on ``derive_seed(seed,
"match", s)`` (:func:`match_seed`), a new seed of 63 bits that every record keeps and that
replays that set's first game on its own.

:func:`play_comparison` plays seat-swapped pairs between two stored versions — a
fixed number, or until a sequential probability ratio test (SPRT, on the
pair-level pentanomial counts) reaches a bound. Its games are stored as a
tournament of their own, so they count in the ratings and a stopped comparison
resumes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots.identity import BotEntry, KeptCode, revision_labels
from arena.bots.instances import seated
from arena.games import find_game
from arena.games.base import ArenaError, Game, State, whole_number
from arena.referee.dice import derive_seed, game_seed
from arena.referee.match import check_seat_count, play_game
from arena.referee.protocol import Player, failure_excerpt, failure_shape
from arena.referee.record import OK, GameRecord, Move
from arena.results.comparison import WIDTH, Comparison, games_luck, summarise
from arena.results.luck_book import LuckSource
from arena.results.standings import (
    TABLE_WIDTH,
    BotResults,
    game_points,
    table_lines,
    tally_games,
    wrap,
)
from arena.results.stats import MatchScore, SprtSettings, pentanomial_from_pairs, sets_of
from arena.results.store import Store, StoredBot
from arena.tournaments.config import TournamentConfig
from arena.tournaments.executor import run_tasks
from arena.tournaments.runner import (
    Progress,
    RunReport,
    TournamentRun,
    open_run,
    play_tasks,
    round_robin_tasks,
    stored_entrants,
)
from arena.tournaments.schedule import GameTask
from arena.tournaments.tasks import MatchSetup

SETS_PER_CHECK = 8


def match_seed(seed: int, index: int, seats: int) -> int:
    """The game seed of game ``index`` of a match between ``seats`` bots: ``seed`` itself
    for the first set (the first ``seats`` games), then one derived per set."""
    game_set = index // seats
    seed = game_seed(seed)
    return seed if game_set == 0 else derive_seed(seed, "match", game_set)


def rotation(index: int, seats: int) -> list[int]:
    """Which bot sits in each seat in game ``index``: seat i gets bot (i + index) mod n."""
    return [(seat + index) % seats for seat in range(seats)]


def play_match(game: Game | str, players: Sequence[Player], seed: int, games: int,
               options: Mapping[str, Any] | None = None, *, time_limit: float | None = None,
               time_bank: float = 0.0, on_move: Callable[[State, Move], None] | None = None,
               ) -> Generator[tuple[list[int], GameRecord], None, None]:
    """Yield (bot index of each seat, record) for each game, as it is played.

    ``on_move(state, move)``, if given, sees every move of every game as it is made, the
    dice included (see :func:`arena.referee.match.play_game`). A player that is an
    :class:`~arena.bots.instances.InstancePool` plays each game of a set in another
    instance.
    """
    check_games(games)
    game = find_game(game) if isinstance(game, str) else game
    seats = len(players)
    check_seat_count(game, seats)
    for index in range(games):
        order, game_seed = rotation(index, seats), match_seed(seed, index, seats)
        at_table = [seated(players[bot], game_seed) for bot in order]
        yield order, play_game(game, at_table, game_seed, options, time_limit=time_limit,
                               time_bank=time_bank, on_move=on_move, seat_order=index % seats)


def check_games(games: Any) -> int:
    """``games`` as a number of games, 1 or more; ArenaError otherwise."""
    count = whole_number(games, "games: a number of games, 1 or more")
    if count < 1:
        raise ArenaError(f"games: a number of games, 1 or more, not {count}")
    return count


def play_match_in_workers(game: str, kept: Sequence[KeptCode], seed: int,
                          games: int, options: Mapping[str, Any], *, workers: int,
                          time_limit: float | None = None,
                          ) -> Generator[tuple[int, list[int], GameRecord], None, None]:
    """The games of :func:`play_match` (the same seeds and seats, so the same results),
    played by ``workers`` worker processes, each with bot processes of its own, from the
    bots' code as read once (``kept``, :func:`~arena.bots.identity.keep_code`); yield
    (game index, bot index of each seat, record) as each game finishes, in any order."""
    seats = len(kept)
    setup = MatchSetup(game, dict(options), tuple(k.entry for k in kept), time_limit)
    tasks = (GameTask(0, 0, index // seats, index % seats, tuple(rotation(index, seats)),
                      match_seed(seed, index, seats)) for index in range(games))
    bundles = [k.bundle for k in kept if k.bundle is not None]
    for result in run_tasks(setup, tasks, workers=workers, bundles=bundles):
        task = result.task
        record = GameRecord.from_json(json.loads(result.game.record_json))
        yield task.set * seats + task.rotation, list(task.seats), record


@dataclass
class MatchSummary:
    """Per-bot and per-bot-per-seat results, plus termination reasons."""

    labels: list[str]
    seats: int
    results: list[BotResults] = field(init=False)
    terminations: Counter[str] = field(default_factory=Counter)

    failures: dict[tuple[int, str, str], list[Any]] = field(default_factory=dict)
    """Each distinct failure (bot, status, first line): [count, excerpt of its detail]."""
    by_seed: dict[int, list[float]] = field(default_factory=dict)
    """Two bots: the first one's points in each game, by the game's seed (its set)."""

    def __post_init__(self) -> None:
        self.results = tally_games(self.labels, self.seats, [])

    def add(self, order: Sequence[int], record: GameRecord) -> None:
        self.terminations[record.termination] += 1
        statuses = [s.status for s in record.seats]
        if self.seats == 2:
            points = game_points(record.ranks)[list(order).index(0)]
            self.by_seed.setdefault(record.seed, []).append(points)
        for seat, bot in enumerate(order):
            self.results[bot].overall.add(seat, record.ranks, record.scores, statuses[seat],
                                          statuses)
            self.results[bot].by_seat[seat].add(seat, record.ranks, record.scores,
                                                statuses[seat], statuses)
            if statuses[seat] != OK:
                excerpt = failure_excerpt(record.seats[seat].detail) or ["(no detail)"]
                key = (bot, statuses[seat], failure_shape(excerpt[0]))
                self.failures.setdefault(key, [0, excerpt])[0] += 1

    def lines(self, width: int = TABLE_WIDTH) -> list[str]:
        """The standings (within ``width`` columns), the terminations and the failures."""
        ended = ", ".join(f"{reason} {count}"
                          for reason, count in sorted(self.terminations.items()))
        lines = [*table_lines(self.results, width=width, file=None), "",
                 *wrap(f"terminations: {ended}", width)]
        for (bot, status, _), (count, excerpt) in self.failures.items():
            times = "once" if count == 1 else f"{count} times"
            lines.append(f"{self.labels[bot]} lost by {status} {times}: {excerpt[0]}")
            lines += [f"    {line}" for line in excerpt[1:]]
        return lines + self.head_to_head(min(width, WIDTH))

    def head_to_head(self, width: int = WIDTH) -> list[str]:
        """Two bots: the first one's score with its interval, Elo and LOS over the duplicate
        sets, as ``arena compare`` gives them (and cutechess after a match)."""
        if self.seats != 2 or len(self.labels) != 2 or not self.by_seed:
            return []
        first = self.results[0].overall
        sets = list(self.by_seed.values())
        means, sizes = sets_of(sets)
        return ["", *Comparison(
            self.labels[0], self.labels[1], MatchScore(first.wins, first.draws, first.losses),
            pentanomial_from_pairs(sum(points) for points in sets if len(points) == 2),
            sets=means, set_sizes=sizes).lines(width)]


def bot_labels(players: Sequence[Player], revisions: Sequence[str] = ()) -> list[str]:
    """Each bot's revision label, ``name@version+3f2a9c`` (``revisions``: the hashes its
    code is stored under, :func:`~arena.bots.identity.play_revision`; ``name@version``
    without), numbered where the same bot plays twice."""
    hashes = list(revisions) or [""] * len(players)
    plain = [next(revision_labels(p.name, p.version, code)) for p, code in
             zip(players, hashes, strict=True)]
    counts = Counter(plain)
    seen: Counter[str] = Counter()
    labels = []
    for label in plain:
        seen[label] += 1
        labels.append(f"{label} #{seen[label]}" if counts[label] > 1 else label)
    return labels


COMPARE_PREFIX = "compare "
"""How the tournaments ``arena compare --games`` plays are named (``compare a@1+… vs …``)."""


def play_comparison(store: Store, game: str, first: StoredBot, second: StoredBot, *,
                    pairs: int, seed: int, workers: int, db: str,
                    settings: SprtSettings | None = None,
                    progress: Progress | None = None,
                    luck: LuckSource | None = None) -> Comparison:
    """Compare over the first ``pairs`` seat-swapped pairs of ``seed``'s dice, playing
    those not stored yet (stopping early at an SPRT bound); the progress's ``status``
    follows the SPRT's log-likelihood ratio. With ``luck`` the new games' luck is
    accounted for as they come, and the SPRT tests the adjusted score. Pairs stored
    beyond ``pairs`` (an earlier, larger ``--games``) are kept and left out."""
    entrants = stored_entrants(store, (first, second))  # each plays from its kept code
    name = (f"{COMPARE_PREFIX}{first.label} vs {second.label} seed {seed}"
            + (f" sprt {settings.elo0},{settings.elo1},{settings.alpha},{settings.beta}"
               if settings else ""))
    stored = store.tournament_named(name)
    config = TournamentConfig(
        name=name, game=game, bots=(_entry(first), _entry(second)),
        games_per_pairing=max(pairs, int(stored.config.get("games_per_pairing", 1))
                              if stored is not None else pairs),
        seed=seed, workers=workers, db=db)
    run = open_run(config, store, entrants)
    tasks = [task for task in round_robin_tasks(run.config, run.entrants.seed_keys)
             if task.set < pairs]
    report = RunReport(run.tid, len(tasks),
                       len(store.finished_keys(run.tid) & {task.key for task in tasks}))
    progress = progress or Progress()
    progress.started(report.total, report.already_done)
    chunk = 2 * SETS_PER_CHECK * max(1, config.worker_count)
    result = _result(store, run, first.id, game, settings, luck, pairs)
    for start in range(0, len(tasks), chunk):
        if result.sprt is not None:
            progress.status(sprt_status(result))
            if result.sprt.is_finished:
                break
        play_tasks(run, tasks[start:start + chunk], report, progress)
        result = _result(store, run, first.id, game, settings, luck, pairs)
    store.set_status(run.tid, "complete")
    return result


def sprt_status(result: Comparison) -> str:
    """``LLR 1.23 (-2.94, 2.94)``: where the test stands, for a progress line."""
    assert result.sprt is not None
    r = result.sprt
    return f"LLR {r.llr:.2f} ({r.lower:.2f}, {r.upper:.2f})"


def _result(store: Store, run: TournamentRun, first_id: int, game: str,
            settings: SprtSettings | None, luck: LuckSource | None, pairs: int) -> Comparison:
    games = [g for g in store.played_games(game) if g.tournament == run.tid and g.set < pairs]
    model, found = (games_luck(store, games, luck, run.config.worker_count) if luck
                    else ("", None))
    labels = run.entrants.labels
    return summarise(labels[0], labels[1], first_id, games, settings, found, model)


def _entry(bot: StoredBot) -> BotEntry:
    identity = bot.identity
    return BotEntry(identity.spec, identity.name, identity.version, dict(identity.params))
