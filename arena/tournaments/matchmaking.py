"""Matchmaking for the ladder: each table chosen to buy the most ranking certainty.

**One game's variance gain.** For two bots ``a`` and ``b`` with TrueSkill
ratings ``μ, σ``, performance spread ``β`` and draw margin ``ε`` (TrueSkill's
``calc_draw_margin`` of the rating settings' ``draw_probability``: 0.05 by
default), let ``c² = 2β² + σa² + σb²``, ``t = (μa − μb) / c`` and ``e = ε / c``.
Under TrueSkill's own model ``a`` wins with probability ``Φ(t − e)``, loses with
``Φ(−t − e)`` and draws otherwise, and each outcome shrinks both variances by
``σ⁴ / c²`` times TrueSkill's factor ``w`` for it (``w_win(t, e)``,
``w_win(−t, e)``, ``w_draw(t, e)``). So one game is expected to take::

    σ⁴ / c² · E[w],  E[w] = Φ(t−e) w_win(t, e) + Φ(−t−e) w_win(−t, e) + P(draw) w_draw(t, e)

off each variance: :func:`pair_gain` is the sum of both. (Leaving draws out, as
this module once did, is 2-13 % low at a draw probability of 0.05.) In the
Gaussian model the expected shrink of a variance equals the variance of the
move of the mean, so ``σa⁴ / c² · E[w]`` is also how far ``μa`` is expected to
move (squared).

**What a ladder buys with it: the ranking.** Shrinking variances everywhere
alike (a foregone game between a strong and a weak bot shrinks them almost as
much as an even one) orders the ladder no faster than a round-robin does. What
the ranking needs is that, for each pair of bots, the probability
``p = Φ((μa − μx) / √(σa² + σx²))`` that ``a`` is the better one moves towards 0
or 1: the expected reduction of ``Σ p (1 − p)`` over all pairs. To first order
a game moves ``p`` for every pair it touches by ``φ(z) / s`` times the move of
``μ`` (``z = (μa − μx) / s``, ``s² = σa² + σx²``), so a game between ``a`` and
``b`` is worth::

    gain(a, b) = E[w] / c² · (σa⁴ Na + σb⁴ Nb + 2 σa² σb² q_ab),
    q_ax = φ(z_ax)² / s_ax²,  Na = Σ_x q_ax

``Na`` is how crowded ``a``'s neighbourhood is: how many bots it could be
confused with, counted by how near and how uncertain (the last term is the
pair's own order, moved from both sides). A bot in a tight pack gains more than
one at the top with a clear lead; an uncertain newcomer (``σ⁴``) and an even
game (``t`` near 0) gain most; a game between bots far apart gains almost
nothing. A ``k``-seat table counts the gain of each pair of its bots (a
free-for-all's ranks carry one comparison per pair).

**A round** of ``tables`` tables is chosen greedily, each table the group with
the largest gain given the tables already chosen in the round: their expected
variance reductions are applied first (``N`` stays as the round found it), a
pair's gain is divided by one more than the times it already meets in the round
and by ``1 + λ m`` for the ``m`` times it met in earlier rounds (``λ`` =
:data:`REPEAT_WEIGHT`: the ratings carry that history, but a fresh pairing
checks the order from another side), and no bot sits at more than
``⌈tables · k / n⌉ + 1`` of the round's tables (``n`` bots), so a newcomer
plays often but not alone. ``k``-seat tables grow from the best pair by the bot
that adds most. With probability ``exploration`` a table is chosen for
coverage instead: among the pairs (with seats left) that have met least often
so far, the one with the largest gain, so every pair meets once before any pair
meets again through exploration, whatever the ratings say. Everything is a pure
function of the ratings, the meetings and a seeded ``random.Random`` (it draws
one number per table).

The gains are numpy arrays: a round for 1,000 entrants takes well under a
second (``bench/ladder_convergence.py --timing``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

DRAW_PROBABILITY = 0.05
"""arena's default (:class:`arena.results.ratings.RatingSettings`)."""
REPEAT_WEIGHT = 0.5
"""``λ``: a pair that met ``m`` times in earlier rounds has its gain divided by
``1 + λ m``."""
VARIANCE_FLOOR = 0.05
"""An expected shrink within a round leaves at least this share of a variance."""
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TINY = 1e-300

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Candidate:
    """A bot the ladder may seat: its key (an entrant position) and rating."""

    key: int
    mu: float
    sigma: float


def draw_margin(beta: float, draw_probability: float = DRAW_PROBABILITY) -> float:
    """TrueSkill's ``ε`` for a game of two players (``trueskill.calc_draw_margin``)."""
    if draw_probability <= 0:
        return 0.0
    return NormalDist().inv_cdf((draw_probability + 1) / 2) * math.sqrt(2) * beta


def _pdf(x: Array) -> Array:
    return INV_SQRT_2PI * np.exp(-0.5 * x * x)


def expected_w(t: Array, e: Array) -> Array:
    """``E[w]``: TrueSkill's variance factor averaged over a win, a loss and a draw under
    its own model, at ``t = (μa − μb) / c`` and draw margin ``e = ε / c`` (arrays).

    With ``x₁ = |t| − e`` and ``x₂ = −|t| − e`` the favourite wins with probability
    ``Φ(x₁)``, the other with ``Φ(x₂)``, and ``Φ(x) w_win = φ(x)² / Φ(x) + x φ(x)``,
    ``P(draw) w_draw = (φ(x₁) − φ(x₂))² / P(draw) − x₁ φ(x₁) − x₂ φ(x₂)``; the ``x φ``
    terms cancel in the sum, which no improbable outcome divides by its probability."""
    u = np.abs(t)
    x1, x2 = u - e, -u - e
    pdf1, pdf2 = _pdf(x1), _pdf(x2)
    cdf1, cdf2 = ndtr(x1), ndtr(x2)
    draw = ndtr(-x1) - cdf2
    total: Array = np.clip(
        pdf1 * pdf1 / np.maximum(cdf1, TINY) + pdf2 * pdf2 / np.maximum(cdf2, TINY)
        + np.where(draw > TINY, (pdf1 - pdf2) ** 2 / np.maximum(draw, TINY), 0.0), 0.0, 1.0)
    return total


def _factor(mu_a: Array, var_a: Array, mu_b: Array, var_b: Array, beta: float,
            margin: float) -> Array:
    """``E[w] / c²``: each variance ``σ²`` of the pair shrinks by ``σ⁴`` times this."""
    c2 = 2 * beta * beta + var_a + var_b
    c = np.sqrt(c2)
    return expected_w((mu_a - mu_b) / c, margin / c) / c2


def pair_gain(a: tuple[float, float], b: tuple[float, float], beta: float,
              draw_probability: float = DRAW_PROBABILITY) -> float:
    """The expected reduction of ``σa² + σb²`` from one game between ratings ``a`` and
    ``b`` (each ``(μ, σ²)``), draws included."""
    factor = _factor(np.array(a[0]), np.array(a[1]), np.array(b[0]), np.array(b[1]), beta,
                     draw_margin(beta, draw_probability))
    return float((a[1] * a[1] + b[1] * b[1]) * factor)


def _confusion(mu_a: Array, var_a: Array, mu_b: Array, var_b: Array) -> Array:
    """``q = φ(z)² / s²``: how much a move of ``μa`` moves ``P(a better than b)``,
    squared (``z = (μa − μb) / s``, ``s² = σa² + σb²``)."""
    s2 = var_a + var_b
    pdf = _pdf((mu_a - mu_b) / np.sqrt(s2))
    return pdf * pdf / s2


def ranking_gain(a: tuple[float, float], b: tuple[float, float],
                 others: Sequence[tuple[float, float]], beta: float,
                 draw_probability: float = DRAW_PROBABILITY) -> float:
    """The gain of a game between ratings ``a`` and ``b`` (each ``(μ, σ²)``) among the
    ``others``: the expected reduction of ``Σ p (1 − p)`` over every pair of bots, to
    first order (see the module)."""
    field = np.array([a, b, *others], dtype=float).reshape(-1, 2)
    mu, var = field[:, 0], field[:, 1]
    q = _confusion(mu[:, None], var[:, None], mu[None, :], var[None, :])
    np.fill_diagonal(q, 0.0)
    rho = q.sum(axis=1)
    factor = _factor(mu[0], var[0], mu[1], var[1], beta, draw_margin(beta, draw_probability))
    return float(factor * (var[0] ** 2 * rho[0] + var[1] ** 2 * rho[1]
                           + 2 * var[0] * var[1] * q[0, 1]))


class _Round:
    """The state of one round's choice: ratings (variances shrunk by the tables chosen),
    pair weights, seats left, and each bot's best partner under the current gains."""

    def __init__(self, candidates: Sequence[Candidate], beta: float, margin: float,
                 meetings: Mapping[tuple[int, ...], int], cap: int) -> None:
        ordered = sorted(candidates, key=lambda c: c.key)
        self.keys = [c.key for c in ordered]
        n = len(ordered)
        self.mu = np.array([c.mu for c in ordered], dtype=float)
        self.var = np.array([c.sigma * c.sigma for c in ordered], dtype=float)
        self.beta, self.margin, self.cap = beta, margin, cap
        q = _confusion(self.mu[:, None], self.var[:, None], self.mu[None, :],
                       self.var[None, :])
        np.fill_diagonal(q, 0.0)
        self.rho = q.sum(axis=1)
        del q
        index = {key: i for i, key in enumerate(self.keys)}
        self.met = np.zeros((n, n))  # tables shared before the round, then in it too
        for pair, times in meetings.items():
            a, b = index.get(pair[0]), index.get(pair[-1])
            if a is not None and b is not None and a != b:
                self.met[a, b] = self.met[b, a] = times
        self.history = 1.0 / (1.0 + REPEAT_WEIGHT * self.met)
        self.in_round = np.zeros((n, n))
        self.seated = np.zeros(n, dtype=int)
        self.open = np.ones(n, dtype=bool)
        self.gain = self._rows(np.arange(n))
        self.best = self.gain.max(axis=1)
        self.partner = self.gain.argmax(axis=1)

    def _rows(self, rows: NDArray[np.intp]) -> Array:
        """The gains of ``rows`` against every bot, -inf where a seat is missing."""
        mu_a, var_a = self.mu[rows, None], self.var[rows, None]
        mu_b, var_b = self.mu[None, :], self.var[None, :]
        factor = _factor(mu_a, var_a, mu_b, var_b, self.beta, self.margin)
        gain: Array = factor * (var_a ** 2 * self.rho[rows, None]
                                + var_b ** 2 * self.rho[None, :]
                                + 2 * var_a * var_b * _confusion(mu_a, var_a, mu_b, var_b))
        gain *= self.history[rows] / (1.0 + self.in_round[rows])
        gain[:, ~self.open] = -np.inf
        gain[~self.open[rows], :] = -np.inf
        gain[np.arange(len(rows)), rows] = -np.inf
        return gain

    def available(self) -> NDArray[np.intp]:
        return np.flatnonzero(self.open)

    def best_pair(self) -> tuple[int, int]:
        a = int(np.argmax(self.best))
        return a, int(self.partner[a])

    def coverage_pair(self) -> tuple[int, int]:
        """A pair that met least often of those with seats left: of the bots in such a
        pair, the one with the largest gain (with any partner), and its least-met partner
        with the largest gain."""
        rows = self.available()
        met = self.met[rows][:, rows]
        np.fill_diagonal(met, np.inf)
        least = met.min(axis=1)
        among = np.flatnonzero(least == least.min())
        a = int(among[int(np.argmax(self.best[rows[among]]))])
        gain = np.where(met[a] == least[a], self.gain[rows[a], rows], -np.inf)
        return int(rows[a]), int(rows[int(np.argmax(gain))])

    def grow(self, group: list[int], seats: int, coverage: bool) -> list[int]:
        """Add the bot that adds most gain (for coverage: among those that met the group
        least often) until the table is full."""
        while len(group) < seats:
            members = np.asarray(group, dtype=np.intp)
            rest = np.setdiff1d(self.available(), members)
            gain = self.gain[np.ix_(members, rest)].sum(axis=0)
            if coverage:
                met = self.met[np.ix_(members, rest)].sum(axis=0)
                gain = np.where(met == met.min(), gain, -np.inf)
            group.append(int(rest[int(np.argmax(gain))]))
        return group

    def seat(self, group: Sequence[int], games: int) -> None:
        """Count the table as played: its expected variance reductions applied, its pairs
        met once more, its bots' seats taken; then the gains it changed."""
        for _ in range(games):
            shrink = np.zeros(len(group))
            for (i, a), (j, b) in itertools.combinations(enumerate(group), 2):
                factor = float(_factor(self.mu[a], self.var[a], self.mu[b], self.var[b],
                                       self.beta, self.margin))
                shrink[i] += self.var[a] ** 2 * factor
                shrink[j] += self.var[b] ** 2 * factor
            for i, a in enumerate(group):
                self.var[a] = max(self.var[a] - shrink[i], self.var[a] * VARIANCE_FLOOR)
        for a, b in itertools.combinations(group, 2):
            for x, y in ((a, b), (b, a)):
                self.met[x, y] += 1
                self.in_round[x, y] += 1
        for a in group:
            self.seated[a] += 1
            if self.seated[a] >= self.cap:
                self.open[a] = False
        self._reopen_if_short(len(group))
        self._refresh(np.asarray(group))

    def _reopen_if_short(self, seats: int) -> None:
        """Should the caps leave fewer than ``seats`` bots, let the least seated sit again."""
        if self.open.sum() < seats:
            order = np.lexsort((np.arange(len(self.keys)), self.seated))
            self.open[order[:seats]] = True
            self._refresh(np.arange(len(self.keys)))

    def _refresh(self, changed: NDArray[np.intp]) -> None:
        rows = self._rows(changed)
        self.gain[changed, :] = rows
        self.gain[:, changed] = rows.T
        self.best[changed] = rows.max(axis=1)
        self.partner[changed] = rows.argmax(axis=1)
        stale = np.flatnonzero(np.isin(self.partner, changed))
        if len(stale):
            self.best[stale] = self.gain[stale].max(axis=1)
            self.partner[stale] = self.gain[stale].argmax(axis=1)
        column = self.gain[:, changed]
        better = column.max(axis=1) > self.best
        if better.any():
            rows_better = np.flatnonzero(better)
            self.best[rows_better] = column[rows_better].max(axis=1)
            self.partner[rows_better] = changed[column[rows_better].argmax(axis=1)]


def plan_round(candidates: Sequence[Candidate], seats: int, tables: int, rng: random.Random,
               *, beta: float, draw_probability: float = DRAW_PROBABILITY,
               exploration: float = 0.1, games_per_table: int = 1,
               meetings: Mapping[tuple[int, ...], int] | None = None
               ) -> list[tuple[int, ...]]:
    """``tables`` groups of ``seats`` candidate keys (each sorted), chosen as the module
    says; ``games_per_table`` games (a duplicate set) are expected at each table, and
    ``meetings`` counts the tables each pair of keys (sorted) shared in earlier rounds."""
    if len(candidates) < seats or tables <= 0:
        return []
    cap = math.ceil(tables * seats / len(candidates)) + 1
    state = _Round(candidates, beta, draw_margin(beta, draw_probability), meetings or {}, cap)
    chosen: list[tuple[int, ...]] = []
    for _ in range(tables):
        coverage = rng.random() < exploration
        group = list(state.coverage_pair() if coverage else state.best_pair())
        group = state.grow(group, seats, coverage)
        chosen.append(tuple(sorted(state.keys[i] for i in group)))
        state.seat(group, games_per_table)
    return chosen


def meetings_of(tables: Sequence[Sequence[int]]) -> dict[tuple[int, ...], int]:
    """How many of ``tables`` each pair of keys (sorted) shared."""
    met: dict[tuple[int, ...], int] = {}
    for table in tables:
        for pair in itertools.combinations(sorted(table), 2):
            met[pair] = met.get(pair, 0) + 1
    return met


def uniform_round(keys: Sequence[Hashable], seats: int, tables: int, rng: random.Random
                  ) -> list[tuple[Hashable, ...]]:
    """``tables`` groups drawn uniformly at random (the baseline matchmaking is measured
    against)."""
    ordered = sorted(keys)  # type: ignore[type-var]
    return [tuple(sorted(rng.sample(ordered, seats))) for _ in range(tables)]  # type: ignore[type-var]
