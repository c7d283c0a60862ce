"""Match statistics beside the ratings: score, Elo, LOS, pentanomial, SPRT.

What cutechess-cli and fastchess print under a head-to-head match, as pure
functions over frozen values. Everything is from the *first* bot's point of
view; a game scores 1 for a win, 1/2 for a draw and 0 for a loss.

Conventions:

* Elo is the logistic model: ``score = 1 / (1 + 10**(-elo / 400))`` and back
  ``elo = 400 * log10(s / (1 - s))``, which is ``-inf`` at ``s = 0`` and
  ``+inf`` at ``s = 1`` (no finite Elo explains a perfect score).
* The observations of an interval are games (:class:`MatchScore`, treated as
  independent), seat-swapped pairs of games on one seed (:class:`Pentanomial`:
  the pair is one observation, which accounts for the correlation the shared
  dice create) or duplicate sets (:class:`AdjustedScore`). Intervals use
  Student's t quantile with ``n - 1`` degrees of freedom and the sample
  variance (``n - 1`` in the denominator), never the normal quantile with the
  population variance, which covers 0.90 instead of 0.95 at 10 observations.
* A raw score lies in [0, 1], and near its ends a plain ``mean ± t · s/√n``
  covers badly (a 20-of-20 sample has no spread at all). Its interval is
  therefore Wilson's score interval in the form of Korn and Graubard: Wilson's
  with the sample's *effective* number of observations ``n·m(1-m)/s²`` (draws
  and seat-swapped pairs make a game worth more than a coin toss) and the t
  quantile, and near the ends Brown, Cai and DasGupta's modification (the
  Poisson bound where at most three games, effectively, went the rare way). The
  effective number comes from a variance with half an observation added at each end of
  [0, 1] the sample has not reached: 99 wins and a draw do not claim the spread of the
  draw alone, as if no loss could come (:func:`_regularised_variance`). Far
  from the ends it is the t interval; it always holds the score, stays in
  [0, 1] and has a width. A sample without spread (every game won,
  every pair split) says nothing of its variance: it gets the largest a score
  with its mean can have, ``m(1-m)``, which is plain Wilson with the normal
  quantile, no variance having been estimated (20 wins of 20: 83.9 % to 100 %).
* With fewer than two observations an interval is ``(0, 1)``: nothing is known.
* The SPRT's log-likelihood ratio is fishtest's exact, maximum-likelihood one
  (:mod:`arena.results.llr`), on games, pairs or adjusted sets.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.games.base import ArenaError
from arena.results.llr import PSEUDO_COUNT, exact_llr, regularized

H1_ACCEPTED = "H1 accepted"
H0_ACCEPTED = "H0 accepted"
CONTINUE = "continue"

# Per-game score of a pair, by pentanomial index (pair score 0, 0.5, 1, 1.5, 2 halved).
_PAIR_GAME_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
_GAME_SCORES: tuple[float, ...] = (1.0, 0.5, 0.0)  # wins, draws, losses

ZERO_VARIANCE = 1e-12
"""A sample variance at most this times the squared scale of the values (at least 1, a
game's points) is zero up to rounding: two identical deterministic bots leave adjusted sets
whose variance is about 1e-33, which must set neither an interval nor a verdict."""


class StatsError(ArenaError, ValueError):
    """Invalid input to a statistic: negative counts, a score outside [0, 1], …"""


# ---------------------------------------------------------------------------
# Trinomial: wins, draws, losses


@dataclass(frozen=True)
class MatchScore:
    """Wins, draws and losses of the first bot against the second."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        if min(self.wins, self.draws, self.losses) < 0:
            raise StatsError(f"game counts must be >= 0, got W={self.wins} D={self.draws} "
                             f"L={self.losses}")

    @property
    def games(self) -> int:
        """Number of games played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``; 0.5 (no information) with no games."""
        if not self.games:
            return 0.5
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def variance(self) -> float:
        """Per-game variance of the score (population form, as fastchess):
        ``w * (1 - m)**2 + d * (1/2 - m)**2 + l * m**2`` with ``w, d, l`` the
        fractions of wins, draws and losses and ``m`` the score; 0 with no games.
        Intervals use the sample variance, this times ``games / (games - 1)``."""
        return _variance(_trinomial_distribution(self))


def score_interval(ms: MatchScore, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the score, treating games as independent.

    Wilson's score interval with the effective number of games
    ``n·m(1-m)/s²`` (``s²`` the sample variance of the per-game scores) and
    Student's t quantile with ``n - 1`` degrees of freedom (see the module's
    docstring); plain Wilson where every game ended alike. ``(0, 1)`` for fewer
    than two games.
    """
    return _bounded_interval(_GAME_SCORES, (ms.wins, ms.draws, ms.losses), confidence)


def elo_difference(score: float) -> float:
    """Logistic Elo difference of a score: ``400 * log10(s / (1 - s))``.

    Returns ``math.inf`` for ``s = 1`` and ``-math.inf`` for ``s = 0``; raises
    :class:`StatsError` for a score outside [0, 1].
    """
    if not 0.0 <= score <= 1.0:
        raise StatsError(f"a score must lie in [0, 1], got {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def expected_score(elo: float) -> float:
    """Logistic expected score of an Elo difference: ``1 / (1 + 10**(-elo / 400))``."""
    exponent = -elo / 400.0
    if exponent > 308.0:  # 10**exponent overflows: the score is 0 to the last digit
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


SHOWN_END = 0.0005
"""A score interval's end within this of 0 or 1 shows as 0.0 % or 100.0 %: it sets no Elo
bound on that side (two drawn games gave 0.0 % to 100.0 % beside "Elo 0.0 ± 1323.5")."""


def elo_interval(interval: tuple[float, float]) -> tuple[float, float]:
    """The ends of a score interval in Elo: ``-inf`` where it reaches 0, ``+inf`` at 1 (or
    within :data:`SHOWN_END` of them)."""
    low, high = interval
    return (-math.inf if low < SHOWN_END else elo_difference(low),
            math.inf if high > 1.0 - SHOWN_END else elo_difference(high))


def elo_with_error(ms: MatchScore, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and the +/- half-width of its interval, as cutechess-cli.

    ``elo = elo_difference(score)``; with ``(lo, hi)`` = :func:`score_interval`,
    ``error = (elo_difference(hi) - elo_difference(lo)) / 2``. The Elo interval
    is skewed, the error reported symmetric, as cutechess prints it. The error is
    ``math.inf`` when the interval reaches 0 or 1 (no games, a perfect score).
    """
    return elo_and_error(ms.score, score_interval(ms, confidence))


def likelihood_of_superiority(ms: MatchScore) -> float:
    """LOS, the probability that the first bot is the stronger (cutechess/fastchess).

    ``0.5 * (1 + erf((wins - losses) / sqrt(2 * (wins + losses))))``; draws do
    not count. 0.5 when ``wins + losses == 0``. Never past what the 95 % interval
    :func:`score_interval` shown beside it allows: at most 97.5 % while that interval
    reaches 1/2 (5 wins of 5: 97.5 %, not 98.7 % beside an interval from 47.8 %; 12 wins
    and 4 losses: not 97.7 % beside one from 47.5 %), at least 2.5 % likewise.
    """
    decisive = ms.wins + ms.losses
    if decisive == 0:
        return 0.5
    los = 0.5 * (1.0 + math.erf((ms.wins - ms.losses) / math.sqrt(2.0 * decisive)))
    low, high = score_interval(ms, SHOWN_CONFIDENCE)
    tail = (1.0 - SHOWN_CONFIDENCE) / 2.0
    if los > 1.0 - tail and low <= 0.5:
        return 1.0 - tail
    if los < tail and high >= 0.5:
        return tail
    return los


SHOWN_CONFIDENCE = 0.95
"""The confidence of the intervals arena prints beside a LOS."""


def _superiority_by_interval(score: float,
                             interval_at: Callable[[float], tuple[float, float]]) -> float:
    """The LOS the interval itself gives: ``(1 + c) / 2`` for the largest two-sided
    confidence ``c`` at which the interval lies wholly on ``score``'s side of 1/2
    (``(1 - c) / 2`` below it), by bisection."""
    above = score > 0.5

    def clear(confidence: float) -> bool:
        low, high = interval_at(confidence)
        return low > 0.5 if above else high < 0.5

    inside, outside = LOS_BISECTION
    if not clear(inside):
        return 0.5
    if clear(outside):
        inside = outside
    else:
        for _ in range(30):  # to 1e-9 of the confidence
            middle = (inside + outside) / 2.0
            inside, outside = (middle, outside) if clear(middle) else (inside, middle)
    return (1.0 + inside) / 2.0 if above else (1.0 - inside) / 2.0


LOS_BISECTION = (1e-9, 1.0 - 1e-12)
"""The confidences a LOS is searched between (:func:`_superiority_by_interval`)."""


# ---------------------------------------------------------------------------
# Pentanomial: seat-swapped pairs of games


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game pairs by the first bot's two-game score.

    ``counts[k]`` = pairs scoring ``k / 2`` for the first bot: index 0 = LL,
    1 = LD, 2 = DD or WL, 3 = WD, 4 = WW (fastchess' ``Ptnml(0-2)``).
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", tuple(self.counts))  # a list would not hash
        if len(self.counts) != 5 or min(self.counts) < 0:
            raise StatsError(f"a pentanomial needs 5 counts >= 0 (LL, LD, DD/WL, WD, WW), "
                             f"got {self.counts}")

    @property
    def pairs(self) -> int:
        """Number of game pairs."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """Number of games: two per pair."""
        return 2 * self.pairs

    @property
    def score(self) -> float:
        """Mean per-game score, ``sum(counts[k] * k / 4) / pairs``; 0.5 with no pairs.

        The same number as the trinomial score of the same games.
        """
        return _mean(_pentanomial_distribution(self)) if self.pairs else 0.5

    @property
    def variance(self) -> float:
        """Per-pair variance of the per-game score of a pair (``pair score / 2``):
        ``sum(p_k * (k / 4 - m)**2)`` with ``p_k = counts[k] / pairs``; 0 with no pairs
        (population form; intervals use the sample variance)."""
        return _variance(_pentanomial_distribution(self))


def pentanomial_from_pairs(pair_scores: Iterable[float]) -> Pentanomial:
    """Count pairs by two-game score (0, 0.5, 1, 1.5 or 2 for the first bot)."""
    counts = [0] * 5
    for pair_score in pair_scores:
        counts[_pair_index(pair_score)] += 1
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


def pentanomial_interval(p: Pentanomial, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the per-game score from pairs, one observation per pair.

    As :func:`score_interval`, with the pairs' per-game scores (0, 1/4, …, 1)
    as the observations; ``(0, 1)`` for fewer than two pairs.
    """
    return _bounded_interval(_PAIR_GAME_SCORES, p.counts, confidence)


def pentanomial_elo_with_error(p: Pentanomial, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and symmetric error from :func:`pentanomial_interval`.

    ``error = (elo_difference(hi) - elo_difference(lo)) / 2``, as
    :func:`elo_with_error`.
    """
    return elo_and_error(p.score, pentanomial_interval(p, confidence))


# ---------------------------------------------------------------------------
# Paired scores: one observation per duplicate set


def mean_score_interval(units: Sequence[float], confidence: float = 0.95
                        ) -> tuple[float, float]:
    """Confidence interval of the expected value of observations in [0, 1], one per
    independent unit (a paired score per duplicate set), as :func:`score_interval`:
    Wilson's with the effective number of observations and the t quantile. ``(0, 1)``
    below two units."""
    return _bounded_interval(units, [1] * len(units), confidence)


def set_units(means: Sequence[float], sizes: Sequence[float]) -> list[float]:
    """Duplicate sets of unequal size (games a failure left out, a set cut short) as units
    for :func:`mean_score_interval` and :func:`mean_likelihood_of_superiority`: their plain
    mean is the games' score (sizes times means over the sizes), their spread the ratio
    estimator's (each set's difference from it weighted by its size over the mean size).
    Sets of one size are their means unchanged; where sizes differ, a unit may lie a
    little outside [0, 1] (the interval itself stays within it)."""
    total = sum(sizes)
    if len(means) != len(sizes) or not total:
        return list(means)
    score = sum(mean * size for mean, size in zip(means, sizes, strict=True)) / total
    mean_size = total / len(sizes)
    return [score + size / mean_size * (mean - score)
            for mean, size in zip(means, sizes, strict=True)]


def sets_of(groups: Iterable[Sequence[float]]) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Each duplicate set's mean points and its number of games, from its games' points."""
    kept = [points for points in groups if points]
    return (tuple(sum(points) / len(points) for points in kept),
            tuple(len(points) for points in kept))


def sets_interval(means: Sequence[float], sizes: Sequence[float],
                  confidence: float = 0.95) -> tuple[float, float]:
    """The score's interval over duplicate sets of these means and sizes (:func:`set_units`)."""
    return mean_score_interval(set_units(means, sizes), confidence)


def sets_likelihood_of_superiority(means: Sequence[float], sizes: Sequence[float]) -> float:
    """The LOS over duplicate sets of these means and sizes (:func:`set_units`)."""
    return mean_likelihood_of_superiority(set_units(means, sizes))


def mean_likelihood_of_superiority(units: Sequence[float]) -> float:
    """The probability that the expected value of ``units`` (scores in [0, 1]) is above
    1/2, as :func:`mean_score_interval` tests it: ``(1 + c) / 2`` for the largest
    confidence ``c`` at which that interval lies above 1/2 (``(1 - c) / 2`` for one below
    it). So the LOS is above 97.5 % exactly where the 95 % interval lies above 1/2, even
    where the interval is the exact one of a few sets or widened for a sweep (2 sets won
    twice: 73.6 %, not 100 %). Where Student's t on the interval's own variance says
    more (the exact interval of two sets, one won twice and one split, leans neither way
    even at no confidence), that, but never past 97.5 % while the 95 % interval reaches
    1/2. 0.5 below two units or at a mean of 1/2."""
    n = len(units)
    if n < 2:
        return 0.5
    mean = sum(units) / n
    if math.isclose(mean, 0.5, abs_tol=1e-12):
        return 0.5
    tested = _superiority_by_interval(mean, lambda c: mean_score_interval(units, c))
    leaning = _t_superiority(units, mean)
    low, high = mean_score_interval(units, SHOWN_CONFIDENCE)
    tail = (1.0 - SHOWN_CONFIDENCE) / 2.0
    surest = _sweep_superiority(n)  # no result of n units is surer than all n won
    if mean > 0.5:
        return max(tested, min(leaning, 1.0 if low > 0.5 else 1.0 - tail, surest))
    return min(tested, max(leaning, 0.0 if high < 0.5 else tail, 1.0 - surest))


@functools.lru_cache(maxsize=256)
def _sweep_superiority(n: int) -> float:
    """The LOS of ``n`` units all 1, as their interval tests it."""
    return _superiority_by_interval(1.0, lambda c: mean_score_interval([1.0] * n, c))


def _t_superiority(units: Sequence[float], mean: float) -> float:
    """Student's t at ``(mean - 1/2) / (s / sqrt(n))``, ``s²`` the variance the interval
    takes (regularised, at most the largest a sample of this mean can show)."""
    from scipy.special import stdtr

    n = len(units)
    m = min(1.0, max(0.0, mean))
    largest = m * (1.0 - m) * n / (n - 1)
    variance = largest if _no_spread(units) else min(
        _regularised_variance(units, [1] * n, m), largest)
    if variance <= 0.0:
        return 0.5
    return float(stdtr(n - 1, (mean - 0.5) / math.sqrt(variance / n)))


# ---------------------------------------------------------------------------
# Luck-adjusted results


@dataclass(frozen=True)
class AdjustedScore:
    """The first bot's luck-adjusted points (points minus the dice's luck, see
    :mod:`arena.results.luck`), one mean per duplicate set of games.

    Adjusted points are unbiased estimates of the expected score, but continuous
    (a game can be worth 0.83 or even -0.1), so the statistics are those of a
    sample mean: the sets are the independent observations, as in the pentanomial.
    Their mean can fall outside [0, 1] where the value model misjudges the luck
    of these bots' games (a model of strong play judging a sweep); then
    :attr:`outside` is true and :attr:`score` and :func:`adjusted_interval` are
    the raw sets' instead. Build one with :func:`luck_adjusted`.
    """

    units: tuple[float, ...] = ()
    """Per duplicate set: the mean adjusted score per game of the first bot."""
    games: int = 0
    raw_variance: float = 0.0
    """The same sets' variance with the raw points, for the variance ratio."""
    scale: float = 1.0
    """How much of the accounted luck was taken out (the mean of the folds' factors)."""
    folds: int = 1
    """Cross-fitting folds: set ``i`` was adjusted with the share fitted on the sets
    outside fold ``i % folds``; 1 where no share was fitted."""
    raw_units: tuple[float, ...] = ()
    """Per set: the raw mean score per game (empty where not known)."""

    @property
    def sets(self) -> int:
        return len(self.units)

    @property
    def mean(self) -> float:
        """Mean adjusted score per game, even outside [0, 1]; 0.5 with no sets."""
        return sum(self.units) / len(self.units) if self.units else 0.5

    @property
    def outside(self) -> bool:
        """True where the adjusted sets' mean lies outside [0, 1]: no expected score
        can be there, so the adjustment does not fit these games."""
        return not 0.0 <= self.mean <= 1.0

    @property
    def uniform(self) -> bool:
        """True where every raw set has the same result (a sweep, say, or a single set):
        there is no noise in them to take out, and the adjustment would only add the
        luck's own, so the raw sets' score stands."""
        return bool(self.raw_units) and max(self.raw_units) == min(self.raw_units)

    @property
    def raw_stands(self) -> bool:
        """True where :attr:`score` and :func:`adjusted_interval` are the raw sets'
        (:attr:`outside` or :attr:`uniform`)."""
        return self.outside or self.uniform

    @property
    def raw_reason(self) -> str:
        """Why the raw sets' score stands (empty where it does not)."""
        if self.outside:
            return (f"the adjusted sets average {100 * self.mean:.1f}%, outside 0-100% "
                    "where no expected score can be")
        if self.uniform:
            sets = ("the only duplicate set" if self.sets == 1
                    else f"all {self.sets} duplicate sets")
            return (f"the raw result is the same in {sets}: there is no noise to take the "
                    "luck out of")
        return ""

    @property
    def score(self) -> float:
        """The estimate to show: the adjusted mean, or where the raw sets' stands
        (:attr:`raw_stands`) their mean (the adjusted one clamped where the raw sets are
        unknown)."""
        if not self.raw_stands:
            return self.mean
        if self.raw_units:
            return sum(self.raw_units) / len(self.raw_units)
        return min(1.0, max(0.0, self.mean))

    @property
    def variance(self) -> float:
        """Per-set variance of the sets' mean adjusted score (population form, as the
        pentanomial's); 0 with fewer than two sets."""
        return _population_variance(self.units)

    @property
    def variance_ratio(self) -> float:
        """Adjusted over raw variance per set: the share of games still needed for the
        same certainty (``nan`` where the raw variance is 0)."""
        return self.variance / self.raw_variance if self.raw_variance else math.nan


CROSS_FIT_FROM = 40
"""Sets from which the share of the luck taken out is fitted (below, all of it is)."""
RAW_PSEUDO_SETS = 0.25
"""Below :data:`CROSS_FIT_FROM` sets, the adjusted interval's variance counts this much of
a set with the raw sets' variance (see :func:`adjusted_interval`): measured, it lifts the
coverage at 10 sets from 0.88-0.94 to 0.94-0.98 (bench/interval_coverage.py)."""
SCALE_RANGE = (0.0, 1.5)


def luck_adjusted(points: Sequence[float], luck: Sequence[float],
                  games: int = 0, sizes: Sequence[float] | None = None) -> AdjustedScore:
    """The adjusted score from each set's mean points and mean accounted luck; with
    ``sizes`` (each set's games, where they differ: a set cut short) both as
    :func:`set_units` weighs them, so that the score is the games' score, as the raw
    one is.

    A set's adjusted score is ``points - c * luck``. Any fixed ``c`` keeps it
    unbiased, since luck has mean zero; ``c = 1`` takes out all the luck the
    value model sees, but where the model overstates the luck (a model made for
    strong play judging weak bots) a smaller ``c`` leaves less noise. So from
    ``CROSS_FIT_FROM`` sets on, ``c`` is fitted, by cross-fitting: the sets are
    split into two halves by their order, and each half is adjusted with the
    least-squares ``c = cov(points, luck) / var(luck)`` of the *other* half
    (clamped to 0..1.5), which is independent of it, so that every adjusted set
    stays unbiased, and each half's spread shows the error of the slope it was
    given (:func:`adjusted_interval`).
    """
    if len(points) != len(luck) or (sizes is not None and len(sizes) != len(points)):
        raise StatsError("points, luck and sizes differ in length")
    if sizes is not None and len(set(sizes)) > 1:
        points, luck = set_units(points, sizes), set_units(luck, sizes)
    folds = (list(range(0, len(points), 2)), list(range(1, len(points), 2)))
    fitted = len(points) >= CROSS_FIT_FROM
    scales = [1.0, 1.0]
    if fitted:
        scales = [_least_squares_scale([points[i] for i in folds[1 - f]],
                                       [luck[i] for i in folds[1 - f]]) for f in (0, 1)]
    units = tuple(p - scales[i % 2] * lk for i, (p, lk) in enumerate(zip(points, luck,
                                                                          strict=True)))
    scale = sum(scales[i % 2] for i in range(len(points))) / len(points) if points else 1.0
    return AdjustedScore(units, games, _population_variance(points), scale,
                         folds=2 if fitted else 1, raw_units=tuple(points))


def _least_squares_scale(points: Sequence[float], luck: Sequence[float]) -> float:
    n = len(points)
    mean_p, mean_l = sum(points) / n, sum(luck) / n
    spread = sum((lk - mean_l) ** 2 for lk in luck)
    if spread == 0.0:
        return 1.0
    together = sum((p - mean_p) * (lk - mean_l) for p, lk in zip(points, luck, strict=True))
    return min(SCALE_RANGE[1], max(SCALE_RANGE[0], together / spread))


def adjusted_interval(a: AdjustedScore, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the expected score from adjusted sets, within [0, 1].

    ``mean ± t · se``. With one fold (below :data:`CROSS_FIT_FROM` sets, where all
    the accounted luck is taken out), ``se² = v/n`` and ``n - 1`` degrees of freedom,
    ``v`` the sets' sample variance with :data:`RAW_PSEUDO_SETS` of a set of the raw
    sets' variance added (``v = (sum (u - mean)² + k s_raw²) / (n - 1 + k)``, ``s_raw²``
    with half a set at each end of [0, 1] no raw set reached, so that ten sets all won
    still lend a spread): a few
    sets that happen to miss a rare large swing, which raw points bounded in [0, 1]
    show and adjusted ones need not, then do not claim the adjustment took it out.
    With two cross-fitting folds each fold's sets share the slope fitted
    on the other fold: given that slope they are independent with the fold's
    mean, so each fold's sample variance (which a badly fitted slope inflates)
    measures its mean's error: ``se² = sum_f n_f s_f² / n²``, with Welch and
    Satterthwaite's degrees of freedom, each fold's counted with its kurtosis
    (:func:`_variance_df`). Sets without spread (zero up to
    rounding) say nothing of the variance: Wilson's interval for ``n``
    observations, with the normal quantile. Where the adjusted mean lies outside
    [0, 1], or the raw sets are all alike, the raw sets' interval (see
    :attr:`AdjustedScore.raw_stands`). ``(0, 1)``
    below two sets.
    """
    _check_confidence(confidence)
    if a.raw_stands and a.raw_units:
        return _bounded_interval(a.raw_units, [1] * len(a.raw_units), confidence)
    if a.outside:
        return _wilson(a.score, a.sets, _t(confidence, math.inf)) if a.sets > 1 else (0.0, 1.0)
    prior = (_regularised_variance(a.raw_units, [1] * len(a.raw_units),
                                   sum(a.raw_units) / len(a.raw_units))
             if a.folds == 1 and len(a.raw_units) > 1 else 0.0)
    return _clamped(_mean_interval(a.units, a.folds, confidence, prior))


def adjusted_elo_with_error(a: AdjustedScore, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and symmetric error of :attr:`AdjustedScore.score` from
    :func:`adjusted_interval` (``±inf`` at a score of 0 or 1, an error of ``inf``
    where the interval reaches 0 or 1)."""
    return elo_and_error(a.score, adjusted_interval(a, confidence))


def sprt_llr_adjusted(a: AdjustedScore, settings: SprtSettings) -> float:
    """Log-likelihood ratio of H1 over H0 from luck-adjusted sets.

    fishtest's exact GSPRT ratio (:func:`arena.results.llr.exact_llr`) with
    every set's adjusted score an outcome seen once, and, as fishtest gives an
    outcome never seen a pseudo-count, the two ends of the score, 0 and 1, a
    pseudo-count of :data:`~arena.results.llr.PSEUDO_COUNT` each: no expected
    score is impossible merely because no set lay beyond it. The test stays
    valid because it needs only independent observations of the expected score:
    sets are independent (each has its own dice), and luck has zero mean
    whatever the value model, so an adjusted set's expectation is the same
    expected score that H0 and H1 are about; only its variance is smaller. The
    share of luck taken out is fitted on the other half of the sets
    (:func:`luck_adjusted`), so it does not bias the set it adjusts.

    Sets without spread (variance below :data:`ZERO_VARIANCE`, relative) count
    as one outcome, their mean, seen ``sets`` times, as fishtest's pairs that all
    score alike: then only the pseudo-counts weigh against it, and the test
    moves slowly (two identical deterministic bots: H1 after about 500 sets at
    elo0 -3, elo1 1, never for hypotheses symmetric about their 50 %), instead
    of jumping to 1e15 on rounding. 0.0 with no sets.
    """
    if not a.sets:
        return 0.0
    values, weights = list(a.units), [1.0] * a.sets
    if _no_spread(values):
        values, weights = [a.mean], [float(a.sets)]
    s0, s1 = _hypotheses(settings)
    return exact_llr([*values, 0.0, 1.0], [*weights, PSEUDO_COUNT, PSEUDO_COUNT], s0, s1)


# ---------------------------------------------------------------------------
# SPRT


MAX_SPRT_ELO = 1600
"""The largest Elo difference an SPRT hypothesis may name (an expected score of 0.9999)."""
MIN_SPRT_GAP = 1e-4
"""The least difference of the hypotheses' expected scores (0.07 Elo near an even score)."""
MIN_SPRT_RATE, MAX_SPRT_RATE = 1e-6, 0.5
"""The error rates an SPRT takes (fishtest's tests use 0.05)."""


@dataclass(frozen=True)
class SprtSettings:
    """H0: the Elo difference is ``elo0``; H1: it is ``elo1`` (logistic Elo).

    ``alpha`` is the false-positive rate (accepting H1 when H0 holds), ``beta``
    the false-negative rate.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise StatsError(f"SPRT needs elo0 < elo1, got elo0={self.elo0} elo1={self.elo1}")
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not 0.0 < expected_score(elo) < 1.0:
                raise StatsError(f"SPRT {name} {elo} is no finite expected score")
            if abs(elo) > MAX_SPRT_ELO:  # (the adjusted test ran to its cap undecided)
                raise StatsError(f"SPRT {name} {elo:g}: hypotheses beyond ±{MAX_SPRT_ELO:,} "
                                 "Elo (an expected score within 0.0001 of 0 or 1) are told "
                                 "apart by no number of games")
        if expected_score(self.elo1) - expected_score(self.elo0) < MIN_SPRT_GAP:
            raise StatsError(f"SPRT elo0 {self.elo0:g} and elo1 {self.elo1:g} expect scores "
                             f"less than {MIN_SPRT_GAP:g} apart: no number of games tells "
                             "them apart; name hypotheses further apart")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 1.0:
                raise StatsError(f"SPRT {name} must lie strictly between 0 and 1, got {rate}")
            if not MIN_SPRT_RATE <= rate <= MAX_SPRT_RATE:
                raise StatsError(
                    f"SPRT {name} {rate:g}: take a rate from {MIN_SPRT_RATE:g} to "
                    f"{MAX_SPRT_RATE:g} (above it the test errs more often than not, below "
                    "it no comparison plays games enough to decide)")
        if not self.alpha + self.beta < 1.0:  # Wald's bounds would cross: H1 at once
            raise StatsError(f"SPRT needs alpha + beta below 1, got alpha={self.alpha} "
                             f"beta={self.beta}")


@dataclass(frozen=True)
class SprtResult:
    """Log-likelihood ratio, the bounds it is compared with, and the verdict."""

    llr: float
    lower: float
    upper: float
    verdict: str

    @property
    def is_finished(self) -> bool:
        """True once H0 or H1 is accepted."""
        return self.verdict != CONTINUE


def sprt_bounds(settings: SprtSettings) -> tuple[float, float]:
    """Wald's bounds: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    +/-2.944 (``log 19``) for ``alpha = beta = 0.05``.
    """
    lower = math.log(settings.beta / (1.0 - settings.alpha))
    upper = math.log((1.0 - settings.beta) / settings.alpha)
    return lower, upper


def sprt_llr(wins: int, draws: int, losses: int, settings: SprtSettings) -> float:
    """Log-likelihood ratio of H1 over H0 from single games (trinomial GSPRT).

    fishtest's exact ratio (``LLRcalc.LLR_logistic`` on ``[L, D, W]``): the
    counts regularised (an outcome never seen counts as 1e-3 of a game, so
    that a bot that only wins still ends the test), then
    :func:`arena.results.llr.exact_llr` with the logistic expected scores of
    ``elo0`` and ``elo1``. 0.0 with no games.
    """
    ms = MatchScore(wins, draws, losses)
    if not ms.games:
        return 0.0
    s0, s1 = _hypotheses(settings)
    return exact_llr(_GAME_SCORES, regularized([wins, draws, losses]), s0, s1)


def sprt_llr_pentanomial(p: Pentanomial, settings: SprtSettings) -> float:
    """Log-likelihood ratio of H1 over H0 from game pairs (pentanomial GSPRT).

    As :func:`sprt_llr`, with the five pair outcomes (per-game scores 0, 1/4,
    1/2, 3/4, 1) and ``n`` = pairs: fishtest's ``LLR_logistic`` on a
    pentanomial. 0.0 with no pairs.
    """
    if not p.pairs:
        return 0.0
    s0, s1 = _hypotheses(settings)
    return exact_llr(_PAIR_GAME_SCORES, regularized(p.counts), s0, s1)


def sprt(result: MatchScore | Pentanomial | AdjustedScore,
         settings: SprtSettings | None = None) -> SprtResult:
    """Run the SPRT on a trinomial, pentanomial or luck-adjusted result (default settings
    if None).

    Verdict: ``"H1 accepted"`` if ``llr >= upper`` (the first bot is at least
    ``elo1`` stronger), ``"H0 accepted"`` if ``llr <= lower`` (it is not better
    than ``elo0``), ``"continue"`` otherwise.
    """
    settings = settings if settings is not None else SprtSettings()
    if isinstance(result, Pentanomial):
        llr = sprt_llr_pentanomial(result, settings)
    elif isinstance(result, AdjustedScore):
        llr = sprt_llr_adjusted(result, settings)
    else:
        llr = sprt_llr(result.wins, result.draws, result.losses, settings)
    lower, upper = sprt_bounds(settings)
    return SprtResult(llr, lower, upper, _verdict(llr, lower, upper))


# ---------------------------------------------------------------------------
# Helpers


def _hypotheses(settings: SprtSettings) -> tuple[float, float]:
    return expected_score(settings.elo0), expected_score(settings.elo1)


def _trinomial_distribution(ms: MatchScore) -> list[tuple[float, float]]:
    """(per-game score, probability) pairs; empty with no games."""
    n = ms.games
    if not n:
        return []
    return [(1.0, ms.wins / n), (0.5, ms.draws / n), (0.0, ms.losses / n)]


def _pentanomial_distribution(p: Pentanomial) -> list[tuple[float, float]]:
    """(per-game score of a pair, probability) pairs; empty with no pairs."""
    n = p.pairs
    if not n:
        return []
    return [(x, count / n) for x, count in zip(_PAIR_GAME_SCORES, p.counts, strict=True)]


def _pair_index(pair_score: float) -> int:
    doubled = 2 * pair_score
    index = round(doubled) if math.isfinite(doubled) else -1
    if not (0 <= index <= 4 and math.isclose(index, doubled, abs_tol=1e-9)):
        raise StatsError(f"a pair score must be 0, 0.5, 1, 1.5 or 2, got {pair_score}")
    return index


def _mean(distribution: list[tuple[float, float]]) -> float:
    return sum(x * prob for x, prob in distribution)


def _variance(distribution: list[tuple[float, float]]) -> float:
    mean = _mean(distribution)
    return sum(prob * (x - mean) ** 2 for x, prob in distribution)


def _population_variance(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def _sample_variance(values: Sequence[float]) -> float:
    n = len(values)
    return _population_variance(values) * n / (n - 1) if n >= 2 else 0.0


def _no_spread(values: Sequence[float]) -> bool:
    """True where the values' variance is zero up to rounding (see ZERO_VARIANCE)."""
    scale = max([1.0, *(abs(v) for v in values)])
    return _population_variance(values) <= ZERO_VARIANCE * scale * scale


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise StatsError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def _t(confidence: float, df: float) -> float:
    """Student's t quantile for a two-sided ``confidence``; ``inf`` without a degree of
    freedom (one observation bounds nothing)."""
    _check_confidence(confidence)
    if df <= 0:
        return math.inf
    if math.isinf(df):
        return NormalDist().inv_cdf((1.0 + confidence) / 2.0)
    from scipy.special import stdtrit  # imported here: scipy is slow to load for the CLI

    return float(stdtrit(df, (1.0 + confidence) / 2.0))


def _wilson(mean: float, n: float, q: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``mean`` from ``n`` observations with
    quantile ``q``: the ``p`` with ``(mean - p)² <= q² p (1 - p) / n``."""
    if n <= 0 or math.isinf(q):
        return 0.0, 1.0
    k = q * q / n
    centre = (mean + k / 2.0) / (1.0 + k)
    half = q * math.sqrt(mean * (1.0 - mean) / n + k / (4.0 * n)) / (1.0 + k)
    # it always holds the mean; min and max keep it so at 0 and 1 despite rounding
    return max(0.0, min(mean, centre - half)), min(1.0, max(mean, centre + half))


def _bounded_interval(values: Sequence[float], counts: Sequence[float],
                      confidence: float) -> tuple[float, float]:
    """Wilson's interval with the effective number of observations and the t quantile
    (Korn and Graubard), for observations ``values`` in [0, 1] seen ``counts`` times."""
    _check_confidence(confidence)
    n = sum(counts)
    if n < 2:
        return 0.0, 1.0
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    mean = min(1.0, max(0.0, mean))
    squares = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True))
    bernoulli = mean * (1.0 - mean)
    if squares / (n - 1) > ZERO_VARIANCE and bernoulli > 0:
        unseen, weight = _unseen_ends(values, counts, mean)
        effective = n * bernoulli * (n - 1 + weight) / (squares + unseen)
        # never a variance above the largest a sample of this mean can show (all of it at
        # 0 and 1): near a sweep the unseen end's share would otherwise outgrow the
        # mean's own spread, and a set won instead of split would widen the interval
        effective = max(effective, n - 1)
        q = _t(confidence, n - 1)
    else:  # no spread, or a score of 0 or 1: the largest variance, none estimated
        effective, q = n, _t(confidence, math.inf)
    low, high = _wilson(mean, effective, q)
    low, high = _rare_side(mean, effective, confidence, low, high)
    return _exact_when_few(mean, effective, confidence, low, high)


UNSEEN_END = 0.5
"""Observations added at an end of [0, 1] that a sample has not seen (see
:func:`_regularised_variance`)."""


def _regularised_variance(values: Sequence[float], counts: Sequence[float],
                          mean: float) -> float:
    """The sample variance of ``values`` in [0, 1] (seen ``counts`` times, mean ``mean``),
    with :data:`UNSEEN_END` of an observation added at each end of [0, 1] that no
    observation reached: a sample that has not yet seen the rare outcome (99 wins, one draw
    and no loss in 100 games) does not claim a spread far below what one such outcome would
    show. Its weight fades as the sample grows; a sample that saw both ends is unchanged."""
    squares = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True))
    unseen, weight = _unseen_ends(values, counts, mean)
    return (squares + unseen) / (sum(counts) - 1 + weight)


def _unseen_ends(values: Sequence[float], counts: Sequence[float],
                 mean: float) -> tuple[float, float]:
    """(squared deviations, weight) of :data:`UNSEEN_END` of an observation at each end of
    [0, 1] that no observation reached (see :func:`_regularised_variance`)."""
    seen = {v for c, v in zip(counts, values, strict=True) if c > 0}
    ends = [end for end in (0.0, 1.0) if end not in seen]
    return (UNSEEN_END * sum((end - mean) ** 2 for end in ends), UNSEEN_END * len(ends))


RARE = 3.0
"""Effective losses (or wins) up to which the Poisson bound widens Wilson's interval."""


FEW = 30.0
"""Fewer (effective) observations than this: an interval is never narrower than Clopper and
Pearson's exact one (see :func:`_exact_when_few`)."""


def _exact_when_few(mean: float, n: float, confidence: float, low: float,
                    high: float) -> tuple[float, float]:
    """Below :data:`FEW` observations with at most :data:`RARE` wins or losses, the exact
    (Clopper-Pearson) interval of ``mean·n`` successes where it is wider: Wilson's end
    away from a sweep covers too little there
    (4 wins of 4: 51 % where the exact bound is 40 %, a 95 % interval covering 87.5 % of
    the time at a true score of 51 %), and :func:`_rare_side` corrects only the end of a
    rare outcome."""
    from scipy.special import betaincinv  # beta.ppf, without scipy.stats' 0.3 ms a call

    successes = mean * n
    if n >= FEW or min(successes, n - successes) > RARE:
        return low, high
    tail = (1.0 - confidence) / 2.0
    if successes > 0.0:
        low = min(low, float(betaincinv(successes, n - successes + 1.0, tail)))
    if successes < n:
        high = max(high, float(betaincinv(successes + 1.0, n - successes, 1.0 - tail)))
    return low, high


def _rare_side(mean: float, n: float, confidence: float, low: float,
               high: float) -> tuple[float, float]:
    """Brown, Cai and DasGupta's modification of Wilson's interval: with at most
    :data:`RARE` losses (or wins), Wilson's end on that side covers too little, and the
    exact Poisson bound of their count is taken where it is wider."""
    from scipy.special import gammaincinv

    tail = (1.0 - confidence) / 2.0
    losses, wins = n * (1.0 - mean), n * mean
    if 0.0 < losses <= RARE:
        high = max(high, 1.0 - float(gammaincinv(losses, tail)) / n)
    if 0.0 < wins <= RARE:
        low = min(low, float(gammaincinv(wins, tail)) / n)
    return low, high


def _mean_interval(units: Sequence[float], folds: int, confidence: float,
                   prior: float = 0.0) -> tuple[float, float]:
    """Student's t interval of the mean of ``units``, their variance taken per fold (each
    fold's degrees of freedom counted with its tails, :func:`_variance_df`), with
    :data:`RAW_PSEUDO_SETS` of a set of variance ``prior`` added to a single fold's."""
    n = len(units)
    if n < 2:
        return 0.0, 1.0
    mean = sum(units) / n
    if _no_spread(units):
        return _wilson(min(1.0, max(0.0, mean)), n, _t(confidence, math.inf))
    groups = [units[f::folds] for f in range(folds)]
    if min(len(g) for g in groups) < 2:
        groups = [units]
    if len(groups) == 1 and prior > 0.0:
        squares = _population_variance(units) * n + RAW_PSEUDO_SETS * prior
        variance = squares / (n - 1 + RAW_PSEUDO_SETS) / n
        half = _t(confidence, n - 1) * math.sqrt(variance)
        return mean - half, mean + half
    shares = [len(g) * _sample_variance(g) / (n * n) for g in groups]
    if sum(shares) <= 0.0:  # no spread within the folds, only between them
        groups, shares = [units], [_sample_variance(units) / n]
    variance = sum(shares)
    df = variance * variance / sum(s * s / _variance_df(g)
                                   for s, g in zip(shares, groups, strict=True))
    half = _t(confidence, df) * math.sqrt(variance)
    return mean - half, mean + half


def _variance_df(values: Sequence[float]) -> float:
    """The degrees of freedom of ``values``' sample variance, its tails counted: a scaled
    chi-square with the variance's own variance ``σ⁴ (2 / (n - 1) + κ / n)``, ``κ`` the
    sample's excess kurtosis (where positive). ``n - 1`` for normal data; fewer where rare
    large values (a lost set among won ones) make the spread itself uncertain, which
    Welch and Satterthwaite's normal-theory count overstates."""
    n = len(values)
    mean = sum(values) / n
    squares = sum((v - mean) ** 2 for v in values)
    if squares <= 0.0:
        return float(n - 1)
    # standardised before the fourth power, which overflows from deviations of about 1e77
    scale = math.sqrt(squares / n)
    kurtosis = sum(((v - mean) / scale) ** 4 for v in values) / n - 3.0
    return 2.0 / (2.0 / (n - 1) + max(kurtosis, 0.0) / n)


def _clamped(interval: tuple[float, float]) -> tuple[float, float]:
    low, high = interval
    return min(1.0, max(0.0, low)), max(0.0, min(1.0, high))


def elo_and_error(score: float, interval: tuple[float, float]) -> tuple[float, float]:
    low, high = elo_interval(interval)
    return elo_difference(score), (high - low) / 2.0


def _verdict(llr: float, lower: float, upper: float) -> str:
    if llr >= upper:
        return H1_ACCEPTED
    if llr <= lower:
        return H0_ACCEPTED
    return CONTINUE
