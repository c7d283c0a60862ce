"""The Python API (arena.api, re-exported by arena): its documented examples run as printed
(docs/python-api.md, the module's docstrings, and the README's ``>>>`` examples), and what
they show holds in general."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import arena
from arena.bots.loading import BotNotFoundError
from arena.bots.shipped import shipped_bot, shipped_names
from arena.games import find_game
from arena.games.base import GameOptionError
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS


@pytest.fixture(autouse=True)
def in_the_checkout(monkeypatch):
    monkeypatch.chdir(ROOT)


# -- the documented examples -----------------------------------------------------------------


def test_the_python_api_guide_runs_as_printed():
    result = doctest.testfile(str(ROOT / "docs/python-api.md"), module_relative=False,
                              optionflags=FLAGS)
    assert result.attempted >= 40 and result.failed == 0


@pytest.mark.parametrize("module", ["arena.api", "arena.reports.replay"])
def test_the_module_docstrings_run_as_printed(module):
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=FLAGS)
    assert result.attempted >= 5 and result.failed == 0


def readme_examples(text: str) -> str:
    """The README's ``>>>`` sessions (its fenced ``pycon`` blocks), as one doctest text."""
    return "\n".join(re.findall(r"```pycon\n(.*?)```", text, re.S))


def test_the_readme_examples_run_as_printed():
    examples = readme_examples((ROOT / "README.md").read_text())
    assert ">>>" in examples, "the README's ```pycon examples are gone"
    parser = doctest.DocTestParser()
    test = parser.get_doctest(examples, {}, "README.md", str(ROOT / "README.md"), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 3


# -- make and run ---------------------------------------------------------------------------


def test_make_checks_the_options_at_once():
    assert arena.make("sonnentau", dice="miwin").options == {"dice": "miwin"}
    with pytest.raises(GameOptionError, match="unknown option 'turns' for seasons"):
        arena.make("seasons", turns=3)
    with pytest.raises(arena.ArenaError, match="chess"):
        arena.make("chess")


def test_seats_given_to_make_are_the_number_of_bots_run_and_play_match_take():
    three = arena.make("sonnentau", seats=3, turn_limit=20)
    assert three.seats == 3 and three.options == {"turn_limit": 20}
    assert three.run(["random"] * 3, seed=1).options["seats"] == 3
    for wrong in (["random"] * 2, ["random"] * 4):
        with pytest.raises(arena.ArenaError, match=r"for 3 players; . given"):
            three.run(wrong)
        with pytest.raises(arena.ArenaError, match="for 3 players"):
            three.play_match(wrong, games=3)
    for impossible in (7, 1, True, "3"):
        with pytest.raises(arena.ArenaError, match=r"seats|players"):
            arena.make("sonnentau", seats=impossible)


@pytest.mark.parametrize("seed", [1.5, True, "3", 2.0])
def test_a_seed_that_is_no_integer_is_refused_everywhere_a_game_is_played(seed):
    """Its dice would be another game's than the record, or its replay, could name."""
    env = arena.make("seasons")
    for play in (lambda: env.run(["greedy", "random"], seed=seed),
                 lambda: env.play_match(["greedy", "random"], seed=seed, games=4),
                 lambda: arena.play_game("seasons", env.players(["greedy", "random"]), seed)):
        with pytest.raises(TypeError, match="a game's seed is an integer"):
            play()


def test_a_numpy_integer_seed_is_that_integer_and_none_draws_one_the_record_keeps():
    import numpy as np

    env = arena.make("seasons")
    def actions(record):
        return [move.action for move in record.moves]

    assert actions(env.run(["greedy", "random"], seed=np.int64(5))) == \
        actions(env.run(["greedy", "random"], seed=5))
    drawn = [env.run(["greedy", "random"], seed=None) for _ in range(2)]
    assert drawn[0].seed != drawn[1].seed and isinstance(drawn[0].seed, int)
    again = env.run(["greedy", "random"], seed=drawn[0].seed)
    assert actions(again) == actions(drawn[0])
    arena.check_replay(arena.to_replay(drawn[0]))  # raises where the replay is no game


def test_replay_upto_is_a_number_of_moves_of_the_game():
    record = arena.make("seasons").run(["greedy", "random"], seed=2)
    moves = len(record.moves)
    assert arena.replay(record, upto=moves).is_terminal
    assert arena.replay(record, upto=0).to_json() == \
        find_game("seasons").initial_state(record.options).to_json()
    for outside in (moves + 1, -1, -moves - 5):
        with pytest.raises(ValueError, match=f"upto: {outside} is not a number of moves"):
            arena.replay(record, upto=outside)


def test_a_bot_given_any_way_plays_the_same_game():
    env = arena.make("seasons")
    greedy = arena.load_bot("bots/seasons/greedy.py")
    given = [greedy, greedy.player, "bots/seasons/greedy.py", "greedy"]
    records = [env.run([bot, "random"], seed=11) for bot in given]
    assert len({(r.ranks, tuple(m.action for m in r.moves)) for r in records}) == 1
    same = arena.play_game("seasons", [greedy.player, arena.load_bot(
        "bots/seasons/random_bot.py").player], seed=11)
    assert records[0].moves[-1].action == same.moves[-1].action


def test_a_function_plays_as_in_kaggle_environments():
    """``env.run([my_agent, "random"])``, Kaggle's first line, raised AttributeError."""
    def my_agent(observation):
        return observation.legal_actions[0]

    env = arena.make("seasons")
    record = env.run([my_agent, "random"], seed=3)
    assert record.seats[0].name == "my-agent" and record.seats[0].status == "ok"
    assert env.run([lambda observation: observation.legal_actions[0], "random"],
                   seed=3).seats[0].name == "agent"
    assert env.play_match([my_agent, "random"], seed=1, games=2).labels == (
        "my-agent@1", "random@1.0")
    with pytest.raises(arena.ArenaError, match=r"is not a player: .*no act"):
        env.run([42, "random"])


def test_a_shipped_name_is_looked_up_for_the_environments_game():
    assert shipped_bot("random", "sonnentau") == Path("bots/sonnentau/random_bot.py")
    assert shipped_names("sonnentau") == ["heuristic", "random", "search"]
    assert shipped_bot("bots/seasons/greedy.py", "seasons") is None
    with pytest.raises(BotNotFoundError, match="shipped for sonnentau: heuristic, random, "):
        arena.make("sonnentau").run(["greedy", "random"])


def test_time_limits_reach_the_referee():
    class Slow:
        name, version = "slow", "1.0"

        def act(self, observation):
            import time

            time.sleep(0.05)
            return observation.legal_actions[0]

    record = arena.make("seasons", time_limit=0.01).run([Slow(), "random"], seed=1)
    assert record.seats[0].status == "timeout" and record.termination == "timeout"
    banked = arena.make("seasons", time_limit=0.01, time_bank=60)
    assert banked.run([Slow(), "random"], seed=1).termination != "timeout"
    match = banked.play_match([Slow(), "random"], seed=1, games=2)
    assert [record.termination for record in match.records].count("timeout") == 0


def test_a_match_rotates_the_seats_on_shared_dice():
    match = arena.make("sonnentau", turn_limit=30).play_match(
        ["heuristic", "random", "random"], seed=4, games=3)
    assert match.labels == ("heuristic@1.0", "random@1.0 #1", "random@1.0 #2")
    assert match.orders == ((0, 1, 2), (1, 2, 0), (2, 0, 1))
    assert len({record.seed for record in match.records}) == 1
    assert len(match.points) == 3 and match.points[0] > 0
    assert match.table().splitlines()[2].startswith("heuristic@1.0")  # under 2 header lines


def test_steps_walk_from_the_start_to_the_end():
    record = arena.make("seasons").run(["greedy", "random"], seed=2)
    walk = list(arena.steps(record))
    assert [step.number for step in walk] == list(range(len(record.moves) + 1))
    assert [step.move for step in walk[1:]] == list(record.moves)
    assert walk[-1].state.to_json() == arena.replay(record).to_json()
    assert walk[0].state.to_json() != walk[-1].state.to_json()  # copies, not one state


# -- stored games -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("api") / "arena.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with Store(path) as store:
            for name, seed in (("first", 1), ("second", 2)):
                run_tournament(parse_config({
                    "name": name, "game": "seasons", "seed": seed, "games_per_pairing": 1,
                    "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"],
                    "workers": 1, "isolation": "none", "db": str(path)}), store)
    return path


def test_stored_games_are_the_stored_records_in_schedule_order(db):
    with Store(db) as store:
        tournament = store.find_tournament("first")
        expected = [store.record(tournament.id, row.key) for row in store.games(tournament.id)]
        assert list(arena.stored_games(store, "first")) == expected
        assert list(arena.stored_games(db, tournament.id)) == expected
        assert store.tournaments()  # a store given is left open
    latest = list(arena.stored_games(str(db)))
    assert latest and latest != expected


def test_stored_replays_carry_the_stored_identity(db):
    replays = list(arena.stored_replays(db, "second", details=False))
    assert [r["tournament"]["number"] for r in replays] == list(range(1, len(replays) + 1))
    assert all(len(seat["revision"]) == 64 for r in replays for seat in r["seats"])


def test_a_missing_database_or_tournament_is_a_clear_error(db, tmp_path):
    with pytest.raises(arena.ArenaError, match="no results database at"):
        arena.open_store(tmp_path / "none.db")
    with pytest.raises(arena.ArenaError, match="no tournament 'third'"):
        list(arena.stored_games(db, "third"))
    empty = tmp_path / "empty.db"
    Store(empty).close()
    with pytest.raises(arena.ArenaError, match="no tournaments in"):
        list(arena.stored_games(empty))


def test_the_api_is_in_the_facade():
    for name in ("make", "Environment", "Match", "Step", "steps", "open_store",
                 "stored_games", "stored_replays", "to_replay", "from_replay", "check_replay",
                 "read_replays", "ReplayError"):
        assert name in arena.__all__ and getattr(arena, name) is not None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"time_limit": 0}, "time_limit: a number of seconds above 0, or None"),
    ({"time_limit": -1}, "time_limit: a number of seconds above 0, or None"),
    ({"time_limit": float("nan")}, "time_limit: a number of seconds above 0, or None"),
    ({"time_limit": True}, "time_limit: a number of seconds above 0, or None"),
    ({"time_bank": -0.5}, "time_bank: a number of seconds, 0 or more"),
    ({"seats": 2.0}, "seats: a number of players"),
])
def test_make_refuses_limits_that_are_no_seconds(kwargs, message):
    """A time limit of 0 or -1 lost every game of seat 0 by timeout; nan meant none."""
    with pytest.raises(arena.ArenaError, match=re.escape(message)):
        arena.make("sonnentau", **kwargs)


@pytest.mark.parametrize("games", [0, -3, 2.0, True])
def test_play_match_refuses_a_number_of_games_below_one(games):
    """``games=0`` returned an empty match with points (0, 0)."""
    with pytest.raises(arena.ArenaError, match="games: a number of games, 1 or more"):
        arena.make("seasons").play_match(["greedy", "random"], games=games)


@pytest.mark.parametrize("upto", [True, 2.0, -1])
def test_replay_refuses_an_upto_that_is_no_number_of_moves(upto):
    record = arena.make("seasons").run(["greedy", "random"], seed=1)
    with pytest.raises(ValueError, match="is not a number of moves of this game"):
        arena.replay(record, upto=upto)
    import numpy as np

    assert arena.replay(record, upto=np.int64(3)).to_json() == \
        arena.replay(record, upto=3).to_json()


@pytest.mark.parametrize("time_limit", [0, -1, float("nan"), float("inf"), "2", True])
def test_play_game_and_play_match_refuse_limits_that_are_no_seconds(time_limit):
    """``arena.play_game(..., time_limit=-1)`` lost seat 0 by timeout after one move, and
    ``nan`` meant no limit: the top-level functions had none of make's checks."""
    players = [arena.load_bot("bots/seasons/greedy.py").player,
               arena.load_bot("bots/seasons/random_bot.py").player]
    with pytest.raises(arena.ArenaError, match="time_limit: a number of seconds above 0"):
        arena.play_game("seasons", players, seed=1, time_limit=time_limit)
    with pytest.raises(arena.ArenaError, match="time_limit: a number of seconds above 0"):
        list(arena.play_match("seasons", players, seed=1, games=2, time_limit=time_limit))


@pytest.mark.parametrize("games", [0, -3, True, 2.5])
def test_the_top_level_play_match_refuses_a_number_of_games_below_one(games):
    players = [arena.load_bot("bots/seasons/greedy.py").player,
               arena.load_bot("bots/seasons/random_bot.py").player]
    with pytest.raises(arena.ArenaError, match="games: a number of games, 1 or more"):
        list(arena.play_match("seasons", players, seed=1, games=games))
