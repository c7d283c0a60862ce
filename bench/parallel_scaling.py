"""A tournament on 2 worker processes against 1: the speed-up (goal >= 1.7 on two cores).

    .venv/bin/python bench/parallel_scaling.py [--games-per-pairing 300] [--isolation none]
    .venv/bin/python bench/parallel_scaling.py --dask --isolation sandbox [--rounds 3]

With ``--dask`` it also plays the tournament on a Dask cluster of this machine (a
``dask scheduler`` and one, then two, ``dask worker --nthreads 1 --no-nanny`` processes),
the bots shipped to the workers as bundles: games per second against the local executor
at the same number of workers (goal >= 0.9), 2 Dask workers against 1 (goal >= 1.7), and
how many times each bundle came to each worker (goal: once per worker and run). Runs of
each kind alternate (``--rounds``), and each kind's best is kept: the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
DASK = Path(sys.executable).with_name("dask")


def parent_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_run(folder: Path, name: str, games_per_pairing: int, isolation: str,
              **executor: Any) -> tuple[float, float]:
    """Games per second, and the parent's CPU seconds per game."""
    config = parse_config({
        "name": f"scaling-{name}", "game": "seasons", "seed": 1, "isolation": isolation,
        "games_per_pairing": games_per_pairing, "db": str(folder / f"{name}.db"),
        "bots": [str(ROOT / "bots/seasons/greedy.py"), str(ROOT / "bots/seasons/random_bot.py"),
                 {"spec": str(ROOT / "bots/seasons/greedy.py"), "name": "keep",
                  "params": {"rerolls": False}}], **executor})
    with Store(config.db) as store:
        started, cpu = time.perf_counter(), parent_cpu()
        report = run_tournament(config, store)
        seconds, cpu = time.perf_counter() - started, parent_cpu() - cpu
    assert report.complete
    return report.total / seconds, cpu / report.total


def verdict(ratio: float, goal: float) -> str:
    return f"{ratio:.2f} (goal >= {goal}: {'met' if ratio >= goal else 'NOT met'})"


@contextlib.contextmanager
def dask_cluster(folder: Path) -> Iterator[tuple[Any, list[subprocess.Popen[bytes]]]]:
    """A scheduler on this machine and a client of it; workers are added by :func:`add_worker`."""
    import distributed

    info = folder / "scheduler.json"
    log = (folder / "dask.log").open("wb")
    scheduler = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(info)],
                                 stdout=log, stderr=subprocess.STDOUT)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        while not info.exists():
            time.sleep(0.1)
        client = distributed.Client(scheduler_file=str(info), timeout="60s")
        try:
            yield client, workers
        finally:
            client.close()
    finally:
        for process in [*workers, scheduler]:
            process.kill()
            process.wait()


def add_worker(client: Any, workers: list[subprocess.Popen[bytes]], folder: Path) -> None:
    log = (folder / f"worker{len(workers)}.log").open("wb")
    workers.append(subprocess.Popen(
        [str(DASK), "worker", client.scheduler.address, "--nthreads", "1", "--no-nanny",
         "--no-dashboard", "--local-directory", str(folder / f"w{len(workers)}")],
        stdout=log, stderr=subprocess.STDOUT))
    client.wait_for_workers(len(workers), timeout=120)


def arrivals(client: Any) -> dict[str, dict[str, int]]:
    from arena.tournaments.dask_worker import bundle_arrivals

    return dict(client.run(bundle_arrivals))


def crossings(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> str:
    """How many times each bundle came to each worker during a run."""
    counts = sorted(n - before.get(worker, {}).get(key, 0)
                    for worker, keys in after.items() for key, n in keys.items())
    counts = [n for n in counts if n]
    return (f"{len(counts)} arrivals of {len(set(k for keys in after.values() for k in keys))} "
            f"bundles at {len(after)} worker(s), at most {max(counts, default=0)} per bundle "
            "and worker")


def local_run(folder: Path, args: argparse.Namespace, count: int, run: int) -> float:
    rate, parent = timed_run(folder, f"local-{count}-{run}", args.games_per_pairing,
                             args.isolation, workers=count)
    print(f"local, {count} worker(s): {rate:8.1f} games/s (the parent: "
          f"{1000 * parent:.2f} ms of CPU a game)", flush=True)
    return rate


def dask_run(folder: Path, args: argparse.Namespace, client: Any, count: int, run: int) -> float:
    before = arrivals(client)
    rate, parent = timed_run(folder, f"dask-{count}-{run}", args.games_per_pairing,
                             args.isolation, executor="dask", scheduler=client.scheduler.address)
    print(f"Dask,  {count} worker(s): {rate:8.1f} games/s (the parent: {1000 * parent:.2f} ms "
          f"of CPU a game); bundles: {crossings(before, arrivals(client))}", flush=True)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-pairing", type=int, default=300)
    parser.add_argument("--isolation", choices=["none", "process", "sandbox"], default="none")
    parser.add_argument("--rounds", type=int, default=1,
                        help="Runs of each kind, alternating; the best of each is kept.")
    parser.add_argument("--dask", action="store_true",
                        help="Also on a Dask cluster of 1 and 2 workers on this machine.")
    args = parser.parse_args()
    print(f"{3 * 2 * args.games_per_pairing} games a run, isolation {args.isolation}")
    local: dict[int, float] = {1: 0.0, 2: 0.0}
    dask: dict[int, float] = {1: 0.0, 2: 0.0}
    with tempfile.TemporaryDirectory() as name, contextlib.ExitStack() as stack:
        folder = Path(name)
        cluster = stack.enter_context(dask_cluster(folder)) if args.dask else None
        for count in (1, 2):
            if cluster is not None:
                add_worker(*cluster, folder)
            for run in range(args.rounds):
                local[count] = max(local[count], local_run(folder, args, count, run))
                if cluster is not None:
                    dask[count] = max(dask[count], dask_run(folder, args, cluster[0], count, run))
    print(f"local speed-up, 2 workers / 1: {verdict(local[2] / local[1], 1.7)}")
    if args.dask:
        for count in (1, 2):
            print(f"Dask / local at {count} worker(s): {verdict(dask[count] / local[count], 0.9)}")
        print(f"Dask speed-up, 2 workers / 1: {verdict(dask[2] / dask[1], 1.7)}")


if __name__ == "__main__":
    main()
