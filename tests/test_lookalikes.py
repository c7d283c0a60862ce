"""Look-alike names (issue 24, item 9): a name that looks like a participant's or a ladder
bot's (Cyrillic, Greek, fullwidth, combining or small-capital letters) is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient
from test_server import GREEDY, ROOT, bearer, csrf_of, named, upload

from arena.bots.names import looks_alike, name_skeleton
from arena.cli import cli
from arena.results.ladder_book import LadderBook
from arena.results.store import Store
from arena.server.app import create_app
from arena.server.config import load_serve_config
from arena.server.participants import ParticipantError, add_participant
from arena.tournaments.ladder import LadderControl, run_ladder
from arena.tournaments.ladder_config import load_ladder_config

LOOK_ALIKES = [  # (a name, one that looks like it), escaped so that the file shows which
    ("greedy", "gr\u0435\u0435dy"),  # Cyrillic ie
    ("greedy", "gr\u0435ed\u0443"),  # Cyrillic ie and u
    ("greedy", "\u0262reedy"),  # small capital G
    ("greedy", "\u0262\u0280\u1d07\u1d07\u1d05\u028f"),  # all small capitals
    ("greedy", "\uff47\uff52\uff45\uff45\uff44\uff59"),  # fullwidth
    ("greedy", "gre\u0301edy"),  # a combining acute accent
    ("greedy", "GREEDY"),
    ("expectimax", "\u0435\u0445\u0440\u0435\u0441timax"),  # Cyrillic e, x, p, e, c
    ("expectimax", "expect\u03b9m\u03b1x"),  # Greek iota and alpha
    ("expectimax", "\uff45\uff58\uff50\uff45\uff43\uff54\uff49\uff4d\uff41\uff58"),
    ("expectimax", "expectima\u0308x"),  # a combining diaeresis
    ("boss", "b\u03bfss"),  # Greek omicron
    ("boss", "b\u043ess"),  # Cyrillic o
    ("boss", "\u0299oss"),  # small capital B
    ("boss", "\uff42\uff4f\uff53\uff53"),  # fullwidth
    ("alice", "\u0430lice"),  # Cyrillic a
    ("alice", "\u0391LICE"),  # Greek capital alpha
    ("alice", "\u1d00\u029f\u026a\u1d04\u1d07"),  # small capitals
    ("alice", "al\u0131ce"),  # dotless i
    ("alice", "aIice"),  # a capital I for the small l
    ("Alice", "AIice"),
    ("bill", "biII"),
    ("greedy", "gr\u03b5\u03b5dy"),  # Greek epsilon
    ("greedy", "gr\u025b\u025bdy"),  # Latin open e
    ("greedy", "gr\u03f5\u03f5dy"),  # Greek lunate epsilon
]


@pytest.mark.parametrize(("name", "lookalike"), LOOK_ALIKES)
def test_a_look_alike_looks_like_the_name_it_imitates(name, lookalike):
    assert lookalike != name
    assert looks_alike(lookalike, name)
    assert looks_alike(name, lookalike)


def test_a_skeleton_is_case_folded_without_marks_and_stable():
    assert name_skeleton("greedy") == "greedy"
    assert name_skeleton("Gr\u00e9edy") == "greedy"  # a precomposed e with acute
    assert name_skeleton(name_skeleton("\u0262r\u0435\u0435dy")) == name_skeleton("greedy")


@pytest.mark.parametrize(("one", "other"), [
    ("greedy", "greedy2"), ("greedy", "greed"), ("greedy", "needy"),
    ("expectimax", "expectiminimax"), ("alice", "alicia"), ("boss", "bass"),
    ("bob", "bobby"), ("random", "randomer"), ("steady", "steadier"), ("bill", "bili"),
    ("alice", "aiice"), ("greedy", "greedo")])
def test_genuinely_different_names_do_not_look_alike(one, other):
    assert not looks_alike(one, other)
    assert looks_alike(one, one)


# -- participants -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A ladder of the organizer's bots greedy, expectimax and random after one round, its
    server's config, and participants alice, bob and the organizer boss."""
    folder = tmp_path_factory.mktemp("lookalikes")
    greedy = str(ROOT / "bots/seasons/greedy.py")
    ladder = {"name": "league", "game": "seasons", "seed": 5, "workers": 1,
              "isolation": "none", "db": str(folder / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"), greedy,
                       {"spec": greedy, "name": "expectimax"}]}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "title": "Look-alikes", "ladders": ["ladder.yaml"], "invite_code": "let-me-in-please",
        "submissions_per_hour": 50}))
    config = load_ladder_config(folder / "ladder.yaml")
    tokens = {}
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=1))
        for name in ("alice", "bob"):
            tokens[name] = add_participant(store, name)[1]
        tokens["boss"] = add_participant(store, "boss", organizer=True)[1]
    return {"config": load_serve_config(folder / "serve.yaml"), "db": folder / "arena.db",
            "ladder": config, "tokens": tokens}


@pytest.fixture
def client(site):
    with TestClient(create_app(site["config"]), follow_redirects=False) as test_client:
        yield test_client


@pytest.mark.parametrize(("existing", "lookalike"), [
    pair for pair in LOOK_ALIKES if pair[0] in ("alice", "boss")])
def test_a_participant_whose_name_looks_like_another_is_refused(site, existing, lookalike):
    with Store(site["db"]) as store:
        with pytest.raises(ParticipantError) as refused:
            add_participant(store, lookalike)
        assert str(refused.value) == (f"the name {lookalike!r} looks like the participant "
                                      f"{existing!r}; choose another")
        count = store.db.execute("SELECT count(*) FROM participants WHERE name = ?",
                                 (lookalike,)).fetchone()[0]
        assert count == 0


def test_users_add_refuses_a_look_alike_of_the_organizer_in_one_line(site):
    runner = CliRunner()
    refused = runner.invoke(cli, ["serve", "users", "add", "b\u043ess", "--db",
                                  str(site["db"])])
    assert refused.exit_code == 1
    assert "looks like the participant 'boss'; choose another" in refused.output
    assert len(refused.output.strip().splitlines()) == 1, refused.output
    added = runner.invoke(cli, ["serve", "users", "add", "bossa", "--db", str(site["db"])])
    assert added.exit_code == 0 and "bossa." in added.output


def test_registration_refuses_a_look_alike_of_a_participant(client):
    csrf = csrf_of(client, "/register")
    refused = client.post("/register", data={"name": "\u0430lice", "invite": "let-me-in-please",
                                             "csrf": csrf})
    # a stranger is not told whose name it looks like: trying would list the participants
    assert "looks like another participant&#39;s; choose another" in refused.text, \
        refused.text
    assert "alice" not in refused.text.replace("\u0430lice", "")
    assert not re.search(r'<pre class="log" id="token">', refused.text)


# -- bots ---------------------------------------------------------------------------------------


def judged(site, numbers: list[int]) -> dict[int, tuple[str, str]]:
    """Play rounds until the submissions ``numbers`` have their verdicts: each one's status
    and log."""
    waiting = ("queued", "validating", "validated")
    with Store(site["db"]) as store:
        book = LadderBook(store, 1)
        for _ in range(30):
            if all(book.submission(n).status not in waiting for n in numbers):
                break
            run_ladder(site["ladder"], store, LadderControl(rounds=book.rated_through() + 2))
        return {n: (book.submission(n).status, book.submission(n).log) for n in numbers}


@pytest.mark.stress
def test_a_bot_that_looks_like_a_ladder_bot_is_refused_and_its_owner_may_resubmit(client, site):
    alice, bob = site["tokens"]["alice"], site["tokens"]["bob"]
    first = upload(client, alice, "alicebot.py", named(GREEDY, "alicebot"))
    assert first.status_code == 201, first.text
    assert judged(site, [first.json()["submission"]])[first.json()["submission"]][0] == \
        "active"
    tries = {  # the name sent, and the bot's name it looks like
        "\u0262reedy": "greedy", "gr\u0435\u0435dy": "greedy",
        "\uff47\uff52\uff45\uff45\uff44\uff59": "greedy",
        "\u0435\u0445\u0440\u0435\u0441timax": "expectimax", "expect\u03b9m\u03b1x": "expectimax",
        "alic\u0435bot": "alicebot", "alice\u0299ot": "alicebot"}
    numbers = {}
    for name in tries:
        reply = upload(client, bob, "mine.py", named(GREEDY, name))
        assert reply.status_code == 201, reply.text
        numbers[name] = reply.json()["submission"]
    again = upload(client, alice, "alicebot.py",
                   named(GREEDY, "alicebot").replace(b'version = "1.0"', b'version = "2.0"'))
    assert again.status_code == 201, again.text
    verdicts = judged(site, [*numbers.values(), again.json()["submission"]])
    for name, original in tries.items():
        status, log = verdicts[numbers[name]]
        assert status == "error", (name, log)
        assert f"the name {name!r} looks like the bot {original!r}; give the bot a name of its" \
            " own" in log
        seen = client.get(f"/api/submissions/{numbers[name]}", headers=bearer(bob)).json()
        assert seen["status"] == "error"
    assert verdicts[again.json()["submission"]][0] == "active", verdicts
    with Store(site["db"]) as store:
        names = {store.bot(s.bot_id).identity.name for s in LadderBook(store, 1).submissions()
                 if s.bot_id is not None}
        assert names == {"random", "greedy", "expectimax", "alicebot"}


def test_a_look_alike_of_a_ladder_bot_is_refused_from_the_submissions_folder(site, tmp_path):
    impostor = Path(tmp_path / "impostor.py")
    impostor.write_text(GREEDY.replace('"greedy"', '"gr\u0435\u0435dy"'))
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", "league", str(impostor),
                                         "--db", str(site["db"])])
    assert submitted.exit_code == 0, submitted.output
    with Store(site["db"]) as store:
        number = max(s.id for s in LadderBook(store, 1).submissions())
    status, log = judged(site, [number])[number]
    assert status == "error" and "looks like the bot 'greedy'" in log, log
