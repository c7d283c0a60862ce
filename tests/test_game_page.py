"""One stored game on a page of its own (arena.reports.game_page), in the report's viewer.

The games are played for real and quickly (bots in-process): a Seasons pairing of a
greedy bot and a crasher whose name and failure text try to be HTML, a short Sonnentau
game of three bots, and a Seasons tournament with a secret seed that is not complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape
from report_crasher import HOSTILE
from report_scenarios import CRASHER, EVIL

from arena.referee.record import game_log
from arena.reports.game_page import game_page_html, game_row
from arena.reports.html import render_html
from arena.reports.model import build_model
from arena.reports.viewer import game_view, layout
from arena.results.store import GameRow, Store, StoreError, TournamentRow
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

try:  # the browser test reuses the report's browser fixture and helpers
    from test_report_browser import CHROMEDRIVER, CHROMIUM, browser, js, load  # noqa: F401
except pytest.skip.Exception:  # Selenium is missing: that module skips itself on import
    CHROMIUM = CHROMEDRIVER = None

ROOT = Path(__file__).resolve().parent.parent
GREEDY = "bots/seasons/greedy.py"
SEASONS = {"name": "page-seasons", "game": "seasons", "seed": 3, "games_per_pairing": 3,
           "bots": [GREEDY, {"spec": CRASHER, "name": EVIL}]}
SONNENTAU = {"name": "page-sonnentau", "game": "sonnentau", "seed": 9, "seats": 3,
             "options": {"turn_limit": 40},
             "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                      {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"}]}
SECRET = {"name": "page-secret", "game": "seasons", "seed": "secret",
          "bots": [GREEDY, "bots/seasons/random_bot.py"]}
SCRIPTS = re.compile(r"<script\b", re.IGNORECASE)
ENDS = re.compile(r"</script", re.IGNORECASE)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """The three tournaments in one database; the secret one is marked running again."""
    path = tmp_path_factory.mktemp("game-page") / "arena.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with Store(path) as store:
            for data in (SEASONS, SONNENTAU, SECRET):
                run_tournament(parse_config({**data, "workers": 1, "isolation": "none",
                                             "db": str(path)}), store)
            store.set_status(store.find_tournament(SECRET["name"]).id, "running")
    return path


@pytest.fixture
def store(db) -> Any:
    with Store(db) as opened:
        yield opened


def rows_of(store: Store, name: str) -> tuple[TournamentRow, list[GameRow]]:
    tournament = store.find_tournament(name)
    return tournament, list(store.games(tournament.id))


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      page, re.DOTALL)
    assert found
    return json.loads(found[1])


def crashed(rows: list[GameRow]) -> GameRow:
    row = next((row for row in rows if "crash" in row.statuses), None)
    assert row is not None, "the crasher should have crashed in a game of an odd seed"
    return row


# -- what the page shows --------------------------------------------------------------------


@pytest.mark.parametrize("name", [SEASONS["name"], SONNENTAU["name"]])
def test_the_page_shows_the_seats_result_and_embeds_that_game_alone(store, name):
    tournament, rows = rows_of(store, name)
    row = rows[len(rows) // 2]
    record = store.record(tournament.id, row.key)
    page = game_page_html(store, tournament, row.key)
    labels = [store.bot(bot).label for bot in store.entrants(tournament.id)]
    for seat, entrant in enumerate(row.seats):
        assert escape(labels[entrant]) in page
        assert f'<tr data-seat="{seat}" data-bot="{entrant}"' in page
    scores = "-".join(f"{score:g}" for score in row.scores)
    assert scores in page and f"<dd>{row.termination}</dd>" in page
    assert f"<dd>{row.seed}</dd>" in page  # the seed of a public tournament is shown
    data = page_data(page)
    view = game_view(record, row, 1, labels)  # the seats by their labels
    assert data["games"] == [view]  # exactly that game, as the report's viewer has it
    assert any(labels[bot] in view["n"][-1] for bot in row.seats)
    assert data["game"] == tournament.game and data["games"][0]["k"] == row.key
    assert {int(position): bot["label"] for position, bot in data["bots"].items()} == {
        entrant: labels[entrant] for entrant in row.seats}  # the bots it seats, by position
    assert data["layout"] == {k: v for k, v in layout(record).items() if k != "svg"}
    assert f"<dd>{len(view['z'])}</dd>" in page  # moves as the viewer counts them
    assert len(game_log(record)) == len(view["z"]) + 1
    assert 'id="game-viewer"' in page and 'data-report-ready="loading"' in page
    assert len(SCRIPTS.findall(page)) == 3 and 'data-scripts="3"' in page
    assert "http://" not in page.replace("http://www.w3.org/", "") and "https://" not in page


def test_the_viewer_markup_and_data_are_the_reports(store):
    """The page shows a game with the report's viewer: the same board, bots and game data."""
    tournament, rows = rows_of(store, SONNENTAU["name"])
    report = render_html(store, build_model(store, tournament))
    page = game_page_html(store, tournament, rows[1].key)
    board = re.compile(r'<div class="board board-sonnentau".*?</div>', re.DOTALL)
    found = board.search(page), board.search(report)
    assert found[0] and found[1] and found[0][0] == found[1][0]
    report_game = page_data(report)["games"][1]
    assert page_data(page)["games"][0] == {**report_game, "no": 1}
    assert page_data(page)["bots"] == {str(entrant): page_data(report)["bots"][entrant]
                                       for entrant in rows[1].seats}


def test_title_and_back_link(store):
    tournament, rows = rows_of(store, SEASONS["name"])
    key = rows[0].key
    page = game_page_html(store, tournament, key)
    assert f"<h1>Game {key}</h1>" in page and 'id="back-link"' not in page
    page = game_page_html(store, tournament, key, title="Final <1>",
                          back_link=("/t/1?a=1&b=2", "All <games>"))
    assert "<h1>Final &lt;1&gt;</h1>" in page
    assert '<a class="back" id="back-link" href="/t/1?a=1&amp;b=2">← All &lt;games&gt;</a>' in page


def test_a_game_is_found_by_its_key_only(store):
    tournament, rows = rows_of(store, SONNENTAU["name"])
    for row in rows:
        assert game_row(store, tournament, row.key) == row
    other = store.find_tournament(SEASONS["name"])
    for key in ("r0-t99-s0-o0", "r7-t0-s0-o0", "game 1", "", "r0-t0-s0-o0 "):
        with pytest.raises(StoreError, match="no game"):
            game_page_html(store, tournament, key)
    with pytest.raises(StoreError, match="no game"):  # a key of another tournament's shape
        game_page_html(store, other, "r0-t5-s0-o0")


# -- what bots supplied is text, and failure details are the owner's ------------------------------


def test_a_hostile_name_and_failure_detail_are_escaped(store):
    tournament, rows = rows_of(store, SEASONS["name"])
    row = crashed(rows)
    page = game_page_html(store, tournament, row.key, detail_seats=range(4))
    assert EVIL not in page and escape(EVIL) in page
    assert HOSTILE not in page and escape(HOSTILE) in page  # in the detail, escaped
    assert len(SCRIPTS.findall(page)) == 3 and len(ENDS.findall(page)) == 3
    data = page_data(page)  # the name reaches the script as JSON, no "<" in it
    assert EVIL in {bot["label"].split("@")[0] for bot in data["bots"].values()}


def test_failure_details_are_hidden_unless_asked_for(store):
    tournament, rows = rows_of(store, SEASONS["name"])
    row = crashed(rows)
    seat = row.statuses.index("crash")
    detail = row.details[seat] or store.record(tournament.id, row.key).seats[seat].detail
    assert "act() raised KeyError" in detail and "report_crasher.py" in detail
    hidden = game_page_html(store, tournament, row.key)
    assert "crash" in hidden  # the status is everyone's
    for text in ("act() raised", "KeyError", "report_crasher.py", "Traceback", "'crash'",
                 "&#39;crash&#39;"):
        assert text not in hidden
    assert 'class="seat-failure"' not in hidden
    shown = game_page_html(store, tournament, row.key, detail_seats=range(4))
    assert f'<tr class="seat-failure" data-seat="{seat}">' in shown
    assert escape("act() raised KeyError") in shown and "report_crasher.py" in shown
    ok = next(r for r in rows if "crash" not in r.statuses)  # nothing to show where none failed
    clean = game_page_html(store, tournament, ok.key, detail_seats=range(4))
    assert 'class="seat-failure"' not in clean


def test_a_secret_seed_is_not_shown_before_the_tournament_is_complete(store):
    tournament, rows = rows_of(store, SECRET["name"])
    assert tournament.secret and tournament.status == "running"
    for row in rows[:2]:
        page = game_page_html(store, tournament, row.key, detail_seats=range(4))
        assert str(row.seed) not in page and str(tournament.seed) not in page
        assert "<dt>seed</dt><dd>secret</dd>" in page
    store.set_status(tournament.id, "complete")
    try:
        done = store.find_tournament(SECRET["name"])
        assert f"<dt>seed</dt><dd>{rows[0].seed}</dd>" in game_page_html(store, done,
                                                                         rows[0].key)
    finally:
        store.set_status(tournament.id, "running")


# -- in a browser -----------------------------------------------------------------------------


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                    reason="Chromium, its driver or Selenium is not installed")
@pytest.mark.parametrize("name", [SEASONS["name"], SONNENTAU["name"]])
def test_the_viewer_steps_to_the_last_move_in_a_browser(store, browser, tmp_path, name):
    tournament, rows = rows_of(store, name)
    row = crashed(rows) if name == SEASONS["name"] else rows[-1]
    path = tmp_path / "game.html"
    path.write_text(game_page_html(store, tournament, row.key, back_link=("index.html", "back"),
                                   detail_seats=range(4)), encoding="utf-8")
    load(browser, path)
    assert js(browser, "var d = document.documentElement.dataset;"
                       "return [d.reportReady, d.reportError || '', d.alerted || ''];"
              ) == ["ok", "", ""]
    assert js(browser, "return document.scripts.length") == 3
    labels = [store.bot(bot).label for bot in store.entrants(tournament.id)]
    log = game_log(store.record(tournament.id, row.key), [labels[bot] for bot in row.seats])
    browser.find_element("css selector", "[data-step=last]").click()
    state = js(browser, """
        var v = document.getElementById('game-viewer');
        return {game: v.dataset.game, move: v.dataset.move, moves: v.dataset.moves,
                counter: document.getElementById('move-counter').textContent,
                notation: document.getElementById('notation').textContent,
                seats: document.getElementById('seat-panel').textContent,
                hash: location.hash};""")
    last = len(log) - 1
    assert (state["game"], state["move"], state["moves"]) == ("1", str(last), str(last))
    assert state["counter"] == f"move {last} / {last}"
    assert state["notation"] == f"{log[-2]}\n{log[-1]}"  # the last move, then the result
    assert state["hash"] == f"#game=1&move={last}"
    labels = [store.bot(bot).label for bot in store.entrants(tournament.id)]
    assert all(labels[entrant] in state["seats"] for entrant in row.seats)
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
