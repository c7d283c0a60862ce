"""Match statistics: golden values worked by hand, edge cases, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.results.stats import (
    CONTINUE,
    H0_ACCEPTED,
    H1_ACCEPTED,
    MatchScore,
    Pentanomial,
    SprtSettings,
    StatsError,
    elo_difference,
    elo_with_error,
    expected_score,
    likelihood_of_superiority,
    pentanomial_elo_with_error,
    pentanomial_from_pairs,
    pentanomial_interval,
    score_interval,
    sprt,
    sprt_bounds,
    sprt_llr,
    sprt_llr_pentanomial,
)

W60_D20_L20 = MatchScore(60, 20, 20)

# ---------------------------------------------------------------------------
# Trinomial


def test_score_and_games():
    # (60 + 20/2) / 100 = 0.7
    assert W60_D20_L20.games == 100
    assert W60_D20_L20.score == pytest.approx(0.7)


def test_variance_by_hand():
    # 0.6 * (1 - 0.7)^2 + 0.2 * (0.5 - 0.7)^2 + 0.2 * (0 - 0.7)^2
    # = 0.054 + 0.008 + 0.098 = 0.16
    assert W60_D20_L20.variance == pytest.approx(0.16)


def test_elo_difference_golden():
    # 400 * log10(0.7 / 0.3) = 400 * 0.36798 = 147.19
    assert elo_difference(0.7) == pytest.approx(147.1907, abs=1e-4)
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.3) == pytest.approx(-147.1907, abs=1e-4)


def test_elo_difference_is_infinite_at_the_ends():
    assert elo_difference(1.0) == math.inf
    assert elo_difference(0.0) == -math.inf


@pytest.mark.parametrize("score", [-0.1, 1.1, math.nan])
def test_elo_difference_rejects_scores_outside_0_1(score):
    with pytest.raises(StatsError, match=r"\[0, 1\]"):
        elo_difference(score)


def test_expected_score_inverts_elo_difference():
    for elo in (-300.0, -10.0, 0.0, 35.5, 400.0):
        assert elo_difference(expected_score(elo)) == pytest.approx(elo)
    # 1 / (1 + 10^(-400/400)) = 1 / 1.1 = 10/11
    assert expected_score(400.0) == pytest.approx(10 / 11)


def test_score_interval_golden():
    # se = sqrt(0.16 / 100) = 0.04; z(95 %) = 1.959964; 0.7 -/+ 0.078399
    lo, hi = score_interval(W60_D20_L20)
    assert lo == pytest.approx(0.621601, abs=1e-6)
    assert hi == pytest.approx(0.778399, abs=1e-6)


def test_elo_with_error_golden_as_cutechess():
    # elo(0.778399) = 400 * log10(0.778399 / 0.221601) = 218.25
    # elo(0.621601) = 400 * log10(0.621601 / 0.378399) =  86.23
    # error = (218.25 - 86.23) / 2 = 66.01
    elo, error = elo_with_error(W60_D20_L20)
    assert elo == pytest.approx(147.19, abs=0.01)
    assert error == pytest.approx(66.01, abs=0.01)


def test_los_golden():
    # 0.5 * (1 + erf((60 - 20) / sqrt(2 * 80))) = 0.5 * (1 + erf(3.1623)) = 0.999996
    los = likelihood_of_superiority(W60_D20_L20)
    assert los == pytest.approx(0.5 * (1 + math.erf(40 / math.sqrt(160))))
    assert los == pytest.approx(0.999996, abs=1e-6)


def test_symmetric_results_give_zero_elo_and_even_los():
    ms = MatchScore(30, 40, 30)
    assert ms.score == 0.5
    assert elo_with_error(ms)[0] == 0.0
    assert likelihood_of_superiority(ms) == 0.5
    lo, hi = score_interval(ms)
    assert 0.5 - lo == pytest.approx(hi - 0.5)


def test_interval_widens_with_fewer_games():
    widths = [hi - lo for lo, hi in (score_interval(MatchScore(6 * k, 2 * k, 2 * k))
                                     for k in (100, 10, 1))]
    assert widths[0] < widths[1] < widths[2]
    # the width shrinks with sqrt(games): 10x the games, 1/sqrt(10) the width
    assert widths[0] / widths[1] == pytest.approx(1 / math.sqrt(10))


def test_higher_confidence_gives_a_wider_interval():
    lo90, hi90 = score_interval(W60_D20_L20, 0.90)
    lo99, hi99 = score_interval(W60_D20_L20, 0.99)
    assert lo99 < lo90 < W60_D20_L20.score < hi90 < hi99


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.2])
def test_confidence_must_lie_in_0_1(confidence):
    with pytest.raises(StatsError, match="confidence"):
        score_interval(W60_D20_L20, confidence)


def test_zero_games_do_not_crash():
    ms = MatchScore()
    assert ms.games == 0
    assert ms.score == 0.5
    assert score_interval(ms) == (0.0, 1.0)
    assert elo_with_error(ms) == (0.0, math.inf)
    assert likelihood_of_superiority(ms) == 0.5


def test_only_draws_have_zero_variance():
    ms = MatchScore(0, 12, 0)
    assert score_interval(ms) == (0.5, 0.5)
    assert elo_with_error(ms) == (0.0, 0.0)
    assert likelihood_of_superiority(ms) == 0.5


def test_perfect_score_has_infinite_elo_and_error():
    assert elo_with_error(MatchScore(10, 0, 0)) == (math.inf, math.inf)
    assert elo_with_error(MatchScore(0, 0, 10)) == (-math.inf, math.inf)
    assert likelihood_of_superiority(MatchScore(10, 0, 0)) > 0.99


def test_interval_reaching_an_end_is_clamped_and_has_infinite_error():
    ms = MatchScore(9, 0, 1)  # 0.9 +/- 1.96 * sqrt(0.09 / 10) = 0.9 +/- 0.186
    assert score_interval(ms)[1] == 1.0
    assert elo_with_error(ms)[1] == math.inf


def test_negative_counts_are_rejected():
    with pytest.raises(StatsError, match=">= 0"):
        MatchScore(1, -1, 0)


@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(0, 5000),
       st.floats(0.5, 0.999))
def test_score_interval_contains_the_score_within_0_1(wins, draws, losses, confidence):
    ms = MatchScore(wins, draws, losses)
    lo, hi = score_interval(ms, confidence)
    assert 0.0 <= lo <= ms.score <= hi <= 1.0


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), max_size=200),
       st.floats(0.5, 0.999))
def test_pentanomial_interval_contains_the_score_within_0_1(pair_scores, confidence):
    p = pentanomial_from_pairs(pair_scores)
    lo, hi = pentanomial_interval(p, confidence)
    assert 0.0 <= lo <= p.score <= hi <= 1.0


@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 500))
def test_los_is_a_probability_antisymmetric_in_the_bots(wins, draws, losses):
    los = likelihood_of_superiority(MatchScore(wins, draws, losses))
    mirrored = likelihood_of_superiority(MatchScore(losses, draws, wins))
    assert 0.0 <= los <= 1.0
    assert los + mirrored == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Pentanomial

# Game results of the first bot, 1 / 0.5 / 0, in seat-swapped pairs that share the dice.
PAIR_GAMES = [(1.0, 0.0)] * 90 + [(1.0, 1.0)] * 5 + [(0.0, 0.0)] * 5


def _trinomial(pairs: list[tuple[float, float]]) -> MatchScore:
    games = [g for pair in pairs for g in pair]
    return MatchScore(games.count(1.0), games.count(0.5), games.count(0.0))


def test_pentanomial_counts_by_pair_score():
    p = pentanomial_from_pairs([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert p.counts == (1, 1, 2, 1, 3)
    assert p.pairs == 8
    assert p.games == 16


@pytest.mark.parametrize("bad", [0.25, 2.5, -0.5, math.nan, math.inf])
def test_pentanomial_rejects_impossible_pair_scores(bad):
    with pytest.raises(StatsError, match="pair score"):
        pentanomial_from_pairs([1.0, bad])


def test_pentanomial_rejects_bad_counts():
    with pytest.raises(StatsError, match="5 counts"):
        Pentanomial((1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(StatsError, match="5 counts"):
        Pentanomial((1, 2, 3, -1, 0))


def test_pentanomial_score_agrees_with_the_games():
    # The same games counted by pair or by game give the same score.
    pairs = PAIR_GAMES + [(0.5, 1.0)] * 7 + [(0.5, 0.0)] * 3 + [(0.5, 0.5)] * 4
    p = pentanomial_from_pairs(a + b for a, b in pairs)
    ms = _trinomial(pairs)
    assert p.games == ms.games
    assert p.score == pytest.approx(ms.score)
    assert pentanomial_elo_with_error(p)[0] == pytest.approx(elo_with_error(ms)[0])


def test_pentanomial_golden():
    # 90 pairs WL (per-game 0.5), 5 WW (1.0), 5 LL (0.0): mean 0.5
    # per-pair variance = 0.05 * 0.25 + 0.05 * 0.25 = 0.025; se = sqrt(0.025 / 100) = 0.0158
    # interval 0.5 -/+ 1.959964 * 0.0158114 = 0.5 -/+ 0.030990
    p = pentanomial_from_pairs(a + b for a, b in PAIR_GAMES)
    assert p.counts == (5, 0, 90, 0, 5)
    assert p.score == 0.5
    assert p.variance == pytest.approx(0.025)
    lo, hi = pentanomial_interval(p)
    assert lo == pytest.approx(0.469010, abs=1e-6)
    assert hi == pytest.approx(0.530990, abs=1e-6)
    # error = (elo(0.530990) - elo(0.469010)) / 2 = 400 * log10(0.530990 / 0.469010) = 21.56
    elo, error = pentanomial_elo_with_error(p)
    assert elo == 0.0
    assert error == pytest.approx(21.56, abs=0.01)


def test_pentanomial_interval_is_narrower_for_correlated_pairs():
    # Trinomial on the same 200 games: 100 W, 100 L, var 0.25, se = sqrt(0.25 / 200) = 0.0354,
    # more than twice the pentanomial se of 0.0158.
    p = pentanomial_from_pairs(a + b for a, b in PAIR_GAMES)
    ms = _trinomial(PAIR_GAMES)
    assert ms == MatchScore(100, 0, 100)
    lo_p, hi_p = pentanomial_interval(p)
    lo_t, hi_t = score_interval(ms)
    assert hi_p - lo_p < 0.5 * (hi_t - lo_t)
    assert pentanomial_elo_with_error(p)[1] < elo_with_error(ms)[1]


def test_pentanomial_zero_pairs_and_zero_variance():
    empty = Pentanomial()
    assert empty.score == 0.5
    assert pentanomial_interval(empty) == (0.0, 1.0)
    assert pentanomial_elo_with_error(empty) == (0.0, math.inf)
    all_split = pentanomial_from_pairs([1.0] * 20)
    assert pentanomial_interval(all_split) == (0.5, 0.5)
    assert pentanomial_elo_with_error(all_split) == (0.0, 0.0)


def test_pentanomial_accepts_a_list_and_stays_hashable():
    p = Pentanomial([1, 2, 3, 4, 5])  # type: ignore[arg-type]
    assert p.counts == (1, 2, 3, 4, 5)
    assert hash(p) == hash(Pentanomial((1, 2, 3, 4, 5)))


# ---------------------------------------------------------------------------
# SPRT


def test_sprt_bounds_for_five_percent():
    # log(0.05 / 0.95) = -log(19) = -2.944; log(0.95 / 0.05) = log(19) = 2.944
    lower, upper = sprt_bounds(SprtSettings())
    assert lower == pytest.approx(-math.log(19))
    assert upper == pytest.approx(math.log(19))
    assert upper == pytest.approx(2.944, abs=1e-3)


def test_sprt_bounds_asymmetric():
    lower, upper = sprt_bounds(SprtSettings(alpha=0.01, beta=0.1))
    assert lower == pytest.approx(math.log(0.1 / 0.99))
    assert upper == pytest.approx(math.log(0.9 / 0.01))


def test_sprt_llr_golden():
    # s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)) = 0.514387; m = 0.7, var = 0.16, n = 100
    # llr = 0.5 * 0.014387 * (1.4 - 1.014387) / 0.16 * 100 = 1.7337
    assert expected_score(10.0) == pytest.approx(0.514387, abs=1e-6)
    assert sprt_llr(60, 20, 20, SprtSettings()) == pytest.approx(1.7337, abs=1e-4)
    result = sprt(W60_D20_L20)
    assert result.verdict == CONTINUE
    assert not result.is_finished


def test_sprt_llr_pentanomial_golden():
    # mean 0.5, per-pair var 0.025, n = 100 pairs
    # llr = 0.5 * 0.014387 * (1.0 - 1.014387) / 0.025 * 100 = -0.41398
    p = pentanomial_from_pairs(a + b for a, b in PAIR_GAMES)
    assert sprt_llr_pentanomial(p, SprtSettings()) == pytest.approx(-0.41398, abs=1e-5)


def test_sprt_accepts_h1_for_a_clearly_stronger_bot():
    # W W W L repeated: score 0.75, about +190 Elo
    settings = SprtSettings(elo0=0.0, elo1=10.0)
    wins = losses = 0
    result = sprt(MatchScore(), settings)
    while not result.is_finished:
        if (wins + losses) % 4 == 3:
            losses += 1
        else:
            wins += 1
        result = sprt(MatchScore(wins, 0, losses), settings)
    assert result.verdict == H1_ACCEPTED
    assert result.llr >= result.upper
    assert wins + losses < 200


def test_sprt_accepts_h0_for_equal_bots():
    # W L D D repeated: m = 0.5, var = 0.125;
    # llr = -0.5 * 0.014387^2 / 0.125 * n = -0.000828 * n reaches -2.944 near n = 3557.
    settings = SprtSettings(elo0=0.0, elo1=10.0)
    counts = [0, 0, 0]  # wins, draws, losses
    cycle = (0, 2, 1, 1)
    n = 0
    result = sprt(MatchScore(), settings)
    while not result.is_finished:
        counts[cycle[n % 4]] += 1
        n += 1
        result = sprt(MatchScore(*counts), settings)
    assert result.verdict == H0_ACCEPTED
    assert result.llr <= result.lower
    assert 3400 < n < 3700


def test_sprt_pentanomial_decides_sooner_on_correlated_pairs():
    # Pairs mostly W+L (per-game 0.5) with a few more WW than LL: the pentanomial
    # variance is small, so the same evidence moves the LLR much further.
    # 300 pairs, score 0.55. Pentanomial: var = 0.8 * 0.05^2 + 0.15 * 0.45^2 + 0.05 * 0.55^2
    # = 0.0475, llr = 0.5 * 0.014387 * 0.085613 / 0.0475 * 300 = 3.89 >= 2.944.
    # Trinomial: 330 W, 270 L, var = 0.55 * 0.45 = 0.2475, llr = ... / 0.2475 * 600 = 1.49.
    pairs = ([(1.0, 0.0)] * 80 + [(1.0, 1.0)] * 15 + [(0.0, 0.0)] * 5) * 3
    p = pentanomial_from_pairs(a + b for a, b in pairs)
    ms = _trinomial(pairs)
    settings = SprtSettings()
    assert p.score == pytest.approx(ms.score)
    assert sprt_llr_pentanomial(p, settings) > 2 * sprt_llr(ms.wins, ms.draws, ms.losses,
                                                            settings) > 0
    assert sprt(p, settings).verdict == H1_ACCEPTED
    assert sprt(ms, settings).verdict == CONTINUE


def test_sprt_zero_games_and_zero_variance_do_not_crash():
    settings = SprtSettings()
    assert sprt_llr(0, 0, 0, settings) == 0.0
    assert sprt_llr_pentanomial(Pentanomial(), settings) == 0.0
    # One-sided results get a weak prior (half an observation per unseen outcome):
    # only draws lean to H0, only wins to H1, and both stay finite.
    assert -5 < sprt_llr(0, 50, 0, settings) < 0
    assert 0 < sprt_llr(1, 0, 0, settings) < 0.1  # one win decides nothing
    assert sprt_llr_pentanomial(Pentanomial((0, 0, 30, 0, 0)), settings) < 0


def test_sprt_ends_for_a_bot_that_only_wins():
    """Regression: with zero variance the LLR stayed 0 and the test never ended."""
    settings = SprtSettings(elo0=0, elo1=10)
    assert sprt(Pentanomial((0, 0, 0, 0, 200)), settings).verdict == H1_ACCEPTED
    assert sprt(MatchScore(wins=200), settings).verdict == H1_ACCEPTED
    assert sprt(MatchScore(wins=3), settings).verdict == CONTINUE
    assert sprt(MatchScore()).verdict == CONTINUE
    assert sprt(Pentanomial()).verdict == CONTINUE


@pytest.mark.parametrize("kwargs, message", [
    ({"elo0": 10.0, "elo1": 10.0}, "elo0 < elo1"),
    ({"elo0": 5.0, "elo1": 0.0}, "elo0 < elo1"),
    ({"alpha": 0.0}, "alpha"),
    ({"beta": 1.0}, "beta"),
])
def test_sprt_settings_are_validated(kwargs, message):
    with pytest.raises(StatsError, match=message):
        SprtSettings(**kwargs)


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_llr_sign_follows_the_score(wins, draws, losses):
    # llr > 0 exactly when the score is above the midpoint of s0 and s1.
    settings = SprtSettings(elo0=0.0, elo1=10.0)
    ms = MatchScore(wins, draws, losses)
    llr = sprt_llr(wins, draws, losses, settings)
    midpoint = (expected_score(0.0) + expected_score(10.0)) / 2
    if ms.games == 0:
        assert llr == 0.0
    elif ms.variance > 0 and ms.score > midpoint:
        assert llr > 0
    elif ms.variance > 0 and ms.score < midpoint:
        assert llr < 0
    else:  # one-sided: the weak prior pulls the mean towards the middle, not across it
        assert (llr > 0) == (ms.score > midpoint) or math.isclose(ms.score, midpoint)
