"""Each clause of the Seasons of the Sun rules, on hand-built positions and scripts."""

import pytest

from arena.games import find_game
from arena.games.base import CHANCE_SEAT, IllegalActionError, InvalidActionError
from arena.games.seasons.rules import (
    ALL_REROLLS,
    PLACE,
    REROLL,
    SECTOR_INDEX,
    SECTORS,
    Dice,
    Place,
    Reroll,
    SeasonsState,
    parse_action,
)

GAME = find_game("seasons")


def position(outer=None, inner=None, *, seat=0, dice=(), phase=PLACE, turns=(1, 0)):
    """A state with the given fields filled (sector id -> total), at a decision of ``seat``."""
    state = SeasonsState()
    for own, fields in ((0, outer or {}), (1, inner or {})):
        for sector, total in fields.items():
            state.fields[own][SECTOR_INDEX[sector]] = total
    state.seat, state.dice, state.phase, state.turns = seat, tuple(dice), phase, list(turns)
    return state


def play(state, *actions):
    for text in actions:
        state.apply(parse_action(text))
    return state


def full_circle(total, *, but=()):
    return {s: total for s in SECTORS if s not in but}


# -- a turn -------------------------------------------------------------------

def test_the_game_starts_with_seat_0_rolling_three_dice():
    state = GAME.initial_state()
    assert state.current_seat == CHANCE_SEAT and state.is_chance_node()
    request = state.chance_request()
    assert (request.seat, request.turn, request.roll, request.slots) == (0, 0, 0, (0, 1, 2))
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 216
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_after_the_roll_every_subset_of_die_slots_may_be_rerolled():
    state = play(GAME.initial_state(), "dice:4,4,4")
    assert state.current_seat == 0
    assert [str(a) for a in state.legal_actions()] == [
        "keep", "reroll:0", "reroll:1", "reroll:2", "reroll:0,1", "reroll:0,2", "reroll:1,2",
        "reroll:0,1,2"]


def test_a_reroll_rolls_only_the_named_slots_in_the_second_roll_of_the_turn():
    state = play(GAME.initial_state(), "dice:2,3,6", "reroll:0,1")
    request = state.chance_request()
    assert (request.seat, request.turn, request.roll, request.slots) == (0, 0, 1, (0, 1))
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 36
    assert all(action.values[2] == 6 for action, _ in outcomes)
    assert state.chance_action([5, 5]) == Dice((5, 5, 6))
    with pytest.raises(IllegalActionError):
        state.apply(Dice((5, 5, 5)))  # slot 2 was kept
    play(state, "dice:5,5,6")
    assert state.phase == PLACE and state.total == 16


def test_keep_goes_straight_to_the_placement():
    state = play(GAME.initial_state(), "dice:1,2,3", "keep")
    assert state.phase == PLACE and state.total == 6
    assert len(state.legal_actions()) == 11


def test_only_sectors_with_an_empty_own_field_can_take_the_total():
    state = position({"max-5": 10, "min-9": 7}, {"max-8": 12}, dice=(3, 3, 3))
    legal = {a.sector for a in state.legal_actions()}
    assert legal == set(SECTORS) - {"max-5", "min-9"}
    with pytest.raises(IllegalActionError, match="full"):
        state.apply(Place("max-5"))


def test_actions_outside_their_phase_are_illegal():
    state = GAME.initial_state()
    with pytest.raises(IllegalActionError):
        state.apply(Reroll(()))
    play(state, "dice:1,1,1")
    with pytest.raises(IllegalActionError):
        state.apply(Place("max-5"))
    with pytest.raises(IllegalActionError):
        state.apply(Dice((1, 2, 3)))


# -- resolution and who moves next -----------------------------------------------

def test_an_equal_total_neutralises_the_sector_and_the_opponent_moves():
    state = position({}, {"max-13": 14}, dice=(4, 5, 5))
    play(state, "place:max-13")
    i = SECTOR_INDEX["max-13"]
    assert state.fields[0][i] == 0 and state.fields[1][i] == 0
    assert state.scores() == (0, 0)
    assert state.is_chance_node() and state.chance_request().seat == 1


def test_a_larger_total_wins_a_max_sector_and_the_winner_moves_again():
    state = position({}, {"max-8": 12}, dice=(6, 6, 1), turns=(3, 2))
    play(state, "place:max-8")
    assert state.winner_of(SECTOR_INDEX["max-8"]) == 0
    assert state.scores() == (8, 0)
    request = state.chance_request()
    assert (request.seat, request.turn, request.roll) == (0, 3, 0)


def test_a_smaller_total_wins_a_min_sector():
    state = position({}, {"min-17": 9}, seat=0, dice=(1, 2, 3))
    play(state, "place:min-17")
    assert state.scores() == (17, 0)
    assert state.chance_request().seat == 0


def test_deciding_a_sector_for_the_opponent_passes_the_turn():
    state = position({"min-10": 5}, {}, seat=1, dice=(6, 6, 6), turns=(2, 1))
    play(state, "place:min-10")
    assert state.scores() == (10, 0)
    assert state.chance_request().seat == 0


def test_filling_an_open_sector_passes_the_turn():
    state = position({}, {}, dice=(3, 4, 5))
    play(state, "place:max-15")
    assert state.scores() == (0, 0)
    assert state.chance_request().seat == 1
    assert state.chance_request().turn == 0


def test_a_player_with_a_full_circle_is_skipped():
    inner = full_circle(10)
    outer = {s: 11 for s in SECTORS if s not in ("max-5", "max-8")}
    state = position(outer, inner, dice=(1, 1, 1))
    play(state, "place:max-5")  # loses Max-5: the turn would pass, but seat 1 is full
    assert state.chance_request().seat == 0


def test_a_skipped_player_comes_back_after_a_neutralisation():
    inner = full_circle(10)
    outer = {s: 11 for s in SECTORS if s not in ("max-5", "max-8")}
    state = position(outer, inner, dice=(1, 1, 1))
    play(state, "place:max-5", "dice:3,3,4", "keep", "place:max-8")  # 10 against 10
    assert state.fields[1][SECTOR_INDEX["max-8"]] == 0
    assert not state.is_terminal
    request = state.chance_request()
    assert request.seat == 1
    play(state, "dice:6,6,6", "keep")
    assert [str(a) for a in state.legal_actions()] == ["place:max-8"]


def test_winning_the_last_own_field_with_the_opponent_unfinished_passes_the_turn():
    outer = full_circle(18, but=("max-15",))
    inner = {"max-15": 3}
    state = position(outer, inner, dice=(6, 6, 6))
    play(state, "place:max-15")
    assert state.chance_request().seat == 1


# -- end and scoring ------------------------------------------------------------

def test_the_game_ends_when_all_22_fields_are_filled_and_higher_score_wins():
    outer = full_circle(18, but=("max-15",))
    outer.update({"min-9": 3, "min-10": 3, "min-11": 3, "min-13": 3, "min-17": 3})
    inner = full_circle(4)
    state = position(outer, inner, dice=(1, 1, 1))
    play(state, "place:max-15")
    assert state.is_terminal and state.current_seat < 0
    outcome = state.outcome()
    assert outcome.scores == (120 - 15, 15)
    assert sum(outcome.scores) == 120
    assert outcome.ranks == (0, 1) and outcome.termination == "normal"


def test_60_60_is_a_draw():
    # Seat 1 wins min-17, min-13, min-11, min-10 and min-9: 60 points.
    outer = {s: (18 if s.startswith("max") else 15) for s in SECTORS if s != "min-17"}
    inner = {s: (3 if s.startswith("max") else 4) for s in SECTORS}
    state = position(outer, inner, dice=(5, 5, 5))
    play(state, "place:min-17")
    assert state.outcome().scores == (60, 60)
    assert state.outcome().ranks == (0, 0)


def test_the_placement_limit_stops_the_game_and_scores_decided_sectors_only():
    state = GAME.initial_state({"placement_limit": 3})
    play(state, "dice:6,6,6", "keep", "place:max-15",
         "dice:1,1,1", "keep", "place:max-15",
         "dice:1,1,2", "keep", "place:max-5")
    assert state.is_terminal
    outcome = state.outcome()
    assert outcome.termination == "placement-limit"
    assert outcome.scores == (15, 0) and outcome.ranks == (0, 1)


def test_outcome_of_an_unfinished_game_is_an_error():
    with pytest.raises(IllegalActionError):
        GAME.initial_state().outcome()


# -- a scripted game opening with fixed dice --------------------------------------

def test_scripted_opening_with_neutralisation_and_moving_again():
    state = GAME.initial_state()
    play(state, "dice:2,3,6", "reroll:0,1", "dice:6,5,6", "place:max-15")  # seat 0: 17
    assert state.chance_request().seat == 1
    play(state, "dice:5,6,6", "keep", "place:max-15")  # seat 1: 17 -> neutralised
    assert state.fields == [[0] * 11, [0] * 11]
    assert (state.chance_request().seat, state.chance_request().turn) == (0, 1)
    play(state, "dice:1,1,2", "keep", "place:min-17")  # seat 0: 4, open
    play(state, "dice:1,2,2", "keep", "place:min-17")  # seat 1: 5, lost
    assert state.scores() == (17, 0)
    assert (state.chance_request().seat, state.chance_request().turn) == (0, 2)
    play(state, "dice:6,6,5", "keep", "place:max-13")  # seat 0: 17, open
    play(state, "dice:6,6,6", "keep", "place:max-13")  # seat 1: 18, won
    assert state.scores() == (17, 13)
    request = state.chance_request()
    assert (request.seat, request.turn) == (1, 3)  # seat 1 moves again: its 4th turn


# -- actions as strings ---------------------------------------------------------------

@pytest.mark.parametrize("text", ["keep", "reroll:0", "reroll:1,2", "reroll:0,1,2",
                                  "place:max-13", "place:min-9", "dice:1,6,3"])
def test_canonical_strings_parse_back(text):
    assert str(parse_action(text)) == text
    assert str(GAME.parse_action(text)) == text


def test_every_action_parses_to_what_its_fields_make_and_variants_to_the_same():
    dice = [(a, b, c) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]
    made = [*(Reroll(slots) for slots in ((), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2),
                                          (0, 1, 2))),
            *(Place(sector) for sector in SECTORS), *(Dice(values) for values in dice)]
    for action in made:
        parsed = parse_action(str(action))
        assert parsed == action and type(parsed) is type(action)
    assert parse_action("reroll:2,1,0") == parse_action("reroll:0,1,2")
    assert parse_action("reroll:02") == Reroll((2,))


def test_reroll_slots_are_normalised_and_equal_dice_stay_distinct_slots():
    assert parse_action("reroll:2,0") == Reroll((0, 2))
    assert len({str(a) for a in ALL_REROLLS}) == 8


@pytest.mark.parametrize("text", ["", "kep", "reroll:", "reroll:3", "reroll:0,0", "reroll:a",
                                  "place:max-14", "place:", "place", "dice:1,2",
                                  "dice:0,1,2", "dice:1,2,7", "move:d0", "reroll:\uff11"])
def test_malformed_strings_raise_an_error_naming_them(text):
    with pytest.raises(InvalidActionError) as error:
        parse_action(text)
    assert repr(text) in str(error.value)


def test_non_strings_are_malformed():
    with pytest.raises(InvalidActionError):
        parse_action(5)


# -- observation and JSON ---------------------------------------------------------------

def test_the_observation_shows_everything_public_and_the_legal_actions():
    state = position({"max-5": 12}, {"min-9": 6}, dice=(1, 2, 3))
    obs = state.observation(0)
    assert obs.game == "seasons" and obs.seat == 0
    assert obs.state["fields"]["max-5"] == [12, None]
    assert obs.state["fields"]["min-9"] == [None, 6]
    assert obs.state["dice"] == [1, 2, 3] and obs.state["phase"] == "place"
    assert len(obs.legal_actions) == 10
    assert state.observation(1).legal_actions == ()
    assert obs.to_json()["legal_actions"][0] == "place:max-8"


def test_json_round_trip_and_copy_are_independent():
    state = position({"max-5": 12}, {"min-9": 6}, dice=(1, 2, 3), phase=REROLL, turns=(4, 3))
    again = SeasonsState.from_json(state.to_json())
    assert again == state and again.to_json() == state.to_json()
    twin = state.copy()
    play(twin, "keep", "place:max-8")
    assert twin != state and state.phase == REROLL


def test_the_game_log_reads_turn_by_turn_and_shows_an_unfinished_last_turn():
    from arena.referee.record import GameRecord, Move, SeatRecord, game_log

    actions = [(-1, "dice:4,4,5"), (0, "keep"), (0, "place:max-8"),
               (-1, "dice:2,5,5"), (1, "reroll:0"), (-1, "dice:6,5,5"), (1, "place:max-8"),
               (-1, "dice:1,2,3"), (1, "reroll:0")]
    record = GameRecord(
        "seasons", {"placement_limit": 1000}, 1,
        (SeatRecord("a", "1"), SeatRecord("b", "1", "timeout", "too slow")),
        tuple(Move(seat, action, 0.0) for seat, action in actions),
        (0, 1), (0.0, 8.0), "timeout")
    assert game_log(record) == [
        "1. seat 0: 4,4,5 keep -> 13 on Max-8",
        "2. seat 1: 2,5,5 reroll slot 0 -> 6,5,5 = 16 on Max-8, sector won (0-8)",
        "3. seat 1: 1,2,3 reroll slot 0 (unfinished)",
        "Result: 0-8, seat 0 (a) wins [timeout]",
    ]


@pytest.mark.parametrize("values", [(9, 9, 9), (1, 2), (0, 3, 4), (1, 2, 3, 4)])
def test_a_roll_that_three_dice_cannot_show_is_refused(values):
    from arena.games.base import Dice

    state = find_game("seasons").initial_state()
    with pytest.raises(IllegalActionError):
        state.copy().apply(Dice(values))
    with pytest.raises(IllegalActionError):
        state.copy().apply_roll(values)
