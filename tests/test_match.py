"""The referee: chance from the dice stream, checking every reply, records."""

import pytest
from players_for_tests import FirstLegalPlayer, RandomPlayer, ReplyPlayer

from arena.games import find_game
from arena.games.base import CHANCE_SEAT, Outcome
from arena.games.seasons.rules import Place
from arena.referee.dice import roll_dice
from arena.referee.match import SeatCountError, bot_seed, forfeit_outcome, play_game
from arena.referee.record import GameRecord, replay

SEASONS = find_game("seasons")


def positions_asked(record, seat):
    """The JSON state at each of ``seat``'s decisions, replayed from the record."""
    positions, state = [], SEASONS.initial_state()
    for move in record.moves:
        if move.seat == seat:
            positions.append(state.to_json())
        state.apply(SEASONS.parse_action(move.action))
    return positions


def first_rolls(record, seat):
    """The opening roll of each turn of ``seat``, in order."""
    state, rolls = SEASONS.initial_state(), []
    for move in record.moves:
        if state.is_chance_node():
            request = state.chance_request()
            if request.seat == seat and request.roll == 0:
                rolls.append(move.action)
        state.apply(SEASONS.parse_action(move.action))
    return rolls


def test_a_game_record_has_everything_needed_to_replay_and_judge():
    record = play_game("seasons", [RandomPlayer(), FirstLegalPlayer()], seed=11)
    assert record.game == "seasons" and record.seed == 11
    assert record.options == {"placement_limit": 1000}
    assert [s.name for s in record.seats] == ["test-random", "first"]
    assert all(s.status == "ok" for s in record.seats)
    assert record.moves[0].seat == CHANCE_SEAT and record.moves[0].action.startswith("dice:")
    assert all(m.seconds >= 0 for m in record.moves)
    assert len(record.decision_times(0)) > 0
    assert sorted(record.ranks) in ([0, 1], [0, 0])
    assert GameRecord.from_json(record.to_json()) == record
    assert replay(record).outcome() == Outcome(record.ranks, record.scores, "normal")


def test_chance_is_resolved_from_the_seat_bound_dice_stream():
    record = play_game("seasons", [FirstLegalPlayer(), FirstLegalPlayer()], seed=5)
    state = SEASONS.initial_state()
    for move in record.moves:
        if state.is_chance_node():
            expected = state.chance_action(roll_dice(5, state.chance_request()))
            assert move.seat == CHANCE_SEAT and move.action == str(expected)
        state.apply(SEASONS.parse_action(move.action))


def test_swapping_seats_on_one_seed_hands_each_seat_the_same_opening_rolls():
    a = play_game("seasons", [RandomPlayer(), FirstLegalPlayer()], seed=3)
    b = play_game("seasons", [FirstLegalPlayer(), RandomPlayer()], seed=3)
    for seat in (0, 1):
        rolls_a, rolls_b = first_rolls(a, seat), first_rolls(b, seat)
        common = min(len(rolls_a), len(rolls_b))
        assert common > 5 and rolls_a[:common] == rolls_b[:common]


@pytest.mark.parametrize("reply", ["place:max-5", "reroll:0", Place("max-5")])
def test_an_action_that_is_not_legal_loses_with_illegal_action(reply):
    # On its first decision (the re-roll), placing is not legal; on its second, re-rolling.
    after = 0 if not str(reply).startswith("reroll") else 1
    record = play_game("seasons", [FirstLegalPlayer(), ReplyPlayer(reply, after)], seed=1)
    assert record.seats[1].status == "illegal-action"
    assert record.ranks == (0, 1) and record.termination == "illegal-action"
    assert "not a legal action" in record.seats[1].detail


@pytest.mark.parametrize("reply", [None, 42, 1.5, object(), ["keep"], b"keep", {"a": 1}])
def test_garbage_replies_lose_with_illegal_action(reply):
    record = play_game("seasons", [ReplyPlayer(reply), FirstLegalPlayer()], seed=1)
    assert record.seats[0].status == "illegal-action"
    assert record.ranks == (1, 0)


def test_a_malformed_string_loses_and_names_the_string():
    record = play_game("seasons", [ReplyPlayer("reroll:9"), FirstLegalPlayer()], seed=1)
    assert record.seats[0].status == "illegal-action"
    assert "'reroll:9'" in record.seats[0].detail


def test_a_non_canonical_spelling_of_a_legal_action_is_accepted():
    record = play_game("seasons", [ReplyPlayer("reroll:2,0", after=0), FirstLegalPlayer()],
                       seed=1)
    # First decision is the re-roll: accepted; the second reply is illegal in the placement.
    assert record.moves[1].action == "reroll:0,2"


def test_an_exception_in_act_is_a_crash_with_the_traceback():
    record = play_game("seasons", [FirstLegalPlayer(), ReplyPlayer(ZeroDivisionError("boom"),
                                                                   after=3)], seed=2)
    assert record.seats[1].status == "crash"
    assert "ZeroDivisionError: boom" in record.seats[1].detail
    assert record.ranks == (0, 1)
    assert replay(record).current_seat == 1  # the record stops where the bot failed


class BrokenStart(FirstLegalPlayer):
    def start(self, info):
        raise RuntimeError("no start")


class BrokenEnd(FirstLegalPlayer):
    def end(self, outcome):
        raise RuntimeError("no end")


def test_an_exception_in_start_is_a_crash_before_any_move():
    record = play_game("seasons", [FirstLegalPlayer(), BrokenStart()], seed=2)
    assert record.seats[1].status == "crash" and record.moves == ()
    assert "start() raised RuntimeError" in record.seats[1].detail


def test_an_exception_in_end_does_not_change_the_result():
    plain = play_game("seasons", [FirstLegalPlayer(), FirstLegalPlayer()], seed=2)
    broken = play_game("seasons", [FirstLegalPlayer(), BrokenEnd()], seed=2)
    assert broken.ranks == plain.ranks and broken.seats[1].status == "ok"


class Vandal(FirstLegalPlayer):
    """Scribbles over everything it is given."""

    def act(self, observation):
        observation.state["fields"]["max-15"][0] = 99
        observation.state["dice"].append(7)
        observation.state["fields"].clear()
        return super().act(observation)


def test_a_bot_that_mutates_its_observation_changes_nothing():
    plain = play_game("seasons", [FirstLegalPlayer(), FirstLegalPlayer()], seed=4)
    vandal = play_game("seasons", [Vandal(), FirstLegalPlayer()], seed=4)
    assert [m.action for m in vandal.moves] == [m.action for m in plain.moves]


class Keeper(FirstLegalPlayer):
    """Keeps every observation (or only its state) and reads none of them during the game."""

    def __init__(self, keep_state_only: bool) -> None:
        self.keep_state_only, self.kept = keep_state_only, []

    def act(self, observation):
        self.kept.append(observation.state if self.keep_state_only else observation)
        return super().act(observation)


@pytest.mark.parametrize("keep_state_only", [False, True])
def test_an_observation_kept_past_act_shows_the_position_it_was_asked_in(keep_state_only):
    keeper = Keeper(keep_state_only)
    record = play_game("seasons", [keeper, FirstLegalPlayer()], seed=6)
    expected = positions_asked(record, seat=0)
    kept = [k if keep_state_only else k.state for k in keeper.kept]
    assert len(kept) == len(expected) > 10
    assert [dict(view) for view in kept] == expected


class Reader(FirstLegalPlayer):
    """Reads the state at every other decision and keeps only a copy of what it read."""

    def __init__(self) -> None:
        self.decisions, self.seen = 0, {}

    def act(self, observation):
        if self.decisions % 2:
            self.seen[self.decisions] = {key: observation.state[key] for key in observation.state}
        self.decisions += 1
        return super().act(observation)


def test_a_state_read_and_let_go_shows_each_later_position_as_it_is():
    reader = Reader()
    record = play_game("seasons", [reader, FirstLegalPlayer()], seed=8)
    expected = positions_asked(record, seat=0)
    assert len(reader.seen) > 5
    assert all(seen == expected[i] for i, seen in reader.seen.items())


def test_the_state_of_an_observation_nobody_reads_is_never_built(monkeypatch):
    from arena.games.seasons.rules import SeasonsState

    built = []
    original = SeasonsState.to_json
    monkeypatch.setattr(SeasonsState, "to_json", lambda self: built.append(1) or original(self))
    play_game("seasons", [FirstLegalPlayer(), FirstLegalPlayer()], seed=6)
    assert built == []
    play_game("seasons", [Keeper(False), FirstLegalPlayer()], seed=6)
    assert built


def test_without_reference_counts_every_view_is_frozen(monkeypatch):
    import itertools

    import arena.referee.match as match
    from arena.games.seasons.rules import SeasonsState

    numbers = itertools.count()
    monkeypatch.setattr(match, "_refcount", lambda obj: next(numbers))
    built = []
    original = SeasonsState.to_json
    monkeypatch.setattr(SeasonsState, "to_json", lambda self: built.append(1) or original(self))
    keeper = Keeper(True)
    record = play_game("seasons", [keeper, FirstLegalPlayer()], seed=6)
    assert len(built) == sum(1 for m in record.moves if m.seat >= 0)
    expected = positions_asked(record, seat=0)
    assert [dict(view) for view in keeper.kept] == expected


class SeedSpy(FirstLegalPlayer):
    def start(self, info):
        self.info = info


def test_bots_get_their_own_seed_never_the_game_seed():
    spies = [SeedSpy(), SeedSpy()]
    play_game("seasons", spies, seed=77, time_limit=2.0)
    seeds = [spy.info.seed for spy in spies]
    assert 77 not in seeds and seeds[0] != seeds[1]
    assert seeds == [bot_seed(77, 0), bot_seed(77, 1)]
    assert (spies[1].info.seat, spies[1].info.seats, spies[1].info.game) == (1, 2, "seasons")
    assert spies[0].info.time_limit == 2.0


def test_the_wrong_number_of_players_is_refused():
    with pytest.raises(SeatCountError, match="2 players, not 3"):
        play_game("seasons", [FirstLegalPlayer()] * 3, seed=1)


class Standing:
    def __init__(self, scores):
        self._scores = scores

    def scores(self):
        return self._scores


def test_forfeit_ranks_the_failing_seat_last_and_the_others_by_standing():
    assert forfeit_outcome(Standing((10, 50)), 1, "crash").ranks == (0, 1)
    assert forfeit_outcome(Standing((2, 0, 1, 1)), 0, "timeout").ranks == (3, 2, 0, 0)
    assert forfeit_outcome(Standing((2, 0, 1)), 1, "crash").termination == "crash"
