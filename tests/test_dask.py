"""The Dask executor gives exactly the results of the local one."""

import collections
import json

import pytest

distributed = pytest.importorskip("distributed")

from arena.results.store import Store, StoreError  # noqa: E402
from arena.tournaments.config import parse_config  # noqa: E402
from arena.tournaments.runner import run_tournament  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def results(path):
    with Store(path) as store:
        return [(g.key, g.seed, g.seats, g.ranks, g.scores, g.statuses) for g in store.games(1)]


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_a_tournament_on_a_local_dask_cluster_equals_the_local_run(tmp_path, root, monkeypatch,
                                                                  cluster, isolation):
    monkeypatch.chdir(root)
    base = {"name": "dask", "game": "seasons", "seed": 5, "games_per_pairing": 3,
            "isolation": isolation,
            "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py",
                     {"spec": "bots/seasons/greedy.py", "name": "keep",
                      "params": {"rerolls": False}}]}
    local = parse_config({**base, "workers": 2, "db": str(tmp_path / "local.db")})
    remote = parse_config({**base, "executor": "dask", "scheduler": cluster.scheduler_address,
                           "db": str(tmp_path / "dask.db")})
    for config in (local, remote):
        with Store(config.db) as store:
            assert run_tournament(config, store).complete
    assert len(results(remote.db)) == 18
    assert results(remote.db) == results(local.db)
    with distributed.Client(cluster) as client:  # arena's plugin stopped Dask's profiler
        profiling = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
    assert not any(profiling.values())


def test_a_dask_task_carries_about_a_second_of_games():
    from arena.tournaments.dask_executor import MAX_GAMES_PER_TASK, TASK_SECONDS, Pace
    from arena.tournaments.tasks import GameResult

    def games(count, seconds):
        return [GameResult(None, None, seconds) for _ in range(count)]

    pace = Pace()
    assert pace.games_per_task() == 1  # until a game has finished
    pace.note(games(4, TASK_SECONDS / 16))
    assert pace.games_per_task() == 16
    pace.note(games(1, 10 * TASK_SECONDS))
    assert pace.games_per_task() == 1
    quick = Pace()
    quick.note(games(3, 0.0001))
    assert quick.games_per_task() == MAX_GAMES_PER_TASK


class _Running:
    """Dask's ``as_completed`` as ``_results`` uses it, the tasks finishing in the order sent."""

    def __init__(self):
        self.queue = collections.deque()

    def add(self, future):
        self.queue.append(future)

    def is_empty(self):
        return not self.queue

    def __next__(self):
        return self.queue.popleft()


@pytest.mark.parametrize("durations", [0.5, 0.01])  # a game a task; many games a task
def test_dask_tasks_give_each_worker_one_game_of_each_set(durations):
    from types import SimpleNamespace

    from arena.tournaments.dask_executor import _results
    from arena.tournaments.tasks import GameResult

    played = collections.defaultdict(list)

    class Future:
        def __init__(self, games):
            self.games = games

        def result(self):
            return [GameResult(None, None, durations)] * len(self.games)

    def submit(games, worker):
        played[worker] += [game.seed for game in games]
        return Future(games)

    client = SimpleNamespace(nthreads=lambda: {"a": 1, "b": 1})
    # A round-robin's order: the two seat orders of a set one after the other.
    tasks = [SimpleNamespace(seed=seed, key=f"{seed}-o{order}")
             for seed in range(40) for order in (0, 1)]
    results = list(_results(client, _Running(), iter(tasks), submit, set()))
    assert len(results) == 80
    assert sorted(played["a"] + played["b"]) == sorted(task.seed for task in tasks)
    assert len(set(played["a"])) == len(played["a"]) and set(played["a"]) == set(played["b"])


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, root, monkeypatch):
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(root)
    monkeypatch.setattr("arena.tournaments.dask_executor.CONNECT_TIMEOUT", "2s")
    config = tmp_path / "t.yaml"
    config.write_text("name: x\ngame: seasons\nbots: [bots/seasons/greedy.py, "
                      "bots/seasons/random_bot.py]\n")
    result = CliRunner().invoke(cli, ["run", str(config), "--executor", "dask", "--scheduler",
                                      "tcp://127.0.0.1:1", "--db", str(tmp_path / "a.db"),
                                      "--output", str(tmp_path / "o"), "--no-progress"])
    assert result.exit_code == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in result.output
    missing = CliRunner().invoke(cli, ["run", str(config), "--executor", "dask",
                                       "--db", str(tmp_path / "b.db")])
    assert missing.exit_code == 1 and "needs the scheduler's address" in missing.output


def test_a_ladder_on_a_local_dask_cluster_plays_the_games_of_the_local_one(tmp_path, root,
                                                                            monkeypatch,
                                                                            cluster):
    from arena.tournaments.ladder import LadderControl, run_ladder
    from arena.tournaments.ladder_config import parse_ladder_config

    monkeypatch.chdir(root)
    base = {"name": "ladder", "game": "seasons", "seed": 8, "isolation": "process",
            "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py",
                     {"spec": "bots/seasons/greedy.py", "name": "keep",
                      "params": {"rerolls": False}}]}
    local = parse_ladder_config({**base, "workers": 1, "db": str(tmp_path / "local.db")})
    remote = parse_ladder_config({**base, "executor": "dask",
                                  "scheduler": cluster.scheduler_address,
                                  "db": str(tmp_path / "dask.db")})
    for config in (local, remote):
        with Store(config.play.db) as store:
            run_ladder(config, store, LadderControl(rounds=3))
    assert len(results(remote.play.db)) == 3 * 3 * 2
    assert results(remote.play.db) == results(local.play.db)


def test_on_dask_no_instance_plays_two_games_of_a_set(tmp_path, root, monkeypatch, cluster):
    from test_instances import check_log, spy_entries

    monkeypatch.chdir(root)
    log = tmp_path / "starts.jsonl"
    config = parse_config({"name": "spies", "game": "seasons", "seed": 5, "games_per_pairing": 3,
                           "bots": spy_entries(log, 3), "executor": "dask",
                           "scheduler": cluster.scheduler_address, "db": str(tmp_path / "d.db")})
    with Store(config.db) as store:
        report = run_tournament(config, store)
        games = [(g.key, g.seed, g.seats) for g in store.games(report.tournament_id)]
    assert len(games) == 18
    check_log(log, games)


def test_on_dask_a_worker_gets_one_game_of_each_set_so_bots_start_about_once_a_worker(
        tmp_path, root, monkeypatch, cluster):
    from test_instances import check_log, spy_entries

    from arena.referee.match import bot_seed

    monkeypatch.chdir(root)
    log = tmp_path / "starts.jsonl"
    config = parse_config({"name": "spread", "game": "seasons", "seed": 8,
                           "games_per_pairing": 4, "bots": spy_entries(log, 3),
                           "executor": "dask", "scheduler": cluster.scheduler_address,
                           "db": str(tmp_path / "d.db")})
    with Store(config.db) as store:
        report = run_tournament(config, store)
        games = [(g.key, g.seed, g.seats) for g in store.games(report.tournament_id)]
    assert len(games) == 3 * 4 * 2  # pairings, sets, seat orders
    check_log(log, games)
    bot_of = {bot_seed(seed, seat, int(key.rsplit("-o", 1)[1])): bot
              for key, seed, seats in games for seat, bot in enumerate(seats)}
    instances: dict[int, set[str]] = {}
    for line in log.read_text().splitlines():
        start = json.loads(line)
        instances.setdefault(bot_of[start["seed"]], set()).add(start["instance"])
    assert sorted(instances) == [0, 1, 2]
    # On a quiet machine each bot starts once on each of the two workers. A worker with
    # nothing to do takes a game on dice it has had rather than wait, and Dask may move
    # a task to the other worker: each costs one more start (the spreading itself is
    # checked exactly above, without the timing of a cluster).
    starts = {bot: len(started) for bot, started in instances.items()}
    assert all(2 <= count <= 4 for count in starts.values()), starts


def test_a_new_dask_worker_removes_the_folders_a_killed_one_left(tmp_path):
    """A killed worker's bots leave their folders on its machine, where no local run may
    ever come: the worker its nanny starts in its place removes them."""
    import multiprocessing
    import os
    import time

    from arena.bots.scratch import OWNER_FILE

    left = tmp_path / "arena-bot-left"
    left.mkdir()
    (left / OWNER_FILE).touch()  # its owner is dead: the lock is free
    old = time.time() - 3600
    os.utime(left, (old, old))
    start = multiprocessing.get_context("spawn").Process(
        target=_start_worker_plugin, args=(str(tmp_path), str(tmp_path / "worker")))
    start.start()
    start.join(60)
    assert start.exitcode == 0
    assert not left.exists()


def _start_worker_plugin(temporary: str, local: str) -> None:
    import tempfile
    from types import SimpleNamespace

    from arena.tournaments.dask_worker import ArenaWorker

    tempfile.tempdir = temporary
    worker = SimpleNamespace(local_directory=local, address="tcp://127.0.0.1:1",
                             periodic_callbacks={})
    ArenaWorker({}).setup(worker)


def _long_tournament(root, tmp_path, address, games=40):
    return parse_config({"name": "long", "game": "seasons", "seed": 5, "isolation": "none",
                         "games_per_pairing": games, "executor": "dask", "scheduler": address,
                         "db": str(tmp_path / "d.db"),
                         "bots": [f"{root}/bots/seasons/greedy.py",
                                  f"{root}/bots/seasons/random_bot.py"]})


def test_a_scheduler_without_workers_waits_for_one(tmp_path, root):
    """It failed at once: ``ValueError: Only use allow_other_workers= if using workers=``."""
    import threading

    with distributed.LocalCluster(n_workers=0, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        config = _long_tournament(root, tmp_path, local.scheduler_address, games=4)
        threading.Timer(2.0, lambda: local.scale(1)).start()
        with Store(config.db) as store:
            assert run_tournament(config, store).complete
    assert len(results(config.db)) == 8  # 4 sets of two seat orders


def test_a_lost_scheduler_is_one_sentence_and_the_finished_games_are_kept(tmp_path, root,
                                                                         monkeypatch):
    """It was a traceback ending in FutureCancelledError (scheduler-connection-lost)."""
    import threading
    import time

    from arena.games.base import ArenaError
    from arena.tournaments import dask_executor

    # the client waits this long for a lost scheduler to come back before it gives up
    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT", "3s")

    local = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None)
    config = _long_tournament(root, tmp_path, local.scheduler_address, games=200)
    raised: list[BaseException] = []

    def run() -> None:
        try:
            with Store(config.db) as store:
                run_tournament(config, store)
        except BaseException as exc:
            raised.append(exc)

    running = threading.Thread(target=run)
    running.start()
    def played() -> bool:  # the run may be making the database still
        try:
            return (tmp_path / "d.db").exists() and bool(results(config.db))
        except StoreError:
            return False

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not played():
        time.sleep(0.2)
    local.close()
    running.join(120)
    assert not running.is_alive()
    assert len(raised) == 1 and isinstance(raised[0], ArenaError), raised
    assert str(raised[0]).startswith(f"lost the Dask scheduler at {config.scheduler}")
    assert "the finished games are kept" in str(raised[0]) and "\n" not in str(raised[0])
    assert 0 < len(results(config.db)) < 400  # 200 sets of two games
