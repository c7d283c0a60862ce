"""Tournaments for the report tests, played for real and quickly (bots in-process, except
where a bot's stderr is wanted), each built once per test session (:func:`built`).

Bot names are long and alike up to their last characters, as in the report that
found the pair matrix's headers cut to identical strings; a crashing bot's failure
text and a bot's name try to be HTML.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.reports import write_reports
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parent.parent
GREEDY, RANDOM = "bots/seasons/greedy.py", "bots/seasons/random_bot.py"
CRASHER = "tests/report_crasher.py"
ILLEGAL = "tests/hostile/illegal.py"
EVIL = "<script>alert(1)<script>"


def seasons_bots(count: int) -> list[dict[str, Any]]:
    """``count`` Seasons bots named ``heuristic-random-01`` and so on."""
    return [{"spec": GREEDY if i % 3 == 0 else RANDOM, "name": f"heuristic-random-{i + 1:02d}"}
            for i in range(count)]


def play(db: Path, out: Path, config: dict[str, Any]) -> Path:
    """Play ``config`` into ``db`` and write its reports into ``out``; report.html's path."""
    settings = {"workers": 1, "isolation": "none", "seed": 3, "db": str(db), **config}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with Store(db) as store:
            run_tournament(parse_config(settings), store)
            paths = write_reports(store, store.find_tournament(config["name"]), out)
    return paths[-1]


def seasons(db: Path, out: Path, bots: int, name: str, **extra: Any) -> Path:
    """A Seasons round-robin of ``bots`` bots: the second crashes in some games, the fourth
    plays illegal actions."""
    entries: list[Any] = seasons_bots(bots)
    entries[1] = {"spec": CRASHER, "name": EVIL if bots == 2 else "crasher"}
    if bots >= 4:
        entries[3] = {"spec": ILLEGAL, "name": "illegal"}
    if bots == 8:  # names that differ only at their end, wider than a name's column
        entries[5]["name"] = "heuristic-random-with-a-longer-name-06"
        entries[6]["name"] = "heuristicrandomwithalongernamethathasnoplacetobreakatall07xxxxxx"
        entries[0]["name"] = "WWWWWWWWWW-MMMMMMMMMM-WWWWWWWWWW-MMMMMMMMMM-01"  # wide letters
    return play(db, out, {"name": name, "game": "seasons", "bots": entries,
                          "games_per_pairing": 1, **extra})


def sonnentau(db: Path, out: Path, name: str, seats: int = 4, **extra: Any) -> Path:
    """A Sonnentau round-robin of four bots at tables of ``seats``, short games."""
    bots = ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
            {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"},
            {"spec": "bots/sonnentau/heuristic.py", "name": "heuristic-b"}]
    return play(db, out, {"name": name, "game": "sonnentau", "seats": seats, "bots": bots,
                          "options": {"turn_limit": 60}, **extra})


def swiss(db: Path, out: Path, name: str) -> Path:
    """A Swiss tournament of five Seasons bots over three rounds: a bye in every round."""
    return play(db, out, {"name": name, "game": "seasons", "format": "swiss", "rounds": 3,
                          "games_per_pairing": 1, "bots": seasons_bots(5)})


SCENARIOS: dict[str, Callable[[Path, Path], Path]] = {
    # the bots' processes are real here, so that the crash detail has the bot's stderr
    "seasons-2": lambda db, out: seasons(db, out, 2, "seasons-2", isolation="process",
                                         games_per_pairing=3),
    "seasons-8": lambda db, out: seasons(db, out, 8, "seasons-8", games_per_pairing=3),
    "seasons-32": lambda db, out: seasons(db, out, 32, "seasons-32"),
    "sonnentau-4": lambda db, out: sonnentau(db, out, "sonnentau-4"),
    "swiss-5": lambda db, out: swiss(db, out, "swiss-5"),
}
_BUILT: dict[str, tuple[Path, Path]] = {}


def built(factory: pytest.TempPathFactory, name: str) -> tuple[Path, Path]:
    """Scenario ``name``'s database and report.html, built on first use in the session:
    under pytest-xdist by the first worker that needs it, while the others wait for it."""
    if name not in _BUILT:
        base = factory.getbasetemp()
        if os.environ.get("PYTEST_XDIST_WORKER"):
            base = base.parent  # the session's folder, above each worker's own
        folder = base / "scenarios" / name
        folder.mkdir(parents=True, exist_ok=True)
        with (folder.parent / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            db, done = folder / "arena.db", folder / "report-path"
            if not done.exists():
                done.write_text(str(SCENARIOS[name](db, folder / "out")))
            _BUILT[name] = (db, Path(done.read_text()))
    return _BUILT[name]
