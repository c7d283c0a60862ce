"""Scheduling: tables (who meets whom), their games, and every game's seed.

Pure functions over plain data. A *table* is one meeting of ``k`` bots (``k``
= seats per game). Each table is played as ``games_per_pairing`` *sets*; a set
is ``k`` games on one game seed, one per seat rotation (seat ``i`` gets
``table.bots[(i + r) % k]`` in rotation ``r``) — the duplicate format: every
bot plays every seat with the same dice, so luck cancels between the bots.

Seeds: the game seed of set ``s`` of a table in round ``r`` is
``derive_seed(tournament seed, "game", r, "name@version|name@version…", s)``, the
table's bots in entrant order — a pure function of who meets, so adding or
removing other bots never changes the dice of a pairing.

Round-robin: every pair of bots for two-player games; for ``k``-player tables
every ``k``-subset of the bots while there are at most ``MAX_SUBSETS`` of them.
Beyond that, a *balanced design*: the tables come in blocks, and in each block
every bot sits at exactly one table (bots left over when ``k`` does not divide
the number of bots sit the block out, the ones that sat out least first). Each
block is the best of ``CANDIDATES`` seeded shuffles by the sum of squared
pair-meeting counts, so pairs meet about equally often; there are enough blocks
for every pair to meet about once per round. ``rounds`` repeats the whole
round-robin with new seeds.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from math import ceil, comb

from arena.referee.dice import derive_seed

MAX_SUBSETS = 500
CANDIDATES = 64


@dataclass(frozen=True)
class Table:
    """One meeting of bots (indices into the tournament's bot list)."""

    round: int
    index: int
    bots: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameTask:
    """One game to play: plain data, so it can go to another process or machine."""

    round: int
    table: int
    set: int
    rotation: int
    seats: tuple[int, ...]
    seed: int

    @property
    def key(self) -> str:
        """Unique within a tournament; the results store resumes by it."""
        return f"r{self.round}-t{self.table}-s{self.set}-o{self.rotation}"


def game_seed(seed: int, round_index: int, bots: Sequence[str], game_set: int) -> int:
    return derive_seed(seed, "game", round_index, "|".join(bots), game_set)


def rotate(bots: Sequence[int], rotation: int) -> tuple[int, ...]:
    """Seat ``i`` gets ``bots[(i + rotation) % k]``."""
    k = len(bots)
    return tuple(bots[(seat + rotation) % k] for seat in range(k))


def table_tasks(table: Table, games_per_pairing: int, seed: int,
                labels: Sequence[str]) -> list[GameTask]:
    """All games of a table: each set in every seat rotation on the set's seed.

    ``labels`` name every entrant (``name@version``); they key the seeds.
    """
    names = [labels[bot] for bot in table.bots]
    return [
        GameTask(table.round, table.index, game_set, rotation, rotate(table.bots, rotation),
                 game_seed(seed, table.round, names, game_set))
        for game_set in range(games_per_pairing)
        for rotation in range(len(table.bots))
    ]


def tasks_for(tables: Iterable[Table], games_per_pairing: int, seed: int,
              labels: Sequence[str]) -> list[GameTask]:
    return [task for table in tables
            for task in table_tasks(table, games_per_pairing, seed, labels)]


def tables_per_round(n_bots: int, seats: int, fmt: str = "round-robin") -> int:
    """How many tables a round has, by arithmetic alone (nothing is built)."""
    if fmt == "swiss":
        return n_bots // seats
    if comb(n_bots, seats) <= MAX_SUBSETS:
        return comb(n_bots, seats)
    per_block = n_bots // seats
    return ceil(comb(n_bots, 2) / (per_block * comb(seats, 2))) * per_block


def games_in(fmt: str, n_bots: int, seats: int, rounds: int, games_per_pairing: int) -> int:
    """How many games a tournament has: tables times sets times seat rotations."""
    return rounds * tables_per_round(n_bots, seats, fmt) * games_per_pairing * seats


def iter_tasks(tables: Iterable[Table], games_per_pairing: int, seed: int,
               labels: Sequence[str]) -> Iterator[GameTask]:
    """The tasks of ``tables``, made as they are asked for (a schedule never sits in memory)."""
    for table in tables:
        yield from table_tasks(table, games_per_pairing, seed, labels)


def round_robin_tables(n_bots: int, seats: int, rounds: int, seed: int) -> list[Table]:
    """Every table of a round-robin (all rounds)."""
    tables: list[Table] = []
    for round_index in range(rounds):
        groups = (list(itertools.combinations(range(n_bots), seats))
                  if comb(n_bots, seats) <= MAX_SUBSETS
                  else balanced_groups(n_bots, seats, derive_seed(seed, "design", round_index)))
        tables.extend(Table(round_index, i, group) for i, group in enumerate(groups))
    return tables


def balanced_groups(n_bots: int, seats: int, seed: int) -> list[tuple[int, ...]]:
    """Tables in blocks where each pair of bots meets about equally often (see module doc)."""
    rng = random.Random(seed)
    per_block = n_bots // seats
    blocks = ceil(comb(n_bots, 2) / (per_block * comb(seats, 2)))
    meetings: Counter[tuple[int, int]] = Counter()
    sat_out: Counter[int] = Counter()
    groups: list[tuple[int, ...]] = []
    for _ in range(blocks):
        playing = sorted(range(n_bots), key=lambda b: (-sat_out[b], b))[:per_block * seats]
        sat_out.update(set(range(n_bots)) - set(playing))
        block = _best_block(playing, seats, meetings, rng)
        for group in block:
            meetings.update(itertools.combinations(group, 2))
        groups.extend(block)
    return groups


def _best_block(playing: list[int], seats: int, meetings: Counter[tuple[int, int]],
                rng: random.Random) -> list[tuple[int, ...]]:
    best: list[tuple[int, ...]] = []
    best_cost = -1
    for _ in range(CANDIDATES):
        order = playing[:]
        rng.shuffle(order)
        block = [tuple(sorted(order[i:i + seats])) for i in range(0, len(order), seats)]
        cost = sum((meetings[pair] + 1) ** 2
                   for group in block for pair in itertools.combinations(group, 2))
        if best_cost < 0 or cost < best_cost:
            best, best_cost = block, cost
    return best
