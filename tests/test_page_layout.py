"""Every page at 390 px (a phone) and at 1280 px, in Chromium: measured, not only looked at.

At both widths, on every report page (the reports of 2, 8 and 32 Seasons bots, of four
Sonnentau players, of a Swiss tournament; a game's page; ``arena view``'s page) and every
page of ``arena serve`` (start, leaderboard, bot, game, compare, sign-in, register, submit,
``/me``, a submission, organizer):

- the page does not scroll sideways (``scrollWidth`` against ``clientWidth``), and no
  element reaches past the window but inside a box that scrolls on its own;
- the column a leaderboard ranks by is inside the window and its table's visible box,
  with the bots' names, however far the table is scrolled;
- chart text is 11 px or more as drawn (an SVG's text size times its scale), and so is
  the text of the boards (the Sonnentau board's once enlarged: it has ~100 fields).

A phone is Chromium's device emulation (``Emulation.setDeviceMetricsOverride``, 390 px wide,
``mobile``): headless Chromium keeps a window at least 500 px wide. Screenshots go to the
test's folder and to ``ARENA_REPORT_SHOTS`` when it is set. Skipped, as
``test_report_browser`` is (whose fixture and helpers this uses), without Chromium, its
driver or Selenium.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_report_browser as report_browser  # without Selenium, it skips this module too
import yaml
from report_scenarios import built
from test_report_browser import js, save_shot

from arena.cli.export import replay_page_html
from arena.reports.game_page import game_page_html
from arena.reports.replay import to_replay
from arena.results.ladder_book import LadderBook
from arena.results.store import Store
from arena.server.participants import add_participant
from arena.tournaments.ladder import LadderControl, run_ladder
from arena.tournaments.ladder_config import load_ladder_config

browser = report_browser.browser  # headless Chromium, one for the module
pytestmark = pytest.mark.skipif(
    report_browser.CHROMIUM is None or report_browser.CHROMEDRIVER is None,
    reason="Chromium or its driver is not installed: apt-get install chromium chromium-driver")

ROOT = Path(__file__).resolve().parent.parent
PHONE, WINDOW = 390, 1280
WIDTHS = (PHONE, WINDOW)
SMALLEST_TEXT = 11.0
"""Pixels: chart and board text is at least this high as drawn."""
REPORTS = ("seasons-2", "seasons-8", "seasons-32", "sonnentau-4", "swiss-5")


@contextmanager
def width(driver: Any, pixels: int) -> Iterator[Any]:
    """The browser as a phone ``pixels`` wide (device emulation), or as a 1280 px window."""
    if pixels == WINDOW:
        driver.set_window_size(WINDOW, report_browser.HEIGHT)
        yield driver
        return
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": pixels, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        yield driver
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def open_page(driver: Any, url: str) -> None:
    driver.get("about:blank")
    driver.get(url)


# -- what is measured --------------------------------------------------------------------------

OVERFLOW = """
/* The page's width and what reaches past the window (outside any box that scrolls). */
var root = document.documentElement, inside = root.clientWidth, out = [];
function scrolls(node) {
  for (var p = node.parentElement; p && p !== document.body; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== 'visible') return true;
  }
  return false;
}
document.querySelectorAll('body *').forEach(function (node) {
  var box = node.getBoundingClientRect();
  if (box.width && (box.right > inside + 0.5 || box.left < -0.5) && !scrolls(node)) {
    out.push(node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + '.' +
             (node.getAttribute('class') || '') + ' ' + Math.round(box.left) + '..' +
             Math.round(box.right));
  }
});
return {scroll: root.scrollWidth, client: inside, past: out.slice(0, 8)};
"""

TEXT_SIZES = """
/* The height of the smallest text drawn in each visible SVG matching arguments[0] (its
   font size times the SVG's scale), leaving out text outside the SVG's own box (cut off). */
var found = [];
document.querySelectorAll(arguments[0]).forEach(function (svg) {
  var frame = svg.getBoundingClientRect();
  if (!frame.width || getComputedStyle(svg).display === 'none') return;
  var smallest = Infinity, count = 0;
  svg.querySelectorAll('text').forEach(function (text) {
    var box = text.getBoundingClientRect();
    if (!text.textContent.trim() || !box.width || box.right < frame.left ||
        box.left > frame.right || box.bottom < frame.top || box.top > frame.bottom) return;
    var m = text.getScreenCTM();
    var scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    var size = parseFloat(getComputedStyle(text).fontSize) * scale;
    smallest = Math.min(smallest, size);
    count += 1;
  });
  found.push({svg: svg.getAttribute('class') || svg.id, smallest: smallest, texts: count});
});
return found;
"""

CLIPPED_TEXT = """
/* Texts of the visible charts that reach past their chart's box. */
var out = [];
document.querySelectorAll('svg.chart').forEach(function (svg) {
  var frame = svg.getBoundingClientRect();
  if (!frame.width) return;
  svg.querySelectorAll('text').forEach(function (text) {
    var box = text.getBoundingClientRect();
    if (box.width && (box.left < frame.left - 1 || box.right > frame.right + 1 ||
                      box.top < frame.top - 1 || box.bottom > frame.bottom + 1)) {
      out.push(text.textContent);
    }
  });
});
return out;
"""

RANKED = """
/* Each body row of table arguments[0]: whether its cell arguments[1] (of the column the
   table ranks by) and its cell arguments[2] (the bot) are inside the window and inside the
   visible box of the table's scroller, with the scroller at its left end and at its right. */
var table = document.querySelector(arguments[0]), rank = arguments[1], bot = arguments[2];
var scroller = table.parentElement;
while (scroller !== document.body && getComputedStyle(scroller).overflowX === 'visible') {
  scroller = scroller.parentElement;
}
function shown(cell) {
  var box = cell.getBoundingClientRect(), frame = scroller.getBoundingClientRect();
  return box.width > 0 && box.left >= Math.max(0, frame.left) - 1 &&
         box.right <= Math.min(document.documentElement.clientWidth, frame.right) + 1;
}
var result = {rows: table.querySelectorAll(rank).length, hidden: []};
[0, 1e6].forEach(function (left) {
  scroller.scrollLeft = left;
  Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
    if (!row.querySelector('td')) return;  /* a row of headers */
    var ranked = row.querySelector(rank), named = row.querySelector(bot);
    /* both shown, and the ranking column not under the bot's (a column kept in view) */
    if (!ranked || !named || !shown(ranked) || !shown(named) ||
        ranked.getBoundingClientRect().left < named.getBoundingClientRect().right - 1) {
      result.hidden.push(row.textContent.trim().slice(0, 40) + ' @' + left);
    }
  });
});
scroller.scrollLeft = 0;
return result;
"""


CUT_OFF = """
/* Elements whose text runs past their own box where that box hides it (no scrolling),
   and table cells whose text spills over their neighbours. */
var out = [];
document.querySelectorAll('body *').forEach(function (node) {
  var style = getComputedStyle(node);
  var cell = node.tagName === 'TD' || node.tagName === 'TH';
  if (node.clientWidth && node.scrollWidth > node.clientWidth + 1 &&
      (style.overflowX === 'hidden' || style.overflowX === 'clip' || cell) &&
      !(node instanceof SVGElement)) {
    out.push(node.tagName.toLowerCase() + '.' + (node.getAttribute('class') || '') + ' ' +
             node.clientWidth + '<' + node.scrollWidth + ' ' +
             node.textContent.trim().slice(0, 30));
  }
});
return out.slice(0, 8);
"""


SMALL_TEXT = """
/* Visible HTML elements whose own text is set below arguments[0] px. */
var out = [], least = arguments[0];
document.querySelectorAll('body *').forEach(function (node) {
  if (node instanceof SVGElement || !node.getClientRects().length) return;
  var own = Array.prototype.some.call(node.childNodes, function (child) {
    return child.nodeType === 3 && child.textContent.trim();
  });
  var size = parseFloat(getComputedStyle(node).fontSize);
  if (own && size < least) {
    out.push(node.tagName.toLowerCase() + '.' + (node.getAttribute('class') || '') + ' ' +
             size + 'px ' + node.textContent.trim().slice(0, 20));
  }
});
return out.slice(0, 8);
"""


def assert_fits(driver: Any, what: str) -> None:
    found = js(driver, OVERFLOW)
    assert found["scroll"] <= found["client"], (what, found)
    assert found["past"] == [], (what, found)
    assert js(driver, CUT_OFF) == [], what
    assert js(driver, SMALL_TEXT, SMALLEST_TEXT) == [], what


def assert_charts_readable(driver: Any, what: str, selector: str = "svg.chart") -> int:
    """Every visible chart's text is 11 px or more and inside the chart; how many charts."""
    charts = js(driver, TEXT_SIZES, selector)
    for chart in charts:
        assert chart["texts"] and chart["smallest"] >= SMALLEST_TEXT, (what, chart)
    assert js(driver, CLIPPED_TEXT) == [], what
    return len(charts)


def assert_ranked_shown(driver: Any, table: str, rank: str, bot: str) -> None:
    """The ranking column's cells and the bots' names are in view, however the table is
    scrolled."""
    found = js(driver, RANKED, table, rank, bot)
    assert found["rows"] and found["hidden"] == [], (table, found)


# -- report pages ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_pages(tmp_path_factory) -> dict[str, Path]:
    """The reports of the scenarios, a game's page and ``arena view``'s page, as files."""
    pages = {name: built(tmp_path_factory, name)[1] for name in REPORTS}
    db = built(tmp_path_factory, "sonnentau-4")[0]
    folder = tmp_path_factory.mktemp("pages")
    with Store(db) as store:
        tournament = store.find_tournament("sonnentau-4")
        rows = list(store.games(tournament.id))
        pages["game-page"] = folder / "game.html"
        pages["game-page"].write_text(game_page_html(store, tournament, rows[1].key),
                                      encoding="utf-8")
        replays = folder / "replays.jsonl"
        replays.write_text("".join(json.dumps(to_replay(store.record(tournament.id, row.key)))
                                   + "\n" for row in rows[:3]), encoding="utf-8")
    pages["arena-view"] = folder / "view.html"
    pages["arena-view"].write_text(replay_page_html(replays), encoding="utf-8")
    return pages


@pytest.mark.parametrize("pixels", WIDTHS)
@pytest.mark.parametrize("name", [*REPORTS, "game-page", "arena-view"])
def test_a_report_page_fits_the_screen_and_its_text_reads(browser, report_pages, name, pixels,
                                                          tmp_path):
    with width(browser, pixels):
        open_page(browser, report_pages[name].as_uri())
        assert js(browser, "return document.documentElement.dataset.reportReady") == "ok"
        assert_fits(browser, name)
        if name in REPORTS:
            assert assert_charts_readable(browser, name) == 2  # the wide pair or the narrow
            assert_ranked_shown(browser, "#leaderboard-table", "td.rank-key", "td.bot")
        if js(browser, "return !!document.querySelector('svg.seasons-board')"):
            assert assert_charts_readable(browser, name, "svg.seasons-board") == 1
        save_shot(browser, tmp_path / f"{name}-{pixels}.png")


def test_the_games_of_a_bot_with_a_long_name_fit_a_phone_in_the_viewer(browser, report_pages):
    """A game's result line names its winner: a 64-character name without a break ran
    124 px past a 390 px window (only the first game was measured)."""
    with width(browser, 390):
        open_page(browser, report_pages["seasons-8"].as_uri())
        games = js(browser, """return Array.from(document.querySelectorAll(
            '#game-select option')).filter(function (o) {
              return o.textContent.indexOf('placetobreak') >= 0; })
            .map(function (o) { return parseInt(o.value, 10); });""")
        assert len(games) == 42, games  # 7 opponents, 3 sets of 2 games
        for game in games[:12]:
            js(browser, f"location.hash = '#game={game}&move=999'")
            deadline = time.monotonic() + 5
            while js(browser, "return document.getElementById('game-result').textContent")\
                    .find(f"Game {game} ") < 0:
                assert time.monotonic() < deadline, game
                time.sleep(0.02)
            assert_fits(browser, f"game {game}")


@pytest.mark.parametrize("pixels", WIDTHS)
def test_the_enlarged_sonnentau_board_reads_and_scrolls_in_its_own_box(browser, report_pages,
                                                                        pixels, tmp_path):
    with width(browser, pixels):
        open_page(browser, report_pages["sonnentau-4"].as_uri() + "#game=1&move=20")
        button = browser.find_element("id", "board-zoom")
        assert button.text == "Enlarge the board"
        button.click()
        assert button.text == "Fit the board"
        assert assert_charts_readable(browser, "sonnentau", ".board svg") == 1
        assert_fits(browser, "the enlarged board")
        moved = js(browser, """var box = document.querySelector('.board').getBoundingClientRect();
            var ring = document.querySelector('#piece-layer circle[fill=none]')
                                .getBoundingClientRect();
            return ring.left >= box.left && ring.right <= box.right
                   && ring.top >= box.top && ring.bottom <= box.bottom;""")
        assert moved  # the last move's piece in view
        save_shot(browser, tmp_path / f"sonnentau-enlarged-{pixels}.png")
        button.click()
        assert js(browser, "return document.querySelector('.board').classList.contains("
                           "'zoomed')") is False


# -- server pages -----------------------------------------------------------------------------

LONG = "greedywithanameaslongastheycomeandnoplacetobreakitatallxxxxxx"
"""A bot name that does not fit a phone's width unbroken, and offers no place to break
(a submission's name may have 64 characters)."""
ORGANIZER = "W" * 64
"""The organizer's name, in every signed-in page's header and the organizer's table: the
widest letter, as many as a participant's name may have."""
WIDE_LADDER = "M" * 64
"""A second ladder's name, in every page's header (not played)."""


def build_site(folder: Path) -> dict[str, Any]:
    """A Seasons ladder of three bots after two rounds (their names long, one very), played
    here (the bots in arena's process), its server config (the ladder not run by the
    server), a second ladder not played yet, and the organizer with their token."""
    greedy = str(ROOT / "bots/seasons/greedy.py")
    ladder = {"name": "league", "game": "seasons", "seed": 5, "workers": 1,
              "isolation": "none", "db": str(folder / "arena.db"),
              "bots": [{"spec": str(ROOT / "bots/seasons/random_bot.py"),
                        "name": "random-opponent"}, {"spec": greedy, "name": LONG},
                       {"spec": greedy, "name": "greedy-the-second"}]}
    (folder / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (folder / "wide.yaml").write_text(yaml.safe_dump({**ladder, "name": WIDE_LADDER}))
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "title": "Layout league", "ladders": ["ladder.yaml", "wide.yaml"],
        "run_ladders": False,
        "invite_code": "let-me-in-please"}))
    config = load_ladder_config(folder / "ladder.yaml")
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=2))
        boss, token = add_participant(store, ORGANIZER, organizer=True)
        row = store.find_tournament("league")
        book = LadderBook(store, row.id)
        for submission in book.submissions():  # /me lists them, the long name among them
            book.record_submitter(submission.id, boss.id)
        game = next(iter(store.games(row.id))).key
    return {"folder": folder, "token": token, "game": game}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[dict[str, Any]]:
    """``arena serve`` of :func:`build_site`'s ladder on a free port."""
    found = build_site(tmp_path_factory.mktemp("site"))
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve",
                               str(found["folder"] / "serve.yaml"), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              cwd=found["folder"], start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, server.communicate()[1]
            assert time.monotonic() < deadline, "the server did not answer in 30 s"
            time.sleep(0.2)
        yield {**found, "base": base}
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)


SIGNED_OUT = {"index": "/", "leaderboard": "/ladders/league",
              "bot": f"/ladders/league/bots/{LONG}", "game": "/ladders/league/games/{game}",
              "compare": f"/ladders/league/compare?a={LONG}@1.0&b=greedy-the-second@1.0",
              "sign-in": "/signin", "register": "/register"}
SIGNED_IN = {"submit": "/submit", "me": "/me", "submission": "/submissions/2",
             "organizer": "/organizer"}


def sign_in(driver: Any, base: str, token: str) -> None:
    open_page(driver, f"{base}/signin")
    driver.find_element("id", "token").send_keys(token)
    driver.find_element("id", "signin").click()
    deadline = time.monotonic() + 20
    while driver.current_url != f"{base}/":
        assert time.monotonic() < deadline, driver.current_url
        time.sleep(0.1)


def server_page_fits(driver: Any, name: str, url: str, pixels: int, shots: Path) -> None:
    """The page fits the screen, nothing in it scrolls sideways but the game's viewer (the
    report's, measured with the reports), and its charts read."""
    with width(driver, pixels):
        open_page(driver, url)
        assert js(driver, "return document.title") and "404" not in driver.title, name
        assert_fits(driver, name)
        scrolled = js(driver, """return Array.from(document.querySelectorAll('main .card'))
            .filter(function (card) { return card.scrollWidth > card.clientWidth + 1; })
            .map(function (card) { return card.textContent.trim().slice(0, 60); });""")
        assert scrolled == [], (name, scrolled)  # every column in view, none cut off
        if name == "leaderboard":
            assert_ranked_shown(driver, "#leaderboard", "td.rank-key", "td:nth-child(2)")
        if name == "bot":
            assert assert_charts_readable(driver, name) == 1
        save_shot(driver, shots / f"serve-{name}-{pixels}.png")


@pytest.mark.parametrize("pixels", WIDTHS)
def test_every_server_page_fits_the_screen(browser, site, pixels, tmp_path):
    base = site["base"]
    browser.delete_all_cookies()
    for name, path in SIGNED_OUT.items():
        server_page_fits(browser, name, base + path.format(game=site["game"]), pixels, tmp_path)
    sign_in(browser, base, site["token"])
    try:
        for name, path in SIGNED_IN.items():
            server_page_fits(browser, name, base + path, pixels, tmp_path)
    finally:
        browser.delete_all_cookies()
