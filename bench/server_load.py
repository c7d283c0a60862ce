"""How fast ``arena serve`` answers with a big ladder while the ladder writes games:
leaderboard and bot-page response times against a trivial endpoint of the same server.

1. A store with one ladder of ``--bots`` bots (1,000) and ``--games`` games (1,000,000),
   written straight into SQLite: entrants, active submissions, the kept ratings
   (``ladder_current``, ``ladder_ratings`` after each round, ``ladder_pairs``), the rounds
   and the games with small fake records (one table per bot a round, as the ladder plays).
   Kept under /tmp and reused (``--db``).
2. ``arena serve`` on it, for real (uvicorn on 127.0.0.1, ``run_ladders: false``), while a
   writer process plays the ladder's part: every 0.2 s a round of 20 games, and the kept
   ratings and head-to-head results of the bots that played (``LadderBook.save_ratings``,
   ``add_pair_results``): ratings are kept up to date incrementally, never recomputed per
   request.
3. A local load generator (httpx, ``--clients`` concurrent clients) interleaves ``/healthz``,
   the leaderboard (HTML and JSON) and bot pages, ``--requests`` each after a warm-up:
   median and p99 of each, timed per request.
   Goal: leaderboard p99 <= 3x ``/healthz``'s p99 in the same run (HTML and JSON); the bot
   page is reported.

    .venv/bin/python bench/server_load.py [--quick] [--bots 1000] [--games 1000000]
        [--requests 2000] [--clients 4] [--db PATH]

``--quick``: 100 bots, 50,000 games, 200 requests an endpoint (a smoke run of ~30 s).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import queue
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from arena.results.ladder_book import ACTIVE, LadderBook, RatingLine
from arena.results.store import FinishedGame, Store
from arena.tournaments.ladder_config import parse_ladder_config
from arena.tournaments.schedule import GameTask

ROOT = Path(__file__).resolve().parents[1]
LADDER = "bench-ladder"
FIRST_BOTS = [str(ROOT / "bots/seasons/random_bot.py"), str(ROOT / "bots/seasons/greedy.py")]
SEATS = 2
GAME_SECONDS = 0.25
"""The stored games finished one every this many seconds, up to the build."""
WRITER_PERIOD = 0.2
WRITER_TABLES = 10
"""A writer's round: this many tables, each every seat rotation (20 games)."""
GOAL = 3.0


def ladder_config(db: Path) -> dict:
    return {"name": LADDER, "game": "seasons", "seed": 2027, "bots": FIRST_BOTS,
            "db": str(db), "time_limit": 2.0}


# -- 1. the store ----------------------------------------------------------------------------

def fake_record(seed: int, names: tuple[str, str], ranks: tuple[int, int], scores: str) -> str:
    """A game record with no moves (GameRecord.from_json reads it)."""
    seats = ",".join(f'{{"name":"{name}","version":"1.0","status":"ok","detail":""}}'
                     for name in names)
    return (f'{{"game":"seasons","options":{{}},"seed":{seed},"seats":[{seats}],"moves":[],'
            f'"ranks":[{ranks[0]},{ranks[1]}],"scores":{scores},"termination":"normal",'
            f'"meta":{{}}}}')


def build(db: Path, bots: int, games: int) -> None:
    """A new store at ``db`` holding the ladder: rows written straight, in one transaction."""
    part = db.with_name(db.name + ".part")
    for stale in (part, Path(f"{part}-wal"), Path(f"{part}-shm")):
        stale.unlink(missing_ok=True)
    config = parse_ladder_config(ladder_config(db))
    with Store(part) as store:
        tid = store.create_tournament(config, [])
    con = sqlite3.connect(str(part), isolation_level=None)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA cache_size=-1000000")
    rng = random.Random(1)
    now = time.time()
    start = now - games * GAME_SECONDS
    names = [f"bot{i:04d}" for i in range(bots)]
    strength = [rng.gauss(25.0, 4.0) for _ in range(bots)]
    con.execute("BEGIN")
    con.executemany(
        "INSERT INTO bots (id, game, name, version, code_hash, spec, params, created, label)"
        " VALUES (?,?,?,?,?,?,'{}',?,?)",
        [(i + 1, "seasons", name, "1.0", f"{rng.getrandbits(128):032x}",
          f"/tmp/ladder-home/bots/{name}.py", start, f"{name}@1.0")
         for i, name in enumerate(names)])
    con.executemany("INSERT INTO entrants (tournament_id, position, bot_id, problem)"
                    " VALUES (?,?,?,NULL)", [(tid, i, i + 1) for i in range(bots)])
    con.executemany(
        "INSERT INTO submissions (tournament_id, source, spec, status, log, bot_id, position,"
        " joined_round, created, changed) VALUES (?,?,?,?,'',?,?,0,?,?)",
        [(tid, "bench", f"/tmp/ladder-home/bots/{name}.py", ACTIVE, i + 1, i, start, start)
         for i, name in enumerate(names)])
    per_round = bots * SEATS  # one table per active bot, every seat rotation
    rounds = math.ceil(games / per_round)
    mu = [25.0] * bots
    played = [0] * bots
    game_id = 0
    for round_index in range(rounds):
        order = list(range(bots))
        tables = []
        for _ in range(SEATS):  # each bot at SEATS tables a round
            rng.shuffle(order)
            tables += [tuple(order[i:i + SEATS]) for i in range(0, bots - SEATS + 1, SEATS)]
        game_rows, pairs = [], {}
        for table_no, table in enumerate(tables):
            for rotation in range(SEATS):
                if game_id >= games:
                    break
                seats = table[rotation:] + table[:rotation]
                a, b = seats
                win = rng.random() < 1 / (1 + math.exp((strength[b] - strength[a]) / 4))
                ranks = (0, 1) if win else (1, 0)
                seed = rng.getrandbits(62)
                scores = f"[{60.0 - 20 * ranks[0]}, {60.0 - 20 * ranks[1]}]"
                game_rows.append((
                    tid, f"r{round_index}-t{table_no}-s0-o{rotation}", round_index, table_no,
                    rotation, seed, f"[{a}, {b}]", f"[{ranks[0]}, {ranks[1]}]", scores,
                    fake_record(seed, (names[a], names[b]), ranks, scores),
                    start + game_id * GAME_SECONDS))
                game_id += 1
                for x, y, points in ((a, b, 1.0 - ranks[0]), (b, a, 1.0 - ranks[1])):
                    n, p = pairs.get((x, y), (0, 0.0))
                    pairs[x, y] = (n + 1, p + points)
                played[a] += 1
                played[b] += 1
        con.executemany(
            "INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
            " seats, ranks, scores, statuses, termination, moves, duration, record, finished,"
            " isolations, details) VALUES (?,?,?,?,0,?,?,?,?,?,'[\"ok\", \"ok\"]','normal',"
            " 120,0.4,?,?,'[\"sandbox\", \"sandbox\"]','[\"\", \"\"]')", game_rows)
        con.execute("INSERT INTO ladder_rounds (tournament_id, round, phase, tables, created)"
                    " VALUES (?,?,?,?,?)", (tid, round_index, "regular",
                                            str([list(t) for t in tables]),
                                            start + round_index * per_round * GAME_SECONDS))
        con.executemany("INSERT INTO ladder_pairs (tournament_id, a, b, round, games, points)"
                        " VALUES (?,?,?,?,?,?)",
                        [(tid, x, y, round_index, n, p) for (x, y), (n, p) in pairs.items()])
        sigma = max(1.0, 8.333 / math.sqrt(1 + round_index))
        ratings, change = [], []
        for position in range(bots):
            new = strength[position] + rng.gauss(0, sigma / 3)
            change.append(new - mu[position])
            mu[position] = new
            ratings.append((tid, position, round_index, new, sigma, played[position]))
        con.executemany("INSERT INTO ladder_ratings (tournament_id, position, round, mu, sigma,"
                        " games) VALUES (?,?,?,?,?,?)", ratings)
        if round_index == rounds - 1:
            con.executemany(
                "INSERT INTO ladder_current (tournament_id, position, mu, sigma, games, change,"
                " round) VALUES (?,?,?,?,?,?,?)",
                [(tid, p, mu[p], sigma, played[p], change[p], round_index)
                 for p in range(bots)])
    con.execute("COMMIT")
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    part.rename(db)


def check_store(db: Path, bots: int, games: int) -> str | None:
    """Why the store at ``db`` is not this bench's ladder of that size, or None."""
    with Store(db) as store:
        row = store.tournament_named(LADDER)
        if row is None:
            return f"{db} has no ladder {LADDER!r}"
        entrants = len(store.entrants(row.id))
        stored = store.db.execute("SELECT count(*) FROM games WHERE tournament_id = ?",
                                  (row.id,)).fetchone()[0]
    if entrants != bots or stored < games:
        return f"{db} holds {entrants} bots and {stored} games, not {bots} and {games}"
    return None


# -- 2. the server ---------------------------------------------------------------------------

def write_configs(db: Path) -> Path:
    import yaml

    ladder = db.with_name(db.stem + "-ladder.yaml")
    serve = db.with_name(db.stem + "-serve.yaml")
    ladder.write_text(yaml.safe_dump(ladder_config(db), sort_keys=False), encoding="utf-8")
    serve.write_text(yaml.safe_dump({"title": "server load bench", "ladders": [str(ladder)],
                                     "run_ladders": False}, sort_keys=False), encoding="utf-8")
    return serve


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(config: Path, port: int, log: Path) -> subprocess.Popen:
    with open(log, "w", encoding="utf-8") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", str(config), "--host", "127.0.0.1",
             "--port", str(port)], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server stopped (exit {server.returncode}):\n{log.read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.terminate()
    sys.exit(f"the server did not answer in 60 s:\n{log.read_text()}")


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


# -- 3. the writer ---------------------------------------------------------------------------

def writer(db: str, stop: Any, written: Any) -> None:
    """Play the ladder's part: a round of games every WRITER_PERIOD, then the kept ratings
    and head-to-head results of the bots that played, as the ladder keeps them."""
    rng = random.Random(2)
    rounds = games = 0
    with Store(db) as store:
        row = store.tournament_named(LADDER)
        assert row is not None
        book = LadderBook(store, row.id)
        current = book.current_ratings()
        positions = sorted(current)
        index = book.round_count()
        while not stop.is_set():
            began = time.perf_counter()
            tables = [tuple(rng.sample(positions, SEATS)) for _ in range(WRITER_TABLES)]
            book.save_round(index, "regular", tables)
            pairs: dict[tuple[int, int], tuple[int, float]] = {}
            score = dict.fromkeys({p for t in tables for p in t}, 0.0)
            for table_no, table in enumerate(tables):
                for rotation in range(SEATS):
                    seats = table[rotation:] + table[:rotation]
                    ranks = (0, 1) if rng.random() < 0.5 else (1, 0)
                    seed = rng.getrandbits(62)
                    record = fake_record(seed, (f"bot{seats[0]:04d}", f"bot{seats[1]:04d}"),
                                         ranks, f"[{60.0 - 20 * ranks[0]}, "
                                         f"{60.0 - 20 * ranks[1]}]")
                    store.save_game(row.id, GameTask(index, table_no, 0, rotation, seats, seed),
                                    FinishedGame(ranks, (60.0 - 20 * ranks[0],
                                                         60.0 - 20 * ranks[1]), ("ok", "ok"),
                                                 "normal", 120, record, ("sandbox", "sandbox"),
                                                 ("", "")), 0.4)
                    games += 1
                    for x, y, points in ((seats[0], seats[1], 1.0 - ranks[0]),
                                         (seats[1], seats[0], 1.0 - ranks[1])):
                        n, p = pairs.get((x, y), (0, 0.0))
                        pairs[x, y] = (n + 1, p + points)
                        score[x] += points - 0.5
            lines = []
            for position, gained in sorted(score.items()):
                old = current[position]
                mu = old.mu + 0.3 * gained
                current[position] = line = RatingLine(position, index, mu,
                                                      max(0.8, old.sigma * 0.999),
                                                      old.games + 2 * SEATS, mu - old.mu)
                lines.append(line)
            book.add_pair_results(index, pairs)
            book.save_ratings(index, lines)
            index += 1
            rounds += 1
            stop.wait(max(0.0, WRITER_PERIOD - (time.perf_counter() - began)))
    written.put((rounds, games))


# -- 4. the load ------------------------------------------------------------------------------

def endpoints(bots: int) -> dict[str, list[str]]:
    names = [f"bot{i:04d}" for i in range(bots)]
    return {"healthz": ["/healthz"],
            "leaderboard (HTML)": [f"/ladders/{LADDER}"],
            "leaderboard (JSON)": [f"/api/ladders/{LADDER}/leaderboard"],
            "bot page": [f"/ladders/{LADDER}/bots/{name}" for name in names]}


def load(base: str, paths: dict[str, list[str]], per_endpoint: int, clients: int,
         seed: int, budget: float) -> tuple[dict[str, list[float]], list[str]]:
    """``per_endpoint`` requests of each endpoint, shuffled together, from ``clients``
    threads (no new one after ``budget`` seconds): the seconds each took, by endpoint, and
    any failures."""
    rng = random.Random(seed)
    work = [(name, rng.choice(urls)) for name, urls in paths.items()
            for _ in range(per_endpoint)]
    rng.shuffle(work)
    taken: dict[str, list[float]] = {name: [] for name in paths}
    failures: list[str] = []
    lock = threading.Lock()
    queue = iter(work)
    deadline = time.perf_counter() + budget

    def client() -> None:
        with httpx.Client(base_url=base, timeout=60) as http:
            while True:
                with lock:
                    item = next(queue, None) if time.perf_counter() < deadline else None
                if item is None:
                    return
                name, url = item
                began = time.perf_counter()
                reply = http.get(url)
                seconds = time.perf_counter() - began
                with lock:
                    taken[name].append(seconds)
                    if reply.status_code != 200:
                        failures.append(f"{url}: {reply.status_code} {reply.text[:120]!r}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return taken, failures


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def last_round(base: str) -> int:
    bots = httpx.get(f"{base}/api/ladders/{LADDER}/leaderboard", timeout=60).json()["bots"]
    return max(line["round"] for line in bots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="100 bots, 50,000 games, 200 requests an endpoint")
    parser.add_argument("--bots", type=int)
    parser.add_argument("--games", type=int)
    parser.add_argument("--requests", type=int, help="measured requests per endpoint")
    parser.add_argument("--warmup", type=int, help="requests per endpoint first")
    parser.add_argument("--budget", type=float,
                        help="seconds after which the measured requests stop (however many)")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--db", help="the store to build, or reuse when it holds the ladder")
    args = parser.parse_args()
    bots = args.bots or (100 if args.quick else 1000)
    games = args.games or (50_000 if args.quick else 1_000_000)
    requests = args.requests or (200 if args.quick else 2000)
    warmup = args.warmup or (5 if args.quick else 10)
    budget = args.budget or (20.0 if args.quick else 180.0)
    db = Path(args.db or f"/tmp/arena-bench/server-load-{bots}x{games}.db").resolve()
    db.parent.mkdir(parents=True, exist_ok=True)

    if db.exists():
        problem = check_store(db, bots, games)
        if problem:
            sys.exit(f"{problem}: give another --db")
        print(f"store: {db} (reused: {bots} bots, {games:,}+ games)")
    else:
        began = time.perf_counter()
        build(db, bots, games)
        print(f"store: {db} built in {time.perf_counter() - began:.1f} s ({bots} bots, "
              f"{games:,} games, {db.stat().st_size / 2**20:.0f} MB)")
    config = write_configs(db)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(config, port, db.with_name(db.stem + "-server.log"))
    spawn = multiprocessing.get_context("spawn")
    stop, written = spawn.Event(), spawn.Queue()
    process = spawn.Process(target=writer, args=(str(db), stop, written))
    try:
        paths = endpoints(bots)
        process.start()
        round_before = last_round(base)
        load(base, paths, warmup, args.clients, seed=1, budget=budget / 9)
        began = time.perf_counter()
        taken, failures = load(base, paths, requests, args.clients, seed=2, budget=budget)
        seconds = time.perf_counter() - began
        round_after = last_round(base)
        stop.set()
        try:
            rounds, wrote = written.get(timeout=60)
        except queue.Empty:
            sys.exit(f"the writer failed (exit {process.exitcode})")
        process.join(30)
    finally:
        stop.set()
        if process.is_alive():
            process.terminate()
        stop_server(server)
    if failures:
        print(f"{len(failures)} requests failed, e.g. {failures[0]}")
    done = sum(len(values) for values in taken.values())
    cut = "" if done == len(paths) * requests else (
        f" (of {requests} an endpoint: the {budget:g} s budget ran out)")
    print(f"load: {done} requests from {args.clients} clients in {seconds:.1f} s "
          f"({done / seconds:.1f} requests/s){cut}, while the writer stored {wrote} games in "
          f"{rounds} rounds (the leaderboard went from round {round_before + 1} to "
          f"{round_after + 1})")
    print(f"   {'endpoint':20} {'requests':>8} {'median ms':>10} {'p99 ms':>9}")
    for name, values in taken.items():
        print(f"   {name:20} {len(values):8} {1e3 * statistics.median(values):10.1f} "
              f"{1e3 * p99(values):9.1f}")
    trivial = p99(taken["healthz"])
    for name in ("leaderboard (HTML)", "leaderboard (JSON)"):
        ratio = p99(taken[name]) / trivial
        print(f"   {name} p99 / healthz p99 = {ratio:.2f}, {ratio / GOAL:.2f}x the goal "
              f"(goal <= {GOAL:g}: {'met' if ratio <= GOAL else 'NOT met'})")
    ratio = p99(taken["bot page"]) / trivial
    print(f"   bot page p99 / healthz p99 = {ratio:.2f} (reported)")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
