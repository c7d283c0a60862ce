"""Matchmaking for the ladder: each table chosen to buy the most rating certainty.

The value of a game is the expected reduction of the rating variances of the
bots it seats. For two bots ``i`` and ``j`` with TrueSkill ratings ``μ, σ``
and performance spread ``β``, let ``c² = 2β² + σᵢ² + σⱼ²`` and
``t = (μᵢ − μⱼ) / c``. TrueSkill's update after ``i`` beats ``j`` shrinks each
variance by ``σ⁴ / c² · w(t)``, with ``v(t) = φ(t) / Φ(t)`` and
``w(t) = v(t) (v(t) + t)``; ``i`` wins with probability ``Φ(t)``. So the
expected reduction of the pair's variance is::

    gain(i, j) = (σᵢ⁴ + σⱼ⁴) / c² · (Φ(t) w(t) + Φ(−t) w(−t))

It is large when a bot is uncertain (a new submission: ``σ⁴``) and when the
result is hard to predict (``t`` near 0: the bracket peaks at ``t = 0`` and
falls off as one bot is the clear favourite). Draws are left out of the
formula (they are rare in both games); a ``k``-seat table counts the gain of
each pair of its bots (a free-for-all's ranks carry one comparison per pair).

A round of ``tables`` tables is chosen greedily: each table is the group with
the largest gain, given the tables already chosen in the round. Their expected
variance reductions are applied to the bots' ratings first, a pair's gain is
divided by one more than the times it already meets in the round, and no bot
sits at more than ``⌈tables · k / n⌉ + 1`` of the round's tables (``n`` bots),
so that a newcomer plays often but not alone. ``k``-seat tables grow from the
best pair by the bot that adds most. With probability ``exploration`` a table
is drawn uniformly at random from the bots with seats left instead, so that
every pair keeps a chance to meet whatever the ratings say. Everything is a
pure function of the ratings and a seeded ``random.Random``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

SQRT2 = math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@dataclass(frozen=True)
class Candidate:
    """A bot the ladder may seat: its key (an entrant position) and rating."""

    key: int
    mu: float
    sigma: float


def _cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / SQRT2))


def _w(t: float) -> float:
    """TrueSkill's variance factor after a win at ``t`` (``v (v + t)``), stable for
    large negative ``t``."""
    cdf = _cdf(t)
    if cdf < 1e-12:
        return 1.0  # the limit for an ever more surprising win
    v = INV_SQRT_2PI * math.exp(-t * t / 2) / cdf
    return v * (v + t)


def pair_gain(a: tuple[float, float], b: tuple[float, float], beta: float) -> float:
    """The expected reduction of ``σa² + σb²`` from one game between ratings ``a`` and
    ``b`` (each ``(μ, σ²)``)."""
    factor = _expected_factor(a, b, beta)
    return (a[1] * a[1] + b[1] * b[1]) * factor


def _expected_factor(a: tuple[float, float], b: tuple[float, float], beta: float) -> float:
    """``E[w] / c²``: each variance ``σ²`` of the pair shrinks by ``σ⁴`` times this."""
    (mu_a, var_a), (mu_b, var_b) = a, b
    c2 = 2 * beta * beta + var_a + var_b
    t = (mu_a - mu_b) / math.sqrt(c2)
    return (_cdf(t) * _w(t) + _cdf(-t) * _w(-t)) / c2


def table_gain(group: Sequence[int], ratings: Mapping[int, tuple[float, float]],
               beta: float) -> float:
    return sum(pair_gain(ratings[a], ratings[b], beta)
               for a, b in itertools.combinations(group, 2))


def plan_round(candidates: Sequence[Candidate], seats: int, tables: int, rng: random.Random,
               *, beta: float, exploration: float = 0.1, games_per_table: int = 1
               ) -> list[tuple[int, ...]]:
    """``tables`` groups of ``seats`` candidate keys (each sorted), chosen as the module
    says; ``games_per_table`` games (a duplicate set) are expected at each table."""
    if len(candidates) < seats:
        return []
    ratings = {c.key: (c.mu, c.sigma * c.sigma) for c in candidates}
    cap = math.ceil(tables * seats / len(ratings)) + 1
    seated: Counter[int] = Counter()
    met: Counter[tuple[int, int]] = Counter()
    chosen: list[tuple[int, ...]] = []
    for _ in range(tables):
        keys = [key for key in sorted(ratings) if seated[key] < cap]
        if rng.random() < exploration:
            group = tuple(sorted(rng.sample(keys, seats)))
        else:
            group = best_group(keys, seats, lambda a, b: pair_gain(
                ratings[a], ratings[b], beta) / (1 + met[a, b]))
        chosen.append(group)
        seated.update(group)
        met.update(itertools.combinations(group, 2))
        _expect_played(group, ratings, beta, games_per_table)
    return chosen


def best_group(keys: Sequence[int], seats: int, gain: Callable[[int, int], float]
               ) -> tuple[int, ...]:
    """The pair of ``keys`` (sorted) with the largest gain (the first such), grown one
    bot at a time by the one that adds most to the table's gain."""
    group = list(max(itertools.combinations(keys, 2), key=lambda pair: gain(*pair)))
    while len(group) < seats:
        rest = [key for key in keys if key not in group]
        group.append(max(rest, key=lambda key: sum(
            gain(*sorted((key, other))) for other in group)))
    return tuple(sorted(group))


def _expect_played(group: Sequence[int], ratings: dict[int, tuple[float, float]],
                   beta: float, games: int) -> None:
    """Shrink the group's variances by what ``games`` games between them are expected to
    take off, so that the round's next table looks elsewhere."""
    for _ in range(games):
        shrink: dict[int, float] = dict.fromkeys(group, 0.0)
        for a, b in itertools.combinations(group, 2):
            factor = _expected_factor(ratings[a], ratings[b], beta)
            shrink[a] += ratings[a][1] ** 2 * factor
            shrink[b] += ratings[b][1] ** 2 * factor
        for key, taken in shrink.items():
            mu, var = ratings[key]
            ratings[key] = (mu, max(var - taken, var * 0.05))


def uniform_round(keys: Sequence[Hashable], seats: int, tables: int, rng: random.Random
                  ) -> list[tuple[Hashable, ...]]:
    """``tables`` groups drawn uniformly at random (the baseline matchmaking is measured
    against)."""
    ordered = sorted(keys)  # type: ignore[type-var]
    return [tuple(sorted(rng.sample(ordered, seats))) for _ in range(tables)]  # type: ignore[type-var]
