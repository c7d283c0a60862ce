"""Swiss-system pairing: standings, tie-breaks and the next round's tables.

Pure functions over plain data: no I/O and no randomness. Bots are the integers
``0 .. n_bots - 1``. A round is a sequence of :class:`TableResult`; the caller
scores the games (a table played in every seat order of its duplicate sets gives
each bot points in ``[0, games_at_table]``) and passes the byes of every round
with the points a bye is worth (``bye_points``: the most a table could give).

Standings (:func:`standings`)
    Sorted by points, then Buchholz, then Sonneborn-Berger, then bot index.
    *Buchholz* is the sum of the final points of every opponent met, once per
    meeting (a table of ``k`` adds its ``k - 1`` opponents; byes add nothing).
    *Sonneborn-Berger* generalises "result against the opponent times the
    opponent's points" to ``k``-player tables: for every table, the points the
    bot scored there times the *mean* final points of its opponents at that
    table. For two-player tables this is exactly the classic tie-break (a win
    of one game counts the opponent's points once, a draw half). Ranks are
    shared when points and both tie-breaks are equal.

Byes (both table sizes)
    ``n_bots mod table_size`` bots sit out each round. They are the
    lowest-ranked bots among those with the fewest byes so far, so nobody gets
    a second bye while a bot without one remains (:func:`validate_swiss` rejects
    schedules that would need one).

Round 1 (no table played yet)
    A fold by standing order, i.e. by bot index: with ``T`` tables, table ``j``
    seats ``j, j + T, j + 2T, ...``. For two players this is the classic
    ``0 v n/2, 1 v n/2 + 1, ...``.

Two-player rounds
    The best pairing minimises, in this order (lexicographically, as integer
    weights): rematches (each earlier meeting of the pair counts), the sum of
    squared point differences (top bots meet top bots), and the sum of squared
    distances in standing order. Without rematches the optimum is simply
    neighbours in standing order, 1 v 2, 3 v 4, ... (the Monrad system: with
    convex costs on a sorted line, adjacent pairs are optimal), so only the
    surroundings of rematches need a real matching:

    * Fields of up to ``_BLOCK_BOTS`` bots are matched as a whole: a
      maximum-weight perfect matching (``networkx.max_weight_matching`` with
      ``maxcardinality=True``). The graph joins each bot to the next
      ``_MATCHING_WINDOW`` bots in standing order (its successor among them,
      so a perfect matching exists) and, beyond those, to the next bots it has
      not met until it has that many unmet partners; while the result has a
      rematch the window doubles, up to the complete graph. So here the
      result is optimal, and rematch-free whenever that is possible.
    * Larger fields start from the adjacent pairs. Each pair that would be a
      rematch is re-matched together with ``_REPAIR_RADIUS`` pairs on either
      side (overlapping ranges merged); a range that still holds a rematch
      doubles in size and is matched again, until it covers the field. A range
      of up to ``_WHOLE_MATCHING_BOTS`` bots is matched at once (window at most
      ``_MAX_WINDOW``); a longer one block by block with a receding horizon
      (match ``_BLOCK_BOTS`` bots, keep the pairs of the top half, carry the
      rest over into the next block). This keeps a 1,000-bot round well under
      a second (``bench/swiss_pairing.py``). The price: beyond ``_BLOCK_BOTS``
      bots the result is a local optimum around each rematch, not a proven
      global one (in long Swisses of mid-sized fields a rematch can remain
      that a whole-field matching would avoid).

Three- and four-player rounds
    1. *Greedy from the top*: the best-ranked unseated bot opens a table and
       picks the ``k - 1`` companions that minimise the table's cost among the
       next unseated bots in standing order plus the next unseated bots it has
       not met. The cost orders, like the two-player weights, the number of
       earlier meetings between any two bots at the table, then the squared
       point differences, then the squared standing distances.
    2. *Repair by exchange*: while some table has a repeat meeting, swap one of
       its bots with a bot of another table when that lowers the number of
       repeats of the two tables: the nearest table in standing order that
       offers such a swap, and there the swap with the lowest cost. Each swap
       removes a repeat, so this ends.
    3. *Exact search for small fields*: if repeats remain and at most
       ``_EXACT_SEARCH_BOTS`` bots are seated, a depth-first branch and bound
       over all partitions (best tables first, bounded by
       ``_EXACT_SEARCH_BUDGET`` tables tried) replaces the result with a
       cheaper one when it finds it.

    Greedy top-down seating is the k-player analogue of Monrad pairing; the
    repair step removes the repeats greedy seating leaves at the bottom of the
    field, and the exact search covers the small fields where a greedy choice
    early on can make repeats unavoidable later.

Rematches become unavoidable once the bots that play the most tables would
need more distinct opponents than there are (:func:`rematches_unavoidable`).
That is allowed: the pairing then keeps repeats as few as it can.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_POINT_STEPS = 12  # points are multiples of 1/2, 1/4 or 1/6 for k = 2, 3, 4: 1/12 is exact
TIE_DIGITS = 9  # points and tie-breaks equal to this many decimals share a rank
_BLOCK_BOTS = 64  # two-player fields matched as a whole (exactly); block size beyond
_WHOLE_MATCHING_BOTS = 128  # longer runs of bots to re-match are matched block by block
_REPAIR_RADIUS = 2  # pairs on each side of a rematch that are matched again with it
_MATCHING_WINDOW = 12
_MAX_WINDOW = 48
_TABLE_WINDOW = 2  # times (k - 1): near and not-yet-met candidates for a table's seats
_EXACT_SEARCH_BOTS = 16
_EXACT_SEARCH_BUDGET = 20_000


class SwissError(ValueError):
    """A Swiss request that cannot be met, or malformed results passed in."""


@dataclass(frozen=True)
class TableResult:
    """One table of a finished round: the bots and the points each scored there."""

    bots: tuple[int, ...]
    points: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "bots", tuple(self.bots))
        object.__setattr__(self, "points", tuple(float(p) for p in self.points))
        if len(self.bots) < 2:
            raise SwissError(f"a table needs at least two bots, got {self.bots}")
        if len(set(self.bots)) != len(self.bots):
            raise SwissError(f"a bot sits twice at table {self.bots}")
        if len(self.points) != len(self.bots):
            raise SwissError(
                f"table {self.bots} has {len(self.points)} points for {len(self.bots)} bots"
            )
        if any(not math.isfinite(p) or p < 0 for p in self.points):
            raise SwissError(f"points must be finite and >= 0, got {self.points}")


@dataclass(frozen=True)
class RoundPairing:
    """The next round: tables (bots ascending, best-standing table first) and byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]


@dataclass(frozen=True)
class Standing:
    """One line of the standings; ``rank`` is 1-based and shared on full ties."""

    bot: int
    points: float
    buchholz: float
    sonneborn_berger: float
    tables: int
    byes: int
    rank: int


# --- feasibility -------------------------------------------------------------------------------


def max_byes_needed(n_bots: int, table_size: int, rounds: int) -> int:
    """The most byes some bot must get: ``ceil((n_bots mod table_size) * rounds / n_bots)``."""
    _check_field(n_bots, table_size)
    return -(-(n_bots % table_size) * rounds // n_bots)


def rematches_unavoidable(n_bots: int, table_size: int, rounds: int) -> bool:
    """True when some bot must meet an opponent twice in ``rounds`` rounds.

    The bots with the fewest byes play ``rounds - floor(byes / n_bots)`` tables and
    meet ``table_size - 1`` opponents at each; beyond ``n_bots - 1`` opponents a
    rematch is certain. (Rematches can be unavoidable earlier for some sizes.)
    """
    _check_field(n_bots, table_size)
    fewest_byes = (n_bots % table_size) * rounds // n_bots
    return (rounds - fewest_byes) * (table_size - 1) > n_bots - 1


def validate_swiss(n_bots: int, table_size: int, rounds: int) -> None:
    """Raise :class:`SwissError` (a ``ValueError``) if the Swiss cannot be run fairly.

    Errors: ``table_size < 2``, fewer bots than seats at a table, ``rounds < 1``,
    and so many rounds that some bot would need a second bye
    (``(n_bots mod table_size) * rounds > n_bots``). Unavoidable rematches
    (:func:`rematches_unavoidable`) are allowed and not reported here.
    """
    _check_field(n_bots, table_size)
    if rounds < 1:
        raise SwissError(f"a Swiss needs at least one round, got rounds={rounds}")
    per_round = n_bots % table_size
    if per_round * rounds > n_bots:
        most = n_bots // per_round
        raise SwissError(
            f"{rounds} rounds of {n_bots} bots at tables of {table_size} give "
            f"{per_round * rounds} byes, so some bot would get two; use at most {most} "
            f"rounds or a number of bots that is a multiple of {table_size}"
        )


def _check_field(n_bots: int, table_size: int) -> None:
    if table_size < 2:
        raise SwissError(f"table_size must be at least 2, got {table_size}")
    if n_bots < table_size:
        raise SwissError(
            f"{n_bots} bots cannot fill a table of {table_size}; add bots or use smaller tables"
        )


# --- standings ---------------------------------------------------------------------------------


def standings(
    n_bots: int,
    history: Sequence[Sequence[TableResult]],
    byes: Sequence[Sequence[int]],
    bye_points: float,
) -> list[Standing]:
    """The standings after the rounds in ``history`` and ``byes``, best first.

    ``history[r]`` holds the tables of round ``r`` and ``byes[r]`` its byes, each
    bye worth ``bye_points``.
    """
    _check_history(n_bots, history, byes)
    if not math.isfinite(bye_points) or bye_points < 0:
        raise SwissError(f"bye_points must be finite and >= 0, got {bye_points}")
    points = _points(n_bots, history, byes, bye_points)
    buchholz = [0.0] * n_bots
    berger = [0.0] * n_bots
    tables = [0] * n_bots
    for table in _tables(history):
        at_table = sum(points[bot] for bot in table.bots)
        opponents = len(table.bots) - 1
        for bot, scored in zip(table.bots, table.points, strict=True):
            others = at_table - points[bot]
            buchholz[bot] += others
            berger[bot] += scored * others / opponents
            tables[bot] += 1
    bye_counts = Counter(bot for round_byes in byes for bot in round_byes)
    lines = [
        Standing(bot, points[bot], buchholz[bot], berger[bot], tables[bot], bye_counts[bot], 0)
        for bot in range(n_bots)
    ]
    return _ranked(lines)


def _points(
    n_bots: int,
    history: Sequence[Sequence[TableResult]],
    byes: Sequence[Sequence[int]],
    bye_points: float,
) -> list[float]:
    points = [0.0] * n_bots
    for table in _tables(history):
        for bot, scored in zip(table.bots, table.points, strict=True):
            points[bot] += scored
    for round_byes in byes:
        for bot in round_byes:
            points[bot] += bye_points
    return points


def _ranked(lines: list[Standing]) -> list[Standing]:
    lines.sort(key=lambda line: (*_tie_key(line), line.bot))
    ranked: list[Standing] = []
    for index, line in enumerate(lines):
        shared = ranked and _tie_key(ranked[-1]) == _tie_key(line)
        rank = ranked[-1].rank if shared else index + 1
        ranked.append(Standing(line.bot, line.points, line.buchholz, line.sonneborn_berger,
                               line.tables, line.byes, rank))
    return ranked


def _tie_key(line: Standing) -> tuple[float, float, float]:
    return (-round(line.points, TIE_DIGITS), -round(line.buchholz, TIE_DIGITS),
            -round(line.sonneborn_berger, TIE_DIGITS))


def _tables(history: Sequence[Sequence[TableResult]]) -> Iterable[TableResult]:
    return (table for round_tables in history for table in round_tables)


def _check_history(
    n_bots: int, history: Sequence[Sequence[TableResult]], byes: Sequence[Sequence[int]]
) -> None:
    if n_bots < 0:
        raise SwissError(f"n_bots must be >= 0, got {n_bots}")
    for index in range(max(len(history), len(byes))):
        tables = history[index] if index < len(history) else ()
        seated = [bot for table in tables for bot in table.bots]
        resting = list(byes[index]) if index < len(byes) else []
        _check_round(n_bots, index, seated + resting)


def _check_round(n_bots: int, index: int, bots: list[int]) -> None:
    outside = sorted({bot for bot in bots if not 0 <= bot < n_bots})
    if outside:
        raise SwissError(f"round {index + 1}: bots {outside} are not in 0..{n_bots - 1}")
    twice = sorted(bot for bot, count in Counter(bots).items() if count > 1)
    if twice:
        raise SwissError(f"round {index + 1}: bots {twice} appear more than once")


# --- pairing -----------------------------------------------------------------------------------


def pair_round(
    n_bots: int,
    table_size: int,
    history: Sequence[Sequence[TableResult]],
    byes: Sequence[Sequence[int]],
    bye_points: float,
) -> RoundPairing:
    """The tables and byes of the next round (the method is in the module docstring).

    ``history[r]`` and ``byes[r]`` are the tables and byes of round ``r``, as for
    :func:`standings`. Deterministic: standings ties are broken by bot index, and
    equally good pairings are settled by the deterministic matching over a graph
    built in standing order.

    >>> pair_round(4, 2, [], [], bye_points=2.0)
    RoundPairing(tables=((0, 2), (1, 3)), byes=())
    >>> played = [[TableResult((0, 2), (2, 0)), TableResult((1, 3), (0, 2))]]
    >>> pair_round(4, 2, played, [[]], bye_points=2.0)
    RoundPairing(tables=((0, 3), (1, 2)), byes=())
    """
    _check_field(n_bots, table_size)
    ranking = standings(n_bots, history, byes, bye_points)
    resting = _choose_byes(ranking, n_bots % table_size)
    seated = [line.bot for line in ranking if line.bot not in resting]
    if not any(history):
        tables = _fold(seated, table_size)
    else:
        points = {line.bot: line.points for line in ranking}
        field = _Field.build(seated, table_size, history, points)
        tables = _pair_tables(field)
    return _normalised(tables, resting, [line.bot for line in ranking])


def _choose_byes(ranking: list[Standing], count: int) -> set[int]:
    """The ``count`` lowest-ranked bots among those with the fewest byes."""
    positions = {line.bot: index for index, line in enumerate(ranking)}
    candidates = sorted(ranking, key=lambda line: (line.byes, -positions[line.bot]))
    return {line.bot for line in candidates[:count]}


def _fold(seated: list[int], k: int) -> list[tuple[int, ...]]:
    n_tables = len(seated) // k
    return [tuple(seated[j + seat * n_tables] for seat in range(k)) for j in range(n_tables)]


def _normalised(
    tables: list[tuple[int, ...]], resting: set[int], order: list[int]
) -> RoundPairing:
    position = {bot: index for index, bot in enumerate(order)}
    sorted_tables = sorted((tuple(sorted(table)) for table in tables),
                           key=lambda table: min(position[bot] for bot in table))
    return RoundPairing(tables=tuple(sorted_tables), byes=tuple(sorted(resting)))


def _pair_tables(field: _Field) -> list[tuple[int, ...]]:
    if field.k == 2:
        return _pair_two_player(field)
    tables = _greedy_tables(field)
    tables = _repair_by_exchange(field, tables)
    if field.repeats_of(tables) and len(field.order) <= _EXACT_SEARCH_BOTS:
        tables = _exact_tables(field, tables)
    return tables


class _Field:
    """The seated bots of one round with what their pair costs need."""

    def __init__(self, order: list[int], k: int, steps: dict[int, int],
                 meetings: Counter[tuple[int, int]]) -> None:
        self.order = order
        self.k = k
        self.position = {bot: index for index, bot in enumerate(order)}
        self.steps = steps
        self.meetings = meetings
        spread = max(steps.values()) - min(steps.values()) if steps else 0
        pairs = len(order) * (k - 1) // 2 + 1
        self.score_unit = pairs * len(order) ** 2 + 1
        self.repeat_unit = pairs * (spread**2 * self.score_unit + len(order) ** 2) + 1

    @classmethod
    def build(cls, order: list[int], k: int, history: Sequence[Sequence[TableResult]],
              points: dict[int, float]) -> _Field:
        steps = {bot: round(points[bot] * _POINT_STEPS) for bot in order}
        meetings: Counter[tuple[int, int]] = Counter()
        for table in _tables(history):
            meetings.update(itertools.combinations(sorted(table.bots), 2))
        return cls(order, k, steps, meetings)

    def met(self, a: int, b: int) -> int:
        """How often ``a`` and ``b`` sat at the same table."""
        return self.meetings[(a, b) if a < b else (b, a)]

    def pair_cost(self, a: int, b: int) -> int:
        """Rematches, then squared point difference, then squared standing distance."""
        distance = self.position[a] - self.position[b]
        score = self.steps[a] - self.steps[b]
        return self.met(a, b) * self.repeat_unit + score * score * self.score_unit + distance**2

    def table_cost(self, table: Sequence[int]) -> int:
        return sum(self.pair_cost(a, b) for a, b in itertools.combinations(table, 2))

    def repeats(self, table: Sequence[int]) -> int:
        return sum(self.met(a, b) for a, b in itertools.combinations(table, 2))

    def total_cost(self, tables: Iterable[Sequence[int]]) -> int:
        return sum(self.table_cost(table) for table in tables)

    def repeats_of(self, tables: Iterable[Sequence[int]]) -> int:
        return sum(self.repeats(table) for table in tables)


# --- two-player tables: sparse maximum-weight matching -------------------------------------------


def _pair_two_player(field: _Field) -> list[tuple[int, ...]]:
    """Adjacent pairs in standing order, re-matched around the pairs that would be rematches."""
    order = field.order
    if len(order) <= _BLOCK_BOTS:
        return _widening_matching(field, order, len(order) - 1)
    adjacent = [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
    conflicts = [index for index, (a, b) in enumerate(adjacent) if field.met(a, b)]
    solved: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for region in _regions(conflicts, _REPAIR_RADIUS, len(adjacent)):
        _repair_region(field, region, solved)
    pairs: list[tuple[int, ...]] = list(adjacent)
    for (lo, hi), matched in solved.items():
        pairs[lo:hi] = matched
    return pairs


def _regions(conflicts: list[int], radius: int, n_pairs: int) -> list[tuple[int, int]]:
    """Merged ranges ``[lo, hi)`` of pair indices within ``radius`` pairs of a conflict."""
    regions: list[tuple[int, int]] = []
    for index in conflicts:
        lo, hi = max(0, index - radius), min(n_pairs, index + radius + 1)
        if regions and lo <= regions[-1][1]:
            regions[-1] = (regions[-1][0], hi)
        else:
            regions.append((lo, hi))
    return regions


def _repair_region(field: _Field, region: tuple[int, int],
                   solved: dict[tuple[int, int], list[tuple[int, ...]]]) -> None:
    """Match the bots of ``region`` anew, doubling it while rematches remain in it."""
    n_pairs = len(field.order) // 2
    lo, hi = region
    while True:
        lo, hi = _absorb(solved, lo, hi)
        matched = _matching(field, field.order[2 * lo:2 * hi])
        if not field.repeats_of(matched) or (lo, hi) == (0, n_pairs):
            break
        grow = (hi - lo + 1) // 2
        lo, hi = max(0, lo - grow), min(n_pairs, hi + grow)
    solved[(lo, hi)] = matched


def _absorb(solved: dict[tuple[int, int], list[tuple[int, ...]]],
            lo: int, hi: int) -> tuple[int, int]:
    """Widen ``[lo, hi)`` over the solved ranges it overlaps, dropping them from ``solved``."""
    for other_lo, other_hi in list(solved):
        if other_lo < hi and lo < other_hi:
            del solved[(other_lo, other_hi)]
            lo, hi = min(lo, other_lo), max(hi, other_hi)
    return lo, hi


def _matching(field: _Field, bots: list[int]) -> list[tuple[int, ...]]:
    """A perfect matching of ``bots`` (an even number, in standing order).

    Runs of up to ``_WHOLE_MATCHING_BOTS`` bots are matched at once; longer runs
    block by block (:func:`_receding_matching`).
    """
    if len(bots) <= _WHOLE_MATCHING_BOTS:
        return _widening_matching(field, bots, _MAX_WINDOW)
    return _receding_matching(field, bots)


def _receding_matching(field: _Field, bots: list[int]) -> list[tuple[int, ...]]:
    """Match the first block, keep the pairs of its top half, carry the rest over; repeat."""
    pairs: list[tuple[int, ...]] = []
    pending = list(bots)
    while len(pending) > _BLOCK_BOTS:
        block = pending[:_BLOCK_BOTS]
        top = set(block[:_BLOCK_BOTS // 2])
        matched = _widening_matching(field, block, _MAX_WINDOW)
        kept = [pair for pair in matched if top.intersection(pair)]
        pairs += kept
        seated = {bot for pair in kept for bot in pair}
        pending = [bot for bot in pending if bot not in seated]
    return pairs + _widening_matching(field, pending, _MAX_WINDOW)


def _widening_matching(field: _Field, bots: list[int], limit: int) -> list[tuple[int, ...]]:
    """The best perfect matching of ``bots`` on a sparse graph.

    While the result has a rematch, the window doubles, up to ``limit`` (or the
    complete graph, whichever comes first).
    """
    window = _MATCHING_WINDOW
    while True:
        pairs = _sparse_matching(field, bots, window)
        if not field.repeats_of(pairs) or window >= min(limit, len(bots) - 1):
            return pairs
        window *= 2


def _sparse_matching(field: _Field, bots: list[int], window: int) -> list[tuple[int, ...]]:
    import networkx as nx  # here: only a Swiss round of many bots needs it

    edges = list(_sparse_edges(field, bots, window))
    costs = [field.pair_cost(a, b) for a, b in edges]
    ceiling = max(costs) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(bots)
    weighted = zip(edges, costs, strict=True)
    graph.add_weighted_edges_from((a, b, ceiling - cost) for (a, b), cost in weighted)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(bots):
        raise AssertionError("the standing-order path guarantees a perfect matching")
    return [tuple(pair) for pair in matching]


def _sparse_edges(field: _Field, bots: list[int], window: int) -> Iterable[tuple[int, int]]:
    """Each bot to the next ``window`` bots, and beyond them to unmet ones up to ``window``."""
    for index, bot in enumerate(bots):
        unmet = 0
        for offset, later in enumerate(itertools.islice(bots, index + 1, None)):
            is_new = not field.met(bot, later)
            if offset >= window and unmet >= window:
                break
            if offset < window or is_new:
                yield bot, later
            unmet += is_new


# --- k-player tables ---------------------------------------------------------------------------


def _greedy_tables(field: _Field) -> list[tuple[int, ...]]:
    unseated = list(field.order)
    tables: list[tuple[int, ...]] = []
    while unseated:
        anchor, rest = unseated[0], unseated[1:]
        candidates = _table_candidates(field, anchor, rest)
        companions = min(itertools.combinations(candidates, field.k - 1),
                         key=lambda group: field.table_cost((anchor, *group)))
        tables.append((anchor, *companions))
        taken = set(companions)
        unseated = [bot for bot in rest if bot not in taken]
    return tables


def _table_candidates(field: _Field, anchor: int, rest: list[int]) -> list[int]:
    """The next unseated bots, plus the next ones the anchor has not met, in standing order."""
    size = _TABLE_WINDOW * (field.k - 1)
    near = rest[:size]
    unmet = itertools.islice((bot for bot in rest if not field.met(anchor, bot)), size)
    chosen = set(near) | set(unmet)
    return [bot for bot in rest if bot in chosen]


def _repair_by_exchange(field: _Field, tables: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    tables = list(tables)
    improved = True
    while improved:
        improved = False
        for index in range(len(tables)):
            if field.repeats(tables[index]) and _apply_best_swap(field, tables, index):
                improved = True
    return tables


def _apply_best_swap(field: _Field, tables: list[tuple[int, ...]], index: int) -> bool:
    """Swap a bot of table ``index`` with another table's bot if that removes repeats."""
    best: tuple[int, int, tuple[int, ...], tuple[int, ...]] | None = None
    here = tables[index]
    for other_index in sorted(range(len(tables)), key=lambda j: abs(j - index)):
        if other_index == index:
            continue
        there = tables[other_index]
        before_repeats = field.repeats(here) + field.repeats(there)
        for new_here, new_there in _swaps(here, there):
            if field.repeats(new_here) + field.repeats(new_there) >= before_repeats:
                continue
            cost = field.table_cost(new_here) + field.table_cost(new_there)
            if best is None or cost < best[0]:
                best = (cost, other_index, new_here, new_there)
        if best is not None:
            break
    if best is None:
        return False
    _, other_index, tables[index], tables[other_index] = best
    return True


def _swaps(here: tuple[int, ...], there: tuple[int, ...]) -> Iterable[tuple[tuple[int, ...], ...]]:
    for i, j in itertools.product(range(len(here)), range(len(there))):
        new_here = (*here[:i], there[j], *here[i + 1:])
        new_there = (*there[:j], here[i], *there[j + 1:])
        yield new_here, new_there


def _exact_tables(field: _Field, incumbent: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Branch and bound over all partitions into tables, within a budget of tables tried."""
    pair_costs = {(a, b): field.pair_cost(a, b) for a, b in itertools.permutations(field.order, 2)}

    def cost_of(table: tuple[int, ...]) -> int:
        return sum(pair_costs[pair] for pair in itertools.combinations(table, 2))

    best_cost = field.total_cost(incumbent)
    best_tables = list(incumbent)
    budget = _EXACT_SEARCH_BUDGET

    def search(unseated: list[int], chosen: list[tuple[int, ...]], cost: int) -> None:
        nonlocal best_cost, best_tables, budget
        if not unseated:
            best_cost, best_tables = cost, list(chosen)
            return
        anchor, rest = unseated[0], unseated[1:]
        options = sorted((cost_of(table), table) for table in
                         ((anchor, *group) for group in itertools.combinations(rest, field.k - 1)))
        for table_cost, table in options:
            if budget <= 0 or cost + table_cost >= best_cost:
                return
            budget -= 1
            left = [bot for bot in rest if bot not in table]
            search(left, [*chosen, table], cost + table_cost)

    search(list(field.order), [], 0)
    return best_tables
