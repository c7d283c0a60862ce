"""Offline ratings: a Bradley-Terry fit over all stored games, with intervals.

Every game gives one comparison per pair of its seats (a two-player game one; a
table of ``k`` its ``k (k − 1) / 2`` pairs, by their ranks), scored 1, ½ or 0
for the earlier seat. The model: the earlier seat of a pair scores with
probability ``1 / (1 + exp(s_later − s_earlier − h))``, ``s`` a bot's strength
and ``h`` the advantage of sitting earlier (the first seat, in two-player
games). The comparisons are pooled by (earlier bot, later bot), so the fit's
cost grows with the pairs of bots that met, not with the games.

The estimate maximises the likelihood with Firth's bias-reducing penalty (half
the log-determinant of the information): plain maximum likelihood pushes a
strong or weak bot outward at small samples, Firth's penalty removes that bias
to first order and keeps a bot that won every game finite. A weak Gaussian prior
(variance 100 in natural units, far wider than any real spread) fixes the
common level of the strengths and keeps bots that never met a common opponent
finite. Newton's method finds the maximum.

Unlike TrueSkill, the fit does not depend on the order the games were played
in: TrueSkill updates game by game and forgets nothing, so the same results in
another order give (slightly) other ratings; this fit sees all games at once.

Ratings are on the Elo scale (400 / ln 10 per natural unit) and anchored: the
mean is 0, or the anchor bot has the given rating (Ordo's ``-a``). The 95 %
intervals are profile-likelihood intervals: for each bot's rating (relative to
the mean, or to the anchor) the values where twice the drop of the penalised
log-likelihood, maximised over everything else, reaches the threshold. The
games of a duplicate set share their dice, so they are not independent: the
threshold is scaled by a design effect, the ratio of a robust variance over the
duplicate sets (each set's score with the jackknife's leverage correction,
CR3) to the model's, where it is above 1 (:data:`MIN_DESIGN_EFFECT`), and uses
Student's t with the sets' effective number (their Satterthwaite degrees of
freedom) instead of the normal quantile. No
resampling: the same games always give the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from arena.results.ratings import compared

ELO_PER_UNIT = 400 / math.log(10)
PRIOR_VARIANCE = 100.0
LEVEL = 0.95
MIN_DESIGN_EFFECT = 1.0
"""Intervals are never narrower than those for independent games. The robust variance
of few sets, or of lopsided results, comes out too small: a sweep over 10 sets gives
0.11 (it sees no game go the other way), sets that cancel exactly 0, and intervals
narrowed by it covered a +400 Elo pair over 10 sets 0.83 of the time, a +300 pair over
20 sets 0.89. Sets whose games go the same way widen the intervals as before."""


@dataclass(frozen=True)
class SeatedGame:
    """A game as the fit sees it: the bots in seat order, their ranks, and the duplicate
    set it belongs to (any hashable key)."""

    bots: tuple[int, ...]
    ranks: tuple[int, ...]
    group: object
    failed: tuple[int, ...] = ()
    """The seats whose failure ended the game early, if any did (see
    :func:`arena.results.ratings.compared`)."""


@dataclass(frozen=True)
class BradleyTerry:
    """A fit: each bot's Elo with its 95 % interval, and the earlier seat's advantage."""

    elo: Mapping[int, float]
    low: Mapping[int, float]
    high: Mapping[int, float]
    seat_advantage: float
    seat_interval: tuple[float, float]
    games: Mapping[int, int]

    def order(self) -> list[int]:
        return sorted(self.elo, key=lambda bot: -self.elo[bot])


@dataclass(frozen=True)
class Table:
    """The comparisons pooled into cells, one per (earlier bot, later bot), and into
    rows, one per cell of each duplicate set; parameters are bots ``0..n-1``'
    strengths and then the seat advantage."""

    n: int
    earlier: np.ndarray
    later: np.ndarray
    count: np.ndarray
    score: np.ndarray
    row_set: np.ndarray
    row_cell: np.ndarray
    row_count: np.ndarray
    row_score: np.ndarray
    sets: int


@dataclass(frozen=True)
class Point:
    """The penalised log-likelihood at ``theta``, its (Firth-modified) gradient, the
    inverse of the information and the cells' probabilities."""

    theta: np.ndarray
    loglik: float
    gradient: np.ndarray
    covariance: np.ndarray
    probability: np.ndarray


def comparisons(games: Iterable[SeatedGame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Earlier bots, later bots, the earlier one's scores: one row per pair of seats."""
    earlier, later, scores, _ = set_comparisons(games)
    return earlier, later, scores


def set_comparisons(games: Iterable[SeatedGame]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`comparisons` and each one's duplicate set, numbered from 0."""
    earlier, later, scores, sets = [], [], [], []
    numbers: dict[object, int] = {}
    for game in games:
        number = numbers.setdefault(game.group, len(numbers))
        for a in range(len(game.bots)):
            for b in range(a + 1, len(game.bots)):
                if game.bots[a] == game.bots[b] or not compared(a, b, game.failed,
                                                                len(game.bots)):
                    continue
                earlier.append(game.bots[a])
                later.append(game.bots[b])
                ra, rb = game.ranks[a], game.ranks[b]
                scores.append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
                sets.append(number)
    return (np.array(earlier, dtype=int), np.array(later, dtype=int),
            np.array(scores, dtype=float), np.array(sets, dtype=int))


def tabulate(n: int, earlier: np.ndarray, later: np.ndarray, scores: np.ndarray,
             sets: np.ndarray | None = None) -> Table:
    """Pool comparisons (each in its duplicate set; all in one if ``sets`` is None)."""
    sets = np.unique(np.zeros(len(scores), dtype=int) if sets is None else sets,
                     return_inverse=True)[1].reshape(-1)
    cells, cell = np.unique(earlier * n + later, return_inverse=True)
    cell = cell.reshape(-1)
    keys, row = np.unique(sets * len(cells) + cell, return_inverse=True)
    row = row.reshape(-1)
    return Table(n, cells // n, cells % n, np.bincount(cell).astype(float),
                 np.bincount(cell, weights=scores), keys // max(len(cells), 1),
                 keys % max(len(cells), 1), np.bincount(row).astype(float),
                 np.bincount(row, weights=scores),
                 int(sets.max()) + 1 if len(sets) else 0)


def fit_strengths(n: int, earlier: np.ndarray, later: np.ndarray, scores: np.ndarray,
                  *, firth: bool = False) -> tuple[np.ndarray, float]:
    """Strengths of bots ``0..n-1`` and the earlier seat's advantage, in natural units:
    maximum a posteriori under the prior, or with ``firth`` also Firth's penalty."""
    best = maximise(tabulate(n, earlier, later, scores), np.zeros(n + 1), firth)
    return best.theta[:n], float(best.theta[n])


def connected_groups(games: Sequence[SeatedGame]) -> list[list[SeatedGame]]:
    """The games split by the groups of bots that met, directly or through common opponents
    (most games first). Ratings compare only within a group: between groups nothing in
    the games says which is stronger, and one fit would place them by its prior alone."""
    parent: dict[int, int] = {}

    def root(bot: int) -> int:
        parent.setdefault(bot, bot)
        while parent[bot] != bot:
            parent[bot] = parent[parent[bot]]
            bot = parent[bot]
        return bot

    for game in games:
        first = root(game.bots[0])
        for bot in game.bots[1:]:
            parent[root(bot)] = first
    groups: dict[int, list[SeatedGame]] = {}
    for game in games:
        groups.setdefault(root(game.bots[0]), []).append(game)
    return sorted(groups.values(), key=len, reverse=True)


def fit(games: Sequence[SeatedGame], *, anchor: tuple[int, float] | None = None,
        level: float = LEVEL) -> BradleyTerry:
    """Fit all ``games``: Firth-penalised estimates, profile-likelihood intervals at
    ``level`` widened by the duplicate sets' design effect."""
    bots = sorted({bot for game in games for bot in game.bots})
    index = {bot: i for i, bot in enumerate(bots)}
    mapped = [SeatedGame(tuple(index[b] for b in g.bots), g.ranks, g.group, g.failed)
              for g in games]
    n = len(bots)
    table = tabulate(n, *set_comparisons(mapped))
    best = maximise(table, np.zeros(n + 1), True)
    residuals = jackknife_residuals(table, best)
    fixed = None if anchor is None else index[anchor[0]]
    offset = anchor[1] if anchor else 0.0
    elo, low, high = {}, {}, {}
    for bot, i in index.items():
        if i == fixed:
            elo[bot] = low[bot] = high[bot] = offset
            continue
        c = _contrast(n, i, fixed)
        estimate, bounds = float(c @ best.theta), interval(table, best, c, residuals, level)
        elo[bot] = offset + estimate * ELO_PER_UNIT
        low[bot], high[bot] = (offset + bound * ELO_PER_UNIT for bound in bounds)
    seat = np.zeros(n + 1)
    seat[n] = 1.0
    seat_low, seat_high = interval(table, best, seat, residuals, level)
    counts: dict[int, int] = {}
    for game in games:
        for bot in game.bots:
            counts[bot] = counts.get(bot, 0) + 1
    return BradleyTerry(elo, low, high, float(best.theta[n]) * ELO_PER_UNIT,
                        (seat_low * ELO_PER_UNIT, seat_high * ELO_PER_UNIT), counts)


def _contrast(n: int, bot: int, anchor: int | None) -> np.ndarray:
    """The rating of ``bot`` as a linear function of the parameters: its strength minus
    the mean strength, or minus the anchor's."""
    c = np.zeros(n + 1)
    if anchor is None:
        c[:n] = -1.0 / n
    else:
        c[anchor] = -1.0
    c[bot] += 1.0
    return c


def evaluate(table: Table, theta: np.ndarray, firth: bool) -> Point:
    """The penalised log-likelihood and what Newton's method needs at ``theta``."""
    n = table.n
    d = theta[table.earlier] - theta[table.later] + theta[n]
    p = expit(d)
    prior = np.full(n + 1, 1 / PRIOR_VARIANCE)
    loglik = -float(np.sum(table.score * np.logaddexp(0, -d)
                           + (table.count - table.score) * np.logaddexp(0, d)))
    loglik -= 0.5 * float(np.sum(prior * theta * theta))
    weight = table.count * p * (1 - p)
    information = _information(table, weight) + np.diag(prior)
    covariance = np.linalg.inv(information)
    residual = table.score - table.count * p
    if firth:
        loglik += 0.5 * float(np.linalg.slogdet(information)[1])
        leverage = weight * _bilinear(covariance, table.earlier, table.later, table.earlier,
                                      table.later, n)
        residual = residual + leverage * (0.5 - p)
    gradient = _spread(table, residual) - prior * theta
    return Point(theta, loglik, gradient, covariance, p)


def _information(table: Table, weight: np.ndarray) -> np.ndarray:
    """X' W X for the cells' design rows x = e_earlier − e_later + e_seat."""
    m = table.n + 1
    e, lt, h = table.earlier, table.later, np.full(len(weight), table.n)
    pairs = ((e, e, 1), (lt, lt, 1), (e, lt, -1), (lt, e, -1), (e, h, 1), (h, e, 1),
             (lt, h, -1), (h, lt, -1), (h, h, 1))
    flat = np.concatenate([a * m + b for a, b, _ in pairs])
    weights = np.concatenate([sign * weight for _, _, sign in pairs])
    return np.bincount(flat, weights=weights, minlength=m * m).reshape(m, m)


def _spread(table: Table, residual: np.ndarray) -> np.ndarray:
    """X' r: the cells' residuals onto the parameters."""
    m = table.n + 1
    out = (np.bincount(table.earlier, weights=residual, minlength=m)
           - np.bincount(table.later, weights=residual, minlength=m))
    out[table.n] += float(np.sum(residual))
    return out


def maximise(table: Table, theta: np.ndarray, firth: bool,
             contrast: np.ndarray | None = None) -> Point:
    """Newton's method (the information as the Hessian, halving steps that do not
    climb) from ``theta``; with ``contrast``, keeping ``contrast @ theta`` fixed."""
    point = evaluate(table, theta, firth)
    for _ in range(100):
        step = point.covariance @ point.gradient
        if contrast is not None:
            towards = point.covariance @ contrast
            step -= towards * (contrast @ step) / (contrast @ towards)
        size = 1.0
        trial = evaluate(table, point.theta + step, firth)
        while trial.loglik < point.loglik - 1e-12:
            size /= 2
            if size < 1e-6:
                return point
            trial = evaluate(table, point.theta + size * step, firth)
        converged = (trial.loglik - point.loglik < 1e-10
                     and float(np.max(np.abs(size * step))) < 1e-7)
        point = trial
        if converged:
            break
    return point


def jackknife_residuals(table: Table, best: Point) -> np.ndarray:
    """Each row's residual with its duplicate set's leverage taken out, (I − H_ss)⁻¹ r_s
    (the CR3 robust variance, close to deleting the set and refitting)."""
    n, rows = table.n, table.row_cell
    p = best.probability[rows]
    residual = table.row_score - table.row_count * p
    weight = table.row_count * p * (1 - p)
    corrected: np.ndarray = np.empty_like(residual)
    starts = np.searchsorted(table.row_set, np.arange(table.sets + 1))
    sizes = np.diff(starts)
    for size in np.unique(sizes):
        block = starts[:-1][sizes == size][:, None] + np.arange(size)
        e, lt = table.earlier[rows[block]], table.later[rows[block]]
        hat = _bilinear(best.covariance, e[:, :, None], lt[:, :, None], e[:, None, :],
                        lt[:, None, :], n) * weight[block][:, :, None]
        system = np.eye(size) - hat
        corrected[block] = np.linalg.solve(system, residual[block][..., None])[..., 0]
    return corrected


def _bilinear(m: np.ndarray, e1: np.ndarray, l1: np.ndarray, e2: np.ndarray,
              l2: np.ndarray, h: int) -> np.ndarray:
    """x1' M x2 for design rows x = e_earlier − e_later + e_seat."""
    return np.asarray(m[e1, e2] - m[e1, l2] + m[e1, h] - m[l1, e2] + m[l1, l2] - m[l1, h]
                      + m[h, e2] - m[h, l2] + m[h, h])


def design_effect(table: Table, best: Point, contrast: np.ndarray, residuals: np.ndarray
                  ) -> tuple[float, float]:
    """The robust over the model variance of ``contrast @ theta``, and the duplicate
    sets' degrees of freedom for it (Satterthwaite's, from each set's share of the
    model variance)."""
    towards = best.covariance @ contrast
    rows = table.row_cell
    along = towards[table.earlier[rows]] - towards[table.later[rows]] + towards[table.n]
    p = best.probability[rows]
    shares = np.bincount(table.row_set, weights=table.row_count * p * (1 - p) * along ** 2,
                         minlength=table.sets)
    squares = float(np.sum(shares * shares))
    freedom = float(np.sum(shares)) ** 2 / squares if squares > 0 else math.inf
    if table.sets < 2:
        return 1.0, freedom
    scores = np.bincount(table.row_set, weights=residuals * along, minlength=table.sets)
    robust = float(np.sum(scores * scores)) * (table.sets - 1) / table.sets
    return max(robust / float(contrast @ towards), MIN_DESIGN_EFFECT), freedom


FARTHEST = 100.0
"""How far from its estimate (natural units: about 17,000 Elo) a bound is looked for."""


def interval(table: Table, best: Point, contrast: np.ndarray, residuals: np.ndarray,
             level: float = LEVEL) -> tuple[float, float]:
    """The profile-likelihood interval of ``contrast @ theta`` in natural units."""
    variance = float(contrast @ best.covariance @ contrast)
    from scipy.special import stdtrit  # here: scipy is slow to import for the CLI

    effect, freedom = design_effect(table, best, contrast, residuals)
    quantile = float(stdtrit(max(freedom - 1, 1.0), (1 + level) / 2))
    threshold = quantile * math.sqrt(effect)
    return (_bound(table, best, contrast, threshold, -1, variance),
            _bound(table, best, contrast, threshold, 1, variance))


def _bound(table: Table, best: Point, contrast: np.ndarray, threshold: float, side: int,
           variance: float) -> float:
    """Where the root of the profile deviance reaches ``threshold`` on ``side``: the
    root is nearly linear in the value, so a secant through the estimate usually
    lands within a few steps; a bracketed root finder finishes otherwise. Infinite on
    ``side`` where the deviance stays below it up to :data:`FARTHEST` from the estimate
    (a bot that won or lost every game, with few games: the games set no bound)."""
    estimate = float(contrast @ best.theta)
    root = _profile_root(table, best, contrast, variance)
    inside, outside = estimate, math.inf
    guess = estimate + side * min(threshold * math.sqrt(variance), FARTHEST)
    for _ in range(60):
        value = root(guess)
        if value < threshold:
            inside = guess
            if abs(guess - estimate) >= FARTHEST:
                return side * math.inf
        else:
            outside = guess
        if abs(value - threshold) < 1e-4 * threshold:
            return guess
        if value > 0:
            guess = estimate + (guess - estimate) * threshold / value
        if value <= 0 or not _between(guess, inside, outside):
            guess = (inside + outside) / 2 if math.isfinite(outside) \
                else estimate + 2 * (inside - estimate)
        if not math.isfinite(outside):
            guess = estimate + side * min(abs(guess - estimate), FARTHEST)
        if math.isfinite(outside) and abs(outside - inside) < 1e-4:
            return guess
    return guess


def _between(value: float, inside: float, outside: float) -> bool:
    return min(inside, outside) < value < max(inside, outside)


def _profile_root(table: Table, best: Point, contrast: np.ndarray, variance: float
                  ) -> Callable[[float], float]:
    """The root of twice the drop of the penalised log-likelihood, maximised with
    ``contrast @ theta`` held at a value (each maximisation starting from the last)."""
    towards = best.covariance @ contrast / variance
    start = [best.theta]

    def root(value: float) -> float:
        theta = start[0] + (value - float(contrast @ start[0])) * towards
        point = maximise(table, theta, True, contrast)
        start[0] = point.theta
        return math.sqrt(max(2 * (best.loglik - point.loglik), 0.0))

    return root
