"""How fast ``arena serve`` answers each of its pages and API endpoints with a big ladder
while the ladder writes games, against a trivial endpoint (``/healthz``) of the same server,
every request measured alone.

1. A store with one ladder of ``--bots`` bots (1,000) and ``--games`` games (1,000,000),
   written straight into SQLite: entrants, active submissions, the kept ratings
   (``ladder_current``, ``ladder_ratings`` after each round, ``ladder_pairs``), the rounds
   and the games (one table per bot a round, as the ladder plays). Each game's record is a
   real one (a pool of games two greedy bots played, the seats renamed), and one game in
   :data:`FAILURE_EVERY` has a seat that crashed, with its traceback. Kept under /tmp and
   reused (``--db``).
2. ``arena serve`` on it, for real (uvicorn on 127.0.0.1, ``run_ladders: false``), while a
   writer process plays the ladder's part: every 0.2 s a round of 20 games, and the kept
   ratings and head-to-head results of the bots that played (``LadderBook.save_ratings``,
   ``add_pair_results``).
3. Two participants: an owner, the submitter of :data:`OWNED` bots, and the organizer, each
   signed in through ``/signin`` (the API is asked with the owner's token).
4. Every GET route of the app (:func:`endpoints`), one request at a time: each endpoint has
   a connection of its own (its own kept-alive client); the endpoints are asked in turn,
   shuffled each cycle, one request every ``--period`` (50 ms), so that no request ever
   waits behind another and ``/healthz`` is timed alone, as each page is. ``--requests`` of
   each after a warm-up: median and p99 of each, timed per request.
   Goal: every endpoint's p99 <= 3x ``/healthz``'s p99 in the same run.

    .venv/bin/python bench/server_load.py [--quick] [--bots 1000] [--games 1000000]
        [--requests 200] [--period 0.05] [--db PATH]

``--quick``: 100 bots, 50,000 games, 30 requests an endpoint (a smoke run of ~1 min).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import queue
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
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
POOL = 400
"""Real games played once (two greedy bots), whose records the stored games reuse."""
FAILURE_EVERY = 500
"""One stored game in this many has a seat that crashed."""
OWNED = 10
"""The owner participant submitted the first this many bots."""
INVITE = "bench-invite-code"
GOAL = 3.0
STORE_FORMAT = "v2"
"""In the store's file name: a store of another format (v1 had records without moves) is
built anew."""


def ladder_config(db: Path) -> dict:
    return {"name": LADDER, "game": "seasons", "seed": 2027, "bots": FIRST_BOTS,
            "db": str(db), "time_limit": 2.0}


# -- 1. the store ----------------------------------------------------------------------------

@cache
def record_pool() -> dict[tuple[int, int], list[tuple[str, str, str]]]:
    """Real game records by their ranks, (0, 1) or (1, 0): each as the JSON text before and
    after its seats, and its scores."""
    import arena

    first = arena.load_bot(str(ROOT / "bots/seasons/greedy.py")).player
    second = arena.load_bot(str(ROOT / "bots/seasons/greedy.py")).player
    pool: dict[tuple[int, int], list[tuple[str, str, str]]] = {(0, 1): [], (1, 0): []}
    for seed in range(POOL):
        record = arena.play_game("seasons", [first, second], seed=seed).to_json()
        ranks = tuple(record["ranks"])
        if ranks not in pool:
            continue  # a draw
        record["seats"] = "@SEATS@"
        before, after = json.dumps(record, separators=(",", ":")).split('"@SEATS@"')
        pool[ranks].append((before, after, json.dumps(record["scores"])))  # type: ignore[index]
    return pool


@dataclass(frozen=True)
class MadeGame:
    ranks: tuple[int, int]
    scores: str
    statuses: tuple[str, str]
    details: tuple[str, str]
    record: str


def make_game(rng: random.Random, names: tuple[str, str], seat_zero_wins: bool) -> MadeGame:
    """A game of ``names`` won by the seat asked for, with a real record; now and then one
    seat crashed."""
    ranks = (0, 1) if seat_zero_wins else (1, 0)
    before, after, scores = rng.choice(record_pool()[ranks])
    statuses, details = ["ok", "ok"], ["", ""]
    if rng.randrange(FAILURE_EVERY) == 0:
        seat = rng.randrange(SEATS)
        statuses[seat] = "crash"
        details[seat] = (f"Traceback (most recent call last):\n  File \"{names[seat]}.py\", "
                         f"line {rng.randrange(1, 300)}, in act\nValueError: bench crash")
    seats = ",".join(json.dumps({"name": name, "version": "1.0", "status": status,
                                 "detail": detail, "isolation": "sandbox"},
                                separators=(",", ":"))
                     for name, status, detail in zip(names, statuses, details, strict=True))
    return MadeGame(ranks, scores, (statuses[0], statuses[1]), (details[0], details[1]),
                    f"{before}[{seats}]{after}")


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
                made = make_game(rng, (names[a], names[b]), win)
                ranks = made.ranks
                game_rows.append((
                    tid, f"r{round_index}-t{table_no}-s0-o{rotation}", round_index, table_no,
                    rotation, rng.getrandbits(62), f"[{a}, {b}]", f"[{ranks[0]}, {ranks[1]}]",
                    made.scores, json.dumps(made.statuses),
                    "crash" if "crash" in made.statuses else "normal", made.record,
                    start + game_id * GAME_SECONDS, json.dumps(made.details)))
                game_id += 1
                for x, y, points in ((a, b, 1.0 - ranks[0]), (b, a, 1.0 - ranks[1])):
                    n, p = pairs.get((x, y), (0, 0.0))
                    pairs[x, y] = (n + 1, p + points)
                played[a] += 1
                played[b] += 1
        con.executemany(
            "INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
            " seats, ranks, scores, statuses, termination, moves, duration, record, finished,"
            " isolations, details) VALUES (?,?,?,?,0,?,?,?,?,?,?,?,120,0.4,?,?,"
            "'[\"sandbox\", \"sandbox\"]',?)", game_rows)
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
                                     "run_ladders": False, "invite_code": INVITE},
                                    sort_keys=False), encoding="utf-8")
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
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server stopped (exit {server.returncode}):\n{log.read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.terminate()
    sys.exit(f"the server did not answer in 120 s:\n{log.read_text()}")


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
    record_pool()
    with Store(db) as store:
        row = store.tournament_named(LADDER)
        assert row is not None
        book = LadderBook(store, row.id)
        current = book.current_ratings()
        positions = sorted(current)
        index = book.round_count()
        written.put("ready")
        while not stop.is_set():
            began = time.perf_counter()
            tables = [tuple(rng.sample(positions, SEATS)) for _ in range(WRITER_TABLES)]
            book.save_round(index, "regular", tables)
            pairs: dict[tuple[int, int], tuple[int, float]] = {}
            score = dict.fromkeys({p for t in tables for p in t}, 0.0)
            for table_no, table in enumerate(tables):
                for rotation in range(SEATS):
                    seats = table[rotation:] + table[:rotation]
                    made = make_game(rng, (f"bot{seats[0]:04d}", f"bot{seats[1]:04d}"),
                                     rng.random() < 0.5)
                    ranks = made.ranks
                    store.save_game(row.id, GameTask(index, table_no, 0, rotation, seats,
                                                     rng.getrandbits(62)),
                                    FinishedGame(ranks, tuple(json.loads(made.scores)),
                                                 made.statuses,
                                                 "crash" if "crash" in made.statuses
                                                 else "normal", 120, made.record,
                                                 ("sandbox", "sandbox"), made.details), 0.4)
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


# -- 4. the participants ----------------------------------------------------------------------

@dataclass
class People:
    owner_token: str
    boss_token: str
    owned: list[str]
    """The owner's bots' names."""
    submissions: list[int]
    """The owner's submissions."""
    own_games: list[str]
    """Keys of games the owner's bots played."""
    games: list[str]
    """Keys of games picked at random."""


def participants(db: Path, bots: int) -> People:
    """The owner (the submitter of the first OWNED bots) and the organizer, with new tokens,
    and the games and submissions the load asks for."""
    from arena.server.participants import add_participant

    rng = random.Random(3)
    with Store(db) as store:
        tid = store.tournament_named(LADDER).id  # type: ignore[union-attr]
        store.db.execute("DELETE FROM submitters WHERE participant_id IN (SELECT id FROM"
                         " participants WHERE name IN ('benchowner', 'benchboss'))")
        store.db.execute("DELETE FROM participants WHERE name IN ('benchowner', 'benchboss')")
        owner, owner_token = add_participant(store, "benchowner")
        _, boss_token = add_participant(store, "benchboss", organizer=True)
        book = LadderBook(store, tid)
        mine = [s for s in book.submissions(ACTIVE)
                if s.position is not None and s.position < OWNED]
        for submission in mine:
            book.record_submitter(submission.id, owner.id)
        top = store.db.execute("SELECT max(id) FROM games").fetchone()[0]
        picked = ",".join(str(rng.randrange(1, top + 1)) for _ in range(500))
        games = [key for (key,) in store.db.execute(
            f"SELECT key FROM games WHERE tournament_id = ? AND id IN ({picked})", (tid,))]
        rounds = store.db.execute("SELECT max(round) FROM games WHERE tournament_id = ?",
                                  (tid,)).fetchone()[0]
        own_games: list[str] = []
        while len(own_games) < 100:
            for key, seats in store.db.execute(
                    "SELECT key, seats FROM games WHERE tournament_id = ? AND round = ?",
                    (tid, rng.randrange(rounds + 1))):
                if any(position < OWNED for position in json.loads(seats)):
                    own_games.append(key)
    return People(owner_token, boss_token, [f"bot{i:04d}" for i in range(OWNED)],
                  [s.id for s in mine], own_games, games)


def signed_in(base: str, token: str) -> httpx.Cookies:
    """A session's cookies, from signing in through the form."""
    with httpx.Client(base_url=base, timeout=60) as http:
        page = http.get("/signin")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, "no CSRF field on /signin"
        reply = http.post("/signin", data={"token": token, "csrf": found.group(1)})
        if reply.status_code != 303:
            sys.exit(f"signing in failed: {reply.status_code} {reply.text[:200]}")
        return http.cookies


# -- 5. the load ------------------------------------------------------------------------------

@dataclass
class Endpoint:
    name: str
    url: Callable[[random.Random], str]
    who: str = ""
    """Whose session asks: "" (nobody signed in), "owner", "boss", or "token" (the owner's
    token as Bearer)."""


def endpoints(bots: int, people: People) -> list[Endpoint]:
    """Every GET route of the app (arena/server/app.py), the signed-in ones as the owner or
    the organizer."""
    names = [f"bot{i:04d}" for i in range(bots)]
    ladder = f"/ladders/{LADDER}"

    def pick(values: list[Any], form: str) -> Callable[[random.Random], str]:
        return lambda rng: form.format(rng.choice(values))

    def compare(rng: random.Random) -> str:
        a, b = rng.sample(names, 2)
        return f"{ladder}/compare?a={a}%401.0&b={b}%401.0"

    return [
        Endpoint("healthz", lambda rng: "/healthz"),
        Endpoint("index", lambda rng: "/"),
        Endpoint("sign-in page", lambda rng: "/signin"),
        Endpoint("register page", lambda rng: "/register"),
        Endpoint("leaderboard", lambda rng: ladder),
        Endpoint("leaderboard ?all=1", lambda rng: f"{ladder}?all=1"),
        Endpoint("bot page", pick(names, ladder + "/bots/{}")),
        Endpoint("bot page, page 2-9",
                 lambda rng: f"{ladder}/bots/{rng.choice(names)}?page={rng.randrange(2, 10)}"),
        Endpoint("bot page, owner", pick(people.owned, ladder + "/bots/{}"), "owner"),
        Endpoint("game page", pick(people.games, ladder + "/games/{}")),
        Endpoint("game page, owner", pick(people.own_games, ladder + "/games/{}"), "owner"),
        Endpoint("compare", compare),
        Endpoint("submit page", lambda rng: "/submit", "owner"),
        Endpoint("/me", lambda rng: "/me", "owner"),
        Endpoint("submission page", pick(people.submissions, "/submissions/{}"), "owner"),
        Endpoint("organizer page", lambda rng: "/organizer", "boss"),
        Endpoint("API leaderboard", lambda rng: f"/api{ladder}/leaderboard"),
        Endpoint("API bot", pick(names, f"/api{ladder}/bots/{{}}")),
        Endpoint("API game", pick(people.games, f"/api{ladder}/games/{{}}")),
        Endpoint("API submission", pick(people.submissions, "/api/submissions/{}"), "token"),
    ]


def load(base: str, people: People, paths: list[Endpoint], warmup: int, requests: int,
         period: float, budget: float, seed: int) -> tuple[dict[str, list[float]], list[str]]:
    """Each endpoint asked ``warmup`` then ``requests`` times, one request at a time, one
    every ``period`` seconds, each endpoint on a connection of its own (no new cycle after
    ``budget`` seconds): the seconds each measured request took, by endpoint, and any
    failures."""
    rng = random.Random(seed)
    sessions = {"owner": signed_in(base, people.owner_token),
                "boss": signed_in(base, people.boss_token)}
    clients = {}
    for endpoint in paths:
        headers = {"Authorization": f"Bearer {people.owner_token}"} \
            if endpoint.who == "token" else {}
        clients[endpoint.name] = httpx.Client(
            base_url=base, timeout=60, headers=headers,
            cookies=sessions.get(endpoint.who), follow_redirects=False)
    taken: dict[str, list[float]] = {endpoint.name: [] for endpoint in paths}
    failures: list[str] = []
    last = time.perf_counter()
    deadline = None
    try:
        for cycle in range(warmup + requests):
            if cycle == warmup:
                deadline = time.perf_counter() + budget
            elif deadline is not None and time.perf_counter() > deadline:
                break
            order = list(paths)
            rng.shuffle(order)
            for endpoint in order:
                time.sleep(max(0.0, last + period - time.perf_counter()))
                url = endpoint.url(rng)
                last = began = time.perf_counter()
                reply = clients[endpoint.name].get(url)
                seconds = time.perf_counter() - began
                if cycle >= warmup:
                    taken[endpoint.name].append(seconds)
                if reply.status_code != 200:
                    failures.append(f"{url}: {reply.status_code} {reply.text[:120]!r}")
    finally:
        for client in clients.values():
            client.close()
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
                        help="100 bots, 50,000 games, 30 requests an endpoint")
    parser.add_argument("--bots", type=int)
    parser.add_argument("--games", type=int)
    parser.add_argument("--requests", type=int, help="measured requests per endpoint")
    parser.add_argument("--warmup", type=int, help="requests per endpoint first")
    parser.add_argument("--period", type=float, default=0.05,
                        help="seconds from one request's start to the next's (one at a time)")
    parser.add_argument("--budget", type=float,
                        help="seconds after which the measured requests stop (however many)")
    parser.add_argument("--db", help="the store to build, or reuse when it holds the ladder")
    args = parser.parse_args()
    bots = args.bots or (100 if args.quick else 1000)
    games = args.games or (50_000 if args.quick else 1_000_000)
    requests = args.requests or (30 if args.quick else 200)
    warmup = args.warmup or (3 if args.quick else 5)
    budget = args.budget or (120.0 if args.quick else 900.0)
    db = Path(args.db or f"/tmp/arena-bench/server-load-{STORE_FORMAT}-{bots}x{games}.db"
              ).resolve()
    db.parent.mkdir(parents=True, exist_ok=True)

    if db.exists():
        began = time.perf_counter()
        problem = check_store(db, bots, games)
        if problem:
            sys.exit(f"{problem}: give another --db")
        print(f"store: {db} (reused: {bots} bots, {games:,}+ games; opened in "
              f"{time.perf_counter() - began:.1f} s)")
    else:
        began = time.perf_counter()
        build(db, bots, games)
        print(f"store: {db} built in {time.perf_counter() - began:.1f} s ({bots} bots, "
              f"{games:,} games, {db.stat().st_size / 2**20:.0f} MB)")
    people = participants(db, bots)
    config = write_configs(db)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(config, port, db.with_name(db.stem + "-server.log"))
    spawn = multiprocessing.get_context("spawn")
    stop, written = spawn.Event(), spawn.Queue()
    process = spawn.Process(target=writer, args=(str(db), stop, written))
    try:
        paths = endpoints(bots, people)
        process.start()
        if written.get(timeout=120) != "ready":
            sys.exit("the writer did not start")
        round_before = last_round(base)
        began = time.perf_counter()
        taken, failures = load(base, people, paths, warmup, requests, args.period, budget,
                               seed=2)
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
    print(f"load: {done} requests measured, one at a time, one every {args.period * 1e3:g} ms"
          f" or after the last answer, in {seconds:.1f} s{cut}, while the writer stored "
          f"{wrote} games in {rounds} rounds (the leaderboard went from round "
          f"{round_before + 1} to {round_after + 1})")
    trivial = p99(taken["healthz"])
    print(f"   {'endpoint':22} {'requests':>8} {'median ms':>10} {'p99 ms':>9} "
          f"{'p99/healthz':>12} {'/goal':>6}")
    missed = []
    for endpoint in paths:
        values = taken[endpoint.name]
        ratio = p99(values) / trivial
        if ratio > GOAL:
            missed.append(endpoint.name)
        print(f"   {endpoint.name:22} {len(values):8} {1e3 * statistics.median(values):10.1f} "
              f"{1e3 * p99(values):9.1f} {ratio:12.2f} {ratio / GOAL:6.2f}"
              f"{'  NOT met' if ratio > GOAL else ''}")
    print(f"   goal: every endpoint's p99 <= {GOAL:g}x /healthz's p99 "
          f"({GOAL * trivial * 1e3:.1f} ms): "
          + ("met by all" if not missed else
             f"met by {len(paths) - len(missed)} of {len(paths)}; not by {', '.join(missed)}"))
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
