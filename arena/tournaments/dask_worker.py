"""A Dask worker's part in arena's games (imported only where Dask is used).

:class:`ArenaWorker` is the worker plugin the Dask executor registers
(:mod:`arena.tournaments.dask_executor`): it sets each worker up as a local worker process
is set up, without Dask's profiler, and counts the bundles that come to it.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin
from distributed.comm.addressing import get_address_host

from arena.bots.bundles import use_cache_folder
from arena.bots.scratch import remove_abandoned
from arena.tournaments.tasks import prepare_worker, release_idle

ARRIVALS: Counter[str] = Counter()
"""How many times each bundle's data came to this worker (made here from the data the
scheduler sent, or fetched from a peer), by its key."""
PROFILER_CALLBACKS = ("profile", "profile-cycle")
"""The worker's periodic callbacks that sample its task threads (``distributed.worker``)."""
UNKNOWN_HOST_THREADS = 1 << 16
"""A worker on a host the run did not count is taken to share its cores (no polling)."""
IDLE_RUN_SECONDS = 60.0
"""A run none of whose games a worker has played for this long has its bots there stopped
(they start again should it come back)."""
IDLE_CHECK_SECONDS = 10.0

log = logging.getLogger(__name__)


class ArenaWorker(WorkerPlugin):
    """Sets a Dask worker up for arena's games: bundles unpacked in a folder of its own, and
    polling for a bot's answer only where that leaves a core for the bot, as a local worker
    process does (``threads``: the worker threads on each host, when the run started)."""

    def __init__(self, threads: Mapping[str, int]) -> None:
        self.threads = dict(threads)

    def setup(self, worker: Any) -> None:
        # The bots' folders of a worker that was killed (its nanny starts a new one): no
        # local run may come to this machine to remove them.
        remove_abandoned()
        use_cache_folder(Path(worker.local_directory) / "arena-bundles")
        prepare_worker(self.threads.get(host_of(worker.address), UNKNOWN_HOST_THREADS))
        stop_profiling(worker)
        self.stopping = threading.Event()
        threading.Thread(target=self._release_idle, name="arena-release-idle",
                         daemon=True).start()

    def teardown(self, worker: Any) -> None:
        self.stopping.set()
        remove_abandoned()

    def _release_idle(self) -> None:
        """The bots of a run whose client went without releasing them (killed): stopped
        once none of its games has been played here for :data:`IDLE_RUN_SECONDS`."""
        while not self.stopping.wait(IDLE_CHECK_SECONDS):
            for run in release_idle(IDLE_RUN_SECONDS):
                log.info("released the bots of run %s: none of its games for %g s", run,
                         IDLE_RUN_SECONDS)

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish == "memory" and isinstance(key, str) and key.startswith("arena-bundle-"):
            ARRIVALS[key] += 1


def stop_profiling(worker: Any) -> None:
    """Stop the worker's statistical profiler: every 10 ms it walks the task threads' stacks
    under the GIL, which halved the games per second of quick bots."""
    for name in PROFILER_CALLBACKS:
        callback = worker.periodic_callbacks.pop(name, None)
        if callback is not None:
            callback.stop()


def bundle_arrivals() -> dict[str, int]:
    """(Run on a worker) how many times each bundle came to it."""
    return dict(ARRIVALS)


def host_of(address: str) -> str:
    return str(get_address_host(address))


def threads_by_host(nthreads: Mapping[str, int]) -> dict[str, int]:
    """The worker threads on each host, from each worker's address and threads."""
    threads: Counter[str] = Counter()
    for address, count in nthreads.items():
        threads[host_of(address)] += int(count)
    return dict(threads)
