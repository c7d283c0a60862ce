"""The quick version of bench/luck_shares.py: each game's luck split by roller and third
adds up to its luck, and a factor per share takes out what one factor cannot."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from bench_scripts import load_bench

from arena.bots.loading import load_bot
from arena.referee.match import play_game
from arena.results.luck import account
from arena.results.values import model_for


@pytest.fixture(scope="module")
def bench():
    yield load_bench("luck_shares")
    del sys.modules["luck_shares"]


def test_the_shares_of_a_games_luck_add_up_to_its_luck(bench):
    greedy = load_bot("bots/seasons/greedy.py").player
    record = play_game("seasons", [greedy, load_bot("bots/seasons/random_bot.py").player], 5)
    model = model_for("seasons", {})
    for seat in (0, 1):
        points, split = bench.shares(record, model, seat)
        assert points == account(record, model).points[seat]
        assert split.sum() == pytest.approx(account(record, model).luck[seat], abs=1e-12)
        assert np.count_nonzero(split[:3]) and np.count_nonzero(split[3:])  # both roll


def test_a_factor_per_share_takes_out_luck_that_counts_unevenly(bench):
    rng = np.random.default_rng(3)
    luck = rng.normal(0.0, 0.1, (400, 6))
    points = 0.5 + luck[:, :3].sum(axis=1) + 0.3 * luck[:, 3:].sum(axis=1) \
        + rng.normal(0.0, 0.02, 400)
    found = bench.variances(points, luck)
    assert found["per roller"] < 0.5 * found["one factor"] < found["raw"]
    assert found["per roller and third"] == pytest.approx(found["per roller"], rel=0.1)
