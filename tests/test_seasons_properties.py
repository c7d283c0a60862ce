"""Invariants of random Seasons play over many seeds."""

from hypothesis import given
from hypothesis import strategies as st
from players_for_tests import RandomPlayer

from arena.games import find_game
from arena.games.seasons.rules import PLACE, SeasonsState, parse_action
from arena.referee.match import play_game
from arena.referee.record import GameRecord, replay

GAME = find_game("seasons")
seeds = st.integers(min_value=0, max_value=2**63 - 1)


def checked_game(seed):
    totals = []

    def watch(state, move):
        if state.phase == PLACE:
            totals.append(state.total)
        for seat in (0, 1):
            assert all(v == 0 or 3 <= v <= 18 for v in state.fields[seat])

    record = play_game(GAME, [RandomPlayer(), RandomPlayer()], seed, on_move=watch)
    return record, totals


@given(seeds)
def test_random_games_end_and_scores_sum_to_120(seed):
    record, totals = checked_game(seed)
    assert record.termination == "normal"
    assert sum(record.scores) == 120
    assert all(3 <= t <= 18 for t in totals)
    placements = sum(1 for m in record.moves if m.action.startswith("place:"))
    assert 22 <= placements < 1000
    winner_scores = sorted(zip(record.ranks, record.scores, strict=False))
    assert winner_scores[0][1] >= winner_scores[1][1]


@given(seeds)
def test_a_record_replays_to_the_same_final_state(seed):
    record, _ = checked_game(seed)
    final = replay(record)
    assert final.is_terminal
    assert final.outcome().scores == record.scores
    again = replay(GameRecord.from_json(record.to_json()))
    assert again == final


@given(seeds)
def test_every_recorded_action_round_trips_and_states_survive_json(seed):
    record, _ = checked_game(seed)
    state = GAME.initial_state()
    for move in record.moves:
        action = parse_action(move.action)
        assert str(action) == move.action
        state.apply(action)
        assert SeasonsState.from_json(state.to_json()) == state


@given(seeds)
def test_the_same_seed_gives_the_same_game(seed):
    first, _ = checked_game(seed)
    second, _ = checked_game(seed)
    assert [m.action for m in first.moves] == [m.action for m in second.moves]
