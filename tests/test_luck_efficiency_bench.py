"""The quick version of bench/luck_efficiency.py's SPRT: raw and luck-adjusted tests at one
common truth (the bench once ran each at its own sample's mean: 0.7 Elo raw against 4.2
adjusted for the close pair)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from bench_scripts import load_bench

from arena.results.stats import elo_difference


@pytest.fixture(scope="module")
def bench():
    yield load_bench("luck_efficiency")
    del sys.modules["luck_efficiency"]


def sets(rng, n=200):
    """Sets whose luck explains most of their points, the luck's sample mean +0.05."""
    luck = rng.normal(0.0, 0.2, n)
    points = np.clip(np.round((0.6 + luck + rng.normal(0.0, 0.05, n)) * 4) / 4, 0.0, 1.0)
    return points, luck - luck.mean() + 0.05


def test_h1_is_the_sets_own_score(bench):
    points, _luck = sets(np.random.default_rng(1))
    settings = bench.common_truth_hypotheses(points, 0.05)
    assert settings.elo1 == pytest.approx(elo_difference(points.mean()))
    assert settings.elo0 == pytest.approx(elo_difference(points.mean() - 0.05))


def test_both_tests_see_one_truth_and_the_adjusted_one_needs_fewer_sets(bench):
    rng = np.random.default_rng(2)
    points, luck = sets(rng)
    settings = bench.common_truth_hypotheses(points, 0.05)
    raw, adjusted = bench.sprt_at_one_truth(points, luck, settings, 12, 2000, rng)
    # uncentred, the adjusted sets would average 0.05 below the raw ones: at H0, not H1
    assert raw.h1 >= 0.75 and adjusted.h1 >= 0.75, (raw, adjusted)
    assert adjusted.sets < 0.5 * raw.sets, (raw, adjusted)
    assert raw.undecided == adjusted.undecided == 0.0
