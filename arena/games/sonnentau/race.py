"""Sonnentau: how many dice a lone piece needs to get home, and where a roll can land it.

The measure behind the shipped ``search`` bot's evaluation and the game's value
model for luck accounting (:mod:`arena.results.values.sonnentau`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence, Set


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


Extend = Callable[[int, int], int]
"""``extend(mask, v)``: the places one die of value ``v`` takes the pieces on ``mask`` to."""


def extend_mask(reach: Sequence[Mapping[int, int]], mask: int, value: int) -> int:
    """The places (a bit mask) one die of ``value`` takes a piece on any place of ``mask``
    to; ``reach[f][v]`` is the mask of the places from ``f``."""
    moved = 0
    while mask:
        low = mask & -mask
        moved |= reach[low.bit_length() - 1].get(value, 0)
        mask ^= low
    return moved


def landings(extend: Extend, mask: int, values: tuple[int, ...]) -> int:
    """Every place a piece on ``mask`` can end a die on, chaining the roll's ``values`` in
    any order (blocking ignored)."""
    total = 0
    for i, v in enumerate(values):
        if v in values[:i]:
            continue
        moved = extend(mask, v)
        total |= moved
        if len(values) > 1 and moved:
            total |= landings(extend, moved, values[:i] + values[i + 1:])
    return total


def hit_chances(extend: Extend, rolls: Iterable[tuple[tuple[int, ...], float]], source: int,
                places: int) -> list[float]:
    """``p[f]``: the chance that a piece on ``source`` can end a die on place ``f`` in one
    roll (``rolls``: values and probability), chaining any of the roll's dice in any order."""
    probs = [0.0] * places
    for values, p in rolls:
        mask = landings(extend, 1 << source, values)
        while mask:
            low = mask & -mask
            probs[low.bit_length() - 1] += p
            mask ^= low
    return probs
