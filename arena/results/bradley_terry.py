"""Offline ratings: a Bradley-Terry fit over all stored games, with intervals.

Every game gives one comparison per pair of its seats (a two-player game one; a
table of ``k`` its ``k (k − 1) / 2`` pairs, by their ranks), scored 1, ½ or 0
for the earlier seat. The model: the earlier seat of a pair scores with
probability ``1 / (1 + exp(s_later − s_earlier − h))``, ``s`` a bot's strength
and ``h`` the advantage of sitting earlier (the first seat, in two-player
games). The maximum-likelihood fit (``scipy.optimize``, L-BFGS) has a weak
Gaussian prior on the strengths (variance 100 in natural units, far wider than
any real spread) so that a bot that won every game still gets a finite rating.

Unlike TrueSkill, the fit does not depend on the order the games were played
in: TrueSkill updates game by game and forgets nothing, so the same results in
another order give (slightly) other ratings; this fit sees all games at once.

Ratings are on the Elo scale (400 / ln 10 per natural unit) and anchored: the
mean is 0, or the anchor bot has the given rating (Ordo's ``-a``). The 95 %
intervals are bootstrap percentiles, resampling whole duplicate sets (every
seat rotation of one seed together), not single games: the games of a set share
their dice, and resampling them apart would understate the uncertainty.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

ELO_PER_UNIT = 400 / math.log(10)
PRIOR_VARIANCE = 100.0
BOOTSTRAP = 200


@dataclass(frozen=True)
class SeatedGame:
    """A game as the fit sees it: the bots in seat order, their ranks, and the duplicate
    set it belongs to (any hashable key)."""

    bots: tuple[int, ...]
    ranks: tuple[int, ...]
    group: object


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


def comparisons(games: Iterable[SeatedGame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Earlier bots, later bots, the earlier one's scores: one row per pair of seats."""
    earlier, later, scores = [], [], []
    for game in games:
        for a in range(len(game.bots)):
            for b in range(a + 1, len(game.bots)):
                if game.bots[a] == game.bots[b]:
                    continue
                earlier.append(game.bots[a])
                later.append(game.bots[b])
                ra, rb = game.ranks[a], game.ranks[b]
                scores.append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
    return np.array(earlier, dtype=int), np.array(later, dtype=int), np.array(scores)


def fit_strengths(n: int, earlier: np.ndarray, later: np.ndarray, scores: np.ndarray
                  ) -> tuple[np.ndarray, float]:
    """Maximum a posteriori strengths of bots ``0..n-1`` and the earlier seat's
    advantage, in natural units."""
    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        s, h = x[:n], x[n]
        d = s[earlier] - s[later] + h
        p = 1 / (1 + np.exp(-d))
        eps = 1e-12
        loss = -np.sum(scores * np.log(p + eps) + (1 - scores) * np.log(1 - p + eps))
        loss += float(np.sum(s * s)) / (2 * PRIOR_VARIANCE)
        residual = scores - p
        grad = np.zeros(n + 1)
        np.add.at(grad, earlier, -residual)
        np.add.at(grad, later, residual)
        grad[:n] += s / PRIOR_VARIANCE
        grad[n] = -float(np.sum(residual))
        return float(loss), grad

    found = minimize(objective, np.zeros(n + 1), jac=True, method="L-BFGS-B")
    return found.x[:n], float(found.x[n])


def fit(games: Sequence[SeatedGame], *, anchor: tuple[int, float] | None = None,
        bootstrap: int = BOOTSTRAP, seed: int = 0) -> BradleyTerry:
    """Fit all ``games``; intervals from ``bootstrap`` resamplings of their duplicate sets
    (seeded: the same games give the same intervals)."""
    bots = sorted({bot for game in games for bot in game.bots})
    index = {bot: i for i, bot in enumerate(bots)}
    mapped = [SeatedGame(tuple(index[b] for b in g.bots), g.ranks, g.group) for g in games]
    elo, advantage = _anchored(len(bots), mapped, anchor and (index[anchor[0]], anchor[1]))
    groups: dict[object, list[SeatedGame]] = {}
    for game in mapped:
        groups.setdefault(game.group, []).append(game)
    keys = list(groups)
    rng = random.Random(seed)
    samples, advantages = [], []
    for _ in range(bootstrap):
        drawn = [game for key in rng.choices(keys, k=len(keys)) for game in groups[key]]
        sample, sample_advantage = _anchored(len(bots), drawn,
                                             anchor and (index[anchor[0]], anchor[1]))
        samples.append(sample)
        advantages.append(sample_advantage)
    table = np.array(samples) if samples else np.array([elo])
    low, high = np.percentile(table, 2.5, axis=0), np.percentile(table, 97.5, axis=0)
    seat = (float(np.percentile(advantages, 2.5)), float(np.percentile(advantages, 97.5))) \
        if advantages else (advantage, advantage)
    counts: dict[int, int] = {}
    for game in games:
        for bot in game.bots:
            counts[bot] = counts.get(bot, 0) + 1
    return BradleyTerry({bot: float(elo[i]) for bot, i in index.items()},
                        {bot: float(low[i]) for bot, i in index.items()},
                        {bot: float(high[i]) for bot, i in index.items()},
                        advantage, seat, counts)


def _anchored(n: int, games: Sequence[SeatedGame], anchor: tuple[int, float] | None
              ) -> tuple[np.ndarray, float]:
    """Elo ratings (mean 0, or the anchor's given value) and the seat advantage in Elo."""
    strengths, advantage = fit_strengths(n, *comparisons(games))
    elo = strengths * ELO_PER_UNIT
    shift = (anchor[1] - elo[anchor[0]]) if anchor else -float(np.mean(elo))
    return elo + shift, advantage * ELO_PER_UNIT
