"""A continuous ladder: rounds of matchmade tables while bots come and go.

The ladder plays in *rounds*. A round's tables are chosen by
:mod:`arena.tournaments.matchmaking` from the ratings of every game of the
rounds before it, written to the store, and played as duplicate sets (each
table in every seat order of the config's ``seat_orders`` design on one game
seed, ``derive_seed(seed, "ladder", round, table, set)``; see
:mod:`arena.tournaments.schedule`); the next round is chosen when the last game
of this one is stored. The workers stay busy meanwhile: the task iterator answers
:data:`~arena.bots.workers.WAIT` only for the few games at the end of a
round. Between rounds the ladder takes in submissions (validating them), lets
retired bots go and sees a freeze; when a bot joins, the workers are started
again with the new entrant list.

Reproducible: a round is a pure function of the seed, the round number, the
active entrants and the games before it, so the same store and seed give the
same games in the same order with one worker. With several, the same games are
played with the same results, finishing in another order. When a submission
joins depends on when it arrives; the store keeps the round each entrant
joined, and the round's tables.

Frozen (``arena ladder freeze``), the ladder refuses submissions and plays
final rounds among its active bots (every table of a round-robin each round)
until it has at least ``final_games`` final games; its final standing is then
the ratings from all the games among those bots alone, in canonical order.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import shlex
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field

from arena.bots.bundles import Bundle
from arena.bots.identity import BotEntry
from arena.bots.isolation import is_shipped, resolve_isolation
from arena.bots.workers import WAIT
from arena.games import find_game
from arena.games.base import ArenaError
from arena.referee.dice import derive_seed
from arena.referee.match import resolve_game_options
from arena.referee.record import failed_seats
from arena.results.ladder_book import (
    COMPLETE,
    FINAL,
    FROZEN,
    QUEUED,
    REGULAR,
    VALIDATED,
    VALIDATING,
    LadderBook,
    LadderRound,
    RatingLine,
)
from arena.results.ratings import (
    RatedGame,
    Rating,
    RatingSettings,
    RatingTable,
    compared,
    make_rater,
)
from arena.results.store import Store, StoreError, TournamentRow, without_defaults
from arena.tournaments.config import db_option
from arena.tournaments.executor import run_tasks
from arena.tournaments.ladder_config import LadderConfig
from arena.tournaments.ladder_intake import (
    Intake,
    Validator,
    enter_config_bots,
    entry_of,
    join_validated,
    ladder_home,
    take_folder,
)
from arena.tournaments.matchmaking import Candidate, meetings_of, plan_round
from arena.tournaments.runner import limits_of
from arena.tournaments.schedule import (
    GameTask,
    games_per_set,
    round_robin_tables,
    seat_orders,
    seated,
)
from arena.tournaments.tasks import GameResult, MatchSetup

log = logging.getLogger(__name__)
IDLE_POLL_SECONDS = 1.0
MIN_TABLES = 2


@dataclass
class LadderControl:
    """How long to run: until ``stop`` is set (Ctrl-C), or ``rounds`` rounds in all."""

    rounds: int | None = None
    stop: bool = False
    idle_exit: bool = False
    """Stop, rather than wait for submissions, when too few bots are active to play."""


@dataclass
class LadderProgress:
    """Callbacks a front end may set to follow a ladder."""

    note: Callable[[str], None] = lambda text: None
    game_done: Callable[[GameResult, list[str]], None] = lambda result, labels: None
    round_done: Callable[[int, int], None] = lambda index, games: None


@dataclass
class Ladder:
    """An opened ladder: its tournament row in the store, and what its games share."""

    config: LadderConfig
    store: Store
    row: TournamentRow
    intake: Intake
    validator: Validator
    configured: dict[int, BotEntry] = field(default_factory=dict)
    ratings: RatingTable | None = None
    rated_rounds: int = 0
    meetings: dict[tuple[int, ...], int] = field(default_factory=dict)
    """How many tables each pair of entrant positions (sorted) shared in the first
    ``met_rounds`` rounds, for matchmaking."""
    met_rounds: int = 0

    @property
    def book(self) -> LadderBook:
        return LadderBook(self.store, self.row.id)

    @property
    def seats(self) -> int:
        return self.config.play.seats

    def phase(self) -> str:
        return self.store.status(self.row.id)


def find_ladder(store: Store, name: str) -> TournamentRow:
    row = store.tournament_named(name)
    if row is None or row.config.get("format") != "ladder":
        known = [r.name for r in store.tournaments() if r.config.get("format") == "ladder"]
        raise StoreError(f"no ladder {name!r} in {store.path}"
                         + (f"; ladders: {', '.join(known)}" if known else ""))
    return row


def open_ladder(config: LadderConfig, store: Store) -> Ladder:
    """Find or create the ladder, claim it for this process, and let the config's bots
    join (a changed bot as a new revision)."""
    row = store.tournament_named(config.name)
    if row is None:
        tid = store.create_tournament(config, [])
        row = store.find_tournament(tid)
    elif row.config.get("format") != "ladder":
        raise StoreError(f"{config.name!r} in {store.path} is a tournament, not a ladder; "
                         "give the ladder another name")
    else:
        _refuse_other_settings(row, config)
        store.update_config(row.id, config, reopen=False)
    store.claim(row.id)
    play = dataclasses.replace(config.play, seed=store.seed_of(row.id))
    config = dataclasses.replace(config, play=play)
    intake = Intake(config.game, ladder_home(store, config.name),
                    config.play.time_limit or 5.0, config.settings.validation_games,
                    config.settings.active_versions, limits_of(config.play))
    book = LadderBook(store, row.id)
    for unjudged in book.submissions(VALIDATING):  # a run stopped during its validation
        book.set_status(unjudged.id, QUEUED)
    return Ladder(config, store, store.find_tournament(row.id), intake,
                  Validator(store, row.id, intake))


def _refuse_other_settings(row: TournamentRow, config: LadderConfig) -> None:
    stored = {k: v for k, v in row.config.items() if k not in ("ladder", "ratings")}
    asked = dict(config.defining())
    for settings in (stored, asked):  # an option written at its default is the same game
        if isinstance(settings.get("options"), dict):
            settings["options"] = without_defaults(row.game, settings["options"])
    changed = sorted(key for key in set(stored) | set(asked) if stored.get(key) != asked.get(key))
    if changed:
        raise StoreError(f"ladder {config.name!r} was run with other settings "
                         f"({', '.join(changed)}); put them back to resume it (only the "
                         "ladder: section may change), or give this one another name")


def run_ladder(config: LadderConfig, store: Store, control: LadderControl | None = None,
               progress: LadderProgress | None = None) -> Ladder:
    """Run the ladder until ``control`` stops it, or until its final phase is done."""
    control = control or LadderControl()
    progress = progress or LadderProgress()
    ladder = open_ladder(config, store)
    entries = _resolved_entries(ladder.config)
    for note in enter_config_bots(ladder.book, entries, ladder.intake, _next_round(ladder),
                                  ladder.configured):
        progress.note(note)
    progress.note(header(ladder))
    ladder.ratings = _rate_rounds(ladder, upto=_rounds_done(ladder))
    waiting = False
    try:
        while not _stopping(ladder, control):
            for note in take_in(ladder):
                progress.note(note)
            active = len(ladder.book.active_positions())
            if active >= ladder.seats or _round_open(ladder):
                play_segment(ladder, control, progress)
                waiting = False
            elif control.idle_exit and not _pending(ladder):
                progress.note(f"fewer than {ladder.seats} bots are active: stopping")
                break
            else:
                if not waiting and not _pending(ladder):
                    progress.note(waiting_note(ladder, active))
                    waiting = True
                time.sleep(IDLE_POLL_SECONDS)
        if not control.stop:  # done with its rounds, not interrupted: give the verdict
            notes = ladder.validator.finish()
            notes += join_validated(ladder.book, ladder.intake, _next_round(ladder),
                                    frozen=ladder.phase() != "running")
            for note in notes:
                progress.note(note)
    finally:
        ladder.validator.stop()
    return ladder


def header(ladder: Ladder) -> str:
    config = ladder.config
    seed = "secret" if config.secret_seed else str(config.seed)
    if ladder.phase() == COMPLETE:
        return (f"ladder {config.name}: {config.game}, {ladder.seats} seats, seed {seed}: "
                "complete (frozen, its final games played); nothing to play")
    return (f"ladder {config.name}: {config.game}, {ladder.seats} seats, seed {seed}, "
            f"{len(ladder.book.active_positions())} active bots, round "
            f"{ladder.book.round_count() + 1} next; submissions by {_ways_in(ladder)}")


def waiting_note(ladder: Ladder, active: int) -> str:
    """Why the ladder plays no game now, and what starts it."""
    return (f"waiting for entrants: {active} active bot{'s' * (active != 1)}, a table needs "
            f"{ladder.seats}; submit with {_ways_in(ladder)} (Ctrl-C stops)")


def _ways_in(ladder: Ladder) -> str:
    """How a bot is submitted to the ladder."""
    folder = ladder.config.submissions_folder
    db = ladder.config.play.db
    database = db_option(db)
    return (f"`arena submit --ladder {shlex.quote(ladder.config.name)}{database}`"
            + (f" or into {folder}/" if folder else ""))


def _pending(ladder: Ladder) -> bool:
    """Whether a submission waits for its validation or its joining."""
    return ladder.validator.busy or bool(ladder.book.submissions(QUEUED)) or bool(
        ladder.book.submissions(VALIDATED))


def _resolved_entries(config: LadderConfig) -> list[BotEntry]:
    return [dataclasses.replace(entry, isolation=resolve_isolation(
        entry.isolation or config.play.isolation, shipped=is_shipped(entry.spec)))
        for entry in config.play.bots]


def take_in(ladder: Ladder) -> list[str]:
    """Queue the submissions folder's files, start the next validation, and let validated
    submissions join (all refused once the ladder is frozen)."""
    return [*queue_and_validate(ladder), *join_validated(
        ladder.book, ladder.intake, _next_round(ladder), frozen=ladder.phase() != "running")]


def queue_and_validate(ladder: Ladder) -> list[str]:
    """Queue the submissions folder's files and start the next validation; notes."""
    folder = ladder.config.submissions_folder
    notes = take_folder(ladder.book, ladder.intake.home, folder) if folder else []
    return notes + ladder.validator.poll(frozen=ladder.phase() != "running")


def _stopping(ladder: Ladder, control: LadderControl) -> bool:
    if control.stop or ladder.phase() == COMPLETE:
        return True
    return control.rounds is not None and _rounds_done(ladder) >= control.rounds


def play_segment(ladder: Ladder, control: LadderControl, progress: LadderProgress) -> None:
    """Play rounds with the current entrants until one joins, the ladder freezes or
    completes, or ``control`` stops it."""
    setup, bundles = ladder_setup(ladder)
    labels = [ladder.store.bot(bot_id).label for bot_id in ladder.store.entrants(ladder.row.id)]
    tasks = segment_tasks(ladder, control, len(setup.bots), progress)
    for result in run_tasks(setup, tasks, workers=ladder.config.play.worker_count,
                            executor=ladder.config.play.executor,
                            scheduler=ladder.config.play.scheduler, bundles=bundles):
        ladder.store.save_game(ladder.row.id, result.task, result.game, result.duration)
        progress.game_done(result, labels)


def ladder_setup(ladder: Ladder) -> tuple[MatchSetup, list[Bundle]]:
    """What the ladder's games share, with every entrant so far (by position), each played
    from its kept code; and the bundles of that code."""
    config = ladder.config.play
    bots = [ladder.store.bot(bot_id) for bot_id in ladder.store.entrants(ladder.row.id)]
    kept = [entry_of(ladder.store, bot, ladder.configured) for bot in bots]
    options = resolve_game_options(find_game(config.game), config.options, config.seats)
    bundles = {bundle.digest: bundle for _, bundle, _ in kept if bundle is not None}
    setup = MatchSetup(config.game, options, tuple(entry for entry, _, _ in kept),
                       config.time_limit, config.time_bank, limits_of(config),
                       tuple(refusal for _, _, refusal in kept),
                       tuple((b.identity.name, b.identity.version) for b in bots),
                       labels=tuple(b.label for b in bots))
    return setup, list(bundles.values())


def segment_tasks(ladder: Ladder, control: LadderControl, entrants: int,
                  progress: LadderProgress) -> Iterator[GameTask]:
    """The games of the open round (those not yet stored), then of each next round, until
    something asks for a new segment; WAIT while a round's last games are played."""
    while True:
        current = ladder.book.last_round()
        if current is None or _round_complete(ladder, current):
            if current is not None and ladder.rated_rounds <= current.round:
                _rate_round(ladder, current)
                progress.round_done(current.round, _games(ladder))
            if _segment_over(ladder, control, entrants, progress):
                return
            current = new_round(ladder)
            if current is None:
                return
        done = {row.key for row in ladder.store.games(ladder.row.id,
                                                       round_index=current.round)}
        for task in round_tasks(ladder, current):
            if control.stop:
                return
            if task.key not in done:
                yield task
        while not _round_complete(ladder, current):
            if control.stop:
                return
            yield WAIT


def _segment_over(ladder: Ladder, control: LadderControl, entrants: int,
                  progress: LadderProgress) -> bool:
    """Whether to stop drawing rounds: stopping, the end of the final phase, or a validated
    submission to take in (files are queued and validations started meanwhile)."""
    if _stopping(ladder, control) or _final_done(ladder):
        return True
    for note in queue_and_validate(ladder):
        progress.note(note)
    return len(ladder.store.entrants(ladder.row.id)) != entrants or bool(
        ladder.book.submissions(VALIDATED))


def _final_done(ladder: Ladder) -> bool:
    """In the final phase with its games played: the ladder is complete."""
    if ladder.phase() != FROZEN:
        return False
    if ladder.book.games_in_phase(FINAL) < ladder.config.settings.final_games:
        return False
    ladder.store.set_status(ladder.row.id, COMPLETE)
    return True


def new_round(ladder: Ladder) -> LadderRound | None:
    """Choose and store the next round's tables; None when too few bots are active."""
    active = ladder.book.active_positions()
    if len(active) < ladder.seats:
        return None
    index = ladder.book.round_count()
    seed = ladder.config.seed
    if ladder.phase() == FROZEN:
        phase = FINAL
        design = round_robin_tables(len(active), ladder.seats, 1,
                                    derive_seed(seed, "final", index))
        tables = [tuple(active[b] for b in table.bots) for table in design]
    else:
        phase = REGULAR
        tables = plan_round(candidates(ladder, active), ladder.seats,
                            tables_for(ladder, len(active)),
                            random.Random(derive_seed(seed, "matchmaking", index)),
                            beta=ladder.config.ratings.beta,
                            draw_probability=ladder.config.ratings.draw_probability,
                            exploration=ladder.config.settings.exploration,
                            games_per_table=games_per_meeting(ladder),
                            meetings=meetings_before(ladder, index))
    ladder.book.save_round(index, phase, tables)
    _count_meetings(ladder.meetings, tables)
    ladder.met_rounds = index + 1
    return LadderRound(index, phase, tuple(tuple(t) for t in tables))


def meetings_before(ladder: Ladder, index: int) -> dict[tuple[int, ...], int]:
    """How many tables each pair of positions shared in the rounds before ``index``
    (counted from the store once, then kept up as rounds are chosen)."""
    if ladder.met_rounds != index:
        ladder.meetings = {}
        for stored in ladder.book.rounds()[:index]:
            _count_meetings(ladder.meetings, stored.tables)
        ladder.met_rounds = index
    return ladder.meetings


def _count_meetings(meetings: dict[tuple[int, ...], int],
                    tables: Sequence[Sequence[int]]) -> None:
    for pair, times in meetings_of(tables).items():
        meetings[pair] = meetings.get(pair, 0) + times


def tables_for(ladder: Ladder, active: int) -> int:
    return ladder.config.tables_per_round or max(MIN_TABLES, active)


def candidates(ladder: Ladder, positions: list[int]) -> list[Candidate]:
    assert ladder.ratings is not None
    return [Candidate(p, ladder.ratings.get(p).mu, ladder.ratings.get(p).sigma)
            for p in positions]


def games_per_meeting(ladder: Ladder) -> int:
    """The games a table of a round plays: its sets, each in every seat order."""
    return (ladder.config.settings.sets_per_meeting
            * games_per_set(ladder.seats, ladder.config.play.seat_orders))


def round_tasks(ladder: Ladder, current: LadderRound) -> Iterator[GameTask]:
    """The round's games, made as they are asked for."""
    sets = ladder.config.settings.sets_per_meeting
    seed = ladder.config.seed
    orders = seat_orders(ladder.seats, ladder.config.play.seat_orders)
    return (GameTask(current.round, index, game_set, order_index, seated(table, order),
                     derive_seed(seed, "ladder", current.round, index, game_set))
            for index, table in enumerate(current.tables)
            for game_set in range(sets)
            for order_index, order in enumerate(orders))


def _games_in_round(ladder: Ladder, index: int) -> int:
    row = ladder.store.db.execute("SELECT count(*) FROM games WHERE tournament_id = ? AND"
                                  " round = ?", (ladder.row.id, index)).fetchone()
    return int(row[0])


def _round_complete(ladder: Ladder, current: LadderRound) -> bool:
    expected = len(current.tables) * games_per_meeting(ladder)
    return _games_in_round(ladder, current.round) >= expected


def _round_open(ladder: Ladder) -> bool:
    current = ladder.book.last_round()
    return current is not None and not _round_complete(ladder, current)


def _rounds_done(ladder: Ladder) -> int:
    """Rounds whose games are all stored."""
    return ladder.book.round_count() - int(_round_open(ladder))


def _next_round(ladder: Ladder) -> int:
    return ladder.book.round_count()


def _games(ladder: Ladder) -> int:
    return ladder.book.games_after(0)[0]


def _rate_rounds(ladder: Ladder, upto: int) -> RatingTable:
    """The ratings after the first ``upto`` rounds: as kept in the store when it has kept
    them that far (the same numbers: they were computed the same way), else computed from
    the games and kept."""
    table = RatingTable(make_rater(ladder.config.ratings))
    ladder.ratings, ladder.rated_rounds = table, 0
    if upto > 0 and ladder.book.rated_through() == upto - 1:
        for position, line in ladder.book.current_ratings().items():
            table.ratings[position] = Rating(line.mu, line.sigma)
            table.games[position] = line.games
        ladder.rated_rounds = upto
        return table
    for current in ladder.book.rounds()[:upto]:
        _rate_round(ladder, current)
    return table


def _rate_round(ladder: Ladder, current: LadderRound) -> None:
    """Add the round's games to the ladder's ratings, in canonical order, and keep the
    ratings of the bots that played in the store."""
    table = ladder.ratings
    assert table is not None
    before: dict[int, float] = {}
    pairs: dict[tuple[int, int], tuple[int, float]] = {}
    for row in ladder.store.games(ladder.row.id, round_index=current.round):
        if len(set(row.seats)) == len(row.seats):
            for seat in row.seats:
                before.setdefault(seat, table.get(seat).mu)
            failed = failed_seats(row.statuses)
            table.add(RatedGame(row.seats, row.ranks, failed))
            _count_pairs(pairs, row.seats, row.ranks, failed)
    ladder.book.add_pair_results(current.round, pairs)
    ladder.book.save_ratings(current.round, [
        RatingLine(position, current.round, table.get(position).mu, table.get(position).sigma,
                   table.games.get(position, 0), table.get(position).mu - mu)
        for position, mu in sorted(before.items())])
    ladder.rated_rounds = current.round + 1


def _count_pairs(pairs: dict[tuple[int, int], tuple[int, float]], seats: Sequence[int],
                 ranks: Sequence[int], failed: Sequence[int] = ()) -> None:
    """Each ordered pair of the game's seats that it compares (see
    :func:`arena.results.ratings.compared`): one more game, and the first's points (1 for a
    better rank, ½ for the same)."""
    for i, a in enumerate(seats):
        for j, b in enumerate(seats):
            if i != j and compared(i, j, failed, len(seats)):
                games, points = pairs.get((a, b), (0, 0.0))
                gained = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                pairs[a, b] = (games + 1, points + gained)


def ratings_of(store: Store, row: TournamentRow,
               among: Collection[int] | None = None) -> RatingTable:
    """The ladder's ratings by entrant position from its games in canonical order (only
    the games whose every seat is in ``among``, when given)."""
    table = RatingTable(make_rater(RatingSettings.from_mapping(row.config.get("ratings") or {})))
    for game in store.games(row.id):
        if among is not None and not all(seat in among for seat in game.seats):
            continue
        if len(set(game.seats)) == len(game.seats):
            table.add(RatedGame(game.seats, game.ranks, failed_seats(game.statuses)))
    return table


def freeze(store: Store, name: str) -> TournamentRow:
    """Stop taking submissions; the ladder plays its final games at its next round."""
    row = find_ladder(store, name)
    if row.status != "running":
        raise ArenaError(f"ladder {name!r} is {row.status} already")
    store.set_status(row.id, FROZEN)
    return row
