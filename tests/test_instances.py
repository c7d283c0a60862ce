"""No bot instance plays two games on the same dice, and every bot's seed is its own."""

import json
from collections import defaultdict

import pytest
from click.testing import CliRunner

from arena.bots.instances import InstancePool
from arena.cli import cli
from arena.referee.match import bot_seed
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

SPY = "tests/bots/dice_spy.py"


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


class Made:
    def __init__(self, number):
        self.number, self.name, self.version, self.closed = number, f"bot{number}", "1", False

    def act(self, observation):
        return observation.legal_actions[0]


def counting_pool(keep=4):
    made = []

    def make():
        made.append(Made(len(made)))
        return made[-1]
    return InstancePool(make, keep=keep), made


def test_a_pool_seats_another_instance_on_dice_one_has_played_and_reuses_it_on_new_dice():
    pool, made = counting_pool()
    first, mirrored = pool.for_seed(7), pool.for_seed(7)
    assert first is not mirrored and len(made) == 2
    assert pool.for_seed(8) is first and pool.for_seed(8) is mirrored
    assert len(made) == 2


def test_a_pool_keeps_at_most_its_limit_of_instances():
    pool, made = counting_pool(keep=2)
    seated = [pool.for_seed(1) for _ in range(3)]
    assert len(set(map(id, seated))) == 3 and len(pool.instances) == 2
    assert made[0] not in [i.player for i in pool.instances]  # the least recently used


def spy_entries(log, count=3):
    return [{"spec": SPY, "name": f"spy-{i}", "params": {"log": str(log)}, "isolation": "none"}
            for i in range(count)]


def check_log(log, games):
    """Each logged start: the instance that played it never played another game on the same
    game seed, and no seed was handed twice."""
    game_of = {}
    for key, seed, seats in games:
        rotation = int(key.rsplit("-o", 1)[1])
        for seat in range(len(seats)):
            game_of[bot_seed(seed, seat, rotation)] = seed
    starts = [json.loads(line) for line in log.read_text().splitlines()]
    handed = [start["seed"] for start in starts]
    assert len(handed) == len(set(handed)) == len(game_of), "a bot seed was handed twice"
    played = defaultdict(list)
    for start in starts:
        played[start["instance"]].append(game_of[start["seed"]])
    for instance, seeds in played.items():
        assert len(seeds) == len(set(seeds)), f"{instance} played two games on the same dice"
    return played


@pytest.mark.parametrize(("format_", "seats", "workers"), [
    ("round-robin", 2, 1), ("round-robin", 2, 2), ("swiss", 2, 1), ("round-robin", 3, 1)])
def test_no_instance_plays_two_games_of_a_set(tmp_path, format_, seats, workers):
    log = tmp_path / "starts.jsonl"
    game = "seasons" if seats == 2 else "sonnentau"
    data = {"name": "t", "game": game, "format": format_, "bots": spy_entries(log, 4),
            "games_per_pairing": 2, "seed": 5, "workers": workers, "seats": seats,
            "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out")}
    if format_ == "swiss":
        data["rounds"] = 2
    if game == "sonnentau":
        data["options"] = {"turn_limit": 20}
    cfg = parse_config(data, "test.yaml")
    with Store(cfg.db) as store:
        report = run_tournament(cfg, store)
        games = [(g.key, g.seed, g.seats) for g in store.games(report.tournament_id)]
    played = check_log(log, games)
    reused = max(len(seeds) for seeds in played.values())
    assert reused > 1, "instances are kept across sets"


def test_arena_play_plays_each_game_of_a_set_in_another_instance(tmp_path, monkeypatch):
    log = tmp_path / "starts.jsonl"
    monkeypatch.setenv("ARENA_SPY_LOG", str(log))
    result = CliRunner().invoke(cli, ["play", "seasons", SPY, SPY, "--games", "6", "--seed",
                                      "3", "--isolation", "none"])
    assert result.exit_code == 0, result.output
    starts = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(starts) == 12 and len({s["seed"] for s in starts}) == 12
    by_set = defaultdict(set)
    for index, start in enumerate(starts):
        by_set[index // 4].add(start["instance"])
    assert all(len(instances) == 4 for instances in by_set.values())


def changing_bot(folder):
    """A bot that plays its first legal action, in ``folder`` (readable by a sandbox)."""
    folder.chmod(0o755)
    bot = folder / "changing.py"
    bot.write_text("class Bot:\n    name, version = 'changing', '1'\n"
                   "    def act(self, observation):\n"
                   "        return observation.legal_actions[0]\n")
    return bot


def change(bot):
    """The bot's file, changed to a bot that crashes."""
    bot.write_text(bot.read_text().replace("return observation.legal_actions[0]",
                                           "raise RuntimeError('changed')"))


@pytest.mark.parametrize("isolation", ["process", "sandbox"])
def test_every_game_of_arena_play_plays_the_code_read_at_the_start(tmp_path, monkeypatch,
                                                                    isolation):
    """A bot file changed while ``arena play`` runs does not reach its later games: every
    instance plays the code that was read, hashed and labelled at the start."""
    from arena.bots.sandbox import sandbox_problem
    from arena.tournaments import matches

    if isolation == "sandbox" and sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    bot = changing_bot(tmp_path)
    play_match = matches.play_match

    def changed_after_the_first_game(*args, **kwargs):
        for number, result in enumerate(play_match(*args, **kwargs)):
            if number == 0:
                change(bot)
            yield result

    monkeypatch.setattr(matches, "play_match", changed_after_the_first_game)
    result = CliRunner().invoke(cli, ["play", "seasons", str(bot), "random", "--games", "4",
                                      "--isolation", isolation, "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "changed" in bot.read_text() and "4 games" in result.output
    assert "RuntimeError" not in result.output and "crash" not in result.output


def test_arena_play_with_workers_plays_the_code_read_at_the_start(tmp_path, monkeypatch):
    """With --workers the bots' files were read again when the workers started: a file
    changed by then played under the label of the code read first."""
    from arena.tournaments import matches

    bot = changing_bot(tmp_path)
    in_workers = matches.play_match_in_workers

    def changed_first(*args, **kwargs):
        change(bot)
        return in_workers(*args, **kwargs)

    monkeypatch.setattr(matches, "play_match_in_workers", changed_first)
    result = CliRunner().invoke(cli, ["play", "seasons", str(bot), "random", "--games", "4",
                                      "--workers", "2", "--isolation", "process"])
    assert result.exit_code == 0, result.output
    assert "changed" in bot.read_text() and "4 games" in result.output
    assert "RuntimeError" not in result.output and "crash" not in result.output
