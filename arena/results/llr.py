"""The exact generalized log-likelihood ratio of the SPRT, as fishtest computes it.

For outcomes ``a_i`` (per-game scores: 0, 1/2, 1 for games; 0, 1/4, …, 1 for
seat-swapped pairs; any real value for luck-adjusted sets) seen with
frequencies ``p_i`` in ``N`` observations, the maximum-likelihood distribution
on those outcomes whose expectation is ``s`` is

    q_i = p_i / (1 + x (a_i - s)),   x the root of  sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0

(Van den Bergh, "Comments on the MLE of a multinomial distribution with a given
expectation", Proposition 1.1; fishtest's ``LLRcalc.MLE_expected``). The GSPRT's
log-likelihood ratio of H1 (expected score ``s1``) over H0 (``s0``) is then
``N * sum_i p_i * log(q1_i / q0_i)`` (fishtest's ``LLR``), which is exact away
from the hypotheses where the normal approximation
``(s1 - s0) * (2m - s0 - s1) / (2 var)`` is not.

``sum_i p_i log(1 + x (a_i - s))`` is concave in ``x`` and its maximum, the root
above, is ``-log`` of the empirical likelihood ratio of ``s`` per observation:
that is how it is computed here (Newton's method kept inside the bracket where
every ``q_i`` is positive, bisection where a step would leave it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PSEUDO_COUNT = 1e-3
"""fishtest's regularisation: an outcome never seen counts as this much of one."""

_ITERATIONS = 200


def regularized(counts: Sequence[float]) -> list[float]:
    """The counts with every zero replaced by :data:`PSEUDO_COUNT` (``LLRcalc.regularize``),
    so that no outcome is impossible and a test of only wins can still end."""
    return [c if c > 0 else PSEUDO_COUNT for c in counts]


def exact_llr(values: Sequence[float], weights: Sequence[float], s0: float, s1: float) -> float:
    """``N * sum_i p_i log(q1_i / q0_i)`` for outcomes ``values`` seen ``weights`` times
    (``N = sum(weights)``, ``p_i = weights_i / N``), ``q`` the maximum-likelihood
    distributions with expectations ``s0`` and ``s1`` (see the module's docstring).

    Both expectations must lie strictly inside the range of the outcomes with a
    positive weight (regularise the counts first); 0.0 with no weight at all.
    """
    total = sum(weights)
    if total <= 0:
        return 0.0
    probs = [w / total for w in weights]
    return total * (profile(values, probs, s0) - profile(values, probs, s1))


def profile(values: Sequence[float], probs: Sequence[float], s: float) -> float:
    """``max_x sum_i p_i log(1 + x (a_i - s))``: minus the log of the empirical
    likelihood ratio of expectation ``s``, per observation (0 at the sample's mean)."""
    p = np.asarray(probs, dtype=float)
    d = np.asarray(values, dtype=float)[p > 0] - s
    p = p[p > 0]
    lowest, highest = float(d.min()), float(d.max())
    if not lowest < 0.0 < highest:
        raise ValueError(f"expectation {s} is outside the outcomes seen "
                         f"({lowest + s} to {highest + s})")
    lo, hi = -1.0 / highest, -1.0 / lowest  # where some 1 + x d_i reaches 0
    x = 0.0
    for _ in range(_ITERATIONS):
        ratio = d / (1.0 + x * d)
        slope = float(p @ ratio)
        if slope > 0.0:
            lo = x
        else:
            hi = x
        target = x + slope / float(p @ (ratio * ratio))
        if not lo < target < hi:
            target = 0.5 * (lo + hi)
        if abs(target - x) <= 1e-15 * (1.0 + abs(x)):
            break
        x = target
    return float(p @ np.log1p(x * d))
