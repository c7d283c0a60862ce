"""arena.env.openspiel: both games as OpenSpiel Python games, searched by OpenSpiel's bots."""

from __future__ import annotations

import math
import random

import pytest

from arena.bots.loading import load_bot
from arena.games.seasons.rules import EMPTY, PLACE, REROLL, SeasonsState, parse_action
from arena.referee.dice import DiceStream
from arena.referee.match import play_game
from arena.results.standings import game_points

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs arena[rl] "
                                                "(open_spiel)")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import mcts, minimax  # noqa: E402

from arena.env.openspiel import (  # noqa: E402
    OpenSpielPlayer,
    dice_stream_action,
    load,
    register,
)

CONFIGS = [("seasons", {}), ("sonnentau", {"turn_limit": 200}),
           ("sonnentau", {"players": 3, "turn_limit": 150}),
           ("sonnentau", {"players": 4, "dice": "miwin", "turn_limit": 60})]


def test_both_games_are_registered_under_their_names_with_the_right_flags():
    register()
    register()  # again: harmless
    for name in ("arena_seasons", "arena_sonnentau"):
        game = pyspiel.load_game(name)
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    seasons = load("seasons")
    assert (seasons.num_distinct_actions(), seasons.max_chance_outcomes()) == (19, 235)
    assert seasons.observation_tensor_shape() == [28]
    sonnentau = load("sonnentau", {"players": 3, "dice": "miwin"})
    assert sonnentau.num_players() == 3 and sonnentau.max_chance_outcomes() == 564 + 216
    assert sonnentau.utility_sum() == 1.5


@pytest.mark.parametrize("game, params", CONFIGS)
def test_openspiels_random_simulation_test_passes(game, params):
    pyspiel.random_sim_test(load(game, params), num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("game, params", CONFIGS)
def test_the_python_shortcuts_answer_as_pyspiels_own_methods(game, params):
    spiel, rng = load(game, params), random.Random(7)
    state, stream = spiel.new_initial_state(), DiceStream(7)
    while True:
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for player in range(spiel.num_players()):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(dice_stream_action(state, stream))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    state = spiel.new_initial_state()
    state.apply_action(dice_stream_action(state, stream))
    with pytest.raises(pyspiel.SpielError, match="pseudo-player"):
        state.legal_actions(-3)  # at a decision node, as pyspiel does


def test_chance_nodes_list_every_roll_with_its_exact_probability():
    game = load("seasons")
    state = game.new_initial_state()
    first = state.chance_outcomes()
    assert len(first) == 216 and sum(p for _, p in first) == pytest.approx(1.0)
    assert all(19 <= action < 235 for action, _ in first)
    state.apply_action(dice_stream_action(state, DiceStream(1)))
    kept = list(state.arena.dice)
    state.apply_action(game.index.id_of(parse_action("reroll:0,2")))
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 36 and {p for _, p in outcomes} == {1 / 36}
    assert {game.index.rolls[a - 19][1] for a, _ in outcomes} == {kept[1]}
    sonnentau = load("sonnentau")
    assert len(sonnentau.new_initial_state().chance_outcomes()) == 36


@pytest.mark.parametrize("game, params", CONFIGS)
def test_the_remembered_chance_outcomes_are_the_engines_at_every_chance_node(game, params):
    spiel, rng = load(game, params), random.Random(5)
    for _ in range(3):
        state = spiel.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                engine = [(spiel.index.id_of(dice), p) for dice, p in state.arena.chance_outcomes()]
                assert state.chance_outcomes() == engine
                state.apply_action(rng.choice(engine)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def test_a_clone_plays_on_without_touching_the_original():
    state = load("sonnentau").new_initial_state()
    state.apply_action(dice_stream_action(state, DiceStream(3)))
    before = str(state)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == before != str(clone)
    assert clone.history()[:-1] == state.history()


@pytest.mark.parametrize("game, params", [("seasons", {}), ("sonnentau", {"players": 3})])
def test_the_arena_dice_stream_through_openspiel_plays_play_games_game(game, params):
    spiel, seed = load(game, params), 99
    state, stream, rng = spiel.new_initial_state(), DiceStream(seed), random.Random(4)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(dice_stream_action(state, stream))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    played = [state.action_to_string(step.player, step.action) for step in state.full_history()]

    class Same:
        name, version = "same", "1"

        def __init__(self, rng):
            self.rng = rng

        def act(self, observation):
            ids = sorted(spiel.index.ids_of(observation.legal_actions))
            return spiel.index.decisions[ids[self.rng.randrange(len(ids))]]

    shared = random.Random(4)
    options = {k: v for k, v in params.items() if k != "players"}
    record = play_game(game, [Same(shared) for _ in range(spiel.num_players())], seed=seed,
                       options=options)
    assert played == [move.action for move in record.moves]
    assert state.returns() == list(game_points(record.ranks))


def mcts_bot(game, info):
    rng = np.random.RandomState(info.seed % 2**32)
    return mcts.MCTSBot(game, uct_c=1.4, max_simulations=20,
                        evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


def test_openspiels_mcts_beats_arenas_random_bot_at_seasons(root):
    rival = load_bot(str(root / "bots/seasons/random_bot.py")).player
    points = 0.0
    for seed in range(6):
        seat = seed % 2
        players = [OpenSpielPlayer(mcts_bot, "mcts"), rival]
        record = play_game("seasons", players if seat == 0 else players[::-1], seed=seed)
        assert all(s.status == "ok" for s in record.seats), record.seats
        points += game_points(record.ranks)[seat]
    assert points > 3.0  # more than half of the points


def endgame() -> SeasonsState:
    """Seat 0 at its re-roll decision, 51 to 54 behind, max-15 open (14 there for seat 1):
    a total above 14 wins the game, 14 cancels, anything less loses."""
    state = SeasonsState()
    state.fields = [[12, 12, 12, 12, 5, EMPTY, 4, 4, 16, 16, 16],
                    [6, 6, 6, 6, 10, 14, 10, 10, 8, 8, 8]]
    state.phase, state.seat, state.dice, state.turns = REROLL, 0, (5, 5, 2), [20, 20]
    return state


def test_expectiminimax_finds_the_best_reroll_of_an_endgame():
    game = load("seasons")

    def points_now(spiel_state):
        first, second = spiel_state.arena.scores()
        return 1.0 if first > second else 0.5 if first == second else 0.0

    value, best = minimax.expectiminimax(game.state_for(endgame()), 2, points_now, 0)
    exact = {}
    for reroll in range(8):
        state = endgame()
        state.apply(game.index.decisions[reroll])
        if state.phase == PLACE:
            exact[reroll] = _placed(state)
            continue
        outcomes = state.chance_outcomes()
        exact[reroll] = sum(p * _placed(_rolled(state, dice)) for dice, p in outcomes)
    assert value == pytest.approx(max(exact.values()))
    assert exact[best] == pytest.approx(max(exact.values()))
    assert exact[0] == 0.0 < value < 1.0  # keeping 5, 5, 2 loses; a re-roll may win


def _rolled(state: SeasonsState, dice) -> SeasonsState:
    rolled = state.copy()
    rolled.apply(dice)
    return rolled


def _placed(state: SeasonsState) -> float:
    state.apply(state.legal_actions()[0])
    first, second = state.scores()
    return 1.0 if first > second else 0.5 if first == second else 0.0


PICKLE_CONFIGS = [("seasons", {}), ("sonnentau", {"players": 3, "turn_limit": 60})]


def _facts(state):
    """Everything a caller sees of a state (the tensors from every player's view)."""
    players = range(state.num_players())
    facts = [state.history(), state.history_str(), state.move_number(), state.current_player(),
             state.is_terminal(), state.returns(), str(state),
             [state.observation_tensor(p) for p in players],
             [state.information_state_tensor(p) for p in players],
             [state.information_state_string(p) for p in players]]
    if state.is_chance_node():
        facts.append(state.chance_outcomes())
    elif not state.is_terminal():
        facts.append(state.legal_actions())
    return facts


def _random_action(state, rng):
    if state.is_chance_node():
        return rng.choice([action for action, _ in state.chance_outcomes()])
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize("game, params", PICKLE_CONFIGS)
def test_games_and_states_survive_pickling_at_every_step(game, params):
    import pickle

    spiel = load(game, params)
    unpickled_game = pickle.loads(pickle.dumps(spiel))
    assert str(unpickled_game) == str(spiel)
    assert unpickled_game.observation_tensor_shape() == spiel.observation_tensor_shape()
    reference, rng = spiel.new_initial_state(), random.Random(11)
    state = unpickled_game.new_initial_state()  # played on unpickled copies only
    steps = 0
    while True:
        game_again = pickle.loads(pickle.dumps(unpickled_game))
        assert _facts(game_again.new_initial_state()) == _facts(spiel.new_initial_state())
        state = pickle.loads(pickle.dumps(state))
        assert _facts(state) == _facts(reference)
        if reference.is_terminal():
            break
        action = _random_action(reference, rng)
        reference.apply_action(action)
        state.apply_action(action)
        steps += 1
    assert steps > 50 and state.returns() == reference.returns()
    assert pyspiel.State.history(state) == reference.history()  # C++'s own history too


def test_a_state_built_from_a_position_pickles_from_that_position():
    import pickle

    game = load("seasons")
    state = game.state_for(endgame())
    state.apply_action(0)  # keep the dice
    again = pickle.loads(pickle.dumps(state))
    assert _facts(again) == _facts(state)


def test_the_tensors_have_the_documented_shapes_and_are_the_position():
    for game, params, size in [("seasons", {}, 28), ("sonnentau", {}, 954),
                               ("sonnentau", {"players": 3}, 1385),
                               ("sonnentau", {"players": 4}, 1816)]:
        spiel = load(game, params)
        kind = spiel.get_type()
        assert kind.provides_observation_tensor and kind.provides_information_state_tensor
        assert spiel.observation_tensor_shape() == [size]
        assert spiel.information_state_tensor_shape() == [size]
        state, stream = spiel.new_initial_state(), DiceStream(5)
        state.apply_action(dice_stream_action(state, stream))
        for player in range(spiel.num_players()):
            tensor = state.information_state_tensor(player)
            assert len(tensor) == size and any(tensor)
            assert tensor == state.observation_tensor(player)
            # C++ callers (through the observer) get the same tensors
            assert pyspiel.State.information_state_tensor(state, player) == tensor
            assert pyspiel.State.observation_tensor(state, player) == tensor
    assert load("seasons").make_py_observer().tensor.shape == (28,)


@pytest.mark.parametrize("game, params", CONFIGS)
def test_the_tensors_are_the_vectors_as_floats_at_every_step(game, params):
    spiel, rng = load(game, params), random.Random(3)
    state, stream = spiel.new_initial_state(), DiceStream(3)
    while not state.is_terminal():
        for player in range(spiel.num_players()):
            tensor = state.observation_tensor(player)
            assert tensor == [float(v) for v in spiel.encode(state.arena, player)]
            tensor[0] = 9.0  # a new list each time: changing it changes no later tensor
            assert state.observation_tensor(player)[0] != 9.0
        if state.is_chance_node():
            state.apply_action(dice_stream_action(state, stream))
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_legal_actions_are_a_new_list_once_they_are_no_longer_remembered():
    spiel, rng = load("sonnentau"), random.Random(4)
    spiel.legal_ids.remembering = False  # as after many tuples the engine built anew
    state, stream = spiel.new_initial_state(), DiceStream(4)
    for _ in range(200):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(dice_stream_action(state, stream))
            continue
        legal = state.legal_actions()
        assert legal == sorted(spiel.index.ids_of(state.arena.legal_actions()))
        legal.append(-1)
        assert state.legal_actions() == legal[:-1]
        state.apply_action(rng.choice(legal[:-1]))


@pytest.mark.parametrize("game", ["seasons", "sonnentau"])
def test_chance_outcomes_are_a_new_list_the_caller_may_change(game):
    spiel = load(game)
    first = spiel.new_initial_state()
    outcomes = first.chance_outcomes()
    count = len(outcomes)
    outcomes.pop()
    outcomes[0] = (outcomes[0][0], 0.5)
    for state in (first, spiel.new_initial_state()):
        again = state.chance_outcomes()
        assert len(again) == count and math.isclose(sum(p for _, p in again), 1.0)


def test_questions_a_state_cannot_answer_are_spiel_errors():
    state = load("seasons").new_initial_state()
    state.apply_action(dice_stream_action(state, DiceStream(3)))
    with pytest.raises(pyspiel.SpielError, match="not a chance node"):
        state.chance_outcomes()
    with pytest.raises(pyspiel.SpielError, match="action_to_string\\(1000000\\)"):
        state.action_to_string(0, 10**6)


def _replay_ids(game, params, seed):
    """The action ids of a game arena's referee played (greedy bots, arena's dice)."""
    spiel = load(game, params)
    options = {k: v for k, v in params.items() if k != "players"}
    bot = "bots/seasons/greedy.py" if game == "seasons" else "bots/sonnentau/heuristic.py"
    players = [load_bot(bot).player for _ in range(spiel.num_players())]
    record = play_game(game, players, seed=seed, options=options)
    arena_game = spiel.arena_game
    return spiel, [spiel.index.id_of(arena_game.parse_action(move.action))
                   for move in record.moves], record


@pytest.mark.parametrize("game, params", PICKLE_CONFIGS)
def test_undo_takes_back_every_action_of_a_replay(game, params, root, monkeypatch):
    monkeypatch.chdir(root)
    spiel, ids, record = _replay_ids(game, params, seed=3)
    assert len(ids) > 2 * 32  # past a checkpoint or two
    state, players = spiel.new_initial_state(), []
    for action in ids:
        before, player = _facts(state), state.current_player()
        players.append(player)
        state.apply_action(action)
        after = _facts(state)
        state.undo_action(player, action)
        assert _facts(state) == before
        state.apply_action(action)
        assert _facts(state) == after
    assert state.returns() == list(game_points(record.ranks))
    for player, action in reversed(list(zip(players, ids, strict=True))):  # all the way back
        state.undo_action(player, action)
    assert _facts(state) == _facts(spiel.new_initial_state())
    with pytest.raises(pyspiel.SpielError, match="no action to undo"):
        state.undo_action(players[0], ids[0])
    state.apply_action(ids[0])
    with pytest.raises(pyspiel.SpielError, match="last action"):
        state.undo_action(players[0], ids[0] + 1)
    state.apply_action(ids[1])  # a decision of seat 0: not another player's, nor chance's
    for wrong in (1, int(pyspiel.PlayerId.CHANCE)):
        with pytest.raises(pyspiel.SpielError, match="made by player 0"):
            state.undo_action(wrong, ids[1])
    state.undo_action(players[1], ids[1])
    assert state.history() == ids[:1]


def test_an_id_that_is_no_action_here_is_a_spiel_error_not_another_action():
    state = load("seasons").new_initial_state()
    state.apply_action(dice_stream_action(state, DiceStream(3)))
    n = state.get_game().num_distinct_actions()
    reroll_chance = state.legal_actions()[-1]  # a re-roll of all three dice, then a roll
    for bad in (-2, -7, n, n + 5, 10**9):  # (pyspiel itself refuses -1)
        with pytest.raises(pyspiel.SpielError, match=f"apply_action\\({bad}\\)"):
            state.apply_action(bad)
    assert len(state.history()) == 1 and state.move_number() == 1
    state.apply_action(reroll_chance)
    with pytest.raises(pyspiel.SpielError, match="0 is not a chance id"):
        state.apply_action(0)  # a decision's id where the dice roll
    assert state.move_number() == 2


def test_an_openspiel_bot_is_given_the_position_it_decides_at_and_can_undo_and_pickle_it(root):
    import pickle

    seen: list[tuple[bool, bool, bool, str]] = []

    class Probe:
        def __init__(self, game: object, info: object) -> None:
            pass

        def step(self, state: object) -> int:
            action = state.legal_actions()[0]
            position = str(state)
            tried = state.clone()
            tried.apply_action(action)
            tried.undo_action(state.current_player(), action)
            again = pickle.loads(pickle.dumps(state))
            seen.append((str(tried) == position, str(again) == position,
                         state.is_initial_state(),
                         state.information_state_string(state.current_player())))
            return action

    for game in ("seasons", "sonnentau"):
        seen.clear()
        rival = load_bot(str(root / "bots" / game / "random_bot.py")).player
        play_game(game, [OpenSpielPlayer(Probe), rival], seed=3)
        assert len(seen) > 10
        assert all(undone and unpickled for undone, unpickled, _, _ in seen)
        assert not any(initial for _, _, initial, _ in seen)
        assert len({text for *_, text in seen}) == len(seen)  # every position its own


def test_undo_on_a_clone_leaves_the_original_alone():
    state = load("sonnentau").new_initial_state()
    state.apply_action(dice_stream_action(state, DiceStream(3)))
    action = state.legal_actions()[0]
    state.apply_action(action)
    before = _facts(state)
    clone = state.clone()
    clone.undo_action(0, action)
    assert _facts(state) == before and clone.history() == state.history()[:-1]


# Shimmy declares every OpenSpiel observation space unbounded; api_test warns of that.
@pytest.mark.filterwarnings("ignore:Agent's m..imum observation space value is")
def test_shimmy_plays_a_three_player_game_given_by_name_and_config():
    shimmy = pytest.importorskip("shimmy", reason="Shimmy's OpenSpiel wrapper needs arena[rl]")
    from pettingzoo.test import api_test

    register()
    config = {"players": 3, "turn_limit": 60}
    api_test(shimmy.OpenSpielCompatibilityV0(game_name="arena_sonnentau", config=config),
             num_cycles=100)
    env = shimmy.OpenSpielCompatibilityV0(game_name="arena_sonnentau", config=config)
    env.reset(seed=4)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    rng, decisions = random.Random(4), 0
    for _agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(rng.choice(info["action_mask"].nonzero()[0].tolist()))
        decisions += 1
    assert env.game_state.is_terminal() and env.game_state.get_game().num_players() == 3
    assert decisions > 60 and sum(env.game_state.returns()) == 1.5


def test_shimmy_given_the_game_object_reloads_it_by_name_and_loses_its_parameters():
    shimmy = pytest.importorskip("shimmy", reason="Shimmy's OpenSpiel wrapper needs arena[rl]")
    env = shimmy.OpenSpielCompatibilityV0(env=load("sonnentau", {"players": 3}))
    with pytest.raises(pyspiel.SpielError, match="player 2 is not a player of this game"):
        env.reset(seed=1)  # Shimmy's reset loads "arena_sonnentau" anew, with 2 players
    default = shimmy.OpenSpielCompatibilityV0(env=load("seasons"))
    default.reset(seed=1)
    assert default.game_state.get_game().num_players() == 2


_CHECK_IN_A_NEW_PROCESS = """
import pickle, sys
from arena.env.actions import action_index
from arena.env.openspiel import load
game, params, actions, snapshots = pickle.load(sys.stdin.buffer)
spiel = load(game, params)
fresh = action_index(game, spiel.arena_options)
table = {id(action): i for i, action in enumerate(fresh.decisions)}
wrong = []
for start, data in snapshots:
    state = pickle.loads(data)
    index = state.spiel_game.index
    if index.by_identity != table:
        wrong.append(f"state at {start}: identity table")
    reference = spiel.new_initial_state()
    for action in actions[:start]:
        reference.apply_action(action)
    for step in range(start, len(actions)):
        legal = reference.arena.legal_actions()
        if (index.ids_of(legal) != fresh.ids_of(legal) or state.history() != reference.history()
                or (not reference.is_chance_node()
                    and state.legal_actions() != reference.legal_actions())):
            wrong.append(f"state from {start}: step {step}")
        reference.apply_action(actions[step])
        state.apply_action(actions[step])
print(wrong)
"""


@pytest.mark.parametrize("game, params", PICKLE_CONFIGS)
def test_states_unpickled_in_a_new_process_give_the_fresh_ids(game, params):
    import pickle
    import subprocess
    import sys

    state, rng = load(game, params).new_initial_state(), random.Random(4)
    actions, snapshots = [], []
    while not state.is_terminal():
        if len(actions) in (0, 9, 26, 51):
            snapshots.append((len(actions), pickle.dumps(state)))
        actions.append(_random_action(state, rng))
        state.apply_action(actions[-1])
    assert len(snapshots) == 4
    payload = pickle.dumps((game, params, actions, snapshots))
    out = subprocess.run([sys.executable, "-c", _CHECK_IN_A_NEW_PROCESS], input=payload,
                         capture_output=True, check=True).stdout
    assert out.decode().strip() == "[]"


def test_a_game_on_a_board_file_named_relatively_unpickles_in_any_folder(tmp_path,
                                                                          monkeypatch):
    import pickle

    from arena.games.sonnentau.board import DEFAULT_BOARD_PATH

    (tmp_path / "b.yaml").write_text(DEFAULT_BOARD_PATH.read_text())
    monkeypatch.chdir(tmp_path)
    state = load("sonnentau", {"board": "b.yaml", "players": 3}).new_initial_state()
    data = pickle.dumps(state)
    monkeypatch.chdir("/")
    again = pickle.loads(data)
    assert str(again) == str(state) and again.get_game().num_players() == 3


def test_an_action_after_the_end_says_the_game_is_over():
    state = load("seasons").new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                           else state.legal_actions()[0])
    for action in (0, 19):
        with pytest.raises(pyspiel.SpielError, match="the game is over: no action is legal"):
            state.apply_action(action)


@pytest.mark.parametrize("game_name, params", [
    ("sonnentau", {"players": 2, "turn_limit": 2, "dice": "standard"}),
    ("sonnentau", {"players": 2, "turn_limit": 2, "dice": "miwin"}),
    ("seasons", {"placement_limit": 10})])
@pytest.mark.parametrize("pick", [0, -1])
def test_a_game_whose_dice_are_always_the_first_outcome_ends_within_its_length(game_name,
                                                                              params, pick):
    """Sonnentau's first and last outcomes are doubles: doubles rolled again for ever, even
    at turn limit 1; the last legal action (a relocation after a hit, where there is one)
    adds a decision to a move. Seasons counted two actions a placement, where one takes
    three or four."""
    game = load(game_name, params)
    state, steps = game.new_initial_state(), 0
    while not state.is_terminal() and steps <= game.max_game_length():
        state.apply_action(state.chance_outcomes()[pick][0] if state.is_chance_node()
                           else state.legal_actions()[pick])
        steps += 1
    assert state.is_terminal() and steps <= game.max_game_length()
    rng, state, steps = random.Random(3), game.new_initial_state(), 0  # random play too
    while not state.is_terminal():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()])
                           if state.is_chance_node() else rng.choice(state.legal_actions()))
        steps += 1
    assert steps <= game.max_game_length()


def test_limits_too_large_for_openspiels_ints_are_refused_in_a_sentence():
    with pytest.raises(pyspiel.SpielError, match="turn_limit 8000000 is too large for "
                       "OpenSpiel: a game could take 2,800,000,000 actions"):
        load("sonnentau", {"turn_limit": 8_000_000, "dice": "miwin"})
    with pytest.raises(pyspiel.SpielError, match="turn_limit 2147483648 is too large for "
                       "OpenSpiel, whose parameters are C"):
        load("sonnentau", {"turn_limit": 2**31})


@pytest.mark.parametrize("player", [np.int64(1), np.int32(1), np.intp(0)])
def test_tensors_take_numpys_integers_as_players(player):
    from open_spiel.python.observation import make_observation

    for name in ("seasons", "sonnentau"):
        game = load(name)
        state = game.new_initial_state()
        state.apply_action(state.chance_outcomes()[5][0])
        expected = state.observation_tensor(int(player))
        assert state.observation_tensor(player) == expected
        assert state.information_state_tensor(player) == expected
        observation = make_observation(game)
        observation.set_from(state, player)
        assert list(observation.tensor) == expected


@pytest.mark.parametrize("player", [True, 1.0, "1", -1, 2])
def test_tensors_refuse_what_is_no_player(player):
    state = load("seasons").new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="is not a player of this game"):
        state.observation_tensor(player)


@pytest.mark.parametrize("answer", [pyspiel.INVALID_ACTION, -2, 3.9, True, None, "chance"])
def test_an_openspiel_bot_answering_no_decision_id_loses_by_an_illegal_action(answer):
    """-1 named the last decision (Python's negative index), 3.9 decision 3, a chance id
    crashed with an IndexError: each is an illegal action, and nothing is played for it."""
    class Answering:
        def __init__(self, game, info):
            self.game = game

        def step(self, state):
            if answer == "chance":
                return self.game.num_distinct_actions() + 3
            return answer

    rival = load_bot("bots/seasons/random_bot.py").player
    record = play_game("seasons", [OpenSpielPlayer(Answering), rival], seed=1)
    assert record.termination == "illegal-action"
    assert record.seats[0].status == "illegal-action"
    assert "is not a legal action here" in record.seats[0].detail
    assert not any(move.seat == 0 for move in record.moves)


def test_an_openspiel_bot_answering_numpys_integer_ids_plays_them():
    class FirstLegal:
        def __init__(self, game, info):
            pass

        def step(self, state):
            return np.int64(state.legal_actions()[0])

    rival = load_bot("bots/seasons/random_bot.py").player
    record = play_game("seasons", [OpenSpielPlayer(FirstLegal), rival], seed=1)
    assert record.termination == "normal" and record.seats[0].status == "ok"


def test_load_and_make_take_numpys_integers_for_parameters():
    """``load("sonnentau", {"players": np.int64(3)})`` raised pyspiel's TypeError, and
    ``make(turn_limit=np.int64(5))`` called it no integer."""
    import arena

    assert load("sonnentau", {"players": np.int64(3)}).num_players() == 3
    assert load("seasons", {"placement_limit": np.int64(5)}).max_game_length() == 20
    record = arena.make("sonnentau", turn_limit=np.int64(5)).run(["random", "random"], seed=1)
    assert record.options["turn_limit"] == 5 and type(record.options["turn_limit"]) is int
