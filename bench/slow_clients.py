"""``arena serve`` under slow clients (slowloris): ``/healthz`` latency and log growth.

``arena serve start`` runs for real (a subprocess on 127.0.0.1, ``run_ladders: false``), its
stderr into a file, started with the usual soft limit of 1,024 open files. Then
``--connections`` (1,100) attackers connect, in three kinds:

- *head*: a request head sent a few bytes every few seconds, never finished;
- *body*: a full head declaring ``Content-Length: 100000``, then a short body, then silence;
- *silent*: a connection that sends nothing.

During ``--seconds`` (30) a separate client asks ``/healthz`` on a fresh connection every
0.2 s from 127.0.0.1, and the attackers (from 127.0.0.2, or ``--addresses`` of them)
reconnect whenever the server closes them (so the pressure holds).
Printed: /healthz median, p99 and worst (a timed-out answer counts as its 5 s timeout), the
answers that failed, the server log's growth, and the ratios against the goals
(/healthz < 1 s; log < 1 MB).

    .venv/bin/python bench/slow_clients.py [--connections 1100] [--seconds 30]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
HEALTHZ_GOAL = 1.0
LOG_GOAL = 1_000_000
TIMEOUT = 5.0
KINDS = ("head", "body", "silent")


def raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(folder: Path, port: int,
                 files: int) -> tuple[subprocess.Popen[bytes], Path]:
    ladder = {"name": "slow", "game": "seasons", "seed": 1, "isolation": "none",
              "db": str(folder / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump(
        {"ladders": ["ladder.yaml"], "run_ladders": False}))
    log = folder / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "start", str(folder / "serve.yaml"),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=ROOT,
        preexec_fn=lambda: resource.setrlimit(
            resource.RLIMIT_NOFILE, (files, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return server, log
        time.sleep(0.1)
    server.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


class Attacker:
    """One slow client of ``kind``, reconnecting whenever it is closed."""

    def __init__(self, port: int, kind: str, address: str) -> None:
        self.port, self.kind, self.address = port, kind, address
        self.sock: socket.socket | None = None
        self.reconnects = 0
        self.refused = 0
        self.pending = b""

    def connect(self) -> None:
        self.close()
        sock = socket.socket()
        sock.settimeout(2)
        try:
            sock.bind((self.address, 0))
            sock.connect(("127.0.0.1", self.port))
        except OSError:
            self.refused += 1
            sock.close()
            return
        sock.setblocking(False)
        self.sock = sock
        self.reconnects += 1
        if self.kind == "head":
            self.pending = (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
                            + b"a" * 1000 + b"\r\n")
        elif self.kind == "body":
            self.send(b"POST /api/submissions HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/octet-stream\r\n"
                      b"Content-Length: 100000\r\n\r\n" + b"x" * 100)

    def send(self, data: bytes) -> None:
        if self.sock is None:
            return
        try:
            self.sock.send(data)
        except BlockingIOError:
            pass
        except OSError:
            self.close()

    def closed_by_server(self) -> bool:
        if self.sock is None:
            return True
        try:
            return self.sock.recv(4096) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def tick(self) -> None:
        if self.closed_by_server():
            self.connect()
        elif self.kind == "head":
            piece, self.pending = self.pending[:3], self.pending[3:] or b"X-More: b\r\n"
            self.send(piece)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def attack(port: int, connections: int, addresses: int, ready: Any, stop: Any,
           counts: Any) -> None:
    """In a process of its own (so that the measuring client is never held up by it)."""
    raise_file_limit(connections + 256)
    attackers = [Attacker(port, KINDS[i % len(KINDS)],
                          f"127.0.{2 + i % addresses // 250}.{2 + i % addresses % 250}")
                 for i in range(connections)]
    for attacker in attackers:
        attacker.connect()
    ready.set()
    while not stop.is_set():
        for attacker in attackers:
            attacker.tick()
            if stop.is_set():
                break
        stop.wait(2.0)
    for attacker in attackers:
        attacker.close()
    counts.put((sum(a.reconnects for a in attackers) - len(attackers),
                sum(a.refused for a in attackers)))


def healthz_times(port: int, seconds: float) -> tuple[list[float], int]:
    took, failed = [], 0
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        began = time.perf_counter()
        try:
            ok = httpx.get(f"http://127.0.0.1:{port}/healthz",
                           timeout=TIMEOUT).status_code == 200
        except httpx.HTTPError:
            ok = False
        took.append(time.perf_counter() - began if ok else TIMEOUT)
        failed += not ok
        time.sleep(0.2)
    return took, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--addresses", type=int, default=1,
                        help="attack from this many addresses (127.0.0.2, 127.0.0.3, ...)")
    parser.add_argument("--server-files", type=int, default=1024,
                        help="the server's open-file limit as started (the usual default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server, log = start_server(Path(folder), port, args.server_files)
        try:
            before = log.stat().st_size
            ready, stop = multiprocessing.Event(), multiprocessing.Event()
            counts: Any = multiprocessing.Queue()
            attacker = multiprocessing.Process(target=attack, args=(
                port, args.connections, args.addresses, ready, stop, counts))
            attacker.start()
            ready.wait(60)
            time.sleep(2.0)
            took, failed = healthz_times(port, args.seconds)
            stop.set()
            reconnects, refused = counts.get(timeout=60)
            attacker.join(30)
            grown = log.stat().st_size - before
            alive = server.poll() is None
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(15)
            server.kill()
        print(f"{args.connections} slow connections ({', '.join(KINDS)}) from "
              f"{args.addresses} addresses for "
              f"{args.seconds:.0f} s: {reconnects} reconnections after the server closed "
              f"one, {refused} connections refused; server alive: {alive}")
        worst = max(took)
        p99 = statistics.quantiles(took, n=100)[-1] if len(took) > 1 else worst
        print(f"/healthz: {len(took)} asked, {failed} failed; median "
              f"{statistics.median(took) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, worst "
              f"{worst * 1000:.0f} ms (goal < {HEALTHZ_GOAL * 1000:.0f} ms: ratio "
              f"{worst / HEALTHZ_GOAL:.2f})")
        print(f"server log grew {grown:,} bytes (goal < {LOG_GOAL:,}: ratio "
              f"{grown / LOG_GOAL:.3f})")
        if os.environ.get("SHOW_LOG"):
            print(log.read_text()[-3000:])


if __name__ == "__main__":
    main()
