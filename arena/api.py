"""The Python API in the shape of Kaggle Environments: ``make`` a game, ``run`` bots in it.

    >>> import arena
    >>> env = arena.make("seasons")
    >>> record = env.run(["greedy", "random"], seed=7)
    >>> record.ranks, [seat.name for seat in record.seats]
    ((0, 1), ['greedy', 'random'])
    >>> match = env.play_match(["greedy", "random"], seed=1, games=4)
    >>> match.labels, len(match.records), match.orders[:2]
    (('greedy@1.0', 'random@1.0'), 4, ((0, 1), (1, 0)))
    >>> match.points
    (4.0, 0.0)

A bot is a player object (anything with ``name``, ``version`` and ``act``), a loaded bot
(:func:`arena.load_bot`), a spec as ``arena play`` takes it (``bots/seasons/greedy.py``,
``pkg.mod:attr``, an entry point) or the name of a bot shipped in the checkout's
``bots/<game>/`` folder (``greedy``, ``random``; see :func:`resolve_player`).

Finished games replay exactly, and step by step::

    >>> final = [step.state for step in arena.steps(record)][-1]
    >>> final.is_terminal, final.outcome().ranks
    (True, (0, 1))

Stored games are read back from a results database with :func:`stored_games` (records)
or :func:`stored_replays` (replay JSON, docs/replays.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from arena.bots.loading import (
    BotNotFoundError,
    FunctionPlayer,
    LoadedBot,
    check_player,
    load_bot,
)
from arena.bots.names import name_problem
from arena.bots.shipped import shipped_hint, shipped_spec
from arena.games import find_game
from arena.games.base import ArenaError, State, check_limits, whole_number
from arena.referee.dice import game_seed
from arena.referee.match import SEATS_OPTION, SeatCountError, check_seat_count, play_game
from arena.referee.protocol import Player
from arena.referee.record import GameRecord, Move, apply_move, game_log
from arena.reports import replay as replays
from arena.results.store import Store, TournamentRow
from arena.tournaments.matches import MatchSummary, bot_labels, check_games
from arena.tournaments.matches import play_match as _play_match

PlayerLike = Player | LoadedBot | str
"""What a seat can be given: a player object, a loaded bot, a spec or a shipped bot's name."""


def make(game: str, *, time_limit: float | None = None, time_bank: float = 0.0,
         **options: Any) -> Environment:
    """The environment of ``game`` (``seasons``, ``sonnentau``) with its ``options`` (as
    ``arena games`` lists them: ``placement_limit``, ``turn_limit``, ``dice``, ``board``),
    checked here. ``time_limit`` is the seconds a bot has per decision (None: no limit),
    ``time_bank`` what it may overrun by over a game; more loses with ``timeout``."""
    rules = find_game(game)
    given = {name: value for name, value in options.items() if name != SEATS_OPTION}
    rules.info.resolve_options(given)
    seats = options.get(SEATS_OPTION)
    if seats is not None:
        seats = whole_number(seats, "seats: a number of players")
        check_seat_count(rules, seats)
    check_limits(time_limit, time_bank)
    return Environment(rules.info.name, given, time_limit, time_bank, seats)


@dataclass(frozen=True)
class Environment:
    """A game with fixed options and limits, in which bots are run (:func:`make`)."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    time_limit: float | None = None
    time_bank: float = 0.0
    seats: int | None = None
    """The number of players :func:`make` was given (None: as many as the bots given)."""

    def run(self, players: Sequence[PlayerLike], seed: int | None = 0) -> GameRecord:
        """Play one game, ``players[i]`` in seat ``i``, with the dice of ``seed`` (an
        integer; None: one drawn at random, kept in the record); its record. A bot's fault
        (crash, timeout, illegal action) loses it the game, never raises."""
        return play_game(self.game, self.players(players), _seed_or_random(seed),
                         self.options, time_limit=self.time_limit, time_bank=self.time_bank)

    def play_match(self, players: Sequence[PlayerLike], seed: int | None = 0, games: int = 2
                   ) -> Match:
        """Play ``games`` games with the seats rotated: each group of as many games as there
        are seats shares one game seed, so the dice cancel out between the bots (a pair of
        seat-swapped games for two). ``games`` should be a multiple of the seats. The first
        group plays on ``seed`` itself (its first game is :meth:`run`'s on ``seed``, and
        ``arena play --seed``'s), each later one on a seed derived from ``seed`` and its
        number (:func:`arena.tournaments.matches.match_seed`); None: a seed drawn at
        random, the first record's."""
        check_games(games)
        seated = self.players(players)
        played = tuple((tuple(order), record) for order, record in _play_match(
            self.game, seated, _seed_or_random(seed), games, self.options,
            time_limit=self.time_limit, time_bank=self.time_bank))
        return Match(tuple(bot_labels(seated)), played)

    def players(self, players: Sequence[PlayerLike]) -> list[Player]:
        """The player objects of ``players`` (specs and names loaded, see
        :func:`resolve_player`), as many as :func:`make`'s ``seats`` where it was given."""
        if self.seats is not None and len(players) != self.seats:
            raise SeatCountError(f"this {self.game} environment is for {self.seats} players;"
                                 f" {len(players)} given")
        return [resolve_player(player, self.game) for player in players]

    def log(self, record: GameRecord) -> str:
        """The record as its game's readable log (one line per turn, then the result)."""
        return "\n".join(game_log(record))


def _seed_or_random(seed: object) -> int:
    """``seed`` checked (:func:`arena.referee.dice.game_seed`), or for None one drawn at
    random, as Gym and PettingZoo read a seed of None."""
    return secrets.randbits(63) if seed is None else game_seed(seed)


@dataclass(frozen=True)
class Match:
    """The games of :meth:`Environment.play_match`: for each, the bot (index into
    ``labels``) of every seat and its record."""

    labels: tuple[str, ...]
    games: tuple[tuple[tuple[int, ...], GameRecord], ...]

    @property
    def records(self) -> tuple[GameRecord, ...]:
        return tuple(record for _, record in self.games)

    @property
    def orders(self) -> tuple[tuple[int, ...], ...]:
        """Per game, the bot of each seat."""
        return tuple(order for order, _ in self.games)

    @property
    def summary(self) -> MatchSummary:
        """Per bot and per bot and seat: games, wins, draws, losses, points, score."""
        summary = MatchSummary(list(self.labels), len(self.labels))
        for order, record in self.games:
            summary.add(order, record)
        return summary

    @property
    def points(self) -> tuple[float, ...]:
        """Per bot: 1 per win, 1/2 per draw (as ``arena play`` counts them)."""
        return tuple(result.total_points for result in self.summary.results)

    def table(self) -> str:
        """The summary as ``arena play`` prints it."""
        return "\n".join(self.summary.lines())


def resolve_player(player: PlayerLike, game: str) -> Player:
    """A player object for ``player``: given as one, a loaded bot's, or loaded from a spec.

    A bare name (no ``/``, ``:`` or ``.py``) is first looked up among the bots shipped for
    ``game``: ``bots/<game>/<name>.py`` or ``<name>_bot.py``, in the current folder, then in
    the checkout arena runs from; any other name is loaded as an entry point.
    """
    if isinstance(player, LoadedBot):
        return player.player
    if not isinstance(player, str):
        return _in_process(player)
    spec = shipped_spec(player, game)
    try:
        return load_bot(spec).player
    except BotNotFoundError as exc:
        raise BotNotFoundError(f"{exc}{shipped_hint(spec, game)}") from None


def _in_process(player: Any) -> Player:
    """A player object as it is; a function, as in Kaggle Environments
    (``env.run([my_agent, "random"])``), as a player named after it."""
    if callable(getattr(player, "act", None)) or not callable(player) or isinstance(player,
                                                                                     type):
        check_player(repr(player), player)
        checked: Player = player
        return checked
    name = getattr(player, "__name__", "")
    agent = FunctionPlayer(player, {}, "agent")
    agent.name = name.replace("_", "-") if name.isidentifier() and \
        name_problem(name.replace("_", "-")) is None else "agent"  # a lambda: "agent"
    agent.version, agent.games = "1", None
    return agent


# -- stepping through a game ------------------------------------------------------------


class Step(NamedTuple):
    """The state after ``number`` moves of a record (``move`` the last of them: None at the
    start). A chance move (the dice) has seat -1."""

    number: int
    move: Move | None
    state: State


def steps(record: GameRecord) -> Iterator[Step]:
    """Every state of the game in order, from the start (step 0) to the end: each a copy,
    so they may be kept. Raises ArenaError for a move the rules do not allow."""
    rules = find_game(record.game)
    state = rules.initial_state(record.options)
    yield Step(0, None, state.copy())
    for number, move in enumerate(record.moves, 1):
        apply_move(state, rules, move, number - 1)
        yield Step(number, move, state.copy())


# -- stored games -------------------------------------------------------------------------


def open_store(db: str | Path) -> Store:
    """The results database at ``db``, which must exist (ArenaError otherwise); use it in a
    ``with`` block."""
    if not Path(db).is_file():
        raise ArenaError(f"no results database at {db}")
    return Store(db)


def stored_games(db: str | Path | Store, tournament: str | int | None = None
                 ) -> Iterator[GameRecord]:
    """The records of a stored tournament's (or ladder's) games, in schedule order, one at a
    time; ``tournament`` by name or id, the latest by default."""
    with _StoreOf(db) as store:
        row = _tournament(store, tournament)
        for game in store.games(row.id):
            yield store.record(row.id, game.key)


def stored_replays(db: str | Path | Store, tournament: str | int | None = None, *,
                   details: bool = True) -> Iterator[dict[str, Any]]:
    """The stored games of ``tournament`` as replay JSON (what ``arena export`` writes):
    with each bot's revision, the game's place in the tournament and when it finished."""
    with _StoreOf(db) as store:
        yield from replays.stored_replays(store, _tournament(store, tournament),
                                          details=details)


class _StoreOf:
    """A store given as one (left open) or as a path (opened and closed here)."""

    def __init__(self, db: str | Path | Store) -> None:
        self.given = db if isinstance(db, Store) else None
        self.path = None if isinstance(db, Store) else db
        self.store: Store | None = None

    def __enter__(self) -> Store:
        if self.given is not None:
            return self.given
        assert self.path is not None
        self.store = open_store(self.path)
        return self.store

    def __exit__(self, *exc: object) -> None:
        if self.store is not None:
            self.store.close()


def _tournament(store: Store, key: str | int | None) -> TournamentRow:
    if key is not None:
        return store.find_tournament(key)
    rows = store.tournaments()
    if not rows:
        raise ArenaError(f"no tournaments in {store.path}")
    return rows[-1]


__all__ = ["Environment", "Match", "Step", "make", "open_store", "resolve_player", "steps",
           "stored_games", "stored_replays"]
