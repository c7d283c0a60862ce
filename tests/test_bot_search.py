"""The Sonnentau search bot: legal in every position, its plans replay on the engine,
reproducible, finds the original's shortcut examples, and beats the heuristic bot."""

from __future__ import annotations

import json
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sonnentau_examples import example_position

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.base import Observation
from arena.games.sonnentau.rules import HIT, MOVE, RELOCATE, SonnentauState, parse_action
from arena.referee.match import play_game
from arena.referee.protocol import PlayerInfo
from arena.results.luck import account
from arena.results.values import model_for
from arena.tournaments.ladder_config import load_ladder_config
from arena.tournaments.matches import play_match

GAME = find_game("sonnentau")
SEARCH = "bots/sonnentau/search.py"
HEURISTIC = "bots/sonnentau/heuristic.py"


def search_bot(**params):
    return load_bot(SEARCH, params).player


def search_module():
    return sys.modules[type(search_bot()).__module__]


def started(player, seat=0, seats=2, seed=1):
    player.start(PlayerInfo("sonnentau", {}, seat, seats, seed))
    return player


def random_position(seed: int, seats: int, dice: str) -> SonnentauState:
    """A decision of some seat, reached by random play from ``seed``."""
    rng = random.Random(seed)
    state = GAME.initial_state({"dice": dice, "seats": seats})
    stop = rng.randrange(1, 160)
    decisions = 0
    while True:
        if state.is_terminal:
            state = GAME.initial_state({"dice": dice, "seats": seats})
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply(rng.choice(outcomes)[0])
            continue
        decisions += 1
        if decisions >= stop:
            return state
        state.apply(rng.choice(state.legal_actions()))


def play_roll(state: SonnentauState, player) -> list[str]:
    """Let ``player`` make every decision of the current roll; return its actions."""
    seat, chosen = state.current_seat, []
    while state.current_seat == seat and state.phase in (MOVE, RELOCATE):
        observation = state.observation(seat)
        action = player.act(observation)
        assert str(action) in {str(a) for a in observation.legal_actions}
        chosen.append(str(action))
        state.apply(parse_action(str(action)))
    return chosen


# -- legality ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.sampled_from([2, 3, 4]),
       dice=st.sampled_from(["standard", "miwin"]))
def test_the_bot_only_plays_legal_actions(seed, seats, dice):
    state = random_position(seed, seats, dice)
    player = started(search_bot(), state.current_seat, seats, seed)
    play_roll(state, player)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), dice=st.sampled_from(["standard", "miwin"]))
def test_a_tiny_budget_or_no_time_still_gives_a_legal_action(seed, dice):
    state = random_position(seed, 2, dice)
    player = started(search_bot(budget=1, beam=1), state.current_seat)
    play_roll(state, player)
    state = random_position(seed + 1, 2, dice)
    player = started(search_bot(), state.current_seat)
    observation = state.observation(state.current_seat)
    hurried = Observation(observation.game, observation.seat, observation.state,
                          observation.legal_actions, time_left=0.0)
    assert str(player.act(hurried)) in {str(a) for a in observation.legal_actions}


def engine_ends(state: SonnentauState) -> set[tuple]:
    """Every piece placement the mover can leave at the end of the roll (by the engine)."""
    seat, ends = state.seat, set()
    stack = [state]
    while stack:
        node = stack.pop()
        if node.is_terminal or node.is_chance_node() or node.seat != seat:
            ends.add(tuple(tuple(sorted(p)) for p in node.pieces))
            continue
        for action in node.legal_actions():
            child = node.copy()
            child.apply(action)
            stack.append(child)
    return ends


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.sampled_from([2, 3]))
def test_without_pruning_the_plans_are_exactly_the_engines(seed, seats):
    """The planner's own move generator against the rules engine: the same end positions,
    and every plan replays step by step as legal engine actions."""
    module = search_module()
    state = random_position(seed, seats, "standard")
    me = state.seat
    tables = module.tables_for(state.board, state.variant)
    evaluator = module.Evaluator(tables, me, seats)
    planner = module.Planner(tables, evaluator, me, beam=None, budget=None, own_targets=None,
                             other_targets=None)
    key = module.node_key(state, me)
    ends = planner.ends(module.Node(*key, None, ()))
    assert {node.places for node in ends} == engine_ends(state)
    for node in ends[:: max(1, len(ends) // 25)]:
        replay = state.copy()
        for step_key, step in node.plan():
            assert module.node_key(replay, me) == step_key
            action = module.engine_action(replay, step, replay.legal_actions())
            assert action is not None
            replay.apply(action)
        assert tuple(tuple(sorted(p)) for p in replay.pieces) == node.places


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), dice=st.sampled_from(["standard", "miwin"]))
def test_pruned_plans_replay_on_the_engine(seed, dice):
    module = search_module()
    state = random_position(seed, 2, dice)
    me = state.seat
    tables = module.tables_for(state.board, state.variant)
    planner = module.Planner(tables, module.Evaluator(tables, me, 2), me, beam=20, budget=2000,
                             own_targets=2, other_targets=1)
    for node in planner.ends(module.Node(*module.node_key(state, me), None, ())):
        replay = state.copy()
        for _key, step in node.plan():
            replay.apply(module.engine_action(replay, step, replay.legal_actions()))
        assert HIT not in {p for pieces in replay.pieces for p in pieces}
        assert tuple(tuple(sorted(p)) for p in replay.pieces) == node.places


# -- reproducibility -------------------------------------------------------------------------


@pytest.mark.parametrize("dice", ["standard", "miwin"])
def test_the_same_seed_gives_the_same_game(dice):
    def game():
        players = [search_bot(), load_bot(HEURISTIC).player]
        return [m.action for m in play_game(GAME, players, 3, {"dice": dice}).moves]

    assert game() == game()


# -- the original's worked examples ------------------------------------------------------------


@pytest.mark.parametrize(("dice", "roll"), [("standard", "dice:2,6"), ("miwin", "dice:9,3,2")])
def test_the_bot_finds_the_shortcut_through_its_own_pieces(dice, roll):
    """Example 1 (and 2): the entering piece hits the own piece on X, which goes next to Y;
    it hits the piece on Y, which goes onto Z (or on into the goal)."""
    state = example_position(dice, roll)
    chosen = play_roll(state, started(search_bot()))
    assert chosen[0].startswith("enter:")
    assert "relocate:Z" in chosen or "relocate:goal" in chosen
    places = [state.place_name(p) for p in state.pieces[0]]
    assert "Z" in places or state.home[0] >= 1


# -- strength -----------------------------------------------------------------------------------


def test_the_bot_beats_the_heuristic():
    players = [search_bot(), load_bot(HEURISTIC).player]
    games = 32
    score = 0.0
    for order, record in play_match(GAME, players, 2026, games, {"dice": "standard"}):
        assert all(seat.status == "ok" for seat in record.seats)
        mine = record.ranks[order.index(0)]
        theirs = record.ranks[order.index(1)]
        score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert score / games > 0.55


class WorkClock:
    """A clock that moves only with the search's work: 2 ms per position evaluated or
    expanded. Decisions timed by it are the same on any machine under any load, so a
    test can tell a search that watches the clock from one that does not."""

    TICK = 0.002

    def __init__(self, module, monkeypatch):
        self.work = 0
        monkeypatch.setattr(module, "time", self)
        for cls, name in [(module.Evaluator, "score"), (module.Planner, "children")]:
            monkeypatch.setattr(cls, name, self._counted(getattr(cls, name)))

    def perf_counter(self):
        return self.work * self.TICK

    def _counted(self, method):
        def counted(*args, **kwargs):
            self.work += 1
            return method(*args, **kwargs)
        return counted


@pytest.mark.parametrize("dice", ["standard", "miwin"])
def test_under_a_tight_time_limit_only_the_clock_stops_a_search(dice, monkeypatch):
    """Without a beam or a budget only the clock stops a search: each decision ends at
    half the time left, which leaves the other half for a loaded machine. Without the
    clock the same searches take longer than the limit."""
    module = sys.modules[type(search_bot()).__module__]
    clock = WorkClock(module, monkeypatch)
    limit = 1.0

    def longest_decision(time_left):
        player = search_bot(beam=None, budget=None)
        act = player.act
        durations = []

        def timed(observation):
            began = clock.perf_counter()
            action = act(observation._replace(time_left=time_left))
            durations.append(clock.perf_counter() - began)
            return action

        player.act = timed
        heuristic = load_bot(HEURISTIC).player
        record = play_game("sonnentau", [player, heuristic], 3, {"dice": dice})
        assert [s.status for s in record.seats] == ["ok", "ok"]
        assert record.termination == "normal"
        return max(durations)

    assert longest_decision(None) > limit
    assert longest_decision(limit) <= 0.5 * limit + 2 * WorkClock.TICK


def test_the_ladders_tuned_search_plays_with_the_weights_its_config_gives():
    """The Sonnentau ladder's top reference is search with other weights: the config's
    entry loads with them, and they change the moves it plays on the same dice."""
    config = load_ladder_config("configs/sonnentau-ladder.yaml")
    tuned = next(bot for bot in config.play.bots if bot.name == "search-tuned")
    assert tuned.spec == SEARCH and tuned.params
    player = load_bot(tuned.spec, tuned.params).player
    assert {k: player.weights[k] for k in tuned.params} == tuned.params
    heuristic = load_bot(HEURISTIC).player

    def moves(bot, seed):
        record = play_game(GAME, [bot, heuristic], seed, config.play.options)
        assert [s.status for s in record.seats] == ["ok", "ok"]
        return [m.action for m in record.moves]

    assert any(moves(player, seed) != moves(search_bot(), seed) for seed in range(3))


def _tuning_tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "tune_sonnentau_search.py"
    spec = importlib.util.spec_from_file_location("tune_sonnentau_search", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_tuning_tool_plays_duplicate_sets_and_takes_out_their_luck():
    """A set is both seat orders on one seed: the defaults against themselves score one
    half with no luck, and the tuned weights' sets are their games' points and luck."""
    tool = _tuning_tool()
    assert tool.play_set(({}, 11, "standard")) == pytest.approx((0.5, 0.0), abs=1e-12)
    params = {"spare": 1.2, "shortcut": 0.4, "exposure": 0.6}
    sets = [tool.play_set((params, seed, "standard")) for seed in (11, 12, 13)]
    model = model_for("sonnentau", {"dice": "standard"})
    tuned, plain = search_bot(**params), search_bot()
    points = luck = 0.0
    for seat, players in ((0, [tuned, plain]), (1, [plain, tuned])):
        result = account(play_game(GAME, players, 11, {"dice": "standard"}), model)
        points, luck = points + result.points[seat] / 2, luck + result.luck[seat] / 2
    assert sets[0] == pytest.approx((points, luck), abs=1e-12)
    assert sets[0] != pytest.approx((0.5, 0.0))
    line = tool.summary(params, sets, 1.0)
    assert line.startswith(json.dumps(params)) and "3 sets" in line


@pytest.mark.parametrize("text", ['{"sparee": 1}', "nonsense", "[1]"])
def test_the_tuning_tool_refuses_a_candidate_it_cannot_play_before_playing(text, capsys):
    import argparse

    with pytest.raises(SystemExit):
        _tuning_tool().candidate(argparse.ArgumentParser(prog="tune"), text)
    assert "tune: error: " in capsys.readouterr().err
