"""The HTML report in a real browser: Debian's headless Chromium, driven by Selenium.

Skipped when Chromium, its driver (``apt-get install chromium chromium-driver``) or
Selenium is missing; this file installs nothing. The pages are the reports of the
tournaments in ``report_scenarios`` (2, 8 and 32 Seasons bots, four Sonnentau
players). Screenshots of each go to the test's folder, and also to the folder
named by ``ARENA_REPORT_SHOTS`` when it is set, to look at.
"""

from __future__ import annotations

import csv
import itertools
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_scenarios import EVIL, built

from arena.reports.html import asset, environment
from arena.reports.model import contrast

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium or its driver is not installed: apt-get install chromium chromium-driver")
webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium is not installed")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--disable-quic"]
WIDTH, HEIGHT = 1280, 900
TIMEOUT = 20
SHOTS = os.environ.get("ARENA_REPORT_SHOTS")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--window-size={WIDTH},{HEIGHT}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(TIMEOUT)
    driver.set_script_timeout(TIMEOUT)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    return {name: built(tmp_path_factory, name)[1]
            for name in ("seasons-2", "seasons-8", "seasons-32", "sonnentau-4")}


def load(browser: Any, page: Path, fragment: str = "", height: int = HEIGHT) -> Any:
    """Open ``page`` afresh (a new document even if only the fragment differs)."""
    browser.set_window_size(WIDTH, height)
    browser.get("about:blank")
    browser.get(page.as_uri() + fragment)
    return browser


def js(browser: Any, script: str, *args: Any) -> Any:
    return browser.execute_script(script, *args)


def rect(browser: Any, selector: str) -> dict[str, float]:
    box = js(browser, "var r = document.querySelector(arguments[0]).getBoundingClientRect();"
                      "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,"
                      " width: r.width, height: r.height};", selector)
    assert box, selector
    return box


def rgb_hex(css: str) -> str:
    """``rgb(78, 121, 167)`` as ``#4e79a7``."""
    found = re.match(r"rgba?\((\d+), (\d+), (\d+)", css)
    assert found, css
    return "#{:02x}{:02x}{:02x}".format(*map(int, found.groups()))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["left"] < b["right"] and b["left"] < a["right"]
            and a["top"] < b["bottom"] and b["top"] < a["bottom"])


def save_shot(browser: Any, path: Path) -> Path:
    assert browser.save_screenshot(str(path))
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(SHOTS) / path.name)
    return path


def leaderboard_colours(browser: Any) -> dict[str, str]:
    """Bot index -> its dot's colour in the leaderboard."""
    return js(browser, """
        var out = {};
        document.querySelectorAll('#leaderboard-table tr[data-bot]').forEach(function (tr) {
          out[tr.dataset.bot] = getComputedStyle(tr.querySelector('.dot')).backgroundColor;
        });
        return out;""")


# -- the page -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["seasons-2", "seasons-8", "seasons-32", "sonnentau-4"])
def test_the_page_runs_its_script_without_errors_or_dialogs(browser, pages, name):
    load(browser, pages[name])
    root = js(browser, "var d = document.documentElement.dataset;"
                       "return [d.reportReady, d.reportError || '', d.alerted || ''];")
    assert root == ["ok", "", ""]
    assert js(browser, "return document.scripts.length") == 3  # none came from bot text
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_hostile_names_and_failure_details_are_shown_as_text(browser, pages):
    load(browser, pages["seasons-2"])
    seats = js(browser, "return document.getElementById('seat-panel').textContent")
    assert EVIL in seats  # the viewer wrote the name with textContent
    pre = js(browser, "return document.querySelector('#endings pre').textContent")
    assert "about to fail <script>alert('crash')</script>" in pre
    assert js(browser, "return document.querySelectorAll('#endings script').length") == 0


# -- 1. game numbers and links ---------------------------------------------------------------


def viewer_state(browser: Any) -> dict[str, Any]:
    return js(browser, """
        var v = document.getElementById('game-viewer'), r = v.getBoundingClientRect();
        return {game: v.dataset.game, move: v.dataset.move, moves: v.dataset.moves,
                top: r.top, scrolled: window.scrollY, height: window.innerHeight,
                select: document.getElementById('game-select').value,
                result: document.getElementById('game-result').textContent,
                notation: document.getElementById('notation').textContent,
                counter: document.getElementById('move-counter').textContent};""")


def settled_viewer_state(browser: Any, settled: Any, seconds: float = 3.0) -> dict[str, Any]:
    """The viewer's state once ``settled(state)`` holds (or after ``seconds``): a click on a
    link to the game already open changes nothing before its hashchange event runs."""
    deadline = time.monotonic() + seconds
    state = viewer_state(browser)
    while not settled(state) and time.monotonic() < deadline:
        time.sleep(0.05)
        state = viewer_state(browser)
    return state


def test_a_game_link_opens_that_game_and_scrolls_the_viewer_into_view(browser, pages):
    load(browser, pages["seasons-8"], "#game=3&move=2")
    state = viewer_state(browser)
    assert (state["game"], state["move"], state["select"]) == ("3", "2", "3")
    assert state["scrolled"] > 0 and 0 <= state["top"] < state["height"] / 3
    assert state["result"].startswith("Game 3 · ")
    assert re.match(r"2\. seat \d: ", state["notation"])
    assert state["counter"] == f"move 2 / {state['moves']}"
    js(browser, "window.scrollTo(0, 0); location.hash = '#game=5';")
    state = viewer_state(browser)
    assert (state["game"], state["move"]) == ("5", "0")
    assert state["scrolled"] > 0 and 0 <= state["top"] < state["height"] / 3


def test_stepping_writes_a_one_based_link(browser, pages):
    load(browser, pages["seasons-8"])
    assert viewer_state(browser)["game"] == "1"
    js(browser, "document.body.focus()")
    browser.find_element("css selector", "[data-step=next]").click()
    browser.find_element("css selector", "[data-step=next]").click()
    assert js(browser, "return location.hash") == "#game=1&move=2"


# -- 6. moves: the log's lines, one count for list, slider and counter ------------------------


def a_whole_game(browser: Any, page: Path) -> dict[str, Any]:
    """The viewer's data of a game of ``page`` played to its end, opened in the viewer."""
    load(browser, page)
    game = js(browser, "return JSON.parse(document.getElementById('report-data').textContent)"
                       ".games.find(function (g) { return g.t === 'normal'; })")
    load(browser, page, f"#game={game['no']}")
    return game


def test_the_move_list_is_the_log_and_counts_what_the_slider_counts(browser, pages):
    log = a_whole_game(browser, pages["seasons-8"])["n"]
    items = js(browser, "return Array.from(document.querySelectorAll('#move-list li'))"
                        ".map(function (li) { return [li.dataset.move,"
                        " li.querySelector('.move-text').textContent]; })")
    slider = js(browser, "return Number(document.getElementById('move-slider').max)")
    assert slider == len(log) - 1 == len(items) - 1
    assert items[0] == ["0", "Start position"]
    for (number, text), line in zip(items[1:], log[:-1], strict=True):
        assert line == f"{number}. {text}"  # the log's line, as arena play prints it
    browser.find_element("css selector", '#move-list li[data-move="4"] button').click()
    state = viewer_state(browser)
    assert state["move"] == "4" and state["notation"] == log[3]
    assert js(browser, "return document.getElementById('move-slider').value") == "4"
    js(browser, "var s = document.getElementById('move-slider'); s.value = 7;"
                "s.dispatchEvent(new Event('input'));")
    assert viewer_state(browser)["notation"] == log[6]
    current = js(browser, "return document.querySelector('#move-list li.current').dataset.move")
    assert current == "7"


# -- 7. the start entry reads well --------------------------------------------------------------


def text_contrast(browser: Any, selector: str) -> float:
    colours = js(browser, """
        var text = document.querySelector(arguments[0]);
        var node = text, background = 'rgba(0, 0, 0, 0)';
        while (node && /rgba\\(0, 0, 0, 0\\)|transparent/.test(background)) {
          background = getComputedStyle(node).backgroundColor; node = node.parentElement;
        }
        return [getComputedStyle(text).color, background];""", selector)
    return contrast(*(rgb_hex(colour) for colour in colours))


def test_the_start_entry_is_readable_when_current_and_when_not(browser, pages):
    load(browser, pages["seasons-8"])
    start = '#move-list li[data-move="0"] .move-text'
    assert js(browser, f"return document.querySelector('{start}').closest('li')"
                       ".classList.contains('current')")
    assert text_contrast(browser, start) >= 4.5
    browser.find_element("css selector", "[data-step=next]").click()
    assert text_contrast(browser, start) >= 4.5
    assert text_contrast(browser, '#move-list li.current .move-text') >= 4.5


# -- 4. score bars ----------------------------------------------------------------------------


def bars(browser: Any) -> list[dict[str, Any]]:
    return js(browser, """
        return Array.from(document.querySelectorAll('#leaderboard-table .score-cell')).map(
          function (cell) {
            var bar = cell.querySelector('.score-bar').getBoundingClientRect();
            var fill = cell.querySelector('.score-fill');
            var value = cell.querySelector('.score-value');
            return {score: Number(cell.dataset.sort), bar: bar.width,
                    fill: fill.getBoundingClientRect().width,
                    colour: getComputedStyle(fill).backgroundColor,
                    track: getComputedStyle(cell.querySelector('.score-bar')).backgroundColor,
                    text: value.textContent, label: value.getBoundingClientRect().width,
                    visible: getComputedStyle(value).visibility};
          });""")


def assert_bars_show_their_scores(found: list[dict[str, Any]]) -> None:
    assert found
    for bar in found:
        assert bar["label"] > 10 and bar["visible"] == "visible" and "%" in bar["text"]
        if bar["score"] > 0:
            assert bar["fill"] >= 2
            assert bar["fill"] == pytest.approx(max(2, bar["score"] * bar["bar"]), abs=1.5)
            assert rgb_hex(bar["colour"]) != rgb_hex(bar["track"])
        else:
            assert bar["fill"] == 0


@pytest.mark.parametrize("name", ["seasons-2", "seasons-8", "seasons-32"])
def test_every_score_bar_shows_its_value(browser, pages, name):
    load(browser, pages[name])
    assert_bars_show_their_scores(bars(browser))


def test_score_bars_at_51_7_and_1_percent_are_not_empty(browser, tmp_path):
    """The scores of the user report, in the report's own markup and style."""
    page = environment().from_string(
        '{% from "macros.html.j2" import score_bar %}<!doctype html><html><head>'
        "<style>{{ css }}</style></head><body><table id=\"leaderboard-table\"><tbody>"
        "{% for score in scores %}<tr><td class=\"score-cell\" data-sort=\"{{ score }}\">"
        "{{ score_bar(score, '%.1f %%'|format(100 * score), '#4e79a7') }}</td></tr>"
        "{% endfor %}</tbody></table></body></html>").render(
            css=asset("report.css"), scores=[0.517, 0.01, 0.0, 1.0])
    path = tmp_path / "bars.html"
    path.write_text(page, encoding="utf-8")
    load(browser, path)
    found = bars(browser)
    assert [bar["text"] for bar in found] == ["51.7 %", "1.0 %", "0.0 %", "100.0 %"]
    assert_bars_show_their_scores(found)


# -- 2. pair-matrix headers ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["seasons-8", "seasons-32"])
def test_pair_matrix_headers_are_distinct_and_not_cut(browser, pages, name):
    load(browser, pages[name])
    heads = js(browser, """
        return Array.from(document.querySelectorAll('#pair-matrix th.col')).map(function (th) {
          var name = th.querySelector('.col-name');
          return {text: th.innerText.replace(/\\s+/g, ' ').trim(), title: th.title,
                  cut: name.scrollHeight > name.clientHeight + 1
                       || name.scrollWidth > name.clientWidth + 1};
        });""")
    rows = js(browser, "return Array.from(document.querySelectorAll('#pair-matrix th.row'))"
                       ".map(function (th) { return th.querySelector('.key').innerText + ' '"
                       " + th.querySelector('.row-name').innerText; })")
    assert len(heads) == len(rows) == int(name.split("-")[1])
    assert len({head["text"] for head in heads}) == len(heads)
    for number, (head, row) in enumerate(zip(heads, rows, strict=True), 1):
        label = head["title"].split(". ", 1)[1]
        assert not head["cut"] and head["text"] == f"{label} {number}"
        assert row == f"{number} {label}"


# -- 5. charts ------------------------------------------------------------------------------------


def chart_labels(browser: Any, chart: str) -> list[dict[str, float]]:
    return js(browser, """
        var svg = document.querySelector('svg.chart-' + arguments[0]);
        var box = svg.getBoundingClientRect();
        return Array.from(svg.querySelectorAll('g[id^="' + arguments[0] + '-label-"]'))
          .map(function (g) {
            var r = g.getBoundingClientRect();
            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                    inside: r.left >= box.left && r.right <= box.right + 1
                            && r.top >= box.top && r.bottom <= box.bottom + 1,
                    text: g.textContent};
          });""", chart)


@pytest.mark.parametrize(("name", "named"), [("seasons-2", 2), ("seasons-8", 5),
                                             ("seasons-32", 5)])
def test_chart_labels_do_not_overlap(browser, pages, name, named):
    load(browser, pages[name])
    for chart, expected in (("progress", named), ("versions", min(8, int(name.split("-")[1])))):
        labels = chart_labels(browser, chart)
        assert len(labels) == expected, chart
        assert all(label["inside"] and label["right"] > label["left"] for label in labels)
        for a, b in itertools.combinations(labels, 2):
            assert not overlaps(a, b), (chart, a["text"], b["text"])
    faint = js(browser, "return document.querySelectorAll("
                        "'svg.chart-progress g[id^=\"progress-line-\"] title').length")
    assert faint == int(name.split("-")[1])  # every line tells its bot on hover


# -- 8 and 10. the two circles, in the bots' colours ---------------------------------------------


def test_the_seasons_board_is_two_circles_in_the_bots_colours(browser, pages):
    load(browser, pages["seasons-8"], "#game=1&move=4")
    colours = leaderboard_colours(browser)
    seats = js(browser, "return JSON.parse(document.getElementById('report-data').textContent)"
                        ".games[0].s")
    board = rect(browser, "svg.seasons-board")
    centre = ((board["left"] + board["right"]) / 2, (board["top"] + board["bottom"]) / 2)
    fields = js(browser, """
        return Array.from(document.querySelectorAll('svg.seasons-board g.field')).map(
          function (g) {
            var r = g.querySelector('path').getBoundingClientRect();
            return {seat: Number(g.dataset.seat), sector: Number(g.dataset.sector),
                    x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2,
                    state: g.getAttribute('class'), text: g.textContent.trim(),
                    fill: getComputedStyle(g.querySelector('path')).fill};
          });""")
    assert len(fields) == 22
    distance = {(f["seat"], f["sector"]): ((f["x"] - centre[0]) ** 2
                                           + (f["y"] - centre[1]) ** 2) ** 0.5 for f in fields}
    assert all(distance[0, i] > distance[1, i] for i in range(11))  # seat 0 outside
    filled = [f for f in fields if f["text"]]
    assert filled and any("placed" in f["state"] for f in fields)
    for field in fields:
        if "won" in field["state"]:
            assert rgb_hex(field["fill"]) == rgb_hex(colours[str(seats[field["seat"]])])
    swatches = js(browser, "return Array.from(document.querySelectorAll('#seat-panel .swatch'))"
                           ".map(function (s) { return getComputedStyle(s).backgroundColor; })")
    assert [rgb_hex(c) for c in swatches] == [rgb_hex(colours[str(b)]) for b in seats]


# -- 9 and 10. Sonnentau: the explanation beside the board, pieces in the bots' colours ----------


def test_sonnentau_explanation_stays_beside_the_board(browser, pages):
    load(browser, pages["sonnentau-4"], "#game=2&move=6")
    board, notation = rect(browser, ".board svg"), rect(browser, "#notation")
    assert notation["left"] >= board["right"] and notation["top"] < board["bottom"]
    for box in (board, notation):  # both in view once the link has scrolled to them
        assert box["top"] >= 0 and box["bottom"] <= HEIGHT
    assert re.match(r"6\. seat \d rolls ", viewer_state(browser)["notation"])


def test_sonnentau_pieces_and_seats_have_their_bots_colours(browser, pages):
    load(browser, pages["sonnentau-4"], "#game=1&move=20")
    colours = leaderboard_colours(browser)
    seats = js(browser, "return JSON.parse(document.getElementById('report-data').textContent)"
                        ".games[0].s")
    pieces = js(browser, """
        return Array.from(document.querySelectorAll('#piece-layer g.piece')).map(function (g) {
          return [Number(g.dataset.seat), g.querySelector('circle.ball').getAttribute('fill')];
        });""")
    assert {seat for seat, _ in pieces} == set(range(4))
    for seat, fill in pieces:
        assert fill == rgb_hex(colours[str(seats[seat])])
    swatches = js(browser, "return Array.from(document.querySelectorAll('#seat-panel .swatch'))"
                           ".map(function (s) { return getComputedStyle(s).backgroundColor; })")
    assert [rgb_hex(c) for c in swatches] == [rgb_hex(colours[str(b)]) for b in seats]


# -- crash details -------------------------------------------------------------------------------


def test_a_failure_links_to_its_game_in_the_viewer(browser, pages):
    load(browser, pages["seasons-2"])
    link = browser.find_element("css selector", "#failures-1 .failure-games a")
    number = link.text
    link.click()
    state = settled_viewer_state(browser, lambda s: 0 <= s["top"] < s["height"] / 3)
    assert state["game"] == number and state["move"] == "0"
    assert 0 <= state["top"] < state["height"] / 3
    assert "crash" in state["result"] and state["result"].startswith(f"Game {number} · ")


# -- screenshots -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["seasons-2", "seasons-8", "seasons-32", "sonnentau-4"])
def test_screenshots_show_the_whole_page_and_the_viewer(browser, pages, name, tmp_path):
    from PIL import Image, ImageStat

    load(browser, pages[name])
    height = js(browser, "return document.documentElement.scrollHeight")
    load(browser, pages[name], height=min(height, 16000))
    whole = save_shot(browser, tmp_path / f"report-{name}.png")
    load(browser, pages[name], "#game=2&move=5")
    viewer = save_shot(browser, tmp_path / f"report-{name}-viewer.png")
    for shot in (whole, viewer):
        with Image.open(shot) as image:
            assert image.width == WIDTH and max(ImageStat.Stat(image.convert("L")).stddev) > 20


def test_a_link_to_a_game_the_viewer_does_not_hold_says_so_and_changes_nothing(browser, pages):
    load(browser, pages["seasons-32"], "#game=5000&move=2")
    note = js(browser, "var n = document.getElementById('viewer-note');"
                       "return [n.hidden, n.textContent];")
    assert note == [False, "Game 5000 is not in this viewer: it holds the games listed in its "
                           "menu."]
    assert (viewer_state(browser)["game"], viewer_state(browser)["move"]) == ("1", "0")
    js(browser, "location.hash = '#game=3&move=4';")
    assert (viewer_state(browser)["game"], viewer_state(browser)["move"]) == ("3", "4")
    js(browser, "location.hash = '#game=5000&move=2';")
    state = settled_viewer_state(browser, lambda s: False, seconds=0.5)
    assert (state["game"], state["move"], state["select"]) == ("3", "4", "3")


# -- 32 bots: every game opens, every column shows --------------------------------------------


def loaded_game(browser: Any, number: int) -> dict[str, Any]:
    """The viewer's state once game ``number`` is open (its part's file read first)."""
    return settled_viewer_state(browser, lambda s: s["game"] == str(number), seconds=10)


def test_every_game_opens_its_part_read_from_beside_the_page(browser, pages):
    page = pages["seasons-32"]
    total = games_of(page)
    assert total > 900 and (page.parent / "report-games" / "part-4.js").is_file()
    load(browser, page, "#game=900&move=2")
    state = loaded_game(browser, 900)
    assert (state["move"], state["select"]) == ("2", "900")
    assert state["result"].startswith("Game 900 · ")
    menu = js(browser, "var s = document.getElementById('game-select'), p ="
                       " document.getElementById('game-part'); return [p.value,"
                       " s.options[0].value, s.options[s.options.length - 1].value];")
    assert menu == ["3", "601", "900"]
    assert js(browser, "return document.scripts.length") == 3  # the part's script is gone
    assert js(browser, "return document.documentElement.dataset.reportReady") == "ok"
    js(browser, "var p = document.getElementById('game-part'); p.value = '4';"
                "p.dispatchEvent(new Event('change'));")
    assert loaded_game(browser, 901)["select"] == "901"
    js(browser, f"location.hash = '#game={total}&move=1';")
    state = loaded_game(browser, total)
    assert state["move"] == str(min(1, int(state["moves"])))  # the last game, after a move
    js(browser, "location.hash = '#game=2';")  # back in the page's own part
    assert loaded_game(browser, 2)["select"] == "2"
    assert js(browser, "return document.getElementById('game-part').value") == "1"


def games_of(page: Path) -> int:
    """How many games a report's tournament has (its games.csv's rows)."""
    with (page.parent / "games.csv").open(encoding="utf-8", newline="") as rows:
        return sum(1 for _ in csv.DictReader(rows))


def test_a_report_without_its_folder_says_which_file_is_missing(browser, pages, tmp_path):
    alone = tmp_path / "report.html"
    shutil.copy(pages["seasons-32"], alone)
    load(browser, alone, "#game=3&move=1")
    js(browser, "location.hash = '#game=700&move=2';")
    state = settled_viewer_state(browser, lambda s: "could not" in note_text(browser))
    assert note_text(browser) == ("Game 700 could not be loaded: its file report-games/part-3.js"
                                  " is not beside this page (keep the folder report-games with "
                                  "the report).")
    assert (state["game"], state["move"]) == ("3", "1")


def note_text(browser: Any) -> str:
    return js(browser, "return document.getElementById('viewer-note').textContent")


def test_the_pair_matrix_of_32_bots_shows_every_column_at_1280_px(browser, pages):
    load(browser, pages["seasons-32"])
    found = js(browser, """
        var table = document.getElementById('pair-matrix'), box = table.parentElement;
        var frame = box.getBoundingClientRect();
        var heads = Array.from(table.querySelectorAll('th.col'));
        var names = Array.from(table.querySelectorAll('th.row .row-name'));
        return {scroll: box.scrollWidth, client: box.clientWidth, columns: heads.length,
                shown: heads.filter(function (th) {
                  var r = th.getBoundingClientRect();
                  return r.left >= frame.left && r.right <= frame.right; }).length,
                cut: names.filter(function (n) { return n.scrollWidth > n.clientWidth + 1; })
                          .map(function (n) { return n.textContent; })};""")
    assert found == {"scroll": found["client"], "client": found["client"], "columns": 32,
                     "shown": 32, "cut": []}


def test_a_pair_matrix_cell_opens_the_pair_s_first_game(browser, pages):
    load(browser, pages["seasons-32"])
    found = js(browser, """
        function number(a) { return Number(a.getAttribute('href').split('=')[1]); }
        var link = Array.from(document.querySelectorAll('#pair-matrix td.pair a')).sort(
          function (a, b) { return number(b) - number(a); })[0];  /* the latest pair */
        var row = link.closest('tr'), column = Array.from(row.cells).indexOf(link.parentElement);
        var head = document.querySelectorAll('#pair-matrix th.col')[column - 1];
        link.click();
        return {game: number(link),
                bots: [row.querySelector('.row-name').textContent,
                       head.querySelector('.col-name').textContent]};""")
    state = loaded_game(browser, found["game"])
    assert found["game"] > 300  # in a later part
    assert state["result"].startswith(f"Game {found['game']} · ")
    seats = js(browser, "return document.getElementById('seat-panel').textContent")
    assert all(label in seats for label in found["bots"])


def test_a_game_link_by_key_opens_a_game_of_a_later_part(browser, pages):
    """``report.html#game=KEY`` (the key `arena run -v` names) found only the games the
    page held: a later part's said "not in this viewer"."""
    page = pages["seasons-32"]
    with (page.parent / "games.csv").open(encoding="utf-8", newline="") as rows:
        keys = [row["game"] for row in csv.DictReader(rows)]
    for number in (700, len(keys), 2):
        load(browser, page, f"#game={keys[number - 1]}&move=1")
        state = loaded_game(browser, number)
        assert state["result"].startswith(f"Game {number} · ") and state["move"] == "1"
    load(browser, page, "#game=r99-t0-s0-o0")
    settled_viewer_state(browser, lambda s: "not in this viewer" in note_text(browser))
    assert note_text(browser).startswith("Game r99-t0-s0-o0 is not in this viewer")


def test_a_malformed_game_link_is_said_so(browser, pages):
    """``#game=%E0%A4%A`` (a broken escape) showed game 1 without a word."""
    browser.get_log("browser")  # what earlier tests left in the shared browser's log
    load(browser, pages["seasons-8"], "#game=%E0%A4%A")
    settled_viewer_state(browser, lambda s: "no game or move" in note_text(browser))
    assert note_text(browser) == "The link's %E0%A4%A is no game or move this viewer reads."
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
