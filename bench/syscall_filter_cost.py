"""What the sandbox's system-call filter costs a decision: the random bot sandboxed with the
filter against the same bot sandboxed without it.

The same real Seasons observations go to both bots, in interleaved rounds (each side first in
every other round); each side's best time per decision counts. Every decision is a few
system calls of the bot (a read, a write) that the filter checks; the filter is a libseccomp
binary tree of some 440 BPF instructions. Goal: with / without <= 1.05x.

For scale, the cost of one system call (getppid, which the filter lets through) inside a
sandboxed interpreter, with and without the filter, best of a few runs.

The filter is switched off here by ``arena.bots.sandbox.FILTER_SYSCALLS``, which is not a
setting: a sandbox always has its filter.

    .venv/bin/python bench/syscall_filter_cost.py [--decisions 20000] [--rounds 40]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from isolation_cost import RANDOM, best_per_decision, observations

from arena.bots import sandbox, syscall_filter
from arena.bots.isolation import bot_process
from arena.bots.process import Limits, ProcessPlayer

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.05
CALLS = 200_000
TIME_CALLS = ("import os, time\nbest = 1.0\nfor _ in range(5):\n    t = time.perf_counter()\n"
              f"    for _ in range({CALLS}):\n        os.getppid()\n"
              f"    best = min(best, (time.perf_counter() - t) / {CALLS})\nprint(best)\n")


def started(filtered: bool) -> ProcessPlayer:
    """The sandboxed random bot, running, with or without the filter."""
    sandbox.FILTER_SYSCALLS = filtered
    try:
        player = bot_process(RANDOM, {}, "sandbox")
        player.ensure_running()
    finally:
        sandbox.FILTER_SYSCALLS = True
    return player


def seccomp_mode(player: ProcessPlayer) -> str:
    """The bot's own ``Seccomp:`` line (2: a filter), to be sure what is measured."""
    pid = getattr(player, "bot_pid", None)
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Seccomp:"):
            return line.split()[1]
    return "?"


def system_call(filtered: bool) -> float:
    """Seconds a getppid() takes in a sandboxed interpreter (loop included), best of 5."""
    sandbox.FILTER_SYSCALLS = filtered
    try:
        launch = sandbox.SandboxLaunch([sys.executable, "-c", TIME_CALLS], None, Limits())
        result: subprocess.CompletedProcess[bytes] = launch.run_briefly()
    finally:
        sandbox.FILTER_SYSCALLS = True
    return float(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    problem = sandbox.sandbox_problem()
    if problem is not None:
        sys.exit(f"the sandbox cannot run here: {problem}")
    os.chdir(ROOT)
    sample = observations(args.decisions)
    players = {"with": started(True), "without": started(False)}
    try:
        modes = {side: seccomp_mode(player) for side, player in players.items()}
        assert modes == {"with": "2", "without": "0"}, modes
        best = best_per_decision(players, sample, args.rounds)
    finally:
        for player in players.values():
            player.close()
    calls = {side: min(system_call(side == "with") for _ in range(3))
             for side in ("without", "with")}
    size = " + ".join(str(len(program) // 8) for program in syscall_filter.programs())
    print(f"the random bot sandboxed, {args.decisions} decisions (best of {args.rounds} "
          f"interleaved rounds), filter {size} BPF instructions (its programs)")
    for side in ("without", "with"):
        print(f"   {side:7} filter: {1e6 * best[side]:7.1f} us a decision "
              f"(Seccomp: {modes[side]})")
    ratio = best["with"] / best["without"]
    print(f"   with / without = {ratio:.3f} (goal <= {GOAL}: "
          f"{'met' if ratio <= GOAL else 'NOT met'})")
    print(f"a system call let through (getppid, Python loop included): "
          f"{1e9 * calls['without']:.0f} ns without the filter, {1e9 * calls['with']:.0f} ns "
          f"with it ({1e9 * (calls['with'] - calls['without']):+.0f} ns)")


if __name__ == "__main__":
    main()
