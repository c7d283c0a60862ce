"""Sonnentau: how many dice a lone piece needs to get home, by value iteration.

The measure behind the shipped ``search`` bot's evaluation and the game's value
model for luck accounting (:mod:`arena.results.values.sonnentau`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set


def dice_to_home(reach: Sequence[Mapping[int, Set[int]]], die: Mapping[int, float], goal: int,
                 *, tolerance: float = 1e-12, sweeps: int = 1000) -> list[float]:
    """Expected dice a lone piece needs to get home from each place.

    ``reach[f][v]`` are the places one die of value ``v`` can take a piece on ``f``
    to, ``die[v]`` that value's chance, ``goal`` the goal's place. The piece moves
    to the best place it reaches or stays (the die is used elsewhere). For a place
    with best reachable costs ``m_v`` the optimal rule "move when ``m_v < V``" gives
    ``V = (1 + sum p_v m_v) / sum p_v`` over the values that move, minimised over
    the thresholds; Gauss-Seidel sweeps repeat that until no cost changes by more
    than ``tolerance``.
    """
    inf = math.inf
    cost = [inf] * len(reach)
    cost[goal] = 0.0
    sources = [f for f in range(len(reach)) if f != goal]
    for _sweep in range(sweeps):
        change = 0.0
        for f in sources:
            options = sorted((min((cost[g] for g in reach[f][v]), default=inf), p)
                             for v, p in die.items())
            best, weight, total = inf, 0.0, 1.0
            for m, p in options:
                if m == inf:
                    break
                weight += p
                total += p * m
                best = min(best, total / weight)
            if best < cost[f]:
                change = max(change, cost[f] - best if cost[f] < inf else inf)
                cost[f] = best
        if change < tolerance:
            break
    return cost
