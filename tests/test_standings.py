"""Points per game, and tallies per bot and seat."""

from arena.results.standings import game_points, tally_games


def test_game_points():
    assert game_points((0, 1)) == (1.0, 0.0)
    assert game_points((0, 0)) == (0.5, 0.5)
    assert game_points((0, 1, 1, 3)) == (1.0, 0.5, 0.5, 0.0)


def test_a_tally_counts_wins_draws_losses_and_failures_per_bot_and_seat():
    games = [((0, 1), (0, 1), (70.0, 50.0), ("ok", "ok")),
             ((1, 0), (0, 0), (60.0, 60.0), ("ok", "ok")),
             ((0, 1), (1, 0), (40.0, 0.0), ("timeout", "ok"))]
    first, second = tally_games(["a@1", "b@1"], 2, games)
    assert (first.overall.wins, first.overall.draws, first.overall.losses) == (1, 1, 1)
    assert first.overall.points == 1.5 and first.total_points == 1.5
    assert first.overall.failures == {"timeout": 1}
    assert first.by_seat[0].games == 2 and first.by_seat[1].games == 1
    assert second.overall.mean_score == 110 / 3
    assert second.overall.mean_rank == 1 + 1 / 3
