"""Running a tournament: schedule, play, store, resume.

The schedule is a pure function of the config and the results so far: a
round-robin is known up front; a Swiss round is paired from the stored results
of the rounds before it. Tasks are made as they are played, never held as a
list. Games already in the database are never played again, so running a
tournament a second time resumes it (or reports it complete); one process at a
time may run it.

Opening a run settles each bot's isolation (the sandbox by default), reads each
bot's code once and names the bot from it (in its own process, sandboxed, unless it
is trusted), and registers its revision with that code kept in the store: the games
are played from the kept code (:mod:`arena.bots.bundles`), not from the files as
they may be by then. A bot that cannot load, or says it plays other games, stops the
run before its first game (with ``broken_bots: forfeit`` its games are
forfeited instead).

Running a config again: with the same settings and bots it resumes (or reports
the tournament complete); with more ``rounds`` or ``games_per_pairing`` (Swiss:
more rounds) the tournament grows and only the new games are played; with a
changed bot, or bots added or left out, the bots are played as a new tournament
named ``<name>-2`` (``-3``, …), the old one kept; other changed settings are
refused, saying what changed.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.bots.bundles import Bundle, relative_spec
from arena.bots.files import BotFileError
from arena.bots.identity import (
    BotEntry,
    BotIdentity,
    Handshake,
    entrant,
    identity_hash,
    keep_code,
)
from arena.bots.isolation import DESCRIPTIONS, SANDBOX, is_shipped, resolve_isolation
from arena.bots.loading import split_spec
from arena.bots.process import Limits
from arena.games import find_game
from arena.games.base import ArenaError
from arena.referee.match import resolve_game_options
from arena.results.standings import BotResults, game_points, tally_games
from arena.results.store import (
    GameRow,
    Store,
    StoredBot,
    StoreError,
    TournamentRow,
    defining_settings,
    growable_settings,
)
from arena.tournaments.config import STOP, TournamentConfig, db_option
from arena.tournaments.executor import run_tasks
from arena.tournaments.schedule import (
    MAX_SUBSETS,
    GameTask,
    Table,
    games_in,
    games_per_set,
    iter_tasks,
    round_robin_schedule,
    schedule_tasks,
    tables_per_round,
)
from arena.tournaments.swiss import TIE_DIGITS, RoundPairing, TableResult, pair_round
from arena.tournaments.swiss import standings as swiss_standings
from arena.tournaments.tasks import GameResult, MatchSetup

log = logging.getLogger(__name__)
PREVIEW_TABLES = 10


@dataclass
class Progress:
    """Callbacks a front end may set to follow a run."""

    opened: Callable[[TournamentRun], None] = lambda run: None
    started: Callable[[int, int], None] = lambda total, done: None
    game_done: Callable[[GameResult], None] = lambda result: None
    round_done: Callable[[int, list[BotResults]], None] = lambda index, standings: None
    status: Callable[[str], None] = lambda text: None
    """A short line on where the run stands (a comparison's SPRT), shown with the bar."""


@dataclass
class RunReport:
    tournament_id: int
    total: int
    already_done: int
    played: int = 0
    standings: list[BotResults] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    name: str = ""
    """The tournament's name (``<name>-2`` when changed bots made it a new one)."""
    notes: list[str] = field(default_factory=list)
    """What running the config did beyond playing: a grown or a new tournament."""

    @property
    def complete(self) -> bool:
        return self.already_done + self.played >= self.total


@dataclass(frozen=True)
class Entrants:
    labels: list[str]
    """Per entrant: how it is shown (its revision's label once registered)."""
    identities: list[BotIdentity]
    problems: list[str]
    refusals: list[str | None] = field(default_factory=list)
    """Per entrant: why it does not play (its games are forfeited), or None."""
    played: list[BotEntry] = field(default_factory=list)
    """Per entrant: its entry as it is played, naming its kept code."""
    bundles: list[Bundle | None] = field(default_factory=list)
    """Per entrant: the bundle of its kept code (None: a bot found where it is played)."""

    @property
    def seed_keys(self) -> list[str]:
        """Per entrant: ``name@version``, which keys the seeds of its games, so that every
        revision of a bot meets the same dice."""
        return [identity.label for identity in self.identities]


class BrokenBotError(ArenaError):
    """A bot of the tournament cannot play it; the message names each and says why."""


def resolve_entries(config: TournamentConfig) -> TournamentConfig:
    """The config with each bot's isolation settled: its entry's, else the config's, else
    the sandbox where it works (see :func:`arena.bots.isolation.resolve_isolation`)."""
    bots = tuple(dataclasses.replace(entry, isolation=resolve_isolation(
        entry.isolation or config.isolation, shipped=is_shipped(entry.spec)))
        for entry in config.bots)
    return dataclasses.replace(config, bots=bots)


def load_entrants(config: TournamentConfig) -> Entrants:
    """Name every bot: isolated bots say who they are in their own process, trusted ones
    are loaded here. A bot that cannot load, or says it plays other games, stops the
    tournament before its first game (BrokenBotError); with ``broken_bots: forfeit`` it
    is reported instead, and its games are forfeited."""
    limits = limits_of(config)
    heard: dict[str, Handshake] = {}
    entrants = [entrant(entry, limits, config.game, heard) for entry in config.bots]
    problems = [f"bots[{index}] ({describe_entry(entry)}): {e.problem}"
                for index, (entry, e) in enumerate(zip(config.bots, entrants, strict=True))
                if e.problem is not None]
    if problems and config.broken_bots == STOP:
        raise BrokenBotError("\n".join(
            [f"{config.source}: the tournament cannot start:", *problems,
             "fix the bot, or leave it out (broken_bots: forfeit plays on without it)"]))
    for problem in problems:
        log.warning("%s; its games are forfeited", problem)
    identities = [e.identity for e in entrants]
    refusals = [None if e.problem is None else f"it does not play: {e.problem}"
                for e in entrants]
    return Entrants([i.revision_label for i in identities], identities,
                    [f"{p}; its games are forfeited" for p in problems], refusals,
                    [e.entry for e in entrants], [e.bundle for e in entrants])


def stored_entrants(store: Store, bots: Sequence[StoredBot]) -> Entrants:
    """Stored revisions as entrants, each to be played from its kept code (:func:`kept_entry`)."""
    kept = [kept_entry(store, bot) for bot in bots]
    return Entrants([bot.label for bot in bots], [bot.identity for bot in bots], [],
                    [None] * len(bots), [entry for entry, _ in kept],
                    [bundle for _, bundle in kept])


def kept_entry(store: Store, bot: StoredBot) -> tuple[BotEntry, Bundle | None]:
    """How a stored revision is played: from the bundle the store keeps of its code; a bot
    found where it is played, or one stored before arena kept code, from its spec, if that
    still names the same code (its bundle then kept from now on). ArenaError otherwise."""
    identity = bot.identity
    bundle = store.bundle(identity.bundle) if identity.bundle else None
    if bundle is not None:
        tree = bundle.tree()
        target = split_spec(identity.spec)[0]
        return BotEntry(relative_spec(identity.spec, tree), identity.name, identity.version,
                        dict(identity.params), bundle=bundle.digest,
                        shown=target.removesuffix("/__init__.py")), bundle
    try:
        kept = keep_code(BotEntry(identity.spec, identity.name, identity.version,
                                  dict(identity.params)))
    except BotFileError as exc:
        raise ArenaError(f"{bot.label}: its code cannot be read: {exc}") from None
    if identity_hash(kept.code, identity.params) != identity.code_hash:
        raise ArenaError(
            f"{bot.label}: {identity.spec} holds other code now, and {store.path} keeps no "
            "copy of this revision's (it was stored before arena kept each revision's code), "
            "so no new games of it can be played; compare its stored games (without --games "
            "and --sprt), or the current code's revision")
    if kept.bundle is not None:
        store.register_bot(bot.game, dataclasses.replace(identity, bundle=kept.bundle.digest),
                           kept.bundle)
    return kept.entry, kept.bundle


def describe_entry(entry: BotEntry) -> str:
    """``bots/x.py``, or ``bots/x.py as name`` for an entry that names its bot."""
    return entry.spec + (f" as {entry.name}" if entry.name else "")


def limits_of(config: TournamentConfig) -> Limits:
    return Limits(config.memory_limit, config.cpu_limit)


def match_setup(config: TournamentConfig, entrants: Entrants) -> MatchSetup:
    """What the tournament's games share: each bot as it is played, from its kept code."""
    options = resolve_game_options(find_game(config.game), config.options, config.seats)
    names = tuple((i.name, i.version) for i in entrants.identities)
    return MatchSetup(config.game, options, tuple(entrants.played), config.time_limit,
                      config.time_bank, limits_of(config), tuple(entrants.refusals), names,
                      labels=tuple(entrants.labels))


def total_games(config: TournamentConfig) -> int:
    return games_in(config.format, len(config.bots), config.seats, config.rounds,
                    config.games_per_pairing, config.seat_orders)


def round_robin_tasks(config: TournamentConfig, seed_keys: Sequence[str]
                      ) -> Iterator[GameTask]:
    """The round-robin's games in play order, interleaved so that every bot has played about
    as many as every other at any point (see :mod:`arena.tournaments.schedule`); ``seed_keys``
    (``name@version`` per entrant) key the seeds."""
    tables = round_robin_schedule(len(config.bots), config.seats, config.rounds, config.seed)
    return schedule_tasks(tables, config.games_per_pairing, config.seed, seed_keys,
                          config.seat_orders)


@dataclass(frozen=True)
class TournamentRun:
    """An opened tournament: its id in the store, its bots and what its games share."""

    config: TournamentConfig
    store: Store
    tid: int
    entrants: Entrants
    setup: MatchSetup
    notes: tuple[str, ...] = ()
    """What opening it did beyond resuming: grew it, or made it a new tournament."""

    @property
    def bundles(self) -> list[Bundle]:
        """The kept code the games are played from, each bundle once."""
        return list({b.digest: b for b in self.entrants.bundles if b is not None}.values())


def open_run(config: TournamentConfig, store: Store,
             entrants: Entrants | None = None) -> TournamentRun:
    """Settle the bots' isolation, read their code, name and register them (``entrants``:
    named already, as stored revisions are), find, grow or create the tournament in
    ``store`` and claim it for this process. A secret seed is the stored one from here
    on."""
    config = resolve_entries(config)
    if entrants is None:
        entrants = load_entrants(config)
    else:  # named already: they play at the isolation settled here
        entrants = dataclasses.replace(entrants, played=[
            dataclasses.replace(played, isolation=entry.isolation)
            for played, entry in zip(entrants.played, config.bots, strict=True)])
    entrants, bot_ids = register_entrants(store, config.game, entrants)
    config, tid, notes = settle_tournament(store, config, bot_ids, entrants.refusals)
    store.claim(tid)
    config = dataclasses.replace(config, seed=store.seed_of(tid))
    return TournamentRun(config, store, tid, entrants, match_setup(config, entrants),
                         tuple(notes))


def settle_tournament(store: Store, config: TournamentConfig, bot_ids: Sequence[int],
                      refusals: Sequence[str | None]) -> tuple[TournamentConfig, int, list[str]]:
    """The tournament this config runs: the stored one of its name (grown if the config
    asks for more games), a new one, or, when the bots differ from the stored ones, the
    first ``<name>-N`` that has these bots or is free. Returns the config under the name it
    runs as, the tournament's id, and notes on what was done."""
    row = store.tournament_named(config.name)
    if row is None:
        return config, store.create_tournament(config, bot_ids, refusals), []
    refuse_other_settings(store, row, config)
    if store.entrants(row.id) == list(bot_ids):
        return config, row.id, grow(store, row, config)
    changes = bot_changes(store, store.entrants(row.id), bot_ids)
    renamed, other = runs_as(store, config, lambda found: store.entrants(found.id) ==
                             list(bot_ids))
    if other is None:
        tid = store.create_tournament(renamed, bot_ids, refusals)
        return renamed, tid, [
            f"the bots differ from those of tournament {config.name!r} ({changes}): "
            f"playing them as a new tournament {renamed.name!r}; {config.name!r} is "
            "kept as it was" + revisions_hint(store, runs_before(store, config.name,
                                                                 renamed.name), bot_ids)]
    return renamed, other.id, [
        f"the bots differ from those of tournament {config.name!r} ({changes}); "
        f"{renamed.name!r} has these bots: running that one", *grow(store, other, renamed)]


def runs_as(store: Store, config: TournamentConfig, same_bots: Callable[[TournamentRow], bool]
            ) -> tuple[TournamentConfig, TournamentRow | None]:
    """Where the stored tournament of the config's name has other bots, the first
    ``<name>-N`` that is free (None) or stored with these bots (``same_bots``) and the
    config's settings: the config under that name, and that tournament."""
    for number in itertools.count(2):
        renamed = renamed_config(config, f"{config.name}-{number}")
        other = store.tournament_named(renamed.name)
        if other is None or (same_bots(other) and not settings_diff(other, renamed)):
            return renamed, other
    raise AssertionError("unreachable")


def runs_before(store: Store, name: str, new: str) -> list[TournamentRow]:
    """The tournament ``name`` and its ``name-N`` before ``new``, the latest first: the
    revisions the bots last played as, which a new revision is best compared with."""
    rows = [store.tournament_named(name)]
    for number in itertools.count(2):
        if f"{name}-{number}" == new:
            break
        rows.append(store.tournament_named(f"{name}-{number}"))
    return sorted((row for row in rows if row is not None), key=lambda row: -row.id)


def revisions_hint(store: Store, runs: Sequence[TournamentRow], asked: Sequence[int]) -> str:
    """Where a bot came back as another revision of the one it played as in one of
    ``runs`` (the latest first): how to compare the two. Through their games on the same
    dice where a run seated the same bots in the same places (a table's dice follow its
    places); else by playing them against each other."""
    at = db_option(str(store.path))
    for run in runs:
        stored = store.entrants(run.id)
        if len(stored) != len(asked):
            continue
        revised = [(old, new) for old, new in zip(stored, asked, strict=True) if old != new]
        if revised and all(store.bot(old).identity.name == store.bot(new).identity.name
                           for old, new in revised):
            return "; then " + ", ".join(
                f"`arena compare {store.bot(old).label} {store.bot(new).label}{at}`"
                for old, new in revised) + (f" compares the revisions of {run.name!r} with "
                                            "these through their games on the same dice")
    _gone, revised, _new = entrant_changes(store, store.entrants(runs[0].id), asked) \
        if runs else ([], [], [])
    if not revised:
        return ""
    return "; in another order the bots meet other dice, so " + ", ".join(
        f"`arena compare {store.bot(old).label} {store.bot(new).label} --games 100{at}`"
        for old, new in revised) + " plays the revisions against each other"


def stored_elsewhere(store: Store, config: TournamentConfig, labels: Sequence[str]
                     ) -> list[str]:
    """Where the stored tournament of the config's name has other bots, which one a run
    would play (as :func:`settle_tournament` settles it); else nothing."""
    def labels_of(row: TournamentRow) -> list[str]:
        return [store.bot(bot_id).label for bot_id in store.entrants(row.id)]

    row = store.tournament_named(config.name)
    if row is None or labels_of(row) == list(labels):
        return []
    renamed, other = runs_as(store, config, lambda found: labels_of(found) == list(labels))
    if other is None:
        return [f"the bots differ from those of tournament {config.name!r} in "
                f"{config.db}: a run plays them as a new tournament {renamed.name!r} "
                f"({total_games(config)} games)"]
    return [f"the bots differ from those of tournament {config.name!r} in {config.db}; "
            f"{renamed.name!r} has these bots: a run resumes it "
            f"({store.finished_count(renamed.name)} of {total_games(config)} games played)"]


def renamed_config(config: TournamentConfig, name: str) -> TournamentConfig:
    """``config`` under another name; its output folder follows (``results/<name>``, or
    the configured folder with the same suffix)."""
    output = config.output and config.output.rstrip("/") + name[len(config.name):]
    return dataclasses.replace(config, name=name, output=output)


def settings_diff(row: TournamentRow, config: TournamentConfig) -> list[str]:
    """``key: stored → asked`` for each of the defining settings (not the bots, not what a
    tournament can grow by) in which ``config`` differs from the stored tournament."""
    stored, asked = defining_settings(row.config), defining_settings(config.to_json())
    return [f"{key}: {_shown(stored.get(key))} → {_shown(asked.get(key))}"
            for key in sorted(set(stored) | set(asked)) if stored.get(key) != asked.get(key)]


def _shown(value: object) -> str:
    return "(not set)" if value is None else json.dumps(value, sort_keys=True)


def refuse_other_settings(store: Store, row: TournamentRow, config: TournamentConfig) -> None:
    changed = settings_diff(row, config)
    if changed:
        raise StoreError(
            f"tournament {config.name!r} in {store.path} was run with other settings ("
            + "; ".join(changed) + "); put the old settings back to resume it, or give "
            "this one another name (--name)")


def grow(store: Store, row: TournamentRow, config: TournamentConfig) -> list[str]:
    """Store the config's larger ``rounds``/``games_per_pairing``; a smaller one is
    refused (played games are never dropped)."""
    grown = []
    for key in growable_settings(row.config):
        had, asked = int(row.config.get(key, 1)), int(getattr(config, key))
        if asked < had:
            raise StoreError(
                f"tournament {config.name!r} has {key} {had} already; the config asks for "
                f"{asked}, and played games are never dropped: ask for {had} or more, or "
                "give this one another name (--name)")
        if asked > had:
            grown.append(f"{key} {had} → {asked}")
    if not grown:
        return []
    store.update_config(row.id, config)
    return [f"tournament {config.name!r} grows ({', '.join(grown)}): only the new games "
            "are played"]


def bot_changes(store: Store, stored: Sequence[int], asked: Sequence[int]) -> str:
    """How the entrants ``asked`` differ from the ``stored`` ones, by their labels."""
    def label(bot_id: int) -> str:
        return store.bot(bot_id).label

    gone, revised, new = entrant_changes(store, stored, asked)
    if not gone and not revised and not new:
        return "the same bots in another order"
    return "; ".join([*(f"{label(old)} is now {label(now)}" for old, now in revised),
                      *(f"{label(old)} left out" for old in gone),
                      *(f"{label(bot)} added" for bot in new)])


def entrant_changes(store: Store, stored: Sequence[int], asked: Sequence[int]
                    ) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """The entrants ``asked`` against the ``stored`` ones, whatever their order: those left
    out, those that came back as another revision of a bot of the same name (old, new),
    and those added."""
    both = Counter(stored) & Counter(asked)
    gone, new = _others(stored, both), _others(asked, both)
    revised = []
    for old in list(gone):
        name = store.bot(old).identity.name
        successor = next((bot for bot in new if store.bot(bot).identity.name == name), None)
        if successor is not None:
            gone.remove(old)
            new.remove(successor)
            revised.append((old, successor))
    return gone, revised, new


def _others(bots: Sequence[int], common: Counter[int]) -> list[int]:
    """``bots`` in their order without those counted in ``common``."""
    left = common.copy()
    others = []
    for bot in bots:
        if left[bot] > 0:
            left[bot] -= 1
        else:
            others.append(bot)
    return others


def header_lines(run: TournamentRun) -> list[str]:
    """What a run is: its format, size and seed (a secret one stays secret), and how each bot
    is isolated."""
    config = run.config
    seed = "secret (shown once the tournament is complete)" if config.secret_seed \
        else str(config.seed)
    if not config.seed_given and not config.secret_seed:
        seed += (" (the config gives none: every bot can compute the dice from it; write "
                 "`seed: secret` for bots you do not trust)")
    lines = [f"{config.name}: {config.format} of {config.game}, {len(config.bots)} bots, "
             f"{total_games(config)} games, seed {seed}"]
    levels = [entry.isolation or SANDBOX for entry in config.bots]
    if len(set(levels)) == 1:
        lines.append(f"bots run {DESCRIPTIONS[levels[0]]}")
    else:
        lines.append("bots run " + "; ".join(
            f"{label} {DESCRIPTIONS[level]}"
            for label, level in zip(run.entrants.labels, levels, strict=True)))
    if SANDBOX in levels:
        lines += without_groups()
    return lines


def without_groups() -> list[str]:
    """What the sandbox cannot bound where the cgroups it uses cannot be had here."""
    from arena.bots import cgroups

    missing = [name for name in ("memory", "cpuacct") if not cgroups.available(name)]
    if not missing:
        return []
    return [f"no {' or '.join(missing)} cgroup here (arena needs root and cgroup v1): each "
            "of a bot's processes has its own memory limit, and CPU time of its helper "
            "processes that have ended may go uncounted"]


def register_entrants(store: Store, game: str, entrants: Entrants
                      ) -> tuple[Entrants, list[int]]:
    """Register each entrant's revision, its code kept; the entrants come back labelled as
    stored (``greedy@1.0``, or ``greedy@1.0+3f2a9c`` for a later revision of that
    version)."""
    bot_ids = [store.register_bot(game, identity, bundle) for identity, bundle in
               zip(entrants.identities, entrants.bundles or [None] * len(entrants.identities),
                   strict=True)]
    labels = [store.bot(bot_id).label for bot_id in bot_ids]
    return dataclasses.replace(entrants, labels=labels), bot_ids


def run_tournament(config: TournamentConfig, store: Store,
                   progress: Progress | None = None) -> RunReport:
    """Play every game of the tournament not yet in ``store``; return the standings."""
    progress = progress or Progress()
    run = open_run(config, store)
    config = run.config
    report = RunReport(run.tid, total_games(config), len(store.finished_keys(run.tid)),
                       problems=list(run.entrants.problems), name=config.name,
                       notes=list(run.notes))
    progress.opened(run)
    progress.started(report.total, report.already_done)
    if config.format == "round-robin":
        play_tasks(run, round_robin_tasks(config, run.entrants.seed_keys), report, progress)
    else:
        _play_swiss(run, report, progress)
    report.standings = standings(store, run.tid, run.entrants.labels, config)
    if report.complete:
        store.set_status(run.tid, "complete")
    return report


def play_tasks(run: TournamentRun, tasks: Iterable[GameTask], report: RunReport,
               progress: Progress) -> None:
    """Play the tasks not yet stored, committing each game as it finishes."""
    done = run.store.finished_keys(run.tid)
    todo = (task for task in tasks if task.key not in done)
    for result in run_tasks(run.setup, todo, workers=run.config.worker_count,
                            executor=run.config.executor, scheduler=run.config.scheduler,
                            bundles=run.bundles):
        run.store.save_game(run.tid, result.task, result.game, result.duration)
        report.played += 1
        progress.game_done(result)


def _play_swiss(run: TournamentRun, report: RunReport, progress: Progress) -> None:
    config = run.config
    for round_index in range(config.rounds):
        tables = swiss_round_tables(run.store, run.tid, config, round_index)
        tasks = iter_tasks(tables, config.games_per_pairing, config.seed,
                           run.entrants.seed_keys, config.seat_orders)
        play_tasks(run, tasks, report, progress)
        progress.round_done(round_index, standings(run.store, run.tid, run.entrants.labels,
                                                   config, upto_round=round_index + 1))


def swiss_round_tables(store: Store, tid: int, config: TournamentConfig,
                       round_index: int) -> list[Table]:
    """Round ``round_index``'s tables, paired from the results of the rounds before it."""
    pairings = swiss_rounds(store, tid, config, round_index + 1).pairings
    return [Table(round_index, i, bots) for i, bots in enumerate(pairings[-1].tables)]


@dataclass(frozen=True)
class SwissRounds:
    pairings: list[RoundPairing]
    history: list[list[TableResult]]
    byes: list[list[int]]


def swiss_rounds(store: Store, tid: int, config: TournamentConfig, rounds: int) -> SwissRounds:
    """The pairings of the first ``rounds`` rounds and their results, recomputed from the
    stored games: the Swiss schedule is a pure function of the config and the results."""
    n = len(config.bots)
    result = SwissRounds([], [], [])
    for round_index in range(rounds):
        pairing = pair_round(n, config.seats, result.history, result.byes, bye_points(config))
        result.pairings.append(pairing)
        result.history.append(_table_results(store.games(tid, round_index=round_index)))
        result.byes.append(list(pairing.byes))
    return result


def bye_points(config: TournamentConfig) -> float:
    """A bye counts as a win: all the points a table could give (one a game)."""
    return float(games_per_set(config.seats, config.seat_orders) * config.games_per_pairing)


def _table_results(rows: Iterator[GameRow]) -> list[TableResult]:
    points: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        for seat, gained in enumerate(game_points(row.ranks)):
            points[row.table][row.seats[seat]] += gained
    return [TableResult(tuple(sorted(p)), tuple(p[b] for b in sorted(p)))
            for _table, p in sorted(points.items())]


def standings(store: Store, tid: int, labels: Sequence[str], config: TournamentConfig,
              upto_round: int | None = None) -> list[BotResults]:
    """Every bot's results so far, best first: points, then (Swiss) Buchholz, then mean
    score."""
    rows = (row for row in store.games(tid) if upto_round is None or row.round < upto_round)
    results = tally_games(labels, config.seats,
                          ((row.seats, row.ranks, row.scores, row.statuses) for row in rows))
    if config.format == "swiss":
        rounds = upto_round if upto_round is not None else config.rounds
        played = swiss_rounds(store, tid, config, rounds)
        for line in swiss_standings(len(labels), played.history, played.byes,
                                    bye_points(config)):
            results[line.bot].byes = line.byes
            results[line.bot].bye_points = line.byes * bye_points(config)
            results[line.bot].buchholz = line.buchholz
    return ranked(results)


def ranked(results: Sequence[BotResults]) -> list[BotResults]:
    """Best first: points, then (Swiss) Buchholz, then mean score, then entry order. Sums of
    fractions are compared to 9 decimals, so that 9.166666666666668 and 9.166666666666666
    count as the same points and the tie-break decides."""
    return sorted(results, key=lambda result: (*_merit(result), result.index))


def _merit(result: BotResults) -> tuple[float, float, float]:
    return (-round(result.total_points, TIE_DIGITS), -round(result.buchholz or 0.0,
            TIE_DIGITS), -round(result.overall.mean_score, TIE_DIGITS))


def places(results: Sequence[BotResults]) -> list[int]:
    """The place of each of ``results`` (in :func:`ranked` order): bots that no tie-break
    tells apart share one (1, 1, 3), whatever their entry order."""
    found: list[int] = []
    for index, result in enumerate(results):
        tied = index and _merit(result) == _merit(results[index - 1])
        found.append(found[-1] if tied else index + 1)
    return found


def schedule_preview(config: TournamentConfig, store: Store | None = None) -> list[str]:
    """The schedule's size and its first pairings, without playing; with ``store``, first
    the tournament the run would play where the stored one of its name has other bots."""
    labels = load_entrants(config).labels
    lines = [] if store is None else stored_elsewhere(store, config, labels)
    per_set = games_per_set(config.seats, config.seat_orders)
    per_table = per_set * config.games_per_pairing
    total = total_games(config)
    seed = "secret" if config.secret_seed else str(config.seed)
    lines += [f"{config.name}: {config.format} of {config.game}, {len(labels)} bots, "
              f"{config.seats} seats per table, seed {seed}",
              f"{total} games: {total // per_table} tables of {per_table} games "
              f"({config.games_per_pairing} set(s) of {per_set} seat orders, "
              f"{config.seat_orders})"]
    if config.secret_seed and config.format == "round-robin" and tables_per_round(
            len(labels), config.seats) > MAX_SUBSETS:
        lines.append("the tables are drawn from the secret seed when the tournament starts")
        return lines
    if config.format == "round-robin":
        tables = round_robin_schedule(len(labels), config.seats, config.rounds, config.seed)
        lines.append("first tables (in the order they are played):")
    else:
        pairing = pair_round(len(labels), config.seats, [], [], float(per_table))
        tables = [Table(0, i, bots) for i, bots in enumerate(pairing.tables)]
        lines.append("round 1 tables:" + (
            f" (bye: {', '.join(labels[b] for b in pairing.byes)})" if pairing.byes else ""))
    for table in tables[:PREVIEW_TABLES]:
        lines.append(f"  round {table.round + 1}: " + " vs ".join(labels[b] for b in table.bots))
    if len(tables) > PREVIEW_TABLES:
        lines.append(f"  … and {len(tables) - PREVIEW_TABLES} more")
    return lines
