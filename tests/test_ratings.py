"""Rating systems: explicit environments, golden values, ties, fixed order."""

import pytest
import trueskill

from arena.results.ratings import (
    OpenSkillRater,
    RatedGame,
    Rating,
    RatingSettings,
    RatingSettingsError,
    TrueSkillRater,
    make_rater,
    rate_games,
)

CLASSIC = RatingSettings(tau=25 / 300, draw_probability=0.10)  # trueskill's own defaults


def test_trueskill_golden_values_for_one_win():
    # trueskill's documented example: a win between two new players.
    winner, loser = TrueSkillRater(CLASSIC).rate([Rating(25, 25 / 3)] * 2, [0, 1])
    assert (round(winner.mu, 3), round(winner.sigma, 3)) == (29.396, 7.171)
    assert (round(loser.mu, 3), round(loser.sigma, 3)) == (20.604, 7.171)


def test_the_global_trueskill_environment_is_never_touched():
    before = trueskill.global_env()
    TrueSkillRater(RatingSettings(draw_probability=0.3, tau=0)).rate([Rating(25, 8)] * 2, [0, 1])
    after = trueskill.global_env()
    assert after is before and after.draw_probability == pytest.approx(0.10)


def test_a_draw_keeps_equal_players_equal():
    a, b = make_rater().rate([Rating(25, 25 / 3)] * 2, [0, 0])
    assert a.mu == pytest.approx(25) and b.mu == pytest.approx(25)
    assert a.sigma < 25 / 3


@pytest.mark.parametrize("system", ["trueskill", "openskill"])
def test_free_for_all_tables_with_shared_ranks(system):
    rater = make_rater(RatingSettings(system=system))
    assert rater.system == system
    first, mid_a, mid_b, last = rater.rate([rater.initial()] * 4, [0, 1, 1, 3])
    assert first.mu > mid_a.mu > last.mu
    assert mid_a.mu == pytest.approx(mid_b.mu, abs=0.01)  # TrueSkill approximates tied chains


def test_openskill_is_available_as_the_fast_alternative():
    rater = OpenSkillRater(RatingSettings(system="openskill"))
    winner, loser = rater.rate([rater.initial()] * 2, [0, 1])
    assert winner.mu > 25 > loser.mu


def test_rating_is_a_pure_function_of_the_games_in_order():
    games = [RatedGame(("a", "b"), (0, 1)), RatedGame(("b", "c"), (0, 0)),
             RatedGame(("c", "a"), (1, 0)), RatedGame(("a", "a"), (0, 1))]
    first = rate_games(games, make_rater())
    second = rate_games(games, make_rater())
    assert first.ratings == second.ratings
    assert first.games == {"a": 2, "b": 2, "c": 2}  # the self-play game is skipped
    assert first.leaderboard()[0][0] == "a"
    reordered = rate_games(games[::-1], make_rater())
    assert reordered.ratings != first.ratings  # TrueSkill depends on order: fix it


def test_conservative_rating():
    assert Rating(30, 2).conservative == 24


@pytest.mark.parametrize("settings", [{"system": "elo"}, {"draw_probability": 0},
                                      {"draw_probability": 1}, {"sigma": 0}, {"tau": -1}])
def test_bad_settings_are_refused(settings):
    with pytest.raises(RatingSettingsError):
        RatingSettings.from_mapping(settings)


def test_a_forfeit_at_a_larger_table_rates_the_failed_seats_loss_to_each_other_seat_only():
    from arena.results.ratings import RatedGame, RatingSettings, RatingTable, make_rater
    from arena.tournaments.ladder import _count_pairs

    table = RatingTable(make_rater(RatingSettings()))
    table.add(RatedGame(("a", "b", "c"), (0, 0, 2), failed=(2,)))  # c failed: a, b unordered
    a, b, c = (table.get(p) for p in "abc")
    assert a == b and a.mu > 25 > c.mu  # each beat c; no draw pulled them together
    draws = RatingTable(make_rater(RatingSettings()))
    draws.add(RatedGame(("a", "b", "c"), (0, 0, 2)))  # a game that ended: a tie for first
    assert draws.get("a").sigma < a.sigma  # the tie told TrueSkill something more
    losers = []
    for order in (("a", "b", "x"), ("b", "a", "x")):  # the same game, a and b swapped
        seated = RatingTable(make_rater(RatingSettings()))
        seated.add(RatedGame(("a", "b"), (0, 1)))  # a and b rated apart first
        seated.add(RatedGame(order, (0, 0, 2), failed=(2,)))
        losers.append(seated.get("x"))
    assert losers[0] == losers[1]  # 17.7703 against 17.7258 by where a and b sat
    pairs: dict[tuple[int, int], tuple[int, float]] = {}
    _count_pairs(pairs, (1, 2, 3), (0, 0, 2), failed=(2,))
    assert set(pairs) == {(1, 3), (3, 1), (2, 3), (3, 2)} and pairs[1, 3] == (1, 1.0)
    two: dict[tuple[int, int], tuple[int, float]] = {}
    _count_pairs(two, (1, 2), (0, 1), failed=(1,))  # at two seats the forfeit is the result
    assert two == {(1, 2): (1, 1.0), (2, 1): (1, 0.0)}
