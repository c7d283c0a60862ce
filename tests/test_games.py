"""The registry, and invariants every registered game must keep under random play."""

import pytest
from players_for_tests import RandomPlayer

from arena.games import GAMES, find_game, game_names
from arena.games.base import CHANCE_SEAT, TERMINAL_SEAT, GameOptionError, UnknownGameError
from arena.referee.dice import roll_dice
from arena.referee.match import play_game, resolve_game_options
from arena.referee.record import game_log, replay

CASES = [(name, seats) for name in sorted(GAMES)
         for seats in range(GAMES[name].info.min_seats, GAMES[name].info.max_seats + 1)]


def test_find_game_and_the_error_for_unknown_names():
    assert find_game("seasons").info.title == "Seasons of the Sun"
    assert "seasons" in game_names()
    with pytest.raises(UnknownGameError) as error:
        find_game("go")
    assert "unknown game 'go'" in str(error.value)
    assert all(name in str(error.value) for name in GAMES)


def test_options_are_checked_by_name_and_type():
    info = find_game("seasons").info
    assert info.resolve_options({}) == {"placement_limit": 1000}
    with pytest.raises(GameOptionError, match="did you mean 'placement_limit'"):
        info.resolve_options({"placement-limit": 5})
    with pytest.raises(GameOptionError, match="integer"):
        info.resolve_options({"placement_limit": True})
    with pytest.raises(GameOptionError, match="at least 1"):
        info.resolve_options({"placement_limit": 0})


@pytest.mark.parametrize(("name", "seats"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_keeps_the_protocol(name, seats, seed):
    game = find_game(name)

    def check(state, move):
        if state.is_terminal:
            assert state.current_seat == TERMINAL_SEAT
            return
        if state.is_chance_node():
            assert state.current_seat == CHANCE_SEAT
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            request = state.chance_request()
            assert len(request.slots) == len(request.faces)
            values = roll_dice(seed, request)
            by_action, by_roll = state.copy(), state.copy()
            action = by_action.chance_action(values)
            by_action.apply(action)
            assert by_roll.apply_roll(values) == action
            assert by_roll.to_json() == by_action.to_json()
        else:
            assert state.current_seat >= 0
            legal = state.legal_actions()
            assert legal, "a decision node must offer an action"
            assert all(str(game.parse_action(str(a))) == str(a) for a in legal)
            assert state.observation(state.current_seat).legal_actions == tuple(legal)

    players = [RandomPlayer() for _ in range(seats)]
    record = play_game(game, players, seed, on_move=check)
    # Random Sonnentau play often runs into the turn limit; both endings are by the rules.
    assert record.termination in ("normal", "turn-limit", "placement-limit")
    assert sorted(record.ranks)[0] == 0
    final = replay(record)
    assert final.is_terminal and final.outcome().ranks == record.ranks
    assert game.state_from_json(final.to_json()).to_json() == final.to_json()
    options = resolve_game_options(game, {}, seats)
    assert final.to_json() == game.state_from_json(final.copy().to_json()).to_json()
    assert options == record.options
    assert game_log(record)[-1].startswith("Result: ")
