"""The shipped Seasons bots: legal, deterministic, and greedy clearly beats random."""

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.referee.match import play_game
from arena.tournaments.matches import MatchSummary, play_match

GAME = find_game("seasons")


def bots(root):
    return (load_bot(str(root / "bots/seasons/greedy.py")).player,
            load_bot(str(root / "bots/seasons/random_bot.py")).player)


def test_greedy_beats_random_clearly_over_seat_balanced_games(root):
    greedy, rand = bots(root)
    summary = MatchSummary(["greedy", "random"], 2)
    for order, record in play_match(GAME, [greedy, rand], seed=2024, games=60):
        assert all(seat.status == "ok" for seat in record.seats)
        summary.add(order, record)
    greedy_results = summary.results[0]
    assert greedy_results.overall.score >= 0.9
    assert greedy_results.by_seat[0].wins > 0 and greedy_results.by_seat[1].wins > 0


def test_the_random_bot_is_deterministic_given_its_seed(root):
    _, rand = bots(root)
    a = play_game(GAME, [rand, rand], seed=9)
    b = play_game(GAME, [rand, rand], seed=9)
    assert [m.action for m in a.moves] == [m.action for m in b.moves]


def test_greedy_rerolls_low_dice_when_only_max_sectors_are_open(root):
    greedy, _ = bots(root)
    state = GAME.initial_state()
    state.fields[0][6:] = [5] * 5  # its min sectors are filled
    state.apply(GAME.parse_action("dice:1,1,6"))
    assert str(greedy.act(state.observation(0))) == "reroll:0,1"


def test_greedy_keeps_low_dice_when_only_min_sectors_are_open(root):
    greedy, _ = bots(root)
    state = GAME.initial_state()
    state.fields[0][:6] = [15] * 6
    state.apply(GAME.parse_action("dice:1,1,6"))
    assert str(greedy.act(state.observation(0))) == "reroll:2"


def test_greedy_places_a_winning_total_where_the_opponent_is_beaten(root):
    greedy, _ = bots(root)
    state = GAME.initial_state()
    state.fields[1][5] = 12  # opponent has 12 on Max-15
    state.apply(GAME.parse_action("dice:6,6,5"))
    state.apply(GAME.parse_action("keep"))
    assert str(greedy.act(state.observation(0))) == "place:max-15"
