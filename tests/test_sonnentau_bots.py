"""The shipped Sonnentau bots: legal, reproducible, and the heuristic beats random."""

from __future__ import annotations

import pytest
from sonnentau_examples import example_position

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.sonnentau.rules import SonnentauState, parse_action
from arena.referee.match import play_game
from arena.tournaments.matches import play_match

GAME = find_game("sonnentau")
RANDOM = "bots/sonnentau/random_bot.py"
HEURISTIC = "bots/sonnentau/heuristic.py"


def bot(spec: str):
    return load_bot(spec).player


def test_the_bots_load_with_their_names():
    assert (bot(RANDOM).name, bot(HEURISTIC).name) == ("random", "heuristic")


def test_the_random_bot_is_reproducible_from_its_seed():
    first = play_game(GAME, [bot(RANDOM), bot(RANDOM)], 11, {"turn_limit": 60})
    again = play_game(GAME, [bot(RANDOM), bot(RANDOM)], 11, {"turn_limit": 60})
    assert [m.action for m in first.moves] == [m.action for m in again.moves]


def play_own_turn(state: SonnentauState, player) -> list[str]:
    chosen = []
    while state.current_seat == 0:
        action = player.act(state.observation(0))
        chosen.append(str(action))
        state.apply(action if not isinstance(action, str) else parse_action(action))
    return chosen


def test_the_heuristic_finds_the_originals_first_example():
    state = example_position("standard", "dice:2,6")
    chosen = play_own_turn(state, bot(HEURISTIC))
    assert chosen[0] == "enter:d1:p0:OL:M:cw"  # the 6 from the start onto X, hitting p3
    assert chosen[1] in ("relocate:UR07", "relocate:UR03")  # two fields from Y
    assert chosen[3] == "relocate:Z"  # the 2 hits p1 on Y, which goes onto Z
    assert sorted(state.place_name(p) for p in state.pieces[0]) == [
        "X", "Y", "Z", "start", "start"]


def test_the_heuristic_finds_the_originals_second_example():
    state = example_position("miwin", "dice:9,3,2")
    chosen = play_own_turn(state, bot(HEURISTIC))
    assert chosen[0] == "enter:d0:p0:ML:M:cw"
    assert chosen[-1] == "move:d1:p1:G:in"  # Z, G1, G2, goal
    assert state.home[0] == 1


@pytest.mark.parametrize("dice", ["standard", "miwin"])
def test_the_heuristic_clearly_beats_random_two_players(dice):
    players = [bot(HEURISTIC), bot(RANDOM)]
    wins = 0
    for order, record in play_match(GAME, players, 2024, 20, {"dice": dice}):
        assert all(seat.status == "ok" for seat in record.seats)
        wins += record.ranks[order.index(0)] == 0
    assert wins >= 17


def test_the_heuristic_leads_a_four_player_table():
    players = [bot(HEURISTIC), bot(RANDOM), bot(RANDOM), bot(RANDOM)]
    ranks = [record.ranks[order.index(0)]
             for order, record in play_match(GAME, players, 5, 8, {"dice": "miwin"})]
    assert sum(ranks) / len(ranks) <= 0.5
