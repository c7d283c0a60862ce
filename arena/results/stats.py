"""Match statistics beside the ratings: score, Elo, LOS, pentanomial, SPRT.

What cutechess-cli and fastchess print under a head-to-head match, as pure
functions over frozen values. Everything is from the *first* bot's point of
view; a game scores 1 for a win, 1/2 for a draw and 0 for a loss.

Conventions:

* Elo is the logistic model: ``score = 1 / (1 + 10**(-elo / 400))`` and back
  ``elo = 400 * log10(s / (1 - s))``, which is ``-inf`` at ``s = 0`` and
  ``+inf`` at ``s = 1`` (no finite Elo explains a perfect score).
* Intervals are normal approximations, ``mean +/- z * sqrt(var / n)`` with
  ``z`` the two-sided quantile of the standard normal for ``confidence``,
  clamped to ``[0, 1]``. With no games they are ``(0, 1)``: nothing is known.
* Trinomial statistics (:class:`MatchScore`) treat games as independent.
  Pentanomial statistics (:class:`Pentanomial`) treat each seat-swapped pair of
  games with the same dice seed as one observation, which accounts for the
  correlation the shared dice create and gives tighter, honest intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.games.base import ArenaError

H1_ACCEPTED = "H1 accepted"
H0_ACCEPTED = "H0 accepted"
CONTINUE = "continue"

# Per-game score of a pair, by pentanomial index (pair score 0, 0.5, 1, 1.5, 2 halved).
_PAIR_GAME_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)


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
        fractions of wins, draws and losses and ``m`` the score; 0 with no games."""
        return _variance(_trinomial_distribution(self))


def score_interval(ms: MatchScore, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the score, treating games as independent.

    ``score +/- z * sqrt(var / games)``, ``var`` = :attr:`MatchScore.variance`,
    ``z = Phi^-1((1 + confidence) / 2)`` (1.96 for 95 %), clamped to [0, 1].
    ``(0, 1)`` for 0 games.
    """
    return _interval(ms.score, ms.variance, ms.games, confidence)


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
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_with_error(ms: MatchScore, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and the +/- half-width of its interval, as cutechess-cli.

    ``elo = elo_difference(score)``; with ``(lo, hi)`` = :func:`score_interval`,
    ``error = (elo_difference(hi) - elo_difference(lo)) / 2``. The Elo interval
    is skewed, the error reported symmetric, as cutechess prints it. The error is
    ``math.inf`` when the interval reaches 0 or 1 (no games, a perfect score).
    """
    return _elo_and_error(ms.score, score_interval(ms, confidence))


def likelihood_of_superiority(ms: MatchScore) -> float:
    """LOS, the probability that the first bot is the stronger (cutechess/fastchess).

    ``0.5 * (1 + erf((wins - losses) / sqrt(2 * (wins + losses))))``; draws do
    not count. 0.5 when ``wins + losses == 0``.
    """
    decisive = ms.wins + ms.losses
    if decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((ms.wins - ms.losses) / math.sqrt(2.0 * decisive)))


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
        ``sum(p_k * (k / 4 - m)**2)`` with ``p_k = counts[k] / pairs``; 0 with no pairs."""
        return _variance(_pentanomial_distribution(self))


def pentanomial_from_pairs(pair_scores: Iterable[float]) -> Pentanomial:
    """Count pairs by two-game score (0, 0.5, 1, 1.5 or 2 for the first bot)."""
    counts = [0] * 5
    for pair_score in pair_scores:
        counts[_pair_index(pair_score)] += 1
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


def pentanomial_interval(p: Pentanomial, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the per-game score from pairs (as fastchess).

    ``score +/- z * sqrt(var / pairs)``, ``var`` = :attr:`Pentanomial.variance`
    (one observation per pair), clamped to [0, 1]; ``(0, 1)`` for 0 pairs.
    """
    return _interval(p.score, p.variance, p.pairs, confidence)


def pentanomial_elo_with_error(p: Pentanomial, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and symmetric error from :func:`pentanomial_interval`.

    ``error = (elo_difference(hi) - elo_difference(lo)) / 2``, as
    :func:`elo_with_error`.
    """
    return _elo_and_error(p.score, pentanomial_interval(p, confidence))


# ---------------------------------------------------------------------------
# Luck-adjusted results


@dataclass(frozen=True)
class AdjustedScore:
    """The first bot's luck-adjusted points (points minus the dice's luck, see
    :mod:`arena.results.luck`), one mean per duplicate set of games.

    Adjusted points are unbiased estimates of the expected score, but continuous
    (a game can be worth 0.83 or even -0.1), so the statistics are those of a
    sample mean: the sets are the independent observations, as in the pentanomial.
    Build one with :func:`luck_adjusted`.
    """

    units: tuple[float, ...] = ()
    """Per duplicate set: the mean adjusted score per game of the first bot."""
    games: int = 0
    raw_variance: float = 0.0
    """The same sets' variance with the raw points, for the variance ratio."""
    scale: float = 1.0
    """How much of the accounted luck was taken out (the mean of the folds' factors)."""

    @property
    def sets(self) -> int:
        return len(self.units)

    @property
    def score(self) -> float:
        """Mean adjusted score per game; 0.5 with no sets."""
        return sum(self.units) / len(self.units) if self.units else 0.5

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
SCALE_RANGE = (0.0, 1.5)


def luck_adjusted(points: Sequence[float], luck: Sequence[float],
                  games: int = 0) -> AdjustedScore:
    """The adjusted score from each set's mean points and mean accounted luck.

    A set's adjusted score is ``points - c * luck``. Any fixed ``c`` keeps it
    unbiased, since luck has mean zero; ``c = 1`` takes out all the luck the
    value model sees, but where the model overstates the luck (a model made for
    strong play judging weak bots) a smaller ``c`` leaves less noise. So from
    ``CROSS_FIT_FROM`` sets on, ``c`` is fitted, by cross-fitting: the sets are
    split into two halves by their order, and each half is adjusted with the
    least-squares ``c = cov(points, luck) / var(luck)`` of the *other* half
    (clamped to 0..1.5), which is independent of it, so that every adjusted set
    stays unbiased.
    """
    if len(points) != len(luck):
        raise StatsError("points and luck differ in length")
    folds = (list(range(0, len(points), 2)), list(range(1, len(points), 2)))
    scales = [1.0, 1.0]
    if len(points) >= CROSS_FIT_FROM:
        scales = [_least_squares_scale([points[i] for i in folds[1 - f]],
                                       [luck[i] for i in folds[1 - f]]) for f in (0, 1)]
    units = tuple(p - scales[i % 2] * lk for i, (p, lk) in enumerate(zip(points, luck,
                                                                          strict=True)))
    scale = sum(scales[i % 2] for i in range(len(points))) / len(points) if points else 1.0
    return AdjustedScore(units, games, _population_variance(points), scale)


def _least_squares_scale(points: Sequence[float], luck: Sequence[float]) -> float:
    n = len(points)
    mean_p, mean_l = sum(points) / n, sum(luck) / n
    spread = sum((lk - mean_l) ** 2 for lk in luck)
    if spread == 0.0:
        return 1.0
    together = sum((p - mean_p) * (lk - mean_l) for p, lk in zip(points, luck, strict=True))
    return min(SCALE_RANGE[1], max(SCALE_RANGE[0], together / spread))


def _population_variance(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def adjusted_interval(a: AdjustedScore, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the expected score from adjusted sets, clamped to [0, 1]."""
    return _interval(a.score, a.variance, a.sets, confidence)


def adjusted_elo_with_error(a: AdjustedScore, confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and symmetric error from :func:`adjusted_interval` (an adjusted
    score outside (0, 1) has no Elo: ``±inf``)."""
    score = min(1.0, max(0.0, a.score))
    return _elo_and_error(score, adjusted_interval(a, confidence))


def sprt_llr_adjusted(a: AdjustedScore, settings: SprtSettings) -> float:
    """Log-likelihood ratio of H1 over H0 from luck-adjusted sets.

    :func:`sprt_llr`'s normal-approximation GSPRT with ``n`` = sets, ``m`` the
    mean adjusted score and ``var`` its per-set variance. The test stays valid
    because it needs only the mean and variance of independent observations:
    sets are independent (each has its own dice), and luck has zero mean
    whatever the value model, so an adjusted set's expectation is the same
    expected score that H0 and H1 are about; only its variance is smaller. The
    share of luck taken out is fitted on the other half of the sets
    (:func:`luck_adjusted`), so it does not bias the set it adjusts; it settles
    as sets come in, and below ``CROSS_FIT_FROM`` sets it is 1.
    """
    return _llr(a.score, a.variance, a.sets, settings)


# ---------------------------------------------------------------------------
# SPRT


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
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 1.0:
                raise StatsError(f"SPRT {name} must lie strictly between 0 and 1, got {rate}")


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

    The normal approximation fastchess uses with logistic bounds::

        s0, s1 = expected_score(elo0), expected_score(elo1)
        llr = 0.5 * (s1 - s0) * (2 * m - s0 - s1) / var * n

    with ``n`` games, ``m`` the mean per-game score and ``var`` its per-game
    variance. When all results are the same the variance is 0; then every
    outcome not seen counts as half an observation, so that a bot that only
    wins still ends the test. 0.0 with no games.
    """
    ms = MatchScore(wins, draws, losses)
    mean, variance = _regularized((1.0, 0.5, 0.0), (wins, draws, losses))
    return _llr(mean, variance, ms.games, settings)


def sprt_llr_pentanomial(p: Pentanomial, settings: SprtSettings) -> float:
    """Log-likelihood ratio of H1 over H0 from game pairs (pentanomial GSPRT).

    :func:`sprt_llr`'s formula with ``n`` = pairs, ``m`` the mean per-game score
    and ``var`` the per-pair variance of the per-game score of a pair
    (:attr:`Pentanomial.variance`). 0.0 with no pairs or ``var == 0``.
    """
    mean, variance = _regularized((0.0, 0.25, 0.5, 0.75, 1.0), p.counts)
    return _llr(mean, variance, p.pairs, settings)


ONE_SIDED_PRIOR = 0.5


def _regularized(values: tuple[float, ...], counts: Sequence[int]) -> tuple[float, float]:
    """Mean and variance of the outcomes. When every observation is the same (only
    wins, say) the variance is 0 and the test could never end; then each outcome not
    seen counts as half an observation, a weak prior that fades as results come in."""
    mean, variance = _moments(values, counts)
    if variance == 0.0 and sum(counts) > 0:
        mean, variance = _moments(values, [c or ONE_SIDED_PRIOR for c in counts])
    return mean, variance


def _moments(values: tuple[float, ...], counts: Sequence[float]) -> tuple[float, float]:
    total = sum(counts)
    if total == 0:
        return 0.5, 0.0
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / total
    variance = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / total
    return mean, variance


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


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise StatsError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf((1.0 + confidence) / 2.0)


def _interval(mean: float, variance: float, n: int,
              confidence: float) -> tuple[float, float]:
    z = _z(confidence)
    if n == 0:
        return 0.0, 1.0
    half = z * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def _elo_and_error(score: float, interval: tuple[float, float]) -> tuple[float, float]:
    lo, hi = interval
    if lo <= 0.0 or hi >= 1.0:
        return elo_difference(score), math.inf
    return elo_difference(score), (elo_difference(hi) - elo_difference(lo)) / 2.0


def _llr(mean: float, variance: float, n: int, settings: SprtSettings) -> float:
    if n == 0 or variance == 0.0:
        return 0.0
    s0 = expected_score(settings.elo0)
    s1 = expected_score(settings.elo1)
    return 0.5 * (s1 - s0) * (2.0 * mean - s0 - s1) / variance * n


def _verdict(llr: float, lower: float, upper: float) -> str:
    if llr >= upper:
        return H1_ACCEPTED
    if llr <= lower:
        return H0_ACCEPTED
    return CONTINUE
