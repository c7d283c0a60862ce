"""arena.env: the fixed action indices and the PettingZoo AEC environments."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

from arena.env.actions import ActionIndex, ByIdentity, action_index, seasons_index, sonnentau_index
from arena.games import find_game
from arena.games.base import ArenaError, IllegalActionError
from arena.games.seasons.rules import PLACE, REROLL, SeasonsState
from arena.referee.dice import DiceStream
from arena.referee.match import play_game
from arena.results.standings import game_points

pytest.importorskip("gymnasium", reason="the PettingZoo adapter needs arena[rl] (gymnasium)")
pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs arena[rl] (pettingzoo)")

from pettingzoo.test import api_test, seed_test

from arena.env import MissingExtraError, make_env, parallel_env, seasons_env, sonnentau_env
from arena.env.encoding import seasons_vector

CONFIGS = [("seasons", {}), ("sonnentau", {}), ("sonnentau", {"seats": 3}),
           ("sonnentau", {"seats": 4, "dice": "miwin"})]


# -- the action index ------------------------------------------------------------------


def test_the_seasons_index_is_the_documented_one():
    index = seasons_index()
    assert index.n_decisions == 19 and index.size == 19 + 216
    assert [index.name(i) for i in (0, 1, 4, 7, 8, 18, 19, 234)] == [
        "keep", "reroll:0", "reroll:0,1", "reroll:0,1,2", "place:max-5", "place:min-17",
        "dice:1,1,1", "dice:6,6,6"]


def test_the_sonnentau_index_on_the_default_board_is_the_documented_one():
    index = sonnentau_index()
    assert index.n_decisions == 564 and index.size == 600
    assert sonnentau_index("", "miwin").size == 564 + 216
    assert [index.name(i) for i in (0, 179, 180, 479, 480, 562, 563, 564)] == [
        "move:d0:p0:B:cw", "move:d2:p4:G:out", "enter:d0:p0:OL", "enter:d2:p4:OR:UR:ccw",
        "relocate:B00", "relocate:start", "relocate:goal", "dice:1,1"]


@pytest.mark.parametrize("game, options", CONFIGS)
def test_every_action_string_parses_back_to_its_action(game, options):
    index = action_index(game, options)
    rules = find_game(game)
    for number in range(index.size):
        action = index.decision(number) if number < index.n_decisions else index.roll(number)
        assert rules.parse_action(index.name(number)) == action


@pytest.mark.parametrize("dice, seats", [("standard", 2), ("standard", 3), ("miwin", 4)])
def test_the_sonnentau_index_holds_every_action_random_games_meet(dice, seats):
    index = sonnentau_index("", dice)
    rules, rng = find_game("sonnentau"), random.Random(seats)
    for seed in range(4):
        state = rules.initial_state({"dice": dice, "seats": seats, "turn_limit": 200})
        roll = DiceStream(seed).roll
        while not state.is_terminal:
            if state.is_chance_node():
                index.id_of(state.apply_roll(roll(state.chance_request())))
            else:
                legal = state.legal_actions()
                assert [index.decisions[i] for i in index.ids_of(legal)] == list(legal)
                state.apply(rng.choice(legal))


def test_the_sonnentau_engine_offers_the_index_objects_themselves():
    index = sonnentau_index()
    rules, rng = find_game("sonnentau"), random.Random(2)
    relocations = 0
    for seed in range(3):
        state, roll = rules.initial_state({"turn_limit": 200}), DiceStream(seed).roll
        while not state.is_terminal:
            if state.is_chance_node():
                state.apply_roll(roll(state.chance_request()))
                continue
            legal = state.legal_actions()
            assert all(id(action) in index.by_identity for action in legal)
            relocations += str(legal[0]).startswith("relocate:")
            state.apply(rng.choice(legal))
    assert relocations


def test_values_are_remembered_by_tuple_identity_until_that_stops_paying():
    built = []
    cache = ByIdentity(lambda legal: built.append(legal) or len(legal), size=4)
    shared = ("keep", "reroll:0")
    assert [cache(shared) for _ in range(3)] == [2, 2, 2] and built == [shared]
    assert cache(tuple(shared)) == 2 and len(built) == 1  # tuple() of a tuple is that tuple
    assert cache(("keep", "reroll:0")[:1]) == 1 and len(built) == 2  # equal is not enough
    for k in range(1, 8):  # tuples built anew are never met again: the cache gives up
        assert cache(tuple([object()] * k)) == k
    assert not cache.remembering and not cache.entries
    assert cache(shared) == 2 and len(built) == 10


# -- the environments ------------------------------------------------------------------


@pytest.mark.parametrize("game, options", CONFIGS)
def test_pettingzoos_own_api_and_seed_tests_pass(game, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advice for dict observations
        api_test(make_env(game, render_mode="ansi", **options), num_cycles=200)
        seed_test(lambda: make_env(game, **options), num_cycles=200)


class IdChooser:
    """An arena player choosing like :func:`play_episode`: by the action index, seeded."""

    name, version = "ids", "1"

    def __init__(self, game: str, options: dict, rng: random.Random) -> None:
        self.index, self.rng = action_index(game, options), rng

    def act(self, observation):
        ids = sorted(self.index.ids_of(observation.legal_actions))
        return self.index.decisions[ids[self.rng.randrange(len(ids))]]


def play_episode(env, seed: int, rng: random.Random) -> dict[str, float]:
    """Play one episode choosing among the mask's ids with ``rng``; the total rewards."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        ids = observation["action_mask"].nonzero()[0]
        env.step(ids[rng.randrange(len(ids))])
    return totals


@pytest.mark.parametrize("game, options", CONFIGS)
def test_a_seeded_episode_is_the_game_play_game_plays_with_that_seed(game, options):
    seed, seats = 20260601, options.get("seats", 2)
    env = make_env(game, **options)
    totals = play_episode(env, seed, random.Random(5))
    shared = random.Random(5)  # one stream for all seats, as in the episode
    game_options = {k: v for k, v in options.items() if k != "seats"}
    players = [IdChooser(game, game_options, shared) for _ in range(seats)]
    record = play_game(game, players, seed=seed, options=game_options)
    assert env.history == [move.action for move in record.moves]
    assert env.game_seed == seed
    points = game_points(record.ranks)
    assert [totals[f"player_{s}"] for s in range(seats)] == list(points)


def test_observations_are_from_the_observers_point_of_view():
    env = seasons_env()
    env.reset(seed=3)
    state: SeasonsState = env.arena_state
    assert state.phase == REROLL
    mine = env.observe("player_0")
    theirs = env.observe("player_1")
    assert list(mine["observation"][22:25]) == list(state.dice)
    assert list(mine["observation"][25:]) == [1, 0, 1] and list(theirs["observation"][25:]) == [
        1, 0, 0]
    assert mine["action_mask"][:8].all() and not mine["action_mask"][8:].any()
    assert not theirs["action_mask"].any()
    env.step(0)  # keep: the placement decision follows
    assert env.arena_state.phase == PLACE
    total = sum(state.dice)
    env.step(8 + 4)  # place:max-13
    after = env.observe("player_1")["observation"]
    fields = env.arena_state.fields
    assert fields[0][4] == total
    assert list(after[:11]) == fields[1] and list(after[11:22]) == fields[0]
    assert (after == seasons_vector(env.arena_state, 1)).all()


def test_an_illegal_or_malformed_action_is_refused_with_the_legal_ones():
    env = seasons_env()
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match=r"legal: 0 \(keep\)"):
        env.step(8)
    for malformed in ("keep", "0", 0.9, 0.0, True, np.bool_(False), np.array([0])):
        with pytest.raises(IllegalActionError, match=r"not an integer|a boolean"):
            env.step(malformed)  # int() would have played each of them as action 0
    assert len(env.history) == 1  # only the roll: nothing was played
    env.step(np.int64(0))  # NumPy's integers are ids (an action mask's nonzero() gives them)
    assert env.history[-1] == "keep"


def test_any_integer_seeds_a_reset_and_the_unseeded_resets_after_it():
    env = seasons_env()
    for seed in (-5, 2**70, np.int64(-3)):
        env.reset(seed=seed)
        assert env.game_seed == seed
        env.reset()  # from a generator seeded by it
        first = env.game_seed
        env.reset(seed=seed)
        env.reset()
        assert env.game_seed == first
    for malformed in (1.5, "3", True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=malformed)
    following = set()
    for seed in (0, 2**64, 2**200, -(2**100), 5, 5 + 2**64, -5):
        env.reset(seed=seed)
        env.reset()
        following.add(env.game_seed)
    assert len(following) == 7  # seeds 2**64 apart gave the same games after them


def test_a_game_stopped_by_its_limit_truncates_and_still_pays_the_points():
    env = seasons_env(placement_limit=3)
    env.reset(seed=11)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(env.legal_actions()[0])
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.infos["player_0"]["termination"] == "placement-limit"
    ranks = env.arena_state.outcome().ranks
    assert [env.rewards[a] for a in env.possible_agents] == list(game_points(ranks))


def test_rewards_follow_arenas_points_with_three_seats():
    env = sonnentau_env(seats=3, turn_limit=30)
    totals = play_episode(env, 4, random.Random(2))
    assert sum(totals.values()) == pytest.approx(1.5)


def test_render_ansi_draws_the_position():
    env = sonnentau_env(render_mode="ansi")
    env.reset(seed=2)
    assert env.render() == find_game("sonnentau").render(env.arena_state)
    with pytest.warns(UserWarning, match="render_mode"):
        assert make_env("seasons").render() is None


def test_render_human_prints_the_position_after_every_step(capsys):
    env = seasons_env(render_mode="human")
    env.reset(seed=2)
    assert env.render() is None
    drawn = find_game("seasons").render(env.arena_state)
    assert capsys.readouterr().out == drawn + "\n"
    env.step(0)  # keep
    assert capsys.readouterr().out == find_game("seasons").render(env.arena_state) + "\n"
    with pytest.raises(ValueError, match="render_mode must be one of"):
        make_env("seasons", render_mode="rgb_array")


def test_the_zero_sum_reward_is_plus_or_minus_one_and_adds_up_to_nothing():
    for seats in (2, 3):
        points = play_episode(sonnentau_env(seats=seats, turn_limit=60), 4, random.Random(2))
        signed = play_episode(sonnentau_env(seats=seats, turn_limit=60, reward="zero-sum"), 4,
                              random.Random(2))
        assert signed == {agent: 2 * value - 1 for agent, value in points.items()}
        assert sum(signed.values()) == pytest.approx(0)
    two = play_episode(seasons_env(reward="zero-sum"), 9, random.Random(1))
    assert sorted(two.values()) in ([-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="reward must be one of"):
        seasons_env(reward="win")


def test_the_state_is_the_whole_position_as_seat_0_sees_it():
    env = sonnentau_env(seats=3)
    env.reset(seed=6)
    for _ in range(30):
        state = env.state()
        assert env.state_space.contains(state)
        assert (state == env.observe("player_0")["observation"]).all()
        env.step(env.legal_actions()[0])


@pytest.mark.parametrize("game, options", [("seasons", {}),
                                           ("sonnentau", {"seats": 3, "turn_limit": 60})])
def test_the_parallel_api_lets_only_the_agent_to_move_act(game, options):
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import aec_to_parallel

    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(make_env(game, **options))  # refused: the games are turn-based
    parallel_api_test(parallel_env(game, **options), num_cycles=300)
    env, reference = parallel_env(game, **options), make_env(game, **options)
    observations, _ = env.reset(seed=5)
    reference.reset(seed=5)
    rng = random.Random(3)
    while env.agents:
        mover = reference.agent_selection
        assert [agent for agent in env.agents if observations[agent]["action_mask"].any()] == [
            mover]
        action = rng.choice(reference.legal_actions())
        others = {agent: 0 for agent in env.agents}  # ignored, legal or not
        observations, *_ = env.step({**others, mover: action})
        reference.step(action)
        while reference.agents and reference.agent_selection not in env.agents:
            reference.step(None)
    assert env.aec_env.history == reference.history


def test_arena_imports_without_the_extra_and_says_what_to_install():
    code = ("import sys; sys.modules['pettingzoo'] = None; sys.modules['pyspiel'] = None\n"
            "import arena.env\n"
            "from arena.env import make_env, register_openspiel_games, MissingExtraError\n"
            "for call in (lambda: make_env('seasons'), register_openspiel_games):\n"
            "    try:\n"
            "        call()\n"
            "    except MissingExtraError as error:\n"
            "        print(error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == 2 and all("pip install -e '.[rl]' in arena's checkout" in line
                                 for line in out)
    assert issubclass(MissingExtraError, ImportError)


@pytest.mark.parametrize("game, options", [("seasons", {}),
                                           ("sonnentau", {"seats": 3, "turn_limit": 60})])
def test_an_environment_pickled_at_every_step_plays_on_identically(game, options):
    import pickle

    reference, env = make_env(game, **options), make_env(game, **options)
    reference.reset(seed=8)
    env.reset(seed=8)
    rng, steps = random.Random(2), 0
    while reference.agents:
        env = pickle.loads(pickle.dumps(env))
        assert env.history == reference.history and env.agent_selection == reference.agent_selection
        observation, *rest = reference.last()
        again, *rest_again = env.last()
        assert rest_again == rest
        assert (again["observation"] == observation["observation"]).all()
        assert (again["action_mask"] == observation["action_mask"]).all()
        if rest[1] or rest[2]:
            action = None
        else:
            ids = observation["action_mask"].nonzero()[0]
            action = int(ids[rng.randrange(len(ids))])
        reference.step(action)
        env.step(action)
        steps += 1
    assert steps > 50 and env.history == reference.history and not env.agents
    assert env.rewards == reference.rewards and env.infos == reference.infos


_CHECK_IN_A_NEW_PROCESS = """
import pickle, sys
from arena.env import make_env
from arena.env.actions import action_index
game, options, seed, actions, index, direct, snapshots = pickle.load(sys.stdin.buffer)
fresh = action_index(game, make_env(game, **options).options)
table = {id(action): i for i, action in enumerate(fresh.decisions)}
wrong = [] if index.by_identity == table else ["index: identity table"]
if direct.by_identity != {id(action): i for i, action in enumerate(direct.decisions)}:
    wrong.append("directly built index: identity table")
for start, data in snapshots:
    env = pickle.loads(data)
    if env.index.by_identity != table:
        wrong.append(f"env at {start}: identity table")
    reference = make_env(game, **options)
    reference.reset(seed=seed)
    for action in actions[:start]:
        reference.step(action)
    for step in range(start, len(actions)):
        legal = reference.arena_state.legal_actions()
        expected = fresh.ids_of(legal)
        mask = reference.observe(reference.agent_selection)["action_mask"]
        if (index.ids_of(legal) != expected or env.index.ids_of(legal) != expected
                or direct.ids_of(legal) != expected
                or not (env.observe(env.agent_selection)["action_mask"] == mask).all()):
            wrong.append(f"env from {start}: step {step}")
        reference.step(actions[step])
        env.step(actions[step])
print(wrong)
"""


@pytest.mark.parametrize("game, options", [("seasons", {}),
                                           ("sonnentau", {"seats": 3, "dice": "miwin"})])
def test_an_index_and_an_environment_unpickled_in_a_new_process_give_the_fresh_ids(game,
                                                                                  options):
    import pickle

    env, rng, seed = make_env(game, **options), random.Random(4), 5
    env.reset(seed=seed)
    actions, snapshots = [], []
    while env.agents:
        if len(actions) in (0, 9, 26, 51):
            snapshots.append((len(actions), pickle.dumps(env)))
        observation, _, terminated, truncated, _ = env.last()
        ids = observation["action_mask"].nonzero()[0]
        action = None if terminated or truncated else int(ids[rng.randrange(len(ids))])
        env.step(action)
        actions.append(action)
    assert len(snapshots) == 4
    direct = ActionIndex(game, env.index.decisions, env.index.rolls)
    payload = pickle.dumps((game, options, seed, actions, env.index, direct, snapshots))
    out = subprocess.run([sys.executable, "-c", _CHECK_IN_A_NEW_PROCESS], input=payload,
                         capture_output=True, check=True).stdout
    assert out.decode().strip() == "[]"


@pytest.mark.parametrize("seats", [3.7, "3", True])
def test_a_seat_count_that_is_no_whole_number_is_refused(seats):
    from arena.games.base import ArenaError

    with pytest.raises(ArenaError, match=f"seats: a number of players, not {seats!r}"):
        make_env("sonnentau", seats=seats)


def test_the_resets_after_a_negative_seed_are_no_other_seeds_resets():
    """``reset(seed=-5)`` seeded NumPy with [5, 1], the words of 5 + 2**32: the unseeded
    episodes after it were those after ``reset(seed=4294967301)`` (with a spawn key, those
    after 5 + 2**128)."""
    import numpy as np

    env = make_env("seasons")

    def after(seed):
        env.reset(seed=seed)
        found = []
        for _ in range(3):
            env.reset()
            found.append(env.game_seed)
        return found

    assert after(-5) != after(5 + 2**32) and after(-5) != after(5)
    assert after(-5) != after(5 + 2**128)  # a spawn key is padded to words of its own
    assert after(-5) == after(-5) and after(np.int64(-5)) == after(-5)
    assert after(7) == after(7)


def test_make_env_takes_numpys_integers_for_seats_and_refuses_what_is_none():
    import numpy as np

    assert len(make_env("sonnentau", seats=np.int64(3)).possible_agents) == 3
    for bad in (True, 3.0, "3"):
        with pytest.raises(ArenaError, match="seats: a number of players"):
            make_env("sonnentau", seats=bad)
