"""Scheduling: tables (who meets whom), their games, and every game's seed.

Pure functions over plain data. A *table* is one meeting of ``k`` bots (``k``
= seats per game). Each table is played as ``games_per_pairing`` *sets*; a set
is one game per *seat order* of the config's ``seat_orders`` design, all on one
game seed — the duplicate format: every bot plays every seat equally often with
the same dice, so luck cancels between the bots. Order ``o`` seats
``table.bots[order[i]]`` in seat ``i``; the game's key ends in ``-o{o}``.

- ``rotations`` (:data:`ROTATIONS`): ``k`` orders, the cyclic seat rotations
  (seat ``i`` gets ``table.bots[(i + o) % k]``). Every bot has the same bot in
  the seat before it in every game of the set.
- ``balanced`` (:data:`BALANCED`): the fewest orders in which every bot sits
  every seat equally often *and* has every other bot in the seat before it
  (cyclically: seat ``k - 1`` comes before seat 0) equally often —
  ``k (k - 1)`` orders, the fewest that can balance both: 2 for two seats (the
  same games as ``rotations``), all 6 for three, 12 of the 24 for four (every
  bot also faces every other bot across the table equally often). Tables of
  more seats play every order.

``rotations`` is the default: measured on the shipped Sonnentau bots
(``bench/seat_orders.py``), balanced orders remove no variance per game played
(the variance of a bot's set mean times the games in the set: balanced /
rotations 1.0 at three seats, 1.3 at four), since more orders on one seed buy
less than more seeds.

Seeds: the game seed of set ``s`` of a table in round ``r`` is
``derive_seed(tournament seed, "game", r, "name@version|name@version…", s)``, the
table's bots in entrant order (a ``|`` within a name or version written ``\\|``) — a
pure function of who meets, so adding or removing other bots never changes the dice of a
pairing. A group a balanced design seats again in the same round gets dice of its own
(``derive_seed(seed, "game-repeat", r, JSON list of the labels, s, repeat)``).

Round-robin: every pair of bots for two-player games; for ``k``-player tables
every ``k``-subset of the bots while there are at most ``MAX_SUBSETS`` of them.
Beyond that, a *balanced design*: the tables come in blocks, and in each block
every bot sits at exactly one table (bots left over when ``k`` does not divide
the number of bots sit the block out, the ones that sat out least first). Each
block is the best of ``CANDIDATES`` seeded shuffles by the sum of squared
pair-meeting counts, so pairs meet about equally often; there are enough blocks
for every pair to meet about once per round. ``rounds`` repeats the whole
round-robin with new seeds.

Play order (:func:`round_robin_schedule`, :func:`schedule_tasks`): a round-robin is not
played table by table in the order above, which would have the first bot play all its
games before the last has played one, but *interleaved*, so that standings shown while
it runs compare bots that have played about as many games. A round is played set by
set: the first set of every table, then the second of every table, and so on; a set's
games (its seat orders on one seed) are played one after another. Within a set the
tables come in blocks in which every bot plays about once: for two seats the *circle
method* (bot 0 stays, the others turn one place per block: ``n - 1`` blocks in which
every bot plays once for an even ``n``, ``n`` blocks with one bot sitting out for an odd
one); for ``k``-subsets the table whose bots have played least so far comes next (fewest
games of its busiest bot, then of all its bots, then table number); a balanced design is
built in blocks already. The order changes nothing else: a table keeps its number (the
game keys, by which a run resumes, and the order in which results are stored and
reported), and a game's seed depends on its pairing, round and set only, never on its
place in the order — so every game plays as it would in any order.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from math import ceil, comb

from arena.referee.dice import derive_seed

MAX_SUBSETS = 500
CANDIDATES = 64
ROTATIONS, BALANCED = "rotations", "balanced"
SEAT_ORDERS = (ROTATIONS, BALANCED)
"""The seat-order designs of a duplicate set (the config's ``seat_orders``)."""

Order = tuple[int, ...]
"""A seat order: ``order[i]`` is the table position (in ``Table.bots``) of seat ``i``'s bot."""

_BALANCED_ORDERS: dict[int, tuple[Order, ...]] = {
    3: ((0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)),
    4: ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 1, 3), (1, 0, 2, 3), (1, 0, 3, 2), (1, 3, 0, 2),
        (2, 0, 3, 1), (2, 3, 0, 1), (2, 3, 1, 0), (3, 1, 2, 0), (3, 2, 0, 1), (3, 2, 1, 0)),
}
"""Balanced designs, fixed here so that a game's order index never changes meaning. Three
seats: the rotations, then the rotations of the reversed order. Four seats: the first (in
sorted order) of the 48 sets of 12 orders that balance seats and cyclic predecessors; each
of the 6 cyclic orders of the table appears in 2 of its 4 rotations."""


@dataclass(frozen=True)
class Table:
    """One meeting of bots (indices into the tournament's bot list)."""

    round: int
    index: int
    bots: tuple[int, ...]
    repeat: int = 0
    """How many tables of its round before it seat the same bots (a balanced design may
    seat a group twice in a round): each has dice of its own."""


@dataclass(frozen=True, slots=True)
class GameTask:
    """One game to play: plain data, so it can go to another process or machine."""

    round: int
    table: int
    set: int
    rotation: int
    """The index of the game's seat order in its set (:func:`seat_orders`)."""
    seats: tuple[int, ...]
    seed: int = field(repr=False)
    """The game's seed: never in a log line (a Dask worker logs the repr of a task that
    fails), where a secret seed would show."""

    @property
    def key(self) -> str:
        """Unique within a tournament; the results store resumes by it."""
        return f"r{self.round}-t{self.table}-s{self.set}-o{self.rotation}"


def dice_of(task: GameTask) -> int:
    """Games on the same dice (a set's) go to different workers where they can: a worker
    that plays one game of each set needs one process per bot, since no process plays two
    games on the same dice."""
    return task.seed


def game_seed(seed: int, round_index: int, bots: Sequence[str], game_set: int,
              repeat: int = 0) -> int:
    if repeat:  # a derivation of its own: no table's first seating shares its text
        return derive_seed(seed, "game-repeat", round_index, json.dumps(list(bots)),
                           game_set, repeat)
    return derive_seed(seed, "game", round_index, "|".join(map(_unmistakable, bots)),
                       game_set)


def _unmistakable(label: str) -> str:
    r"""``label`` with its ``|`` escaped (``\|``; no name or version holds a backslash), so
    that two tables' bots never join to one text (``X@1|c@1`` and ``X@1``, ``X@1`` and
    ``c@1|X@1``). Labels without ``|`` are themselves, and so are their seeds."""
    return label.replace("|", "\\|")


def rotate(bots: Sequence[int], rotation: int) -> tuple[int, ...]:
    """Seat ``i`` gets ``bots[(i + rotation) % k]``."""
    k = len(bots)
    return tuple(bots[(seat + rotation) % k] for seat in range(k))


def seat_orders(seats: int, design: str = ROTATIONS) -> tuple[Order, ...]:
    """The seat orders of one duplicate set of a ``seats``-seat table (see module doc)."""
    if design not in SEAT_ORDERS:
        raise ValueError(f"seat orders must be one of {', '.join(SEAT_ORDERS)}, "
                         f"not {design!r}")
    if design == ROTATIONS or seats <= 2:
        return tuple(rotate(range(seats), rotation) for rotation in range(seats))
    if seats in _BALANCED_ORDERS:
        return _BALANCED_ORDERS[seats]
    return tuple(itertools.permutations(range(seats)))


def games_per_set(seats: int, design: str = ROTATIONS) -> int:
    """How many games one duplicate set has: one per seat order."""
    return len(seat_orders(seats, design))


def seated(bots: Sequence[int], order: Order) -> tuple[int, ...]:
    """The bots in seat order: seat ``i`` gets ``bots[order[i]]``."""
    return tuple(bots[position] for position in order)


def set_tasks(table: Table, game_set: int, seed: int, labels: Sequence[str],
              design: str = ROTATIONS) -> list[GameTask]:
    """The games of one set of a table: one per seat order of ``design``, on the set's seed.

    ``labels`` name every entrant (``name@version``); they key the seeds.
    """
    names = [labels[bot] for bot in table.bots]
    dice = game_seed(seed, table.round, names, game_set, table.repeat)
    return [GameTask(table.round, table.index, game_set, index, seated(table.bots, order),
                     dice)
            for index, order in enumerate(seat_orders(len(table.bots), design))]


def table_tasks(table: Table, games_per_pairing: int, seed: int,
                labels: Sequence[str], design: str = ROTATIONS) -> list[GameTask]:
    """All games of a table: each set in every seat order of ``design`` on the set's seed.

    ``labels`` name every entrant (``name@version``); they key the seeds.
    """
    return [task for game_set in range(games_per_pairing)
            for task in set_tasks(table, game_set, seed, labels, design)]


def tasks_for(tables: Iterable[Table], games_per_pairing: int, seed: int,
              labels: Sequence[str], design: str = ROTATIONS) -> list[GameTask]:
    return [task for table in tables
            for task in table_tasks(table, games_per_pairing, seed, labels, design)]


def tables_per_round(n_bots: int, seats: int, fmt: str = "round-robin") -> int:
    """How many tables a round has, by arithmetic alone (nothing is built)."""
    if fmt == "swiss":
        return n_bots // seats
    if comb(n_bots, seats) <= MAX_SUBSETS:
        return comb(n_bots, seats)
    per_block = n_bots // seats
    return ceil(comb(n_bots, 2) / (per_block * comb(seats, 2))) * per_block


def games_in(fmt: str, n_bots: int, seats: int, rounds: int, games_per_pairing: int,
             design: str = ROTATIONS) -> int:
    """How many games a tournament has: tables times sets times seat orders."""
    return (rounds * tables_per_round(n_bots, seats, fmt) * games_per_pairing
            * games_per_set(seats, design))


def iter_tasks(tables: Iterable[Table], games_per_pairing: int, seed: int,
               labels: Sequence[str], design: str = ROTATIONS) -> Iterator[GameTask]:
    """The tasks of ``tables``, made as they are asked for (a schedule never sits in memory)."""
    for table in tables:
        yield from table_tasks(table, games_per_pairing, seed, labels, design)


def schedule_tasks(tables: Iterable[Table], games_per_pairing: int, seed: int,
                   labels: Sequence[str], design: str = ROTATIONS) -> Iterator[GameTask]:
    """The games of ``tables`` (in play order, see :func:`round_robin_schedule`) in the order
    they are played: round by round, and in a round set by set, every table's set in turn
    (module doc). The same games as :func:`iter_tasks`, made as they are asked for."""
    for _round, group in itertools.groupby(tables, key=lambda table: table.round):
        in_round = list(group)
        for game_set in range(games_per_pairing):
            for table in in_round:
                yield from set_tasks(table, game_set, seed, labels, design)


def round_robin_schedule(n_bots: int, seats: int, rounds: int, seed: int) -> list[Table]:
    """The round-robin's tables (:func:`round_robin_tables`) in the order they are played:
    in each round, blocks in which every bot plays about once (module doc)."""
    tables = round_robin_tables(n_bots, seats, rounds, seed)
    if comb(n_bots, seats) > MAX_SUBSETS:
        return tables  # a balanced design: built in blocks already
    return [table for _round, group in itertools.groupby(tables, key=lambda t: t.round)
            for table in interleaved(list(group), n_bots)]


def interleaved(tables: Sequence[Table], n_bots: int) -> list[Table]:
    """One round's tables in blocks in which every bot plays about once: the circle method
    when they are every pair of the bots, else the least-played table first."""
    if all(len(table.bots) == 2 for table in tables) and len(tables) == comb(n_bots, 2):
        number = {table.bots: position for position, table in enumerate(tables)}
        return [tables[number[pair]] for block in circle_blocks(n_bots) for pair in block]
    return least_played_first(tables)


def circle_blocks(n_bots: int) -> list[list[tuple[int, int]]]:
    """Every pair of ``n_bots`` bots in blocks in which every bot plays once (one sits out
    each block for an odd number): the circle method, bot 0 staying and the others turning
    one place per block. Pairs are (lower, higher), in order in a block, and the blocks in
    the order of their first pairs."""
    ring: list[int | None] = [*range(n_bots), *([None] if n_bots % 2 else [])]
    size = len(ring)
    blocks = []
    for _ in range(size - 1):
        block = []
        for position in range(size // 2):
            a, b = ring[position], ring[size - 1 - position]
            if a is not None and b is not None:
                block.append((min(a, b), max(a, b)))
        blocks.append(sorted(block))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return sorted(blocks)  # the block with the pair (0, 1) first


def least_played_first(tables: Sequence[Table]) -> list[Table]:
    """``tables`` in the order that always plays next the table whose bots have played
    least: the fewest tables of its busiest bot, then of all its bots, then table order."""
    played: Counter[int] = Counter()

    def key(position: int) -> tuple[int, int, int]:
        counts = [played[bot] for bot in tables[position].bots]
        return max(counts), sum(counts), position

    heap = [key(position) for position in range(len(tables))]
    heapq.heapify(heap)
    order: list[Table] = []
    while heap:  # counts only grow, so a key that is still current is the least
        stored = heapq.heappop(heap)
        current = key(stored[2])
        if current != stored:
            heapq.heappush(heap, current)
            continue
        order.append(tables[stored[2]])
        played.update(tables[stored[2]].bots)
    return order


def round_robin_tables(n_bots: int, seats: int, rounds: int, seed: int) -> list[Table]:
    """Every table of a round-robin (all rounds)."""
    tables: list[Table] = []
    for round_index in range(rounds):
        groups = (list(itertools.combinations(range(n_bots), seats))
                  if comb(n_bots, seats) <= MAX_SUBSETS
                  else balanced_groups(n_bots, seats, derive_seed(seed, "design", round_index)))
        seen: Counter[tuple[int, ...]] = Counter()
        for i, group in enumerate(groups):
            tables.append(Table(round_index, i, group, seen[group]))
            seen[group] += 1
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
