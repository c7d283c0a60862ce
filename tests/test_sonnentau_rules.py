"""Sonnentau rules: the original's worked examples, each movement and hitting rule on a
hand-built position, and invariants of random play for 2 to 4 players and both dice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.base import (
    CHANCE_SEAT,
    IllegalActionError,
    InvalidActionError,
    ranks_from_scores,
)
from arena.games.sonnentau.notation import describe_moves
from arena.games.sonnentau.rules import (
    HIT,
    HOME,
    MIWIN_III,
    MIWIN_IV,
    MIWIN_V,
    MOVE,
    OVER,
    PIECES,
    RELOCATE,
    ROLL,
    START,
    Dice,
    Enter,
    Move,
    Relocate,
    SonnentauState,
    parse_action,
)
from arena.referee.match import play_game
from arena.referee.record import GameRecord, game_log, replay

GAME = find_game("sonnentau")
RANDOM_BOT = "bots/sonnentau/random_bot.py"
HEURISTIC_BOT = "bots/sonnentau/heuristic.py"


# -- helpers ------------------------------------------------------------------------


def position(pieces: dict[int, dict[int, str]], roll: str | None = None, *, seat: int = 0,
             seats: int = 2, dice: str = "standard", turn_limit: int = 1000) -> SonnentauState:
    """A state with the given pieces placed (others on the start), ``seat`` to roll."""
    state = GAME.initial_state({"seats": seats, "dice": dice, "turn_limit": turn_limit})
    state.seat = seat
    state.turns = [1 if s <= seat else 0 for s in range(seats)]
    for owner, placed in pieces.items():
        for piece, place in placed.items():
            state.set_place(owner, piece, place)
    if roll is not None:
        state.apply(parse_action(roll))
    return state


def play(state: SonnentauState, *actions: str) -> SonnentauState:
    for text in actions:
        state.apply(parse_action(text))
    return state


def legal(state: SonnentauState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def places(state: SonnentauState, seat: int = 0) -> list[str]:
    return [state.place_name(p) for p in state.pieces[seat]]


def relocation_targets(state: SonnentauState) -> set[str]:
    assert state.phase == RELOCATE
    return {str(a).removeprefix("relocate:") for a in state.legal_actions()}


def circle(state: SonnentauState, track: str) -> set[str]:
    board = state.board
    return {board.field_ids[f] for f in board.track(track).fields}


# -- the original's worked examples ------------------------------------------------------


def test_example_1_standard_dice_two_and_six():
    state = position({0: {3: "X", 1: "Y"}}, "dice:2,6")
    assert state.phase == MOVE and state.dice_left() == (2, 6)

    play(state, "enter:d1:p0:OL:M:cw")  # OL, M07, M06, XL, M04, X: hits own p3
    assert state.phase == RELOCATE
    assert state.hit == (0, 3, state.board.index["X"])
    assert places(state) == ["X", "Y", "start", "hit", "start"]
    assert {"UR07", "UR03"} <= relocation_targets(state)
    assert "start" not in relocation_targets(state)  # M and UR: no final circle

    play(state, "relocate:UR07")
    assert state.phase == MOVE and state.dice_left() == (2,)
    assert places(state) == ["X", "Y", "start", "UR07", "start"]

    play(state, "move:d0:p3:UR:cw")  # UR07, UR06, Y: hits own p1
    assert state.phase == RELOCATE and state.hit == (0, 1, state.board.index["Y"])
    assert {"Z", "start"} <= relocation_targets(state)

    play(state, "relocate:Z")
    assert places(state) == ["X", "Z", "start", "Y", "start"]
    assert state.phase == ROLL and state.seat == 1  # 2,6 is no doubles: seat 1 rolls


def test_example_2_miwin_dice_two_three_nine():
    state = position({0: {3: "X", 1: "Y"}}, "dice:9,3,2", dice="miwin")
    play(state, "enter:d0:p0:ML:M:cw")  # ML, M10, M09, OL, M07, M06, XL, M04, X
    assert places(state) == ["X", "Y", "start", "hit", "start"]
    play(state, "relocate:UR07", "move:d2:p3:UR:cw")
    assert places(state) == ["X", "hit", "start", "Y", "start"]
    play(state, "relocate:Z")
    assert state.dice_left() == (3,)
    play(state, "move:d1:p1:G:in")  # Z, G1, G2, GOAL
    assert places(state) == ["X", "home", "start", "Y", "start"]
    assert state.home == [1, 0] and state.scores() == (1, 0)
    assert state.phase == ROLL and state.seat == 1


def test_example_1_log_line():
    state = position({0: {3: "X", 1: "Y"}})
    moves = ["dice:2,6", "enter:d1:p0:OL:M:cw", "relocate:UR07", "move:d0:p3:UR:cw",
             "relocate:Z"]
    assert describe_moves(state, moves) == [
        "1. seat 0 rolls 2,6: 6: p0 in at OL, M cw -> X, hits own p3 -> UR07; "
        "2: p3 UR07 UR cw -> Y, hits own p1 -> Z"]


def test_log_lines_for_doubles_forfeits_and_a_win():
    state = position({0: {0: "home", 1: "home", 2: "G1"}, 1: _blocked_entries()})
    lines = describe_moves(state, ["dice:4,4", "dice:6,5", "dice:2,1", "move:d0:p0:M:cw",
                                   "move:d1:p0:M:cw", "dice:1,2", "move:d1:p2:G:in"])
    assert lines == [
        "1. seat 0 rolls 4,4 (doubles): no move",
        "2. seat 0 rolls again 6,5: no move",
        "3. seat 1 rolls 2,1: 2: p0 OL M cw -> M06; 1: p0 M06 M cw -> XL",
        "4. seat 0 rolls 1,2: 2: p2 G1 G in -> home - seat 0 wins with 3 home",
    ]


# -- moving ------------------------------------------------------------------------------


def test_another_players_piece_blocks_the_way_but_own_pieces_are_passed():
    state = position({0: {0: "B00"}, 1: {0: "B03"}}, "dice:4,5")
    assert "move:d0:p0:B:ccw" not in legal(state)  # B01, MR, B03 (seat 1) blocks
    assert "move:d0:p0:B:cw" in legal(state)
    state = position({0: {0: "B00", 1: "B03"}}, "dice:4,5")
    assert "move:d0:p0:B:ccw" in legal(state)  # passes own p1 on B03
    play(state, "move:d0:p0:B:ccw")
    assert places(state)[:2] == ["B04", "B03"]


def test_landing_on_another_players_piece_hits_it():
    state = position({0: {0: "B00"}, 1: {0: "B03"}}, "dice:3,5")
    play(state, "move:d0:p0:B:ccw")
    assert state.phase == RELOCATE and state.hit == (1, 0, state.board.index["B03"])
    assert places(state, 1)[0] == "hit"


def test_a_circle_wraps_around():
    state = position({0: {0: "B17"}}, "dice:2,5")
    play(state, "move:d0:p0:B:ccw")
    assert places(state)[0] == "B01"


def test_track_choice_only_at_intersections():
    state = position({0: {0: "B03"}}, "dice:4,5")
    assert {str(a).split(":")[3] for a in state.legal_actions()
            if isinstance(a, Move)} == {"B"}
    state = position({0: {0: "MR"}}, "dice:4,5")
    tracks = {(a.track, a.direction) for a in state.legal_actions() if isinstance(a, Move)}
    assert tracks == {("B", "cw"), ("B", "ccw"), ("M", "cw"), ("M", "ccw")}


def test_no_turning_a_corner_within_one_die():
    # From B03, 1 step ccw is B04 ... never onto M within the same die.
    state = position({0: {0: "B05"}}, "dice:2,5")
    play(state, "move:d0:p0:B:ccw")  # B05 -> ML -> B07: stays on B
    assert places(state)[0] == "B07"


def test_the_goal_straight_does_not_wrap_and_needs_exact_landing():
    state = position({0: {0: "G2"}}, "dice:3,5")  # 3 passes the goal or falls off Z
    assert not any(isinstance(a, Move) and a.piece == 0 for a in state.legal_actions())
    state = position({0: {0: "G1"}}, "dice:3,5")
    assert not any(isinstance(a, Move) and a.piece == 0 for a in state.legal_actions())
    state = position({0: {0: "G1"}}, "dice:1,2")
    moves = {str(a) for a in state.legal_actions() if isinstance(a, Move)}
    assert moves == {"move:d0:p0:G:in", "move:d0:p0:G:out", "move:d1:p0:G:in"}
    play(state, "move:d1:p0:G:in")
    assert places(state)[0] == "home" and state.home[0] == 1


def test_z_leads_onto_the_goal_straight_and_exact_landing_goes_home():
    state = position({0: {0: "Z"}}, "dice:3,4")
    assert "move:d0:p0:G:in" in legal(state)
    assert "move:d1:p0:G:in" not in legal(state)  # 4 would pass the goal
    assert "move:d0:p0:G:out" not in legal(state)
    play(state, "move:d0:p0:G:in")
    assert places(state)[0] == "home"


def test_the_goal_straight_is_entered_only_from_z():
    state = position({0: {0: "F03"}}, "dice:2,3")
    assert {a.track for a in state.legal_actions() if isinstance(a, Move)} == {"F"}


# -- entering ------------------------------------------------------------------------


def test_entering_counts_the_entry_field_as_the_first_step():
    state = position({}, "dice:1,2")
    assert "enter:d0:p0:ML" in legal(state)
    assert "enter:d1:p0:ML:B:cw" in legal(state)
    play(state, "enter:d1:p0:ML:B:cw")  # ML, B05
    assert places(state)[0] == "B05"
    play(state, "enter:d0:p1:OR")
    assert places(state)[:2] == ["B05", "OR"]


def test_entering_uses_the_lowest_piece_on_the_start():
    state = position({0: {0: "B05", 1: "home"}}, "dice:3,5")
    assert {a.piece for a in state.legal_actions() if isinstance(a, Enter)} == {2}


def test_an_entry_held_by_another_player_is_blocked_except_with_a_one():
    state = position({1: {0: "OL"}}, "dice:1,5")
    assert not any(isinstance(a, Enter) and a.entry == "OL" and a.track
                   for a in state.legal_actions())
    assert "enter:d0:p0:OL" in legal(state)
    play(state, "enter:d0:p0:OL")
    assert state.phase == RELOCATE and state.hit[:2] == (1, 0)
    assert places(state)[0] == "OL"


def test_an_own_piece_on_the_entry_is_passed_or_hit_with_a_one():
    state = position({0: {1: "OL"}}, "dice:1,3")
    assert "enter:d1:p0:OL:M:cw" in legal(state)
    play(state, "enter:d1:p0:OL:M:cw")  # OL, M07, M06
    assert places(state)[:2] == ["M06", "OL"]
    play(state, "enter:d0:p2:OL")
    assert state.phase == RELOCATE and state.hit[:2] == (0, 1)


def test_entering_is_blocked_by_another_piece_on_the_way():
    state = position({1: {0: "M07"}}, "dice:4,5")
    assert "enter:d0:p0:OL:M:cw" not in legal(state)
    assert "enter:d0:p0:OL:M:ccw" in legal(state)


# -- hitting: the four relocation cases -----------------------------------------------


def test_relocation_case_1_a_circle_field_allows_its_empty_fields_only():
    state = position({0: {0: "M10"}, 1: {0: "M13", 1: "M14"}}, "dice:3,5")
    play(state, "move:d0:p0:M:ccw")  # M10 -> ML -> M12 -> M13, hits seat 1 p0
    targets = relocation_targets(state)
    assert targets == circle(state, "M") - {"M13", "M14"}
    assert "start" not in targets and "goal" not in targets


def test_relocation_case_2_final_circle_or_goal_straight_also_allows_the_start():
    state = position({0: {0: "F00"}, 1: {0: "F02"}}, "dice:2,5")
    play(state, "move:d0:p0:F:ccw")
    assert relocation_targets(state) == (circle(state, "F") - {"F02"}) | {"start"}
    play(state, "relocate:start")
    assert places(state, 1)[0] == "start"

    state = position({0: {0: "Z"}, 1: {0: "G1", 1: "G2"}}, "dice:1,5")
    play(state, "move:d0:p0:G:in")
    assert relocation_targets(state) == {"Z", "start"}  # G2 is taken, never the goal field


def test_relocation_case_3_an_intersection_of_two_circles_offers_both():
    state = position({0: {0: "M04"}, 1: {0: "X"}}, "dice:1,5")
    play(state, "move:d0:p0:M:cw")
    assert relocation_targets(state) == (circle(state, "M") | circle(state, "UR")) - {"X"}
    play(state, "relocate:UR15")
    assert places(state, 1)[0] == "UR15"

    state = position({0: {0: "UR04"}, 1: {0: "Y"}}, "dice:1,5")
    play(state, "move:d0:p0:UR:ccw")  # Y is UR x F: the final circle adds the start
    assert relocation_targets(state) == ((circle(state, "UR") | circle(state, "F")) - {"Y"}
                                         | {"start"})


def test_relocation_case_4_z_allows_final_circle_goal_straight_start_and_goal():
    state = position({0: {0: "F03"}, 1: {0: "Z"}}, "dice:1,5")
    play(state, "move:d0:p0:F:ccw")
    expected = (circle(state, "F") | {"G1", "G2"}) - {"Z"} | {"start", "goal"}
    assert relocation_targets(state) == expected
    play(state, "relocate:goal")
    assert places(state, 1)[0] == "home" and state.home == [0, 1]


def test_relocating_an_own_piece_from_z_into_the_goal():
    state = position({0: {0: "F03", 1: "Z"}}, "dice:1,5")
    play(state, "move:d0:p0:F:ccw", "relocate:goal")
    assert places(state)[:2] == ["Z", "home"]


def test_a_relocated_piece_may_move_with_a_later_die():
    state = position({0: {0: "F03", 1: "Z"}}, "dice:1,3")
    play(state, "move:d0:p0:F:ccw", "relocate:F05")
    assert "move:d1:p1:F:cw" in legal(state)  # F05 -> Z -> F03 -> F02


# -- dice: forced play, order, doubles -------------------------------------------------------


def _blocked_entries() -> dict[int, str]:
    return {0: "OL", 1: "ML", 2: "MR", 3: "OR"}


def test_the_player_picks_the_die_order():
    state = position({0: {0: "B00"}}, "dice:2,5")
    slots = {a.slot for a in state.legal_actions()}
    assert slots == {0, 1}


def test_a_die_without_a_legal_move_is_forfeited():
    state = position({0: {0: "G1"}, 1: _blocked_entries()}, "dice:2,6")
    assert legal(state) == {"move:d0:p0:G:in"}  # the 6 has no move; the 2 must be played
    play(state, "move:d0:p0:G:in")
    assert places(state)[0] == "home"
    assert state.phase == ROLL and state.seat == 1  # the 6 is forfeited


def test_no_legal_move_at_all_ends_the_turn_by_itself():
    state = position({0: {0: "G1"}, 1: _blocked_entries()}, "dice:6,5")
    assert state.phase == ROLL and state.seat == 1
    assert state.current_seat == CHANCE_SEAT


def test_equal_dice_offer_only_the_lower_slot():
    state = position({}, "dice:3,3")
    assert {a.slot for a in state.legal_actions()} == {0}


def test_doubles_roll_again_for_the_same_seat():
    state = position({}, "dice:3,3")
    play(state, "enter:d0:p0:OL:M:cw")
    assert {a.slot for a in state.legal_actions()} == {1}
    play(state, "enter:d1:p1:OR:M:ccw")
    assert state.phase == ROLL and state.seat == 0 and state.roll == 1
    request = state.chance_request()
    assert (request.seat, request.turn, request.roll) == (0, 0, 1)
    play(state, "dice:1,2", "enter:d0:p2:ML", "enter:d1:p3:MR:B:ccw")
    assert state.phase == ROLL and state.seat == 1 and state.roll == 0
    request = state.chance_request()
    assert (request.seat, request.turn, request.roll) == (1, 0, 0)


def test_a_turns_50th_roll_ends_it_even_if_it_is_a_double():
    """The doubles guard (docs/rules.md): a program that always picks a double would play
    one turn for ever."""
    from arena.games.sonnentau.rules import MAX_ROLLS_PER_TURN

    state = position({0: {0: "G1"}, 1: _blocked_entries()}, "dice:4,4")  # dice forfeited
    for roll in range(1, MAX_ROLLS_PER_TURN - 1):
        assert (state.seat, state.roll) == (0, roll)
        play(state, "dice:4,4")
    assert (state.seat, state.roll) == (0, MAX_ROLLS_PER_TURN - 1)
    play(state, "dice:4,4")  # the 50th roll of the turn
    assert state.phase == ROLL and state.seat == 1 and state.roll == 0


def test_doubles_with_forfeited_dice_still_roll_again():
    state = position({0: {0: "G1"}, 1: _blocked_entries()}, "dice:4,4")
    assert state.phase == ROLL and state.seat == 0 and state.roll == 1


@pytest.mark.parametrize("roll, doubles", [("dice:1,1,2", True), ("dice:9,9,8", True),
                                           ("dice:2,3,2", True), ("dice:5,5,6", True),
                                           ("dice:9,3,2", False), ("dice:1,4,7", False)])
def test_miwin_doubles_are_any_two_equal_of_three(roll, doubles):
    state = position({}, roll, dice="miwin")
    assert state.is_doubles() is doubles


def test_miwin_dice_faces_and_chance_outcomes():
    state = position({}, dice="miwin")
    request = state.chance_request()
    assert request.slots == (0, 1, 2)
    assert request.faces == (MIWIN_III, MIWIN_IV, MIWIN_V)
    assert all(sum(faces) == 30 for faces in request.faces)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 216 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    with pytest.raises(IllegalActionError):
        state.apply(Dice((9, 9, 9)))  # die V has no 9


def test_standard_dice_chance_outcomes():
    state = position({})
    request = state.chance_request()
    assert request.slots == (0, 1) and request.faces == ((1, 2, 3, 4, 5, 6),) * 2
    assert len(state.chance_outcomes()) == 36
    assert state.chance_action([2, 6]) == Dice((2, 6))
    with pytest.raises(IllegalActionError):
        state.apply(Dice((2, 6, 1)))


# -- the end -----------------------------------------------------------------------------


def test_the_third_piece_home_wins_at_once_mid_turn():
    state = position({0: {0: "home", 1: "home", 2: "G2"}}, "dice:1,5")
    play(state, "move:d0:p2:G:in")
    assert state.is_terminal and state.phase == OVER
    assert state.dice_left() == (5,)  # the 5 is never played
    outcome = state.outcome()
    assert outcome.ranks == (0, 1) and outcome.scores == (3.0, 0.0)
    assert outcome.termination == "normal"
    assert len(state.legal_actions()) == 0
    with pytest.raises(IllegalActionError):
        state.apply(Dice((1, 1)))


def test_throwing_an_opponent_into_the_goal_can_make_them_win():
    state = position({0: {0: "F03"}, 1: {0: "Z", 1: "home", 2: "home"}}, "dice:1,5")
    play(state, "move:d0:p0:F:ccw", "relocate:goal")
    assert state.is_terminal and state.winner() == 1
    assert state.outcome().ranks == (1, 0)


def test_others_are_ranked_by_pieces_home_with_shared_ranks():
    pieces = {0: {0: "home", 1: "home", 2: "G2"}, 1: {0: "home"}, 2: {0: "home"}, 3: {}}
    state = position(pieces, "dice:1,5", seats=4)
    play(state, "move:d0:p2:G:in")
    outcome = state.outcome()
    assert outcome.scores == (3.0, 1.0, 1.0, 0.0)
    assert outcome.ranks == (0, 1, 1, 3)

    state = position({0: {0: "home", 1: "home", 2: "G2"}}, "dice:1,5", seats=3)
    play(state, "move:d0:p2:G:in")
    assert state.outcome().ranks == (0, 1, 1)


def finish_turn(state: SonnentauState) -> None:
    while state.current_seat >= 0:
        state.apply(state.legal_actions()[0])


def test_the_turn_limit_stops_the_game_and_ranks_by_pieces_home():
    state = position({0: {0: "home"}, 1: {1: "home"}}, turn_limit=3)
    play(state, "dice:6,5")
    finish_turn(state)  # turn 1: seat 0
    play(state, "dice:6,6")
    finish_turn(state)  # turn 2: seat 1 rolled doubles and rolls again in the same turn
    assert state.seat == 1 and state.roll == 1 and state.turns_played == 2
    play(state, "dice:6,5")
    finish_turn(state)
    assert state.seat == 0 and state.turns_played == 3 and not state.is_terminal
    play(state, "dice:6,5")
    finish_turn(state)  # turn 3 ends: the limit is reached
    assert state.is_terminal
    outcome = state.outcome()
    assert outcome.termination == "turn-limit"
    assert outcome.ranks == (0, 0) and outcome.scores == (1.0, 1.0)


def test_outcome_before_the_end_is_an_error():
    with pytest.raises(IllegalActionError):
        position({}).outcome()


# -- actions, JSON, observation -----------------------------------------------------------


@pytest.mark.parametrize("text, action", [
    ("move:d0:p3:M:cw", Move(0, 3, "M", "cw")),
    ("move:d2:p4:G:in", Move(2, 4, "G", "in")),
    ("enter:d1:p0:OL:M:ccw", Enter(1, 0, "OL", "M", "ccw")),
    ("enter:d0:p2:OL", Enter(0, 2, "OL")),
    ("relocate:UR07", Relocate("UR07")),
    ("relocate:start", Relocate("start")),
    ("relocate:goal", Relocate("goal")),
    ("dice:2,6", Dice((2, 6))),
    ("dice:9,3,2", Dice((9, 3, 2))),
])
def test_action_strings_round_trip(text, action):
    assert parse_action(text) == action
    assert str(action) == text
    assert GAME.parse_action(text) == action


@pytest.mark.parametrize("text", [
    "", "pass", "move:d0:p5:M:cw", "move:d0:p3:M:left", "move:d0:p3:M", "enter:d0:p0",
    "enter:d0:p0:OL:M", "relocate:", "dice:0,3", "dice:1", "dice:1,2,3,4", "move:dx:p0:M:cw",
    "move:d0:p0:M:cw:extra", "dice:10,2",
])
def test_malformed_action_strings_are_rejected_by_name(text):
    with pytest.raises(InvalidActionError) as error:
        parse_action(text)
    assert repr(text) in str(error.value)


def test_illegal_actions_are_rejected():
    state = position({0: {0: "B00"}, 1: {0: "B03"}}, "dice:4,5")
    with pytest.raises(IllegalActionError, match="move:d0:p0:B:ccw"):
        state.apply(parse_action("move:d0:p0:B:ccw"))
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("relocate:B05"))
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("dice:1,2"))


def test_json_round_trip_and_copy_in_every_phase():
    state = position({0: {3: "X", 1: "Y"}, 1: {0: "home"}})
    states = [state.copy()]
    for text in ["dice:2,6", "enter:d1:p0:OL:M:cw", "relocate:UR07", "move:d0:p3:UR:cw"]:
        state.apply(parse_action(text))
        states.append(state.copy())
    for each in states:
        again = SonnentauState.from_json(each.to_json())
        assert again == each and again.to_json() == each.to_json()
        assert again.legal_actions() == each.legal_actions()
    copied = state.copy()
    copied.apply(parse_action("relocate:Z"))
    assert state.phase == RELOCATE and copied.phase == ROLL


def test_observation_shows_the_public_state_and_the_movers_actions():
    state = position({0: {3: "X"}}, "dice:2,6")
    observation = state.observation(0)
    assert observation.game == "sonnentau" and observation.seat == 0
    assert observation.legal_actions == tuple(state.legal_actions())
    assert observation.state["pieces"][0][3] == "X"
    assert observation.state["dice"] == [2, 6] and observation.state["dice_left"] == [0, 1]
    assert state.observation(1).legal_actions == ()
    rebuilt = GAME.state_from_json(observation.state)
    assert rebuilt == state


def test_render_and_describe_action():
    state = position({0: {3: "X"}, 1: {0: "Y"}}, "dice:2,6")
    text = GAME.render(state)
    assert "seat 0" in text and "p3 X" in text and "dice 2,6" in text
    label = GAME.describe_action(state, parse_action("enter:d1:p0:OL:M:cw"))
    assert label == "die 6: p0 enters at OL, along M clockwise to X, hitting own p3"
    play(state, "enter:d1:p0:OL:M:cw")
    assert "waits to be relocated" in GAME.render(state)
    # the screen says what is asked: a relocation, with the dice still to play
    assert GAME.render(state).splitlines()[0].endswith(
        "seat 0 (yellow) to relocate, dice 2,6, then 2")
    assert GAME.describe_action(state, parse_action("relocate:start")).startswith("send own p3")


def test_game_info_and_options():
    info = GAME.info
    assert (info.name, info.min_seats, info.max_seats) == ("sonnentau", 2, 4)
    options = info.resolve_options({})
    assert options == {"board": "", "dice": "standard", "seats": 2, "turn_limit": 1000}
    state = GAME.initial_state({"seats": 3, "dice": "miwin"})
    assert state.n_seats == 3 and len(state.pieces) == 3 and state.variant == "miwin"


# -- random play ---------------------------------------------------------------------------


def random_players(seats: int) -> list:
    return [load_bot(RANDOM_BOT).player for _ in range(seats)]


def check_invariants(state: SonnentauState) -> None:
    occupied = {}
    for seat, pieces in enumerate(state.pieces):
        assert len(pieces) == PIECES
        assert state.home[seat] == pieces.count(HOME)
        for piece, place in enumerate(pieces):
            if place >= 0:
                assert place not in occupied, "two pieces on one field"
                assert place != state.board.goal
                occupied[place] = seat * PIECES + piece
            else:
                assert place in (START, HOME, HIT)
            if place == HIT:
                assert state.phase == RELOCATE and state.hit[:2] == (seat, piece)
    assert occupied == {f: c for f, c in enumerate(state.occupant) if c >= 0}
    assert sum(pieces.count(HIT) for pieces in state.pieces) == (state.phase == RELOCATE)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), seats=st.sampled_from([2, 3, 4]),
       dice=st.sampled_from(["standard", "miwin"]), turn_limit=st.sampled_from([150, 1000]),
       heuristic=st.lists(st.booleans(), min_size=4, max_size=4))
def test_random_games_keep_the_invariants_and_replay(seed, seats, dice, turn_limit, heuristic):
    options = {"dice": dice, "turn_limit": turn_limit}
    players = [load_bot(HEURISTIC_BOT if heuristic[seat] else RANDOM_BOT).player
               for seat in range(seats)]
    record = play_game(GAME, players, seed, options,
                       on_move=lambda state, move: check_invariants(state))
    assert all(s.status == "ok" for s in record.seats)
    assert record.termination in ("normal", "turn-limit")
    rolls = sum(1 for move in record.moves if move.seat == CHANCE_SEAT)
    assert record.termination == "normal" or rolls >= turn_limit
    assert record.ranks == ranks_from_scores(record.scores)
    if record.termination == "normal":
        assert max(record.scores) == 3 and list(record.scores).count(3) == 1
    final = replay(GameRecord.from_json(record.to_json()))
    assert final.is_terminal
    assert final.outcome().ranks == record.ranks
    assert final.outcome().scores == record.scores
    state = GAME.initial_state(record.options)
    for move in record.moves:
        action = parse_action(move.action)
        assert str(action) == move.action
        state.apply(action)
    assert state == final
    assert len(game_log(record)) >= 2


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), dice=st.sampled_from(["standard", "miwin"]))
def test_states_survive_json_during_random_play(seed, dice):
    def check(state, move):
        again = SonnentauState.from_json(state.to_json())
        assert again == state
        assert [str(a) for a in again.legal_actions()] == [str(a) for a in state.legal_actions()]

    play_game(GAME, random_players(2), seed, {"dice": dice, "turn_limit": 40}, on_move=check)


def reference_die_moves(state: SonnentauState) -> list[str]:
    """The legal die moves by a plain walk of each path, field by field (no bit masks)."""
    board, seat, found, seen = state.board, state.seat, [], set()

    def free(path, n, origin):
        if n > len(path) or path[n - 1] == origin:
            return False
        return all(state.occupant[f] == -1 or state.occupant[f] // 5 == seat
                   for f in path[:n - 1])

    for slot in state.left:
        n = state.dice[slot]
        if n in seen:
            continue
        seen.add(n)
        for piece, origin in enumerate(state.pieces[seat]):
            if origin >= 0:
                found += [f"move:d{slot}:p{piece}:{s.track}:{s.direction}"
                          for s in board.steps[origin] if free(s.path, n, origin)]
        if -1 in state.pieces[seat]:
            piece = state.pieces[seat].index(-1)
            for entry in board.entries:
                entry_id, code = board.field_ids[entry], state.occupant[entry]
                if n == 1:
                    found.append(f"enter:d{slot}:p{piece}:{entry_id}")
                elif code == -1 or code // 5 == seat:
                    found += [f"enter:d{slot}:p{piece}:{entry_id}:{s.track}:{s.direction}"
                              for s in board.steps[entry] if free(s.path, n - 1, -1)]
    return found


@pytest.mark.parametrize(("seats", "dice"), [(2, "standard"), (3, "miwin"), (4, "standard")])
def test_legal_moves_are_those_of_a_plain_walk_along_each_path(seats, dice):
    import random

    from arena.games.sonnentau.rules import MOVE
    from arena.referee.dice import roll_dice

    checked = 0
    for seed in range(3):
        rng, state = random.Random(seed), GAME.initial_state({"seats": seats, "dice": dice})
        while not state.is_terminal and checked < 3000 * (seed + 1):
            if state.is_chance_node():
                state.apply_roll(roll_dice(seed, state.chance_request()))
                continue
            legal = state.legal_actions()
            if state.phase == MOVE:
                assert [str(a) for a in legal] == reference_die_moves(state)
                checked += 1
            state.apply(rng.choice(legal))
    assert checked > 3000
