"""The ladder's matchmaking: its gains checked against numeric integration and TrueSkill
itself, and what a round of tables looks like."""

from __future__ import annotations

import itertools
import math
import random
import time
from collections import Counter

import numpy as np
import pytest
import trueskill
from scipy.special import ndtr

from arena.results.ratings import RatingSettings
from arena.tournaments.matchmaking import (
    Candidate,
    draw_margin,
    meetings_of,
    pair_gain,
    plan_round,
    ranking_gain,
)

SETTINGS = RatingSettings()
BETA, DRAW = SETTINGS.beta, SETTINGS.draw_probability
CASES = [  # (μa, σa²), (μb, σb²)
    ((25.0, (25 / 3) ** 2), (25.0, (25 / 3) ** 2)),  # two newcomers
    ((25.0, 4.0), (25.0, 4.0)),
    ((25.0, 1.0), (25.0, 1.0)),  # settled and even: draws matter most
    ((25.0, 4.0), (30.0, 4.0)),
    ((25.0, 4.0), (35.0, 4.0)),
    ((25.0, (25 / 3) ** 2), (30.0, 2.0)),  # a newcomer against a settled bot
    ((15.0, 1.0), (32.0, 2.25)),  # foregone
]


def outcome_posteriors(a: tuple[float, float], b: tuple[float, float], beta: float,
                       draw_probability: float) -> list[tuple[float, float, float]]:
    """By quadrature, not by TrueSkill's formulas: for a win of ``a``, a win of ``b`` and a
    draw, the probability and the exact posterior variances of both skills, in the model
    TrueSkill approximates (performance = skill + N(0, β²); a draw when the performances
    are within the draw margin)."""
    margin = draw_margin(beta, draw_probability)
    out = []
    for who, other in ((a, b), (b, a)):
        mu, var = who
        grid = np.linspace(mu - 10 * math.sqrt(var), mu + 10 * math.sqrt(var), 40_001)
        prior = np.exp(-0.5 * (grid - mu) ** 2 / var)
        spread = math.sqrt(2 * beta * beta + other[1])  # the other's skill integrated out
        above = ndtr((grid - other[0] - margin) / spread)  # who's performance wins
        below = ndtr((other[0] - grid - margin) / spread)  # the other's wins
        rows = []
        for likelihood in (above, below, 1 - above - below):
            weight = prior * likelihood
            mass = weight.sum() / prior.sum()
            mean = (grid * weight).sum() / weight.sum()
            rows.append((mass, ((grid - mean) ** 2 * weight).sum() / weight.sum()))
        out.append(rows)
    (a_wins, b_wins, draw), (b_wins_b, a_wins_b, draw_b) = out  # b's side: its win first
    return [(a_wins[0], a_wins[1], a_wins_b[1]), (b_wins[0], b_wins[1], b_wins_b[1]),
            (draw[0], draw[1], draw_b[1])]


@pytest.mark.parametrize(("a", "b"), CASES)
def test_the_gain_is_the_expected_variance_reduction_draws_included(a, b):
    outcomes = outcome_posteriors(a, b, BETA, DRAW)
    assert sum(p for p, *_ in outcomes) == pytest.approx(1, abs=1e-9)
    expected = sum(p * ((a[1] - va) + (b[1] - vb)) for p, va, vb in outcomes)
    assert pair_gain(a, b, BETA, DRAW) == pytest.approx(expected, rel=1e-4)
    # ... and what TrueSkill itself does, weighted by the same probabilities
    env = trueskill.TrueSkill(beta=BETA, tau=0, draw_probability=DRAW)
    ra, rb = env.create_rating(a[0], math.sqrt(a[1])), env.create_rating(b[0], math.sqrt(b[1]))
    library = 0.0
    for (p, *_), ranks in zip(outcomes, ([0, 1], [1, 0], [0, 0]), strict=True):
        (na,), (nb,) = env.rate([(ra,), (rb,)], ranks=ranks)
        library += p * (a[1] - na.sigma ** 2 + b[1] - nb.sigma ** 2)
    assert pair_gain(a, b, BETA, DRAW) == pytest.approx(library, rel=1e-3)


def test_leaving_draws_out_was_two_to_thirteen_percent_low():
    low = [1 - pair_gain(a, b, BETA, 0.0) / pair_gain(a, b, BETA, DRAW) for a, b in CASES]
    assert all(0.02 < share < 0.14 for share in low), low
    assert draw_margin(BETA, DRAW) == pytest.approx(trueskill.calc_draw_margin(
        DRAW, 2, trueskill.TrueSkill(beta=BETA, draw_probability=DRAW)), rel=1e-5)


def exact_ranking_gain(a: tuple[float, float], b: tuple[float, float],
                       others: list[tuple[float, float]]) -> float:
    """The expected reduction of Σ p (1 − p) over the pairs the game touches, with
    TrueSkill's own updates for each outcome."""
    env = trueskill.TrueSkill(beta=BETA, tau=0, draw_probability=DRAW)
    ra, rb = env.create_rating(a[0], math.sqrt(a[1])), env.create_rating(b[0], math.sqrt(b[1]))

    def better(x: tuple[float, float], y: tuple[float, float]) -> float:
        return float(ndtr((x[0] - y[0]) / math.sqrt(x[1] + y[1])))

    def loss(x: tuple[float, float], y: tuple[float, float]) -> float:
        pairs = [(x, y), *((x, o) for o in others), *((y, o) for o in others)]
        return sum(better(u, v) * (1 - better(u, v)) for u, v in pairs)

    expected = 0.0
    for (p, *_), ranks in zip(outcome_posteriors(a, b, BETA, DRAW), ([0, 1], [1, 0], [0, 0]),
                              strict=True):
        (na,), (nb,) = env.rate([(ra,), (rb,)], ranks=ranks)
        expected += p * loss((na.mu, na.sigma ** 2), (nb.mu, nb.sigma ** 2))
    return loss(a, b) - expected


def test_the_ranking_gain_is_the_first_order_reduction_of_order_uncertainty():
    rng = random.Random(4)
    field = [(rng.uniform(15, 35), rng.uniform(1, 3) ** 2) for _ in range(8)]
    field.append((25.0, (25 / 3) ** 2))  # a newcomer
    pairs = list(itertools.combinations(range(len(field)), 2))
    ours, exact = [], []
    for i, j in pairs:
        others = [r for k, r in enumerate(field) if k not in (i, j)]
        ours.append(ranking_gain(field[i], field[j], others, BETA, DRAW))
        exact.append(exact_ranking_gain(field[i], field[j], others))
    ours_, exact_ = np.array(ours), np.array(exact)
    material = exact_ > 0.05 * exact_.max()  # the rest is second order, either sign
    ratios = ours_[material] / exact_[material]
    assert material.sum() >= 12 and ratios.min() > 0.75 and ratios.max() < 1.25, ratios
    assert int(np.argmax(exact_)) in np.argsort(ours_)[::-1][:2]  # the best table, or next
    ranks = np.argsort(np.argsort(ours_)), np.argsort(np.argsort(exact_))
    assert np.corrcoef(*ranks)[0, 1] > 0.95


def test_a_bot_in_a_pack_gains_more_than_one_with_a_clear_lead():
    pack = [(20.0, 2.0), (20.5, 2.0), (21.0, 2.0), (21.5, 2.0)]
    leader = (30.0, 2.0)
    crowded = ranking_gain(pack[1], pack[2], [pack[0], pack[3], leader], BETA)
    ahead = ranking_gain(leader, (27.0, 2.0), pack, BETA)
    assert crowded > 2 * ahead
    # the variance gain alone hardly tells them apart
    assert pair_gain(pack[1], pack[2], BETA) < 1.3 * pair_gain(leader, (27.0, 2.0), BETA)


def test_a_round_is_a_function_of_the_ratings_the_meetings_and_the_seed():
    rng = random.Random(5)
    bots = [Candidate(k, rng.gauss(25, 4), rng.uniform(1, 4)) for k in range(12)]
    met = {(0, 1): 3, (2, 5): 1}
    rounds = [plan_round(bots, 2, 12, random.Random(seed), beta=BETA, exploration=0.3,
                         games_per_table=2, meetings=met) for seed in (7, 7, 8)]
    assert rounds[0] == rounds[1]
    assert plan_round(list(reversed(bots)), 2, 12, random.Random(7), beta=BETA,
                      exploration=0.3, games_per_table=2, meetings=met) == rounds[0]
    assert all(len(r) == 12 and all(t == tuple(sorted(t)) for t in r) for r in rounds)


def test_pairs_that_met_before_give_way_to_fresh_ones():
    bots = [Candidate(k, 25.0 + 0.5 * k, 2.0) for k in range(4)]
    first = plan_round(bots, 2, 1, random.Random(1), beta=BETA, exploration=0.0)
    again = plan_round(bots, 2, 1, random.Random(1), beta=BETA, exploration=0.0,
                       meetings={first[0]: 4})
    assert again != first


def test_exploration_plays_every_pair_once_before_any_pair_twice():
    bots = [Candidate(k, 10.0 * k, 1.0) for k in range(6)]  # most pairs are foregone
    tables: list[tuple[int, ...]] = []
    for index in range(4):
        tables += plan_round(bots, 2, 6, random.Random(index), beta=BETA, exploration=1.0,
                             meetings=meetings_of(tables))
    assert len(set(tables[:15])) == 15  # all pairs of six, as a round-robin would
    greedy: list[tuple[int, ...]] = []
    for index in range(4):
        greedy += plan_round(bots, 2, 6, random.Random(index), beta=BETA, exploration=0.0,
                             meetings=meetings_of(greedy))
    assert all(b - a == 1 for a, b in greedy)  # without it, neighbours only


def test_exploration_now_and_then_reaches_every_pair():
    bots = [Candidate(k, 10.0 * k, 1.0) for k in range(5)]
    tables: list[tuple[int, ...]] = []
    for index in range(40):
        tables += plan_round(bots, 2, 4, random.Random(index), beta=BETA, exploration=0.2,
                             meetings=meetings_of(tables))
    met = Counter(tables)
    assert len(met) == 10
    assert min(met[a, a + 1] for a in range(4)) > 3 * max(
        met[pair] for pair in met if pair[1] - pair[0] > 1)  # mostly the close pairs


def test_meetings_count_every_pair_of_a_table():
    assert meetings_of([(0, 1), (1, 0), (2, 0, 1)]) == {(0, 1): 3, (0, 2): 1, (1, 2): 1}


def test_tables_of_more_seats_grow_by_gain_and_by_coverage():
    bots = [Candidate(k, 25.0 + k, 2.0) for k in range(9)]
    for exploration in (0.0, 1.0):
        tables = plan_round(bots, 3, 9, random.Random(2), beta=BETA, exploration=exploration,
                            games_per_table=3)
        assert all(len(set(t)) == 3 and t == tuple(sorted(t)) for t in tables)
        assert max(Counter(k for t in tables for k in t).values()) <= 9 * 3 // 9 + 1
    covered = meetings_of(plan_round(bots, 3, 12, random.Random(2), beta=BETA,
                                     exploration=1.0))
    assert len(covered) >= 33 and max(covered.values()) <= 2  # of the 36 pairs of nine


def test_a_round_for_a_thousand_entrants_is_quick():
    rng = random.Random(6)
    bots = [Candidate(k, rng.gauss(25, 5), 25 / 3 if k < 5 else rng.uniform(0.8, 3))
            for k in range(1000)]
    met = {(k, k + 1): 2 for k in range(999)}
    started = time.perf_counter()
    tables = plan_round(bots, 2, 1000, random.Random(1), beta=BETA, exploration=0.1,
                        games_per_table=2, meetings=met)
    assert time.perf_counter() - started < 10  # ~0.3 s on an idle core
    seated = Counter(k for t in tables for k in t)
    assert max(seated.values()) <= 3 and all(seated[k] == 3 for k in range(5))  # newcomers
