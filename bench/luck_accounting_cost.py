"""Benchmark: luck accounting against playing, for `make demo` and the shipped Sonnentau config.

For each config it plays the whole tournament into a scratch database as ``arena run``
does, with its workers and the accounting while playing
(:class:`~arena.results.luck_book.LuckWhilePlaying`), then accounts for what is left as
the report does (:func:`~arena.results.luck_book.tournament_luck`, the tournament's
worker count), and prints:

* play: the seconds the games took (wall clock), with the accounting while playing, and
  once more without any accounting (a second scratch database, played first);
* accounting: the seconds the user waits for it after the games, how many games were
  accounted for while playing, and the ratio to play (goal ≤ 0.25); as ``arena run``
  does it, on two workers or fewer beside the accounting while playing
  (:func:`~arena.results.luck_book.account_alongside`), else in a pool;
* the whole cost: the seconds the run takes with its accounting, while and after play,
  beyond playing alone, against playing alone (the accounting while playing takes CPU
  time the games would not use, but on a small machine it still delays them);
* after play only: the same accounting again with nothing done while playing (what a
  report of an already played tournament costs), and its ratio to play;
* the work: the CPU seconds of accounting every game in this process, per game, and
  against the CPU seconds of play (the workers, the bots and this process), a ratio
  that depends less on the machine's load than the wall-clock ones.

The machine's load (1-minute average) is printed before and after: on a shared machine
every figure varies with it, and the accounting while playing takes CPU time the games
leave idle.

Run from the repository root (about a minute and a half on a quiet 2-core machine)::

    .venv/bin/python bench/luck_accounting_cost.py [--only demo|sonnentau]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.results import luck_book
from arena.results.luck_book import (
    LuckSource,
    LuckWhilePlaying,
    _game_and_options,
    account_alongside,
    account_texts,
    tournament_luck,
)
from arena.results.store import Store
from arena.tournaments.config import TournamentConfig, load_config
from arena.tournaments.runner import Progress, run_tournament

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = {"demo": ROOT / "configs" / "seasons-round-robin.yaml",
           "sonnentau": ROOT / "configs" / "sonnentau-round-robin.yaml"}
GOAL = 0.25


@dataclass(frozen=True)
class Cost:
    games: int
    play_alone: float
    play: float
    after_play: float
    while_playing: int
    after_play_only: float
    cpu: float
    play_cpu: float


def measure(path: Path, folder: Path) -> Cost:
    alone = load_config(path, db=str(folder / "alone.db"), output=str(folder / "alone"))
    with Store(alone.db) as store:
        started = time.perf_counter()
        run_tournament(alone, store, Progress())
        play_alone = time.perf_counter() - started
    config = load_config(path, db=str(folder / "arena.db"), output=str(folder / "out"))
    with Store(config.db) as store:
        accountant: list[LuckWhilePlaying] = []
        progress = Progress(opened=lambda run: accountant.append(
            LuckWhilePlaying(config.db, run.tid).start()))
        started, cpu = time.perf_counter(), _used_cpu()
        report = run_tournament(config, store, progress)
        play, play_cpu = time.perf_counter() - started, _used_cpu() - cpu
        keys = [row.key for row in store.games(report.tournament_id)]
        model = LuckSource().model(*_game_and_options(store, report.tournament_id, keys[0]))
        assert model is not None
        while_playing = len(store.luck(report.tournament_id, model.name))
        started = time.perf_counter()
        for running in accountant:  # as `arena run` finishes
            if config.worker_count <= 2:
                account_alongside(store, running.tournament, running)
            running.stop()
        after_play = _account(store, report.tournament_id, keys, config)
        after_play += time.perf_counter() - started
        store.db.execute("DELETE FROM luck")
        luck_book._MODELS.clear()  # as a new process (`arena report`) starts: no caches
        after_play_only = _account(store, report.tournament_id, keys, config)
        cpu = _cpu(store, report.tournament_id, keys)
    return Cost(len(keys), play_alone, play, after_play, while_playing, after_play_only, cpu,
                play_cpu)


def _used_cpu() -> float:
    """CPU seconds of this process and its finished children (the play's workers and
    bots; the accounting while playing is still running when play ends)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _account(store: Store, tournament: int, keys: list[str], config: TournamentConfig) -> float:
    started = time.perf_counter()
    tournament_luck(store, tournament, keys, workers=config.worker_count)
    return time.perf_counter() - started


def _cpu(store: Store, tournament: int, keys: list[str]) -> float:
    """CPU seconds of accounting every game in this process, the model built anew."""
    record = store.record(tournament, keys[0])
    texts = list(store.records(tournament, keys))
    luck_book._MODELS.clear()
    started = time.process_time()
    account_texts(texts, None, record.game, dict(record.options))
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CONFIGS))
    args = parser.parse_args()
    os.chdir(ROOT)
    print(f"load before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for name, path in CONFIGS.items():
        if args.only not in (None, name):
            continue
        with tempfile.TemporaryDirectory() as folder:
            cost = measure(path, Path(folder))
        print(f"{name} ({path.relative_to(ROOT)}): {cost.games} games")
        print(f"  play {cost.play:.1f} s ({cost.play_alone:.1f} s without accounting)")
        print(f"  accounting after play {cost.after_play:.1f} s ({cost.while_playing} of "
              f"{cost.games} games accounted for while playing): "
              f"ratio {cost.after_play / cost.play:.2f} (goal <= {GOAL})")
        whole = cost.play + cost.after_play - cost.play_alone
        print(f"  whole cost: {whole:.1f} s beyond playing alone: ratio "
              f"{whole / cost.play_alone:.2f}")
        print(f"  accounting after play only {cost.after_play_only:.1f} s: ratio "
              f"{cost.after_play_only / cost.play:.2f}")
        print(f"  work: accounting {cost.cpu:.1f} CPU s in one process "
              f"({1000 * cost.cpu / cost.games:.0f} ms a game), play {cost.play_cpu:.1f} CPU s "
              f"(all processes): ratio {cost.cpu / cost.play_cpu:.2f}")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
