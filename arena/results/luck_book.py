"""The luck of stored games, accounted for once and kept in the store.

Accounting replays each record under the game's value model
(:mod:`arena.results.luck`); the luck per seat is kept in the store's ``luck``
table under the model's name, so a report or a comparison pays for a game only
once, and the numbers can always be recomputed from the records. Many games are
accounted for in spawned worker processes, which hand their results back to be
written; a tournament's games are also accounted for while it is played
(:class:`LuckWhilePlaying`, a process of its own that writes each game's luck).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from arena.bots.interrupts import children_deaf_to_ctrl_c, deaf_to_ctrl_c
from arena.bots.strays import die_with_parent
from arena.bots.workers import MAX_ATTEMPTS, WorkerDied, beacon, run_unordered
from arena.games.base import ArenaError
from arena.referee.record import GameRecord
from arena.results.luck import LuckError, ValueModel, account_games
from arena.results.store import Store
from arena.results.values import load_value_model, model_for

CHUNK = 16
"""Games per batch: a task for a worker process, and one write to the store."""
POOL_FROM = 24
"""Fewer games than this are accounted for in this process (a pool takes a second to start)."""

Progress = Callable[[int, int], None]
"""Called with (games done, games to do) as the accounting goes on."""


@dataclass(frozen=True)
class LuckSource:
    """Which value model: the game's shipped one, or a user's (``spec`` as
    :func:`arena.results.values.load_value_model` takes it)."""

    spec: str | None = None

    def model(self, game: str, options: Mapping[str, Any]) -> ValueModel | None:
        """The model for these game options, one per process (its caches make later games
        cheaper: a comparison asks again after every batch it plays)."""
        key = (self.spec, game, json.dumps(dict(options), sort_keys=True))
        if key not in _MODELS:
            _MODELS[key] = (load_value_model(self.spec, options) if self.spec is not None
                            else model_for(game, options))
        return _MODELS[key]


_MODELS: dict[tuple[str | None, str, str], ValueModel | None] = {}


def tournament_luck(store: Store, tournament: int, keys: Sequence[str], *,
                    source: LuckSource | None = None, workers: int = 0,
                    progress: Progress | None = None) -> tuple[str, dict[str, tuple[float, ...]]]:
    """(model name, luck per seat by game key) for these games of one tournament.

    Games not yet accounted for under the model are accounted for now and kept as
    each batch is done (an interruption loses at most the batches under way).
    ``("", {})`` where no value model fits the tournament's game.
    """
    source = source or LuckSource()
    if not keys:
        return "", {}
    game, options = _game_and_options(store, tournament, keys[0])
    model = source.model(game, options)
    if model is None:
        return "", {}
    known = store.luck(tournament, model.name)
    missing = [key for key in keys if key not in known]
    done = 0
    for found in _account(store, tournament, missing, source, model, game, options, workers):
        store.save_luck(tournament, model.name, found)
        known.update(found)
        done += len(found)
        if progress is not None:
            progress(done, len(missing))
    return model.name, {key: known[key] for key in keys if key in known}


def account_alongside(store: Store, tournament: int, running: LuckWhilePlaying, *,
                      progress: Progress | None = None) -> None:
    """Account in this process for the tournament's games that ``running`` has not done
    yet, newest first, while it goes on from the oldest; then stop it.

    After play this takes two CPUs with no process to start: ``running`` has its
    model's caches warm, and this process has everything imported (new workers would
    start, then fill their caches anew, which costs a small tournament more than it
    saves). A game both happen to account for gets the same luck from each.
    """
    try:
        source = running.source
        model = _tournament_model(store, tournament, source)
        if model is None:
            return
        total = store.db.execute(f"SELECT count(*) FROM games WHERE {_TWO_SEATS}",
                                 (tournament,)).fetchone()[0]
        game: str | None = None
        options: dict[str, Any] = {}
        while True:
            left = _unaccounted(store, tournament, model.name)
            if progress is not None:
                progress(total - left, total)
            if left <= ENDING_AT:  # it ends while this process does the last games
                running.ending()
            newest = _waiting(store, tournament, model.name, ALONGSIDE_CHUNK, newest=True)
            if not newest:
                return
            if game is None:
                game, options = _game_and_options(store, tournament, newest[0])
            store.save_luck(tournament, model.name, account_texts(
                list(store.records(tournament, newest)), source.spec, game, options, model))
    finally:
        running.stop()


ALONGSIDE_CHUNK = 8
"""Games :func:`account_alongside` does between looks at what the other process did."""
ENDING_AT = 2 * ALONGSIDE_CHUNK
"""Games left when :func:`account_alongside` tells the other process to end: it finishes
the game in hand and exits meanwhile, so that it is not waited for at the end."""


class LuckWhilePlaying:
    """Accounts for a tournament's games while it is played, as they are stored: in a
    process of the lowest CPU priority, so that it takes only the CPU time the games
    leave idle (bots waiting on their pipes, processes starting) and slows no game.

    ``stop()`` (or leaving the ``with`` block) ends it within a game's accounting; what
    it has not done by then, :func:`tournament_luck` does. Each game's luck is the same
    whichever process accounts for it.
    """

    LOWEST = 19
    """The niceness of its process: the lowest CPU priority."""

    def __init__(self, db: str | os.PathLike[str], tournament: int,
                 source: LuckSource | None = None, *, niceness: int = LOWEST) -> None:
        self.tournament = tournament
        self.source = source or LuckSource()
        context = multiprocessing.get_context("spawn")
        # Told to stop by the end of a pipe, not by an Event: an Event's set() waits for
        # each process asleep in its wait() to wake, and one killed there never does.
        self._stop_line, self._stop_end = context.Pipe(duplex=False)
        self._process = context.Process(
            target=account_while_playing, name="arena-luck",
            args=(os.fspath(db), tournament, self.source.spec, self._stop_line,
                  niceness, os.getpid()),
            daemon=True)

    def start(self) -> LuckWhilePlaying:
        with children_deaf_to_ctrl_c():
            self._process.start()
        self._stop_line.close()  # its process has its own copy
        return self

    def ending(self) -> None:
        """Tell its process to end after the game in hand, without waiting for it."""
        self._stop_end.close()  # it reads the end of the pipe

    def stop(self) -> None:
        self.ending()
        if self._process.pid is None:  # never started: its end of the pipe is still here
            self._stop_line.close()
            return
        self._process.join(timeout=STOP_WAIT)
        if self._process.is_alive():  # mid-game or still starting: its saved games are kept
            self._process.kill()  # a SIGTERM would wait for a stopped process to be resumed
            self._process.join()

    @property
    def pid(self) -> int | None:
        """Its process's id, once started."""
        return self._process.pid

    @property
    def alive(self) -> bool:
        return self._process.is_alive()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for its process to end by itself (it does on a
        failing model); whether it has."""
        self._process.join(timeout=timeout)
        return not self.alive

    def __enter__(self) -> LuckWhilePlaying:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


WAIT = 0.5
"""Seconds the accounting while playing waits for the next stored game."""
STOP_WAIT = 1.0
"""Seconds it is given to stop before it is terminated (SQLite keeps every saved game)."""
WHILE_PLAYING_FROM = 50
"""Tournaments of fewer games are accounted for only after play (soon enough)."""


def account_while_playing(db: str, tournament: int, spec: str | None, stop: Connection,
                          niceness: int, parent: int) -> None:
    """The body of :class:`LuckWhilePlaying`'s process: account for each stored two-player
    game not yet accounted for, those waiting (up to :data:`CHUNK`) together, until the
    other end of the pipe ``stop`` is closed.

    It never speaks: Ctrl-C is for the tournament (which then stops this process), and a
    game it cannot account for, or a failing model, ends it quietly; the accounting after
    play meets the same problem and reports it. It dies with the process ``parent`` that
    started it, however that ends (SIGKILL included)."""
    deaf_to_ctrl_c()
    die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the line above
        return
    with contextlib.suppress(OSError, AttributeError):
        os.nice(niceness)
    with contextlib.suppress(Exception):
        _account_stored_games(db, tournament, LuckSource(spec), stop)


def _account_stored_games(db: str, tournament: int, source: LuckSource, stop: Connection
                          ) -> None:
    # ``stop`` turns readable (end of file) once its other end is closed: the order to stop
    with Store(db) as store:
        while not store.db.execute(f"SELECT 1 FROM games WHERE {_TWO_SEATS} LIMIT 1",
                                   (tournament,)).fetchone():
            if stop.poll(WAIT):
                return
        model = _tournament_model(store, tournament, source)
        if model is None:
            return
        while not stop.poll(0):
            waiting = _waiting(store, tournament, model.name, CHUNK)
            if not waiting:
                stop.poll(WAIT)
                continue
            store.save_luck(tournament, model.name,
                            lucks(list(store.records(tournament, waiting)), model))


def _tournament_model(store: Store, tournament: int, source: LuckSource) -> ValueModel | None:
    row = store.db.execute(f"SELECT key FROM games WHERE {_TWO_SEATS} LIMIT 1",
                           (tournament,)).fetchone()
    return None if row is None else source.model(*_game_and_options(store, tournament, row[0]))


_TWO_SEATS = "tournament_id = ? AND json_array_length(seats) = 2"
"""The games a report accounts for: a pair's own adjusted score needs two seats."""


def _waiting(store: Store, tournament: int, model: str, limit: int, *,
             newest: bool = False) -> list[str]:
    """Keys of stored two-player games not yet accounted for under ``model``, the oldest
    (or the newest) first."""
    rows = store.db.execute(
        f"SELECT key FROM games g WHERE {_TWO_SEATS} AND NOT EXISTS (SELECT 1 FROM luck l"
        " WHERE l.tournament_id = g.tournament_id AND l.key = g.key AND l.model = ?)"
        f" ORDER BY g.id {'DESC' if newest else 'ASC'} LIMIT ?",
        (tournament, model, limit)).fetchall()
    return [key for (key,) in rows]


def unaccounted(store: Store, tournament: int, source: LuckSource | None = None) -> int:
    """How many of the tournament's stored two-player games (those a report accounts for)
    are not yet accounted for under the model (0 where no value model fits its game)."""
    model = _tournament_model(store, tournament, source or LuckSource())
    return 0 if model is None else _unaccounted(store, tournament, model.name)


def _unaccounted(store: Store, tournament: int, model: str) -> int:
    total = store.db.execute(f"SELECT count(*) FROM games WHERE {_TWO_SEATS}",
                             (tournament,)).fetchone()[0]
    done = store.db.execute(
        "SELECT count(*) FROM luck l JOIN games g ON g.tournament_id = l.tournament_id"
        " AND g.key = l.key WHERE l.model = ? AND g.tournament_id = ?"
        " AND json_array_length(g.seats) = 2", (model, tournament)).fetchone()[0]
    return int(total) - int(done)


def _game_and_options(store: Store, tournament: int, key: str) -> tuple[str, dict[str, Any]]:
    record = store.record(tournament, key)
    return record.game, dict(record.options)


def _account(store: Store, tournament: int, keys: Sequence[str], source: LuckSource,
             model: ValueModel, game: str, options: Mapping[str, Any],
             workers: int) -> Iterator[dict[str, tuple[float, ...]]]:
    if not keys:
        return iter(())
    batches = _batches(store.records(tournament, keys), CHUNK)
    count = workers or os.cpu_count() or 1
    if len(keys) < POOL_FROM or count == 1:
        return (account_texts(batch, source.spec, game, options, model) for batch in batches)
    return _in_pool(batches, source.spec, game, options, count)


def _in_pool(batches: Iterator[list[tuple[str, str]]], spec: str | None, game: str,
             options: Mapping[str, Any], count: int) -> Iterator[dict[str, tuple[float, ...]]]:
    """The batches accounted for by ``count`` worker processes, as they finish, drawn as
    workers free up (the records are not all read into memory at once). arena's own
    workers, not a ProcessPoolExecutor: one killed (the out-of-memory killer, a user) is
    replaced and its batch done again, where a pool breaks, or hangs on the lock its
    processes share for their tasks."""
    tasks = ((batch, spec, game, dict(options)) for batch in batches)
    try:
        yield from run_unordered(_account_task, tasks, count)
    except WorkerDied as died:
        raise ArenaError(
            f"the luck accounting's worker processes died {MAX_ATTEMPTS} times on one batch "
            f"of games (exit code {died.exitcode}); the games accounted for are kept, run "
            "again to resume") from None


def _account_task(task: tuple[list[tuple[str, str]], str | None, str, dict[str, Any]]
                  ) -> dict[str, tuple[float, ...]]:
    beacon().waiting(-1, None)  # a model may take its time: this worker is not hung
    return account_texts(*task)


def account_texts(batch: Sequence[tuple[str, str]], spec: str | None, game: str,
                  options: Mapping[str, Any], model: ValueModel | None = None
                  ) -> dict[str, tuple[float, ...]]:
    """The luck of each (key, record JSON) under ``model``, or (in a worker) under the
    source's model for these options."""
    if model is None:
        model = LuckSource(spec).model(game, options)
        if model is None:
            raise LuckError(f"no value model for {game}")
    return lucks(batch, model)


def lucks(batch: Sequence[tuple[str, str]], model: ValueModel) -> dict[str, tuple[float, ...]]:
    """The luck of each (key, record JSON) under ``model``, the games accounted for
    together (:func:`~arena.results.luck.account_games`)."""
    accounts = account_games([_record(key, text) for key, text in batch], model)
    return {key: found.luck for (key, _), found in zip(batch, accounts, strict=True)}


def _record(key: str, text: str) -> GameRecord:
    try:
        return GameRecord.from_json(json.loads(text))
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise ArenaError(f"game {key!r}: its record is damaged ({exc})") from None


def _batches(items: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    batch: list[tuple[str, str]] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
