"""arena serve's pages on a ladder of many games: each reads a bounded number of them.

The ladder is written straight into a store (no bot plays), as the ladder keeps it: entrants
with active submissions, games stored one by one, the kept ratings and head-to-head results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from arena.bots.identity import BotIdentity
from arena.referee.record import GameRecord
from arena.results.ladder_book import LadderBook, RatingLine
from arena.results.store import FinishedGame, Store
from arena.server import pages
from arena.server.app import create_app
from arena.server.config import load_serve_config
from arena.server.participants import add_participant
from arena.tournaments.ladder_config import parse_ladder_config
from arena.tournaments.schedule import GameTask

ROOT = Path(__file__).resolve().parent.parent
BOTS = 10
GAMES_OF_FIRST = 45
"""Games of ``b0`` (entrant 0), the bot whose pages are read: one against ``b1``, two against
``b2`` and so on, round after round, then the others' games among themselves."""


def label(position: int) -> str:
    """The label of bot ``b<position>``: its code hash is the position in 64 hex digits."""
    return f"b{position}@1.0+000000"


def record(names: tuple[str, str], ranks: tuple[int, int], statuses: tuple[str, str],
           details: tuple[str, str]) -> str:
    seats = [{"name": name, "version": "1.0", "status": status, "detail": detail}
             for name, status, detail in zip(names, statuses, details, strict=True)]
    return json.dumps({"game": "seasons", "options": {}, "seed": 1, "seats": seats,
                       "moves": [], "ranks": list(ranks), "scores": [1.0, 0.0],
                       "termination": "normal", "meta": {}})


def store_game(store: Store, tid: int, round_index: int, table: int, seats: tuple[int, int],
               statuses: tuple[str, str] = ("ok", "ok"), detail: str = "") -> str:
    details = tuple(detail if status != "ok" else "" for status in statuses)
    task = GameTask(round_index, table, 0, 0, seats, 7)
    store.save_game(tid, task, FinishedGame(
        (0, 1), (1.0, 0.0), statuses, "normal", 0,
        record((f"b{seats[0]}", f"b{seats[1]}"), (0, 1), statuses, details),
        ("none", "none"), details), 0.1)  # type: ignore[arg-type]
    return task.key


@pytest.fixture(scope="module")
def site(tmp_path_factory: Any) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("pages")
    db = folder / "arena.db"
    ladder = {"name": "big", "game": "seasons", "seed": 1, "db": str(db),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "title": "pages", "ladders": ["ladder.yaml"], "run_ladders": False}))
    keys: list[str] = []  # b0's games, oldest first
    with Store(db) as store:
        tid = store.create_tournament(parse_ladder_config(ladder), [])
        book = LadderBook(store, tid)
        submissions = []
        for position in range(BOTS):
            bot = store.register_bot("seasons", BotIdentity(f"b{position}", "1.0",
                                                            f"{position:064x}", "x.py"))
            submission = book.submit("test", "x.py")
            book.join(submission, bot, 0)
            submissions.append(submission)
        round_index, table = 0, 0
        pairs: dict[tuple[int, int], tuple[int, float]] = {}
        for opponent in range(1, BOTS):
            for _ in range(opponent):  # b1 once, b2 twice, ...
                if len(keys) == GAMES_OF_FIRST:
                    break
                first = len(keys) == 0  # b0's oldest game: a crash, with its traceback
                keys.append(store_game(store, tid, round_index, table, (0, opponent),
                                       ("crash", "ok") if first else ("ok", "ok"),
                                       "Traceback: the oldest secret of b0"))
                table += 1
                for a, b, points in ((0, opponent, 1.0), (opponent, 0, 0.0)):
                    n, p = pairs.get((a, b), (0, 0.0))
                    pairs[a, b] = (n + 1, p + points)
            book.add_pair_results(round_index, pairs)
            book.save_ratings(round_index, [RatingLine(p, round_index, 25.0 + p, 5.0, 1)
                                            for p in range(BOTS)])
            round_index, table, pairs = round_index + 1, 0, {}
        for index in range(300):  # games b0 did not play, after its last
            store_game(store, tid, round_index, index, (1 + index % (BOTS - 1),
                                                        1 + (index + 1) % (BOTS - 1)))
        owner, token = add_participant(store, "owner")
        _, boss = add_participant(store, "boss", organizer=True)
        book.record_submitter(submissions[0], owner.id)
    return {"config": load_serve_config(folder / "serve.yaml"), "db": db, "keys": keys,
            "token": token, "boss": boss, "submissions": submissions}


@pytest.fixture
def client(site: dict[str, Any]) -> Any:
    with TestClient(create_app(site["config"]), follow_redirects=False) as test_client:
        yield test_client


def signed_in(client: TestClient, token: str) -> None:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/signin").text)
    assert found
    reply = client.post("/signin", data={"token": token, "csrf": found.group(1)})
    assert reply.status_code == 303, reply.text


def recent_keys(page: str) -> list[str]:
    table = page[page.index('id="recent"'):]
    table = table[:table.index("</table>")]
    return re.findall(r'href="/ladders/big/games/([^"]+)"', table)


def test_a_bot_page_shows_a_page_of_its_games_newest_first_and_links_the_others(client, site):
    newest = site["keys"][::-1]
    first = client.get("/ladders/big/bots/b0")
    assert first.status_code == 200
    assert recent_keys(first.text) == newest[:pages.RECENT_GAMES]
    assert 'href="/ladders/big/bots/b0?games=2">older games' in first.text
    assert "newer games" not in first.text
    second = client.get("/ladders/big/bots/b0?games=2").text
    assert recent_keys(second) == newest[pages.RECENT_GAMES:2 * pages.RECENT_GAMES]
    assert 'href="/ladders/big/bots/b0?games=1">← newer games' in second
    last = client.get("/ladders/big/bots/b0?games=3").text
    assert recent_keys(last) == newest[2 * pages.RECENT_GAMES:]
    assert "older games" not in last and "Older games" in last
    api = client.get("/api/ladders/big/bots/b0", params={"games": 3}).json()
    assert [game["key"] for game in api["recent_games"]] == newest[2 * pages.RECENT_GAMES:]
    assert api["games_page"] == 3 and not api["more_games"]
    assert client.get("/api/ladders/big/bots/b0").json()["more_games"]


@pytest.mark.parametrize("asked", ["abc", "0", "-1", "9" * 40, "٣"])
def test_a_page_number_that_is_not_one_is_the_first_or_past_the_end(client, site, asked):
    page = client.get(f"/ladders/big/bots/b0?games={asked}&opponents={asked}")
    assert page.status_code == 200
    shown = recent_keys(page.text)
    assert shown in ([], site["keys"][::-1][:pages.RECENT_GAMES])


def test_head_to_head_is_paged_most_games_first_from_the_kept_results(client, monkeypatch):
    monkeypatch.setattr(pages, "OPPONENTS_PAGE", 3)
    data = client.get("/api/ladders/big/bots/b0").json()
    assert data["opponents"] == BOTS - 1 and data["opponents_page"] == 1
    assert [(line["opponent"], line["games"]) for line in data["head_to_head"]] == [
        (label(9), 9), (label(8), 8), (label(7), 7)]
    assert all(line["score"] == 1.0 for line in data["head_to_head"])
    last = client.get("/api/ladders/big/bots/b0", params={"opponents": 3}).json()
    assert [line["opponent"] for line in last["head_to_head"]] == [label(3), label(2), label(1)]
    page = client.get("/ladders/big/bots/b0?opponents=2").text
    assert "page 2 of 3" in page and 'href="/ladders/big/bots/b0?opponents=3"' in page
    assert 'href="/ladders/big/bots/b0?opponents=1"' in page
    assert "9 opponents, most games first" in page


def counted(monkeypatch: Any) -> dict[str, int]:
    """Count the games the store decodes: rows of the games table, rows of an entrant's list
    of games, and records."""
    seen = {"rows": 0, "listed": 0, "records": 0}
    decode, listed, parse = Store._game_row, Store._entrant_game, GameRecord.from_json

    def row(self: Store, *args: Any) -> Any:
        seen["rows"] += 1
        return decode(self, *args)

    def entry(self: Store, *args: Any) -> Any:
        seen["listed"] += 1
        return listed(self, *args)

    def parsed(data: Any) -> Any:
        seen["records"] += 1
        return parse(data)

    monkeypatch.setattr(Store, "_game_row", row)
    monkeypatch.setattr(Store, "_entrant_game", entry)
    monkeypatch.setattr(GameRecord, "from_json", staticmethod(parsed))
    return seen


def test_a_bot_page_decodes_only_the_games_it_shows(client, site, monkeypatch):
    seen = counted(monkeypatch)
    assert client.get("/ladders/big/bots/b1").status_code == 200  # b1 played some 70 games
    # one more than it shows (is there a next page?), and no game's row or record
    assert seen == {"rows": 0, "listed": pages.RECENT_GAMES + 1, "records": 0}
    seen.update(listed=0)
    assert client.get("/api/ladders/big/bots/b1?games=7").status_code == 200
    assert seen["listed"] <= pages.RECENT_GAMES + 1 and seen["rows"] == seen["records"] == 0


def test_the_owner_sees_the_failures_of_all_its_games_however_old(client, site, monkeypatch):
    assert "the oldest secret of b0" not in client.get("/ladders/big/bots/b0").text
    signed_in(client, site["token"])
    seen = counted(monkeypatch)
    page = client.get("/ladders/big/bots/b0").text
    assert "Your bot's failures" in page and "Traceback: the oldest secret of b0" in page
    assert f'href="/ladders/big/games/{site["keys"][0]}">{site["keys"][0]}</a>: {label(0)} crash' \
        in page
    assert seen == {"rows": 0, "listed": pages.RECENT_GAMES + 1, "records": 0}


def test_a_game_page_reads_that_game_alone_and_embeds_only_its_bots(client, site,
                                                                     monkeypatch):
    key = site["keys"][-1]
    seen = counted(monkeypatch)
    page = client.get(f"/ladders/big/games/{key}")
    assert page.status_code == 200 and "b0@1.0" in page.text
    assert seen == {"rows": 1, "listed": 0, "records": 1}
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      page.text, re.DOTALL)
    assert found
    assert json.loads(found[1])["bots"].keys() == {"0", str(BOTS - 1)}
    assert client.get("/ladders/big/games/r0-t999-s0-o0").status_code == 404


def test_the_kept_leaderboard_follows_the_store_as_others_write_it(site, tmp_path):
    """pages.Boards keeps each ladder's board in memory and reads only what changed: after
    new ratings, a retirement and a new entrant, written through another connection, its
    lines, HTML and JSON are those read from the store afresh."""
    import sqlite3

    from arena.results.ladder_book import RETIRED
    from arena.tournaments.ladder import find_ladder

    copy = tmp_path / "copy.db"
    with sqlite3.connect(site["db"]) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    boards = pages.Boards()
    with Store(copy) as reader, Store(copy) as writer:
        row = find_ladder(reader, "big")
        book = LadderBook(writer, row.id)

        def same() -> None:
            for everyone in (False, True):
                for limit in (None, 3):
                    kept = boards.lines(reader, row, everyone=everyone, limit=limit)
                    read = pages.leaderboard(reader, row, everyone=everyone, limit=limit)
                    assert [(line.position >= 0, line.to_json()) for line in kept] == [
                        (True, line.to_json()) for line in read]
                rows, shown, active = boards.html(reader, row, everyone=everyone)
                read = pages.leaderboard(reader, row, everyone=everyone)
                assert shown == len(read) == len(re.findall("<tr>", rows))
                assert re.findall(r"<tr><td>(\d+)</td><td><a href=\"/ladders/big/bots/"
                                  r"(\w+)\">", rows) == [(str(line.place), line.name)
                                                         for line in read]
                assert active == pages.active_count(reader, row)
            assert json.loads(boards.json(reader, row)) == {
                "ladder": "big", "game": "seasons", "status": row.status,
                "bots": [line.to_json() for line in pages.leaderboard(reader, row)]}

        same()
        book.save_ratings(9, [RatingLine(3, 9, 40.0, 1.0, 9, 2.5),
                              RatingLine(4, 9, 10.0, 1.0, 9, -20.0)])
        same()
        assert boards.lines(reader, row, limit=1)[0].name == "b3"
        book.set_status(book.submissions()[3].id, RETIRED)
        same()
        assert boards.lines(reader, row, limit=1)[0].name != "b3"
        bot = writer.register_bot("seasons", BotIdentity("late", "2.0", "f" * 64, "x.py"))
        position = book.join(book.submit("test", "x.py"), bot, 10)
        same()
        book.save_ratings(10, [RatingLine(position, 10, 30.0, 2.0, 4, 5.0)])
        same()
        assert [line.name for line in boards.lines(reader, row, limit=1)] == ["late"]


def test_the_games_of_the_last_hour_are_counted_by_the_spans_that_changed(tmp_path):
    with Store(tmp_path / "hour.db") as store:
        book = LadderBook(store, 1)
        insert = ("INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation,"
                  " seed, seats, ranks, scores, statuses, termination, moves, duration, record,"
                  " finished) VALUES (1, ?, 0, 0, 0, 0, 1, '[0, 1]', '[0, 1]', '[0, 0]',"
                  " '[\"ok\", \"ok\"]', 'normal', 0, 0, '{}', ?)")
        counter = pages.RecentGames()
        for step in range(60):
            now = 10_000.0 + 97.0 * step
            store.db.executemany(insert, [(f"g{step}-{i}", now - 7.5 * i) for i in range(20)])
            assert [counter.count(book, now)] == book.games_between((now - 3600, float("inf")))
        assert counter.count(book, 1_000_000.0) == 0  # long after: counted anew


def test_the_organizer_pages_through_the_submissions_newest_first(client, site, monkeypatch):
    monkeypatch.setattr(pages, "SUBMISSIONS_PAGE", 4)
    signed_in(client, site["boss"])

    def listed(page: str) -> list[int]:
        return [int(n) for n in re.findall(r"<tr><td>(\d+)</td><td>b\d@1\.0\+0{6}</td>",
                                           page.replace("<wbr>", ""))]

    newest = site["submissions"][::-1]
    first = client.get("/organizer").text
    assert listed(first) == newest[:4] and "page 1 of 3" in first
    assert 'href="/organizer?submissions=2">older' in first and "newer" not in first
    last = client.get("/organizer?submissions=3").text
    assert listed(last) == newest[8:] and 'href="/organizer?submissions=2">newer' in last
    assert "older" not in last
    assert listed(client.get("/organizer?submissions=9").text) == []


def test_compare_offers_every_entrant_and_reads_only_the_two(client, monkeypatch):
    monkeypatch.setattr(LadderBook, "current_ratings", None)  # never all of them
    page = client.get("/ladders/big/compare", params={"a": label(1), "b": label(2)}).text
    assert page.count("<option") == 2 * BOTS
    assert f"<option selected>{label(1)}</option>" in page.split('id="b"')[0]
    assert f"<option selected>{label(2)}</option>" in page.split('id="b"')[1]
    assert "Head to head: <strong>0</strong> games" in page  # b1 and b2 never met


def test_an_api_client_pays_one_hash_for_its_token_not_one_a_request(client, site,
                                                                     monkeypatch):
    """A token verified lately is known by its keyed hash while the participant's stored
    hash is the one it matched; a wrong token costs its hash every time."""
    from arena.server import participants

    hashed = []
    real = participants._hash
    monkeypatch.setattr(participants, "_hash", lambda *a: hashed.append(1) or real(*a))
    url = f"/api/submissions/{site['submissions'][0]}"
    for _ in range(3):
        assert client.get(url, headers={"Authorization": f"Bearer {site['token']}"}
                          ).status_code == 200
    assert len(hashed) == 1
    for _ in range(2):
        assert client.get(url, headers={"Authorization": "Bearer owner.wrong"}
                          ).status_code == 401
    assert len(hashed) == 3
    with Store(site["db"]) as store:
        kept = store.db.execute("SELECT token_hash FROM participants WHERE name = 'owner'"
                                ).fetchone()[0]
        store.db.execute("UPDATE participants SET token_hash = ? WHERE name = 'owner'",
                         ("0" * 64,))  # as if the owner had been given a new token
    try:
        assert client.get(url, headers={"Authorization": f"Bearer {site['token']}"}
                          ).status_code == 401
        assert len(hashed) == 4
    finally:
        with Store(site["db"]) as store:
            store.db.execute("UPDATE participants SET token_hash = ? WHERE name = 'owner'",
                             (kept,))


def test_a_bot_pages_rating_history_is_spread_evenly_keeping_its_first_and_last(
        client, monkeypatch):
    every = [line["round"] for line in client.get("/api/ladders/big/bots/b0").json()["history"]]
    assert every == list(range(BOTS - 1))  # a round per opponent
    monkeypatch.setattr(pages, "HISTORY_POINTS", 4)
    thinned = client.get("/api/ladders/big/bots/b0").json()["history"]
    assert [line["round"] for line in thinned] == [0, 2, 4, 6, 8]  # rounds 0 to 8 in 4 steps
    monkeypatch.setattr(pages, "HISTORY_POINTS", 3)
    thinned = client.get("/api/ladders/big/bots/b0").json()["history"]
    assert [line["round"] for line in thinned] == [0, 2, 5, 8]  # the first at or after each
    assert "<svg" in client.get("/ladders/big/bots/b0").text
