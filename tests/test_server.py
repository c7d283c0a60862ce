"""arena serve: participants, sessions and CSRF, uploads, pages and the JSON API."""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient

from arena.cli import cli
from arena.results.ladder_book import LadderBook
from arena.results.store import Store
from arena.server.app import create_app
from arena.server.config import load_serve_config, public_seed_warnings
from arena.server.participants import ParticipantError, add_participant, by_token
from arena.tournaments.ladder import LadderControl, run_ladder
from arena.tournaments.ladder_config import load_ladder_config

ROOT = Path(__file__).resolve().parent.parent
GREEDY = (ROOT / "bots/seasons/greedy.py").read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A ladder of three shipped bots after three rounds, and its server's config."""
    folder = tmp_path_factory.mktemp("site")
    ladder = {"name": "league", "game": "seasons", "seed": 4, "workers": 1,
              "isolation": "none", "db": str(folder / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py"),
                       {"spec": str(ROOT / "bots/seasons/greedy.py"), "name": "steady",
                        "params": {"rerolls": False}}]}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "title": "Test <b>league</b>", "ladders": ["ladder.yaml"],
        "invite_code": "let-me-in-please", "submissions_per_hour": 3}))
    config = load_ladder_config(folder / "ladder.yaml")
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=3))
        _, token = add_participant(store, "alice")
        _, other = add_participant(store, "bob")
        _, boss = add_participant(store, "boss", organizer=True)
        _, zoe = add_participant(store, "zoe")
    return {"config": load_serve_config(folder / "serve.yaml"), "db": folder / "arena.db",
            "tokens": {"alice": token, "bob": other, "boss": boss, "zoe": zoe}}


@pytest.fixture
def client(site):
    with TestClient(create_app(site["config"]), follow_redirects=False) as test_client:
        yield test_client


def label_of(site, text: str) -> str:
    """The label of the seasons bot named ``text`` (``greedy`` is ``greedy@1.0+`` and the
    start of its code hash)."""
    with Store(site["db"]) as store:
        return store.find_bot("seasons", text).label


def csrf_of(client: TestClient, path: str = "/signin") -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found, f"no CSRF field on {path}"
    return found.group(1)


def signed_in(client: TestClient, token: str) -> TestClient:
    reply = client.post("/signin", data={"token": token, "csrf": csrf_of(client)})
    assert reply.status_code == 303, reply.text
    return client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upload(client: TestClient, token: str, name: str, data: bytes) -> httpx.Response:
    return client.post("/api/submissions", headers=bearer(token), data={"ladder": "league"},
                       files={"bot": (name, data)})


def named(source: str, name: str) -> bytes:
    return source.replace('"greedy"', f'"{name}"').encode()


# -- participants -----------------------------------------------------------------------


def test_tokens_are_kept_only_as_salted_hashes(site):
    with Store(site["db"]) as store:
        rows = store.db.execute("SELECT name, token_hash, salt FROM participants").fetchall()
        dump = "\n".join(store.db.iterdump())
        assert by_token(store, site["tokens"]["alice"]).name == "alice"
        with pytest.raises(ParticipantError, match="do not match"):
            token = site["tokens"]["alice"]
            by_token(store, token[:-1] + ("y" if token.endswith("x") else "x"))
        with pytest.raises(ParticipantError, match="do not match"):
            by_token(store, "nobody.secret")
    assert len({salt for _, _, salt in rows}) == len(rows) == 4
    for token in site["tokens"].values():
        assert token.split(".", 1)[1] not in dump


def test_users_add_prints_a_token_once_and_refuses_a_second_of_the_name(site):
    runner = CliRunner()
    added = runner.invoke(cli, ["serve", "users", "add", "carol", "--db", str(site["db"])])
    assert added.exit_code == 0 and "carol." in added.output
    again = runner.invoke(cli, ["serve", "users", "add", "carol", "--db", str(site["db"])])
    assert again.exit_code == 1 and "exists already" in again.output
    listed = runner.invoke(cli, ["serve", "users", "list", "--db", str(site["db"])])
    assert "boss (organizer)" in listed.output and "carol." not in listed.output


# -- sessions and forms -------------------------------------------------------------------


def test_a_form_without_its_csrf_token_is_refused(client, site):
    refused = client.post("/signin", data={"token": site["tokens"]["alice"]})
    assert refused.status_code == 403 and "the form has expired" in refused.text
    forged = client.post("/signin", data={"token": site["tokens"]["alice"], "csrf": "x"})
    assert forged.status_code == 403
    assert client.get("/submit").status_code == 303  # still signed out


def test_signing_in_gives_a_session_and_signing_out_ends_it(client, site):
    signed_in(client, site["tokens"]["alice"])
    page = client.get("/submit")
    assert page.status_code == 200 and "Submit a bot" in page.text and "alice" in page.text
    cookie = client.cookies.get("arena_session")
    assert cookie and site["tokens"]["alice"] not in cookie
    client.post("/signout", data={"csrf": csrf_of(client, "/submit")})
    assert client.get("/submit").status_code == 303
    wrong = client.post("/signin", data={"token": "alice.nope", "csrf": csrf_of(client)})
    assert wrong.status_code == 403 and "do not match" in wrong.text


def test_registration_needs_the_invite_code_and_shows_the_token_once(client):
    csrf = csrf_of(client, "/register")
    wrong = client.post("/register", data={"name": "dave", "invite": "guess", "csrf": csrf})
    assert wrong.status_code == 403 and "wrong invite code" in wrong.text
    joined = client.post("/register", data={"name": "dave", "invite": "let-me-in-please",
                                            "csrf": csrf})
    token = re.search(r'<pre class="log" id="token">([^<]+)</pre>', joined.text).group(1)
    assert token.startswith("dave.")
    assert client.get("/api/submissions/999999", headers=bearer(token)).status_code == 404


# -- pages and the API ------------------------------------------------------------------------


def test_the_leaderboard_shows_the_kept_ratings_and_refreshes_itself(client, site):
    page = client.get("/ladders/league")
    assert page.status_code == 200
    assert '<meta http-equiv="refresh"' in page.text
    shown = page.text.replace("<wbr>", "")  # labels wrap at @ and + on a phone
    assert all(label in shown for label in ("greedy@1.0", "steady@1.0", "random@1.0"))
    assert "greedy<wbr>@1.0<wbr>+" in page.text
    assert "Test &lt;b&gt;league&lt;/b&gt;" in page.text  # the title is escaped
    board = client.get("/api/ladders/league/leaderboard").json()
    assert [line["place"] for line in board["bots"]] == [1, 2, 3]
    with Store(site["db"]) as store:
        kept = LadderBook(store, 1).current_ratings()
    assert sorted(line["mu"] for line in board["bots"]) == sorted(r.mu for r in kept.values())
    assert board["bots"][0]["conservative"] >= board["bots"][1]["conservative"]


def test_a_bot_page_has_versions_history_head_to_head_and_games(client, site):
    page = client.get("/ladders/league/bots/greedy")
    assert page.status_code == 200 and "<svg" in page.text and "Head to head" in page.text
    data = client.get("/api/ladders/league/bots/greedy").json()
    assert data["versions"][0]["bot"] == label_of(site, "greedy")
    assert len(data["history"]) >= 1 and data["head_to_head"]
    key = data["recent_games"][0]["key"]
    assert f'href="/ladders/league/games/{key}"' in page.text
    game = client.get(f"/ladders/league/games/{key}")
    assert game.status_code == 200 and label_of(site, "greedy") in game.text
    replay = client.get(f"/api/ladders/league/games/{key}").json()
    assert replay["game"] == "seasons" and replay["moves"]
    assert all("detail" not in seat for seat in replay["seats"])


def test_unknown_things_are_one_friendly_line(client):
    for path in ("/ladders/nope", "/ladders/league/bots/nope", "/ladders/league/games/r9-x",
                 "/api/ladders/nope/leaderboard"):
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert "Traceback" not in reply.text and len(reply.text) < 20_000
    assert client.get("/api/ladders/nope/leaderboard").json() == {"error": "no such ladder"}


# -- submissions --------------------------------------------------------------------------------


def test_a_submission_through_the_api_is_queued_for_the_ladder_with_its_submitter(client, site):
    token = site["tokens"]["alice"]
    reply = upload(client, token, "alicebot.py", named(GREEDY, "alicebot"))
    assert reply.status_code == 201, reply.text
    number = reply.json()["submission"]
    status = client.get(f"/api/submissions/{number}", headers=bearer(token)).json()
    assert status["status"] == "queued" and status["ladder"] == "league"
    assert client.get(f"/api/submissions/{number}",
                      headers=bearer(site["tokens"]["bob"])).status_code == 404
    assert client.get(f"/api/submissions/{number}").status_code == 401
    with Store(site["db"]) as store:
        book = LadderBook(store, 1)
        staged = book.submission(number)
        assert book.submitter_of(number) is not None
        assert Path(staged.spec).read_bytes() == named(GREEDY, "alicebot")


def test_submissions_are_rate_limited_per_participant(client, site):
    token = site["tokens"]["bob"]
    codes = [upload(client, token, f"b{i}.py", named(GREEDY, f"bob{i}")).status_code
             for i in range(4)]
    assert codes == [201, 201, 201, 400]
    refused = upload(client, token, "b5.py", named(GREEDY, "bob5"))
    assert "at most 3 submissions an hour" in refused.json()["error"]
    assert upload(client, site["tokens"]["boss"], "mine.py",
                  named(GREEDY, "bossbot")).status_code == 201  # others are not held up


def zipped(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(("name", "data", "message"), [
    ("slip.zip", zipped({"arena.json": b'{"entry": "../evil.py"}', "../evil.py": b"x = 1"}),
     "'..'"),
    ("bomb.zip", zipped({"arena.json": b'{"entry": "bot.py"}', "bot.py": b"x = 1\n",
                         "zeros.txt": bytes(50 << 20)}), "zip bomb"),
    ("<script>alert(1)</script>.exe", b"x = 1\n", "neither a Python file"),
    ("bad.py", b"\xff\xfe not utf-8", "not UTF-8"),
])
def test_hostile_uploads_are_refused_cleanly(client, site, name, data, message):
    token = site["tokens"]["boss"]
    reply = upload(client, token, name, data)
    assert reply.status_code == 400, reply.text
    assert message in reply.json()["error"] and "<script>" not in reply.json()["error"]


def test_a_refused_upload_names_no_folder_of_the_server(client, site):
    deep = "/".join(["d"] * 98) + "/d.py"
    reply = upload(client, site["tokens"]["boss"], "deep.zip",
                   zipped({"arena.json": b'{"entry": "__init__.py"}',
                           "__init__.py": b"x = 1\n", deep: b"x = 1\n"}))
    assert reply.status_code == 400, reply.text
    said = reply.json()["error"]
    assert "holds more than 64 files and folders" in said and "the upload" in said, said
    folder = str(Path(site["db"]).parent)
    assert folder not in said and "/tmp" not in said and "uploads" not in said, said


def test_an_upload_of_100_mb_is_refused_before_it_is_read(client, site):
    reply = client.post("/api/submissions", headers=bearer(site["tokens"]["boss"]),
                        content=b"x" * (100 << 20))
    assert reply.status_code == 413 and "larger than 1 MiB" in reply.json()["error"]


def test_a_file_name_with_markup_is_never_shown_as_markup(client, site):
    signed_in(client, site["tokens"]["boss"])
    reply = client.post("/submit", data={"ladder": "league", "csrf": csrf_of(client, "/submit")},
                        files={"bot": ("<img src=x onerror=alert(1)>.py",
                                       named(GREEDY, "markup"))})
    assert reply.status_code == 303
    page = client.get(reply.headers["location"])
    assert page.status_code == 200 and "<img src=x" not in page.text


def test_the_organizer_page_is_the_organizers_alone(client, site):
    signed_in(client, site["tokens"]["alice"])
    assert client.get("/organizer").status_code == 403
    client.cookies.clear()
    signed_in(client, site["tokens"]["boss"])
    page = client.get("/organizer")
    assert page.status_code == 200 and "Freeze" in page.text and "alice" in page.text
    csrf = csrf_of(client, "/organizer")
    retired = client.post("/organizer", data={"action": "retire", "ladder": "league",
                                              "bot": "nosuch@1", "csrf": csrf})
    assert retired.status_code == 200 and "no seasons bot nosuch@1" in retired.text


def test_arena_submit_server_uploads_through_the_api(client, site, tmp_path, monkeypatch):
    bot = tmp_path / "viaserver.py"
    bot.write_bytes(named(GREEDY, "viaserver"))
    monkeypatch.setattr(httpx, "post", lambda url, **kw: client.post(
        url.replace("http://arena.test", ""), **kw))
    result = CliRunner().invoke(cli, ["submit", str(bot), "--server", "http://arena.test",
                                      "--token", site["tokens"]["alice"], "--ladder", "league"])
    assert result.exit_code == 0, result.output
    assert "queued at http://arena.test" in result.output
    page = re.search(r"follow it at\s+http://arena\.test(/submissions/\d+) ", result.output)
    assert page, result.output
    signed_in(client, site["tokens"]["alice"])
    assert client.get(page[1]).status_code == 200  # a page a signed-in browser opens
    bad = CliRunner().invoke(cli, ["submit", str(bot), "--server", "http://arena.test",
                                   "--token", "alice.wrong", "--ladder", "league"])
    assert bad.exit_code == 1 and "do not match" in bad.output


def test_arena_serve_runs_the_ladder_alongside_and_stops_both(site, tmp_path):
    import signal
    import socket
    import subprocess
    import sys
    import time

    folder = tmp_path / "served"
    folder.mkdir()
    ladder = {"name": "live", "game": "seasons", "seed": 9, "workers": 1,
              "db": str(folder / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (folder / "live.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump({"ladders": ["live.yaml"]}))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder / "serve.yaml"),
                               "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        games = 0
        while time.monotonic() < deadline and games < 4:
            time.sleep(0.5)
            try:
                board = httpx.get(f"http://127.0.0.1:{port}/api/ladders/live/leaderboard").json()
            except (httpx.HTTPError, ValueError):
                continue
            games = sum(line["games"] for line in board.get("bots", []))
        assert games >= 4, "the ladder did not play beside the server"
        started = descendants(server.pid)
        assert started, "the ladder runs in a process of its own"
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=90)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "ERROR" not in err, err
    assert f"http://127.0.0.1:{port}/" in out
    assert all(len(line) <= 80 or " " not in line.strip()  # a path alone may be longer
               for line in out.splitlines()), out  # its first line was 152 wide
    time.sleep(0.5)
    alive = [pid for pid in started if Path(f"/proc/{pid}").exists()
             and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]]
    assert alive == [], "a ladder (or bot) process outlived the server"


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, from /proc."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


@contextlib.contextmanager
def only_queued(book: LadderBook, submission: int) -> Iterator[None]:
    """Only ``submission`` queued for validation in the block: the uploads of the tests
    before it wait (each validation plays games in the sandbox, one after another)."""
    waiting = [s.id for s in book.submissions("queued") if s.id != submission]
    for other in waiting:
        book.set_status(other, "held")
    try:
        yield
    finally:
        for other in waiting:
            book.set_status(other, "queued")


def test_a_zipped_package_is_validated_and_joins_with_its_modules(client, site):
    package = GREEDY.replace('name = "greedy"', "name = NAME").replace(
        "class GreedyPlayer", "from .naming import NAME\n\n\nclass GreedyPlayer")
    archive = zipped({"arena.json": b'{"entry": "__init__.py", "attr": "GreedyPlayer",'
                                    b' "game": "seasons"}',
                      "__init__.py": package.encode(), "naming.py": b'NAME = "zipped"\n'})
    reply = upload(client, site["tokens"]["zoe"], "zipped.zip", archive)
    assert reply.status_code == 201, reply.text
    number = reply.json()["submission"]
    loose = zipped({"arena.json": b'{"entry": "bot.py"}', "bot.py": b"x = 1\n",
                    "other.py": b"y = 2\n"})
    refused = upload(client, site["tokens"]["zoe"], "loose.zip", loose)
    assert refused.status_code == 400 and "is a package" in refused.json()["error"]
    # a file whose name ends the entry's ("bot.py" and "x/mybot.py") was left out unsaid
    for entry, other in (("x/mybot.py", "bot.py"), ("x/mybot.py", "mybot.py"),
                         ("mybot.py", "y/mybot.py")):
        tailing = zipped({"arena.json": f'{{"entry": "{entry}"}}'.encode(),
                          entry: b"x = 1\n", other: b"y = 2\n"})
        refused = upload(client, site["tokens"]["zoe"], "tailing.zip", tailing)
        assert refused.status_code == 400, (entry, other, refused.text)
        assert f"it also holds {other}" in refused.json()["error"]
    # a package inside the zip: files beside it, outside the package, were dropped unsaid
    outside = zipped({"arena.json": b'{"entry": "mybot/__init__.py"}',
                      "mybot/__init__.py": b"x = 1\n", "helper.py": b"y = 2\n"})
    refused = upload(client, site["tokens"]["zoe"], "outside.zip", outside)
    assert refused.status_code == 400 and "also holds helper.py, outside it" in \
        refused.json()["error"], refused.text
    config = load_ladder_config(Path(site["config"].ladder_paths[0]))
    with Store(site["db"]) as store, only_queued(LadderBook(store, 1), number):
        for rounds in range(4, 40):
            run_ladder(config, store, LadderControl(rounds=rounds))
            if LadderBook(store, 1).submission(number).status not in (
                    "queued", "validating", "validated"):
                break
        joined = LadderBook(store, 1).submission(number)
        assert joined.status == "active", joined.log
        bot = store.bot(joined.bot_id)
        assert bot.label == f"zipped@1.0+{bot.identity.code_hash[:6]}"
        assert bot.identity.spec.endswith("/__init__.py:GreedyPlayer")
        assert (Path(bot.identity.spec.split(":")[0]).parent / "naming.py").is_file()


def test_only_a_bots_owner_sees_its_failures_and_versions_compare(client, site):
    with Store(site["db"]) as store:
        book = LadderBook(store, 1)
        owned = next(s for s in book.submissions("active")
                     if store.bot(s.bot_id).identity.name == "steady")
        alice = by_token(store, site["tokens"]["alice"])
        book.record_submitter(owned.id, alice.id)  # as if alice had submitted it
        store.db.execute(
            "INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
            " seats, ranks, scores, statuses, termination, moves, duration, record, finished,"
            " details) VALUES (1, 'r999-t0-s0-o0', 999, 0, 0, 0, 1, ?, '[1, 0]', '[0, 0]',"
            " '[\"crash\", \"ok\"]', 'crash', 0, 0, '{}', 0, ?)",
            (f"[{owned.position}, 0]", '["Traceback: the secret of steady", ""]'))
    try:
        assert "the secret of steady" not in client.get("/ladders/league/bots/steady").text
        signed_in(client, site["tokens"]["bob"])
        assert "the secret of steady" not in client.get("/ladders/league/bots/steady").text
        client.cookies.clear()
        signed_in(client, site["tokens"]["alice"])
        page = client.get("/ladders/league/bots/steady").text
        assert "Your bot's failures" in page and "the secret of steady" in page
    finally:
        with Store(site["db"]) as store:
            store.db.execute("DELETE FROM games WHERE key = 'r999-t0-s0-o0'")
            store.db.execute("DELETE FROM submitters WHERE submission_id = ?", (owned.id,))
    greedy, steady = label_of(site, "greedy"), label_of(site, "steady")
    compared = client.get("/ladders/league/compare", params={"a": greedy, "b": steady})
    assert compared.status_code == 200 and "Head to head" in compared.text
    assert re.search(rf"{re.escape(greedy)} scored <strong>\d+\.\d %</strong>", compared.text)
    same = client.get("/ladders/league/compare", params={"a": greedy, "b": greedy})
    assert "choose two different bots" in same.text


def test_too_many_failed_sign_ins_are_refused_before_any_token_is_checked(client, site):
    from arena.server.app import SIGN_IN_FAILURES

    wrong = [client.get("/api/submissions/1", headers=bearer("alice.wrong")).status_code
             for _ in range(SIGN_IN_FAILURES)]
    assert wrong == [401] * SIGN_IN_FAILURES
    blocked = client.get("/api/submissions/1", headers=bearer(site["tokens"]["alice"]))
    assert blocked.status_code == 429 and "too many failed sign-ins" in blocked.json()["error"]
    form = client.post("/signin", data={"token": site["tokens"]["alice"],
                                        "csrf": csrf_of(client)})
    assert form.status_code == 429 and "too many failed sign-ins" in form.text


def test_a_game_page_shows_a_viewer_only_their_own_seats_failure_details(client, site):
    """An opponent's traceback is its owner's alone, and a name holding '@' is not taken
    for another bot's name cut at the '@'."""
    import json

    from arena.bots.identity import BotIdentity

    with Store(site["db"]) as store:
        book = LadderBook(store, 1)
        active = {store.bot(s.bot_id).identity.name: s for s in book.submissions("active")}
        steady, greedy = active["steady"].position, active["greedy"].position
        book.record_submitter(active["steady"].id, by_token(store, site["tokens"]["alice"]).id)
        book.record_submitter(active["greedy"].id, by_token(store, site["tokens"]["bob"]).id)
        key, seats, statuses, details = next(
            row for row in store.db.execute(
                "SELECT key, seats, statuses, details FROM games WHERE tournament_id = 1")
            if sorted(json.loads(row[1])) == sorted([steady, greedy]))
        order = json.loads(seats)
        secrets = ["Traceback: alice-secret" if entrant == steady else "Traceback: bob-secret"
                   for entrant in order]
        store.db.execute("UPDATE games SET statuses = ?, details = ? WHERE key = ? AND"
                         " tournament_id = 1", ('["crash", "crash"]', json.dumps(secrets), key))
        mimic = store.register_bot("seasons", BotIdentity("steady@x", "1", "h" * 64, "x.py"))
        store.db.execute("INSERT INTO entrants (tournament_id, position, bot_id, problem)"
                         " VALUES (1, 99, ?, NULL)", (mimic,))
        store.db.execute(
            "INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
            " seats, ranks, scores, statuses, termination, moves, duration, record, finished,"
            " details) VALUES (1, 'r999-t0-s0-o0', 999, 0, 0, 0, 1, '[99, 0]', '[1, 0]',"
            " '[0, 0]', '[\"crash\", \"ok\"]', 'crash', 0, 0, '{}', 0,"
            " '[\"Traceback: the secret of steady@x\", \"\"]')")
    try:
        seen = {}
        for viewer in ("alice", "bob", "boss"):
            client.cookies.clear()
            signed_in(client, site["tokens"][viewer])
            page = client.get(f"/ladders/league/games/{key}").text
            seen[viewer] = {name for name in ("alice-secret", "bob-secret") if name in page}
        assert seen == {"alice": {"alice-secret"}, "bob": {"bob-secret"},
                        "boss": {"alice-secret", "bob-secret"}}
        client.cookies.clear()
        signed_in(client, site["tokens"]["alice"])
        assert "the secret of steady@x" not in client.get("/ladders/league/bots/steady").text
    finally:
        with Store(site["db"]) as store:
            store.db.execute("UPDATE games SET statuses = ?, details = ? WHERE key = ? AND"
                             " tournament_id = 1", (statuses, details, key))
            store.db.execute("DELETE FROM games WHERE key = 'r999-t0-s0-o0'")
            store.db.execute("DELETE FROM entrants WHERE position = 99")
            store.db.execute("DELETE FROM submitters WHERE submission_id IN (?, ?)",
                             (active["steady"].id, active["greedy"].id))


def test_numbers_too_large_for_the_database_in_a_url_name_nothing(client, site):
    huge = "9" * 40
    signed_in(client, site["tokens"]["alice"])
    for path in (f"/submissions/{huge}", f"/ladders/league/games/r{huge}-t0-s0-o0",
                 f"/ladders/league/games/r0-t{huge}-s0-o0"):
        assert client.get(path).status_code == 404, path
    for path in (f"/api/submissions/{huge}", f"/api/ladders/league/games/r{huge}-t0-s0-o0"):
        assert client.get(path, headers=bearer(site["tokens"]["alice"])).status_code == 404, path


def test_signing_out_ends_every_copy_of_the_session(site):
    with TestClient(create_app(site["config"]), follow_redirects=False) as browser:
        signed_in(browser, site["tokens"]["zoe"])
        copied = dict(browser.cookies)
        assert browser.get("/submit").status_code == 200
        browser.post("/signout", data={"csrf": csrf_of(browser, "/submit")})
    with TestClient(create_app(site["config"]), follow_redirects=False) as thief:
        thief.cookies.update(copied)
        assert thief.get("/submit").status_code == 303  # back to the sign-in page


def test_the_organizer_ends_a_participants_sessions_and_none_lasts_past_its_days(
        site, monkeypatch):
    from arena.server import app as server

    with TestClient(create_app(site["config"]), follow_redirects=False) as browser:
        signed_in(browser, site["tokens"]["zoe"])
        ended = CliRunner().invoke(cli, ["serve", "users", "sign-out", "zoe", "--db",
                                         str(site["db"])])
        assert ended.exit_code == 0 and "every session of zoe has ended" in ended.output
        assert browser.get("/submit").status_code == 303
        signed_in(browser, site["tokens"]["zoe"])
        assert browser.get("/submit").status_code == 200
        monkeypatch.setattr(server, "SESSION_DAYS", 0)  # the cookie itself still lasts
        assert browser.get("/submit").status_code == 303  # used or not, a session ends
    missing = CliRunner().invoke(cli, ["serve", "users", "sign-out", "nobody", "--db",
                                       str(site["db"])])
    assert missing.exit_code == 1 and "no participant 'nobody'" in missing.output


def test_a_leaked_token_is_replaced_and_stops_working_at_once_everywhere(site):
    from arena.server.participants import add_participant

    with Store(site["db"]) as store:
        _, old = add_participant(store, "leaky")
    with TestClient(create_app(site["config"]), follow_redirects=False) as browser:
        signed_in(browser, old)
        api = browser.get("/api/submissions/1", headers=bearer(old))
        assert api.status_code == 404  # known, verified (and kept as verified by the server)
        replaced = CliRunner().invoke(cli, ["serve", "users", "new-token", "leaky", "--db",
                                            str(site["db"])])
        assert replaced.exit_code == 0, replaced.output
        new = replaced.output.split()[-1]
        assert new.startswith("leaky.") and new != old
        assert "the old one no longer works" in " ".join(replaced.output.split())
        assert browser.get("/api/submissions/1", headers=bearer(old)).status_code == 401
        assert browser.get("/submit").status_code == 303  # its sessions ended too
        assert browser.get("/api/submissions/1", headers=bearer(new)).status_code == 404
    missing = CliRunner().invoke(cli, ["serve", "users", "new-token", "nobody", "--db",
                                       str(site["db"])])
    assert missing.exit_code == 1 and "no participant 'nobody'" in missing.output


def test_a_wrong_token_costs_one_hash_for_a_known_and_an_unknown_name(site, monkeypatch):
    from arena.server import participants

    hashed = []
    real = participants._hash
    monkeypatch.setattr(participants, "_hash", lambda *a: hashed.append(a) or real(*a))
    with Store(site["db"]) as store:
        for token in ("alice.wrong-secret", "nobody-at-all.wrong-secret"):
            with pytest.raises(ParticipantError, match="do not match"):
                by_token(store, token)
    assert len(hashed) == 2


def test_the_organizer_retires_from_the_list_and_is_asked_before_a_freeze(client, site):
    signed_in(client, site["tokens"]["boss"])
    page = client.get("/organizer").text.replace("<wbr>", "")
    listed = re.findall(r'name="bot" value="([^"]+)"><button>Retire</button>', page)
    assert {label_of(site, name) for name in ("greedy", "random", "steady")} <= set(listed)
    assert re.search(rf'<td>{re.escape(label_of(site, "greedy"))}</td><td>config'
                     r'</td><td class="source">config: bots\[1\]</td>'
                     r'<td class="status-active">active</td>', page)
    asked = client.post("/organizer", data={"action": "freeze", "ladder": "league",
                                            "csrf": csrf_of(client, "/organizer")})
    assert asked.status_code == 200 and "Freeze league?" in asked.text
    assert 'name="confirm" value="yes"' in asked.text
    with Store(site["db"]) as store:
        assert store.db.execute("SELECT status FROM tournaments WHERE name = 'league'"
                                ).fetchone()[0] == "running"


def test_a_participant_finds_their_own_submissions_from_their_name(client, site):
    with Store(site["db"]) as store:
        book = LadderBook(store, 1)
        steady = next(s for s in book.submissions("active")
                      if store.bot(s.bot_id).identity.name == "steady")
        book.record_submitter(steady.id, by_token(store, site["tokens"]["alice"]).id)
    try:
        signed_in(client, site["tokens"]["alice"])
        assert '<a href="/me" id="me">alice</a>' in client.get("/").text
        page = client.get("/me").text.replace("<wbr>", "")
        assert f'<a href="/submissions/{steady.id}">{steady.id}</a>' in page
        assert f'<a href="/ladders/league/bots/steady">{label_of(site, "steady")}</a>' in page
        assert "greedy@1.0" not in page  # not hers
        client.cookies.clear()
        assert client.get("/me").status_code == 303
    finally:
        with Store(site["db"]) as store:
            store.db.execute("DELETE FROM submitters WHERE submission_id = ?", (steady.id,))


def test_a_served_ladder_with_a_written_seed_is_warned_of_and_the_shipped_ones_have_none(
        site, root):
    """The shipped competition served ladders whose seeds were in their configs: anyone
    could compute every game's dice (they are derived from it)."""
    assert public_seed_warnings(site["config"]) == [
        "ladder league's seed is written in its config: whoever reads it knows every game's "
        "dice; write `seed: secret`"]
    assert public_seed_warnings(load_serve_config(root / "configs/serve.yaml")) == []
    for name in ("seasons-ladder", "sonnentau-ladder"):
        assert load_ladder_config(root / f"configs/{name}.yaml").play.secret_seed


def test_a_served_ladder_is_read_from_the_configs_folder_not_the_current_one(
        site, tmp_path, monkeypatch):
    impostor = yaml.safe_load((Path(site["config"].ladder_paths[0])).read_text())
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump({**impostor, "name": "impostor"}))
    monkeypatch.chdir(tmp_path)
    served = load_serve_config(Path(site["config"].ladder_paths[0]).parent / "serve.yaml")
    assert [ladder.name for ladder in served.ladders] == ["league"]


def served_after_a_round(folder: Path, name: str, bots: list[Any]) -> Any:
    """The server's app for a Seasons ladder ``name`` of ``bots`` that has played a round."""
    ladder = {"name": name, "game": "seasons", "seed": 4, "workers": 1, "isolation": "none",
              "db": str(folder / "arena.db"), "bots": bots}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump({"ladders": ["ladder.yaml"]}))
    config = load_ladder_config(folder / "ladder.yaml")
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=1))
    return create_app(load_serve_config(folder / "serve.yaml"))


def test_a_bot_name_with_url_characters_links_to_its_own_page(tmp_path):
    """``greedy?`` linked to /bots/greedy? — the page of ``greedy``, another participant's
    bot — and ``%2e%2e`` to the ladder's folder."""
    odd = "g?#%2e%2e"
    app = served_after_a_round(tmp_path, "odd", [
        str(ROOT / "bots/seasons/random_bot.py"),
        {"spec": str(ROOT / "bots/seasons/greedy.py"), "name": odd}])

    async def pages() -> dict[str, httpx.Response]:
        # not Starlette's TestClient: it decodes a path twice (%252e to ".")
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            found = {page: await http.get(page) for page in ("/", "/ladders/odd")}
            links = {link for reply in found.values()
                     for link in re.findall(r'href="(/ladders/odd/bots/[^"]+)"', reply.text)}
            return {**found, **{link: await http.get(link) for link in links}}

    found = asyncio.run(pages())
    odd_page = "/ladders/odd/bots/g%3F%23%252e%252e"
    assert odd_page in found and odd in found[odd_page].text
    assert "random" in found["/ladders/odd/bots/random"].text
    assert all(reply.status_code == 200 for reply in found.values())


def test_a_game_of_a_secret_ladder_is_shown_only_once_its_whole_duplicate_set_is_played(
        tmp_path):
    """The games of a duplicate set share their dice: while one is still being played, the
    moves of another would tell whoever reads them the dice still to come in it."""
    ladder = {"name": "hidden", "game": "seasons", "seed": "secret", "workers": 1,
              "isolation": "none", "db": str(tmp_path / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (tmp_path / "serve.yaml").write_text(yaml.safe_dump({"title": "t",
                                                         "ladders": ["ladder.yaml"]}))
    with Store(tmp_path / "arena.db") as store:
        run_ladder(load_ladder_config(tmp_path / "ladder.yaml"), store,
                   LadderControl(rounds=2))
        keys = [key for (key,) in store.db.execute("SELECT key FROM games ORDER BY key")]
        _, token = add_participant(store, "alice")
        assert {"r0-t0-s0-o0", "r0-t0-s0-o1", "r1-t0-s0-o0", "r1-t0-s0-o1"} <= set(keys)
        store.db.execute("DELETE FROM games WHERE key = 'r1-t0-s0-o1'")  # still in play
        store.db.commit()
    with TestClient(create_app(load_serve_config(tmp_path / "serve.yaml")),
                    follow_redirects=False) as client:
        for path in ("/ladders/hidden/games/{}", "/api/ladders/hidden/games/{}"):
            waiting = client.get(path.format("r1-t0-s0-o0"), headers=bearer(token))
            assert waiting.status_code == 404
            assert "every game of its duplicate set" in waiting.text
            assert "dice:" not in waiting.text
            played = client.get(path.format("r0-t0-s0-o0"), headers=bearer(token))
            assert played.status_code == 200 and "dice:" in played.text


def test_a_game_pages_back_link_leads_to_its_ladder_whatever_the_ladders_name(tmp_path):
    """The game page linked back to /ladders/cup?2 %2e unencoded: /ladders/cup, a 404."""
    from urllib.parse import quote

    name = "cup?2 %2e"
    app = served_after_a_round(tmp_path, name, [str(ROOT / "bots/seasons/random_bot.py"),
                                                str(ROOT / "bots/seasons/greedy.py")])
    home = f"/ladders/{quote(name, safe='')}"

    async def pages() -> tuple[str, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            bot = await http.get(f"{home}/bots/greedy")
            game = re.search(r'href="(' + re.escape(home) + r'/games/[^"]+)"', bot.text)
            assert game is not None, bot.text
            page = await http.get(html.unescape(game.group(1)))
            back = re.search(r'id="back-link" href="([^"]+)"', page.text)
            assert back is not None, page.text
            return html.unescape(back.group(1)), page, await http.get(html.unescape(back.group(1)))

    back, page, again = asyncio.run(pages())
    assert page.status_code == 200 and back == home
    assert again.status_code == 200 and html.escape(name) in again.text


@pytest.mark.parametrize(("asked", "location"), [
    ("/ladders/league/", "/ladders/league"),
    ("/ladders/league/bots/greedy/?x=1", "/ladders/league/bots/greedy?x=1"),
    ("//evil.example/", "/evil.example"),
    ("/%5Cevil.example/", "/%5Cevil.example"),
    ("/ladders/cup%3F2%20/", "/ladders/cup%3F2%20"),
])
def test_a_trailing_slash_redirects_on_this_server_whatever_the_host_header(client, asked,
                                                                          location):
    """Starlette's own redirect named the Host header's server: Host: evil.example sent a
    visitor of /ladders/league/ to http://evil.example/ladders/league."""
    reply = client.get(f"http://testserver{asked}", headers={"Host": "evil.example"})
    assert reply.status_code == 307 and reply.headers["location"] == location
    assert client.get(location.replace("evil.example", "x")).status_code in (200, 404)
    assert client.get("/ladders/league/").headers["location"] == "/ladders/league"
    posted = client.post("/signin/", data={"x": "1"})  # a form's POST keeps its method
    assert posted.status_code == 307 and posted.headers["location"] == "/signin"
