"""arena serve under slow clients (slowloris), under a real uvicorn with real sockets: a
request head and body have deadlines, connections are capped in all and per address, and
neither fills the log."""

from __future__ import annotations

import contextlib
import logging
import math
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_server
import yaml
from test_server_limits import serving

from arena.server.config import ConnectionLimits, load_serve_config
from arena.tournaments.config import ConfigError

ROOT = Path(__file__).resolve().parent.parent
site = test_server.site  # the fixture: a ladder of three bots, and four participants

QUICK = {"head_seconds": 1, "body_seconds": 3, "idle_seconds": 1, "per_address": 20,
         "max": 40}


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def connect(url: str, address: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port_of(url)))
    return sock


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """How long until the server closed ``sock`` (None: still open after ``seconds``)."""
    began = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return None
    except OSError:  # reset: closed too
        pass
    return time.monotonic() - began


def is_open(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def healthz(url: str) -> float:
    began = time.perf_counter()
    assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    return time.perf_counter() - began


@pytest.fixture
def quick(site: dict[str, Any], tmp_path: Any, monkeypatch: Any) -> Iterator[str]:
    with serving(site, tmp_path, monkeypatch, connections=QUICK) as url:
        yield url


def test_a_trickled_request_head_is_closed_at_its_deadline(quick):
    trickled, silent = connect(quick), connect(quick)
    stop = threading.Event()

    def trickle() -> None:
        with contextlib.suppress(OSError):
            for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 500:
                if stop.wait(0.05):
                    return
                trickled.send(bytes([byte]))

    threading.Thread(target=trickle, daemon=True).start()
    try:
        assert healthz(quick) < 1.0
        assert (closed_within(trickled, 4) or 9) < 2.5  # 1 s, however it trickles
        assert (closed_within(silent, 4) or 9) < 2.5
    finally:
        stop.set()


def test_a_body_shorter_than_declared_is_closed_when_it_stops(quick, caplog, capfd):
    caplog.set_level(logging.INFO)
    sock = connect(quick)
    sock.sendall(b"POST /signin HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n"
                 b"Content-Type: application/x-www-form-urlencoded\r\n\r\ntoken=" + b"x" * 100)
    took = closed_within(sock, 6)
    assert took is not None and took < 2.5, took  # idle_seconds 1, not 70 s
    time.sleep(0.2)  # the application's end of it
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert not capfd.readouterr().err  # uvicorn's own log (which does not propagate)


def test_a_body_that_keeps_coming_is_read_until_its_deadline(quick):
    sock = connect(quick)
    sock.sendall(b"POST /signin HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
                 b"Content-Type: application/x-www-form-urlencoded\r\n\r\ntoken=")
    began = time.monotonic()
    with contextlib.suppress(OSError):
        while time.monotonic() - began < 6 and is_open(sock):
            sock.send(b"x" * 10)  # every 0.4 s: never idle for 1 s
            time.sleep(0.4)
    took = time.monotonic() - began
    assert 2.5 < took < 4.5, took  # body_seconds 3


def test_requests_on_a_kept_connection_and_a_steady_upload_are_served(quick):
    with httpx.Client(base_url=quick, timeout=5) as http:
        for _ in range(3):
            assert http.get("/healthz").status_code == 200
            time.sleep(0.6)  # under head_seconds between requests
    sock = connect(quick)
    body = b"x" * 3000
    sock.sendall(b"POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: "  # reads its body
                 b"application/x-www-form-urlencoded\r\nContent-Length: 3000\r\n\r\n")
    for start in range(0, len(body), 1000):  # 1.5 s in all, at pauses under a second
        time.sleep(0.5)
        sock.sendall(body[start:start + 1000])
    sock.settimeout(5)
    assert sock.recv(4096).startswith(b"HTTP/1.1 "), "the body was read and answered"
    sock.close()


def test_one_address_holds_at_most_its_share_and_still_gets_answers(quick):
    crowd = [connect(quick, "127.0.0.2") for _ in range(30)]
    time.sleep(0.3)
    assert sum(map(is_open, crowd)) <= 20
    assert not is_open(crowd[0]), "the longest-waiting connection made room"
    assert is_open(crowd[-1])
    with httpx.Client(base_url=quick, timeout=5) as http:  # from the crowded address
        assert http.get("/healthz").status_code == 200
    others = [connect(quick, f"127.0.1.{i}") for i in range(2, 40)]
    time.sleep(0.3)
    assert sum(map(is_open, crowd + others)) <= 40  # max in all
    assert healthz(quick) < 1.0
    for sock in crowd + others:
        sock.close()


def raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"the open-file limit is {hard}: 1,100 slow clients need {needed}")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@contextlib.contextmanager
def served_apart(site: dict[str, Any], folder: Any, files: int) -> Iterator[tuple[str, Any]]:
    """``arena serve start`` in a process of its own, started with an open-file limit of
    ``files`` (the usual default): its URL, and its log's path."""
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "ladders": [site["config"].ladder_paths[0]], "run_ladders": False}))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = folder / "server.log"
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "start", str(folder / "serve.yaml"),
         "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
        stdout=log.open("wb"), stderr=subprocess.STDOUT,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard)))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield url, log
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize("addresses", [1, 550])
def test_healthz_answers_in_under_a_second_beside_1100_slow_clients(
        site, tmp_path, addresses):
    raise_open_files(3000)
    with served_apart(site, tmp_path, files=1024) as (url, log):  # the default limits
        before = log.stat().st_size
        crowd = []
        for i in range(1100):
            address = "127.0.0.2" if addresses == 1 else \
                f"127.0.{2 + i % addresses // 250}.{2 + i % addresses % 250}"
            with contextlib.suppress(OSError):
                sock = connect(url, address)
                sock.send(b"GET / HTTP/1.1\r\nHost: x\r\n")
                crowd.append(sock)
        took = []
        for _ in range(10):
            try:
                took.append(healthz(url))
            except (httpx.HTTPError, AssertionError):
                took.append(math.inf)
        for sock in crowd:
            sock.close()
        grown = log.stat().st_size - before
    assert max(took) < 1.0, f"/healthz worst {max(took):.2f} s, median " \
                            f"{statistics.median(took):.3f} s"
    assert grown < 10_000, log.read_text()[-2000:]


def test_connection_limits_are_checked(tmp_path, site):
    ladder = site["config"].ladder_paths[0]
    for bad, says in (({"max": 0}, "max: must be a number from 1"),
                      ({"head_seconds": "soon"}, "head_seconds: must be a number"),
                      ({"per_address": 2.5}, "per_address: must be a whole number"),
                      ({"heads": 1}, "unknown key 'heads'")):
        (tmp_path / "serve.yaml").write_text(
            f"ladders: [{ladder}]\nconnections: {bad}\n".replace("'", '"'))
        with pytest.raises(ConfigError, match=says):
            load_serve_config(tmp_path / "serve.yaml")
    (tmp_path / "serve.yaml").write_text(
        f"ladders: [{ladder}]\nconnections: {{head_seconds: 5}}\n")
    assert load_serve_config(tmp_path / "serve.yaml").connections == \
        ConnectionLimits(head_seconds=5)
