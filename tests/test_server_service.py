"""arena serve's service: its ladders' processes watched and restarted, /healthz telling
their states, and the port in use as one line."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from arena.server import service
from arena.server.config import load_serve_config

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A served ladder of two shipped bots, not yet started (its serve config's path)."""
    ladder = {"name": "watched", "game": "seasons", "seed": 5, "workers": 1,
              "isolation": "none", "db": str(tmp_path / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (tmp_path / "serve.yaml").write_text(yaml.safe_dump({"ladders": ["ladder.yaml"]}))
    return tmp_path / "serve.yaml"


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "WATCH_SECONDS", 0.05, raising=False)
    monkeypatch.setattr(service, "RESTART_FIRST_SECONDS", 2.0, raising=False)  # to look


@pytest.fixture
def client(served: Path, quick: None) -> Iterator[TestClient]:
    from arena.cli.serve import ladder_lines

    with TestClient(service.serving_app(load_serve_config(served), ladder_lines)
                    ) as test_client:
        yield test_client


def games(served: Path) -> int:
    db = sqlite3.connect(served.parent / "arena.db", timeout=10)
    try:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        db.close()


PLAYING = 30.0
"""Seconds a ladder process may take to start and play its first games: it starts its bots
in sandboxes, which takes long on a loaded machine (a run of the suite beside it)."""


def until(what: Callable[[], Any], seconds: float = 8.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


def ladder_of(client: TestClient) -> service.LadderProcess:
    ladders = client.app.state.ladders  # type: ignore[attr-defined]
    return ladders.ladders[0]  # type: ignore[no-any-return]


def test_a_killed_ladder_is_restarted_and_shows_stopped_until_then(client, served, capfd,
                                                                   caplog):
    first = ladder_of(client).process
    assert first is not None and first.pid
    assert client.get("/healthz").json() == {
        "status": "ok", "ladders": {"watched": {"state": "running", "why": None,
                                                "restarts": 0}}}
    until(lambda: games(served) >= 2, PLAYING)
    os.kill(first.pid, signal.SIGKILL)

    health = until(lambda: (reply := client.get("/healthz").json())["status"] == "degraded"
                   and reply)
    assert health["ladders"]["watched"]["state"] == "restarting"
    assert health["ladders"]["watched"]["why"] == "killed by SIGKILL"
    assert 0 < health["ladders"]["watched"]["restart_in"] <= 2
    for page in ("/", "/ladders/watched"):
        text = client.get(page).text
        assert "stopped: killed by SIGKILL, restarting in" in text, page

    again = until(lambda: ladder_of(client).state == "running" and ladder_of(client).process)
    assert again.pid != first.pid
    assert client.get("/healthz").json()["ladders"]["watched"] == {
        "state": "running", "why": None, "restarts": 1}
    assert "stopped:" not in client.get("/ladders/watched").text
    before = games(served)
    until(lambda: games(served) > before, PLAYING)  # the restarted ladder plays on
    assert f"ladder watched (process {first.pid}) killed by SIGKILL; restarting it in 2 s" \
        in caplog.text
    err = []  # the ladders' lines, as arena ladder run shows them

    def shown() -> bool:  # the restarted ladder's round lines (its own processes write them
        err.append(capfd.readouterr().err)  # into the capture: a read may cut a line of theirs)
        return "[watched] round " in "".join(err) and " done, " in "".join(err)

    until(shown, PLAYING)


def test_the_wait_doubles_up_to_its_cap_and_starts_over_after_a_steady_run(monkeypatch):
    monkeypatch.setattr(service, "RESTART_FIRST_SECONDS", 1.0)
    monkeypatch.setattr(service, "RESTART_MAX_SECONDS", 4.0)

    class Dead:
        pid, exitcode = 1, 3

    ladder = service.LadderProcess("x", "x.yaml", process=Dead(),  # type: ignore[arg-type]
                                   state="running")
    ladders = service.Ladders.__new__(service.Ladders)
    waits = []
    for now in (10.0, 20.0, 30.0, 40.0, 50.0, 1000.0):
        ladder.state, ladder.started = "running", now - 1.0
        if now == 1000.0:
            ladder.started = now - service.STEADY_SECONDS
        ladders._ended(ladder, now)
        waits.append(ladder.restart_at - now)
    assert waits == [1.0, 2.0, 4.0, 4.0, 4.0, 1.0]
    assert ladder.why == "exited with code 3"


def test_a_ladder_stopped_on_purpose_is_not_restarted(served, quick, monkeypatch):
    monkeypatch.setattr(service, "RESTART_FIRST_SECONDS", 0.1, raising=False)
    with TestClient(service.serving_app(load_serve_config(served))) as client:
        ladders = client.app.state.ladders  # type: ignore[attr-defined]
        first = ladder_of(client).process
        assert first is not None and first.pid
        until(lambda: games(served) >= 1, PLAYING)
        os.kill(first.pid, signal.SIGTERM)  # as the server itself stops it
        first.join(20)
        assert first.exitcode == 0
        time.sleep(0.5)  # many watches, and longer than the wait before a restart
        state = client.get("/healthz").json()
        assert state == {"status": "ok", "ladders": {"watched": {
            "state": "stopped", "why": "ended cleanly (exit code 0)", "restarts": 0}}}
        assert ladder_of(client).process is first
        assert "stopped: ended cleanly" in client.get("/").text
    assert ladders.health()["ladders"]["watched"]["state"] == "stopped"
    assert ladders.processes == []


def test_a_ladder_whose_database_was_moved_away_is_stopped_not_begun_again(served, quick,
                                                                          monkeypatch):
    """Restarted, it opened the same path and began a new ladder, a new secret seed and
    round 1 again, its history in the moved file."""
    monkeypatch.setattr(service, "RESTART_FIRST_SECONDS", 0.1, raising=False)
    with TestClient(service.serving_app(load_serve_config(served))) as client:
        first = ladder_of(client).process
        assert first is not None
        until(lambda: games(served) >= 2, PLAYING)
        db = served.parent / "arena.db"
        db.rename(served.parent / "moved.db")
        first.join(PLAYING)
        assert first.exitcode == service.DATABASE_GONE
        time.sleep(0.5)  # many watches, and longer than the wait before a restart
        state = client.get("/healthz").json()
        assert state["status"] == "degraded"
        assert state["ladders"]["watched"]["state"] == "stopped"
        assert "its database was deleted or replaced" in state["ladders"]["watched"]["why"]
        assert ladder_of(client).process is first and not db.exists()


def test_the_server_stopping_stops_its_ladders_for_good(served, quick):
    with TestClient(service.serving_app(load_serve_config(served))) as client:
        ladders = client.app.state.ladders  # type: ignore[attr-defined]
        process = ladder_of(client).process
    assert process is not None and process.exitcode is not None
    ladders.check()  # what the watch would do: nothing now
    assert ladders.processes == []
    assert ladders.health() == {"status": "ok", "ladders": {"watched": {
        "state": "stopped", "why": "the server stopped", "restarts": 0}}}


def test_arena_serve_on_a_port_in_use_says_so_in_one_line(served):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "arena", "serve", "start", str(served),
                               "--port", str(port)], capture_output=True, text=True,
                              timeout=30, cwd=served.parent)
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if not line.startswith("warning: ladder watched's seed")]  # its seed is written
    assert done.returncode == 1, lines
    assert len(lines) == 1, lines
    assert f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0]
    assert "Traceback" not in lines[0] and "http://" not in lines[0]
