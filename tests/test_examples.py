"""The examples: a policy trained through the PettingZoo adapter, shipped and rated as a bot,
and a bot published as a package through an ``arena.bots`` entry point."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

import arena
from arena.results.stats import pentanomial_from_pairs, pentanomial_interval
from arena.tournaments.matches import play_match

ROOT = Path(__file__).resolve().parent.parent
TRAINED = ROOT / "bots" / "seasons" / "trained" / "__init__.py"
RANDOM = ROOT / "bots" / "seasons" / "random_bot.py"
TRAINING_SCRIPT = ROOT / "examples" / "train_seasons_policy.py"
PACKAGED = ROOT / "examples" / "packaged_bot"

pytest.importorskip("pettingzoo")


def _import(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def training() -> ModuleType:
    return _import(TRAINING_SCRIPT, "train_seasons_policy")


def pair_scores(first: object, second: object, pairs: int, seed: int) -> list[float]:
    """The first bot's points in each seat-swapped pair of games on the same dice."""
    scores: list[float] = []
    for index, (order, record) in enumerate(
            play_match("seasons", [first, second], seed=seed, games=2 * pairs)):
        seat = order.index(0)
        mine, theirs = record.ranks[seat], record.ranks[1 - seat]
        points = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        if index % 2 == 0:
            scores.append(points)
        else:
            scores[-1] += points
    return scores


def test_the_shipped_trained_bot_beats_random_by_its_interval() -> None:
    trained = arena.load_bot(str(TRAINED)).player
    rival = arena.load_bot(str(RANDOM)).player
    assert (trained.name, trained.version, trained.games) == ("trained", "1.0", ("seasons",))
    pentanomial = pentanomial_from_pairs(pair_scores(trained, rival, pairs=100, seed=11))
    low, high = pentanomial_interval(pentanomial)
    assert pentanomial.pairs == 100
    assert low > 0.5, (pentanomial.counts, low, high)


def test_the_bot_reads_arena_observations_as_the_adapter_numbers_them(
        training: ModuleType) -> None:
    from arena.env import make_env

    bot = training.load_bot_module()
    env = make_env("seasons")
    assert list(bot.ACTION_NAMES) == [env.action_name(i) for i in range(env.index.n_decisions)]
    env.reset(seed=5)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = observation["action_mask"].nonzero()[0].tolist()
        seat = int(agent.rsplit("_", 1)[1])
        arena_view = env.arena_state.observation(seat)
        assert bot.vector_keys(observation["observation"].tolist(), legal) == \
            bot.observation_keys(arena_view)
        env.step(legal[-1])


def test_the_training_script_runs_end_to_end_and_writes_a_loadable_policy(
        training: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--episodes", "200", "--eval-pairs", "20", "--seed", "3"]
    assert training.main([*args, "--out", str(tmp_path / "a")]) == 0
    assert training.main([*args, "--out", str(tmp_path / "b")]) == 0
    written = tmp_path / "a" / "policy.json"
    assert written.read_bytes() == (tmp_path / "b" / "policy.json").read_bytes()
    printed = capsys.readouterr().out
    assert "trained on 200 self-play games" in printed and "against random (40 games)" in printed
    assert json.loads(written.read_text())["episodes"] == 200
    player = arena.load_bot(str(TRAINED), {"parameters": str(written)}).player
    record = arena.play_game("seasons", [player, arena.load_bot(str(RANDOM)).player], seed=1)
    assert [seat.status for seat in record.seats] == ["ok", "ok"]
    own = arena.load_bot(str(tmp_path / "a")).player  # --out made a bot of its own

    def actions(seated: list[object]) -> list[str]:
        return [move.action for move in arena.play_game("seasons", seated, seed=1).moves]

    assert actions([own, player]) == actions([player, player])  # that plays that policy


def _installed_copy(site: Path) -> None:
    """Install the packaged example into ``site`` as pip would: the module, and a
    dist-info folder whose entry points are those its pyproject.toml declares."""
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((PACKAGED / "pyproject.toml").read_text())
    project = pyproject["project"]
    for module in pyproject["tool"]["setuptools"]["py-modules"]:
        shutil.copy(PACKAGED / f"{module}.py", site)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = [f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
             for group, points in project["entry-points"].items()]
    (info / "entry_points.txt").write_text("\n".join(lines))


def test_the_packaged_example_loads_by_its_entry_point_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _installed_copy(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "arena_highlow_bot", raising=False)
    loaded = arena.load_bot("highlow")
    assert (loaded.name, loaded.version) == ("highlow", "1.0")
    assert loaded.code_hash
    record = arena.play_game("seasons", [loaded.player, arena.load_bot(str(RANDOM)).player],
                             seed=2)
    assert [seat.status for seat in record.seats] == ["ok", "ok"]
    sys.modules.pop("arena_highlow_bot", None)


def test_a_package_folder_is_a_spec_and_its_data_is_part_of_its_revision(
        tmp_path: Path) -> None:
    from arena.bots.isolation import start_bot
    from arena.bots.loading import load_bot, split_spec

    assert split_spec("bots/seasons/trained") == ("bots/seasons/trained/__init__.py", None)
    copy = tmp_path / "trained"
    shutil.copytree(ROOT / "bots" / "seasons" / "trained", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    first = load_bot(str(copy))
    assert first.player.name == "trained"
    policy = json.loads((copy / "policy.json").read_text())
    (copy / "policy.json").write_text(json.dumps(policy, indent=1))
    assert load_bot(str(copy / "__init__.py")).code_hash != first.code_hash
    player = start_bot(str(copy), "process")
    try:
        record = arena.play_game("seasons", [player, load_bot(str(RANDOM)).player], seed=3)
    finally:
        player.close()
    assert record.seats[0].status == "ok"
