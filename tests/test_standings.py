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


def test_a_bot_with_only_a_bye_shows_no_score_and_the_legend_says_what_a_bye_counts_in():
    """After a Swiss round a bot whose only result was a bye read ``0.0%  0.00  0.00``: a
    mean rank of 0 (1 is first) and a score for no games."""
    from arena.results.standings import legend_lines, table_lines

    played, bye = tally_games(["a@1", "b@1", "c@1"], 2,
                              [((0, 1), (0, 1), (70.0, 50.0), ("ok", "ok"))])[0::2]
    bye.byes, bye.bye_points = 1, 1.0
    rows = {line.split()[0]: line.split()[1:] for line in table_lines([played, bye],
                                                                      seats=False)[2:]}
    assert rows["c@1"][:5] == ["0", "0", "0", "0", "1.0"]
    assert rows["c@1"][5:8] == ["—", "—", "—"]
    assert rows["a@1"][5:8] == ["100.0%", "70.00", "1.00"]
    legend = " ".join(legend_lines(2, byes=True))
    assert "a bye: a win's points, in points (and the order) only" in legend
    assert "a bye" not in " ".join(legend_lines(2))
    assert all(len(line) <= 80 for line in legend_lines(2, byes=True))
