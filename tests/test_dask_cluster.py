"""A real Dask cluster whose workers share no folder with arena: bots travel as bundles.

A ``dask scheduler`` and two ``dask worker`` processes, the workers each in a mount
namespace of its own where the checkout's ``bots/`` and the test's results folder are
empty (tmpfs over them): what a worker plays, it got from the tasks. A sandboxed
tournament and a ladder round with a bot uploaded by ``arena submit`` give the games of a
local run; so does a tournament during which a worker is killed (SIGKILL).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")

from arena.bots.sandbox import sandbox_problem  # noqa: E402
from arena.cli import cli  # noqa: E402
from arena.results.store import Store  # noqa: E402
from arena.tournaments.config import parse_config  # noqa: E402
from arena.tournaments.ladder import LadderControl, open_ladder, run_ladder  # noqa: E402
from arena.tournaments.ladder_config import parse_ladder_config  # noqa: E402
from arena.tournaments.runner import Progress, run_tournament  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).with_name("dask")
KEEP_COPIES = {"DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START": "False"}
"""Dask's active memory manager drops a worker's copy of a bundle that none of its tasks
needs at the time, and it is sent again if one does: off, a bundle comes to a worker once."""
HIDE = 'for folder in "$@"; do mount -t tmpfs tmpfs "$folder" || exit 97; done; exec "$0"'


def cannot_run() -> str | None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "hiding folders from the workers needs root and unshare"
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        return "unshare --mount does not work here"
    if not DASK.exists():
        return f"no {DASK}"
    return sandbox_problem()


def start_worker(address: str, hidden: list[Path], folder: Path, log: Path) -> subprocess.Popen:
    """A ``dask worker`` (no nanny: killed, it stays dead) that sees ``hidden`` empty."""
    command = [str(DASK), "worker", address, "--nthreads", "1", "--no-nanny",
               "--no-dashboard", "--local-directory", str(folder)]
    script = HIDE.replace('"$0"', " ".join(f"'{word}'" for word in command))
    return subprocess.Popen(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                             script, "hide", *map(str, hidden)],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd="/")


@pytest.fixture
def cluster(tmp_path_factory, tmp_path):
    problem = cannot_run()
    if problem:
        pytest.skip(problem)
    logs = tmp_path_factory.mktemp("cluster-logs")
    info = logs / "scheduler.json"
    processes = [subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
         "--scheduler-file", str(info)], stdout=(logs / "scheduler.log").open("wb"),
        stderr=subprocess.STDOUT, env={**os.environ, **KEEP_COPIES})]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = distributed.Client(scheduler_file=str(info), timeout="60s")
        hidden = [ROOT / "bots", tmp_path]
        workers = [start_worker(address.scheduler.address, hidden, logs / f"w{n}",
                                logs / f"worker{n}.log") for n in range(2)]
        processes += workers
        address.wait_for_workers(2, timeout=60)
        yield address, workers
        address.close()
    finally:
        for process in reversed(processes):
            process.kill()
            process.wait()


def games(db: Path) -> list[tuple]:
    """Every game: key, seats, seed, ranks, statuses and the moves."""
    with Store(db) as store:
        return [(row.key, row.seats, row.seed, row.ranks, row.statuses,
                 [move.action for move in store.record(tid, row.key).moves])
                for tid in [t.id for t in store.tournaments()] for row in store.games(tid)]


def tournament(tmp_path: Path, db: str, **more: object):
    mine = tmp_path / "mine.py"
    if not mine.exists():
        mine.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
            '"greedy"', '"mine"'))
    return parse_config({"name": "cluster", "game": "seasons", "seed": 11,
                         "games_per_pairing": 1, "isolation": "sandbox",
                         "db": str(tmp_path / db), "output": str(tmp_path / "out"),
                         "bots": [str(ROOT / "bots/seasons/greedy.py"),
                                  str(ROOT / "bots/seasons/trained"), str(mine)], **more})


def ladder(tmp_path: Path, db: Path, **more: object):
    return parse_ladder_config({
        "name": "ladder", "game": "seasons", "seed": 4, "isolation": "sandbox", "db": str(db),
        "ladder": {"validation_games": 1},
        "bots": [str(ROOT / "bots/seasons/greedy.py"),
                 str(ROOT / "bots/seasons/random_bot.py")], **more})


def arrivals(client) -> dict[str, dict[str, int]]:
    from arena.tournaments.dask_worker import bundle_arrivals

    return client.run(bundle_arrivals)


def test_games_on_workers_that_see_no_bot_file_equal_a_local_run(cluster, tmp_path):
    client, workers = cluster
    address = client.scheduler.address
    assert not any(client.run(os.path.exists, str(ROOT / "bots/seasons/greedy.py")).values())
    local, remote = tournament(tmp_path, "local.db"), tournament(
        tmp_path, "dask.db", executor="dask", scheduler=address)
    for config in (local, remote):
        with Store(config.db) as store:
            assert run_tournament(config, store).complete
    assert games(Path(remote.db)) == games(Path(local.db))
    once = arrivals(client)
    assert sum(n for counts in once.values() for n in counts.values()) >= 3  # bundles went out
    assert all(n == 1 for counts in once.values() for n in counts.values())  # once per worker

    # A ladder round with a bot uploaded by `arena submit`, on the cluster and locally.
    start = tmp_path / "ladder" / "arena.db"
    with Store(start) as store:
        open_ladder(ladder(tmp_path, start), store)
    newcomer = tmp_path / "newcomer.py"
    newcomer.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
        '"greedy"', '"newcomer"'))
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(newcomer),
                                         "--db", str(start)])
    assert "queued for ladder 'ladder'" in submitted.output, submitted.output
    with Store(start) as store:  # validated meanwhile, it joins for the next round
        run_ladder(ladder(tmp_path, start), store, LadderControl(rounds=1))
    newcomer.unlink()
    copies = {}
    for name, more in (("local", {}), ("dask", {"executor": "dask", "scheduler": address})):
        copies[name] = tmp_path / name / "arena.db"
        copies[name].parent.mkdir()
        shutil.copy(start, copies[name])
        with Store(copies[name]) as store:
            run_ladder(ladder(tmp_path, copies[name], **more), store, LadderControl(rounds=2))
    with Store(copies["dask"]) as store:
        entrants = [store.bot(bot_id).identity.name for bot_id in store.entrants(1)]
        last = [row.seats for row in store.games(1, round_index=1)]
    assert entrants == ["greedy", "random", "newcomer"]
    assert any(2 in seats for seats in last)  # the newcomer played in the round on Dask
    assert games(copies["dask"]) == games(copies["local"])

    # A worker killed (SIGKILL) during the tournament costs a game, played again elsewhere.
    killed = tournament(tmp_path, "killed.db", executor="dask", scheduler=address)
    stopped = []

    def kill_one(result: object) -> None:
        if not stopped:
            workers[0].send_signal(signal.SIGKILL)
            stopped.append(workers[0].wait())

    with Store(killed.db) as store:
        assert run_tournament(killed, store, Progress(game_done=kill_one)).complete
    assert stopped == [-signal.SIGKILL]
    assert games(Path(killed.db)) == games(Path(local.db))
