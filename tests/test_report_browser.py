"""The HTML report in a real browser: Debian's headless Chromium renders it.

Skipped when Chromium is not installed (``apt-get install chromium``); this file
installs nothing. Each Chromium call has a timeout of 20 seconds.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from arena.reports import write_reports
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="Chromium is not installed: apt-get install chromium")
ROOT = Path(__file__).resolve().parent.parent
EVIL = "<script>alert(1)<script>"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
TIMEOUT = 20


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A small Seasons tournament with a bot named like a script; its report.html."""
    base = tmp_path_factory.mktemp("browser")
    db = base / "arena.db"
    config = {"name": "browser-seasons", "game": "seasons", "seed": 2, "workers": 1,
              "games_per_pairing": 2, "db": str(db),
              "bots": ["bots/seasons/greedy.py",
                       {"spec": "bots/seasons/random_bot.py", "name": EVIL}]}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with Store(db) as store:
            run_tournament(parse_config(config), store)
            paths = write_reports(store, store.find_tournament("browser-seasons"), base / "out")
    return paths[-1]


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)


def dump_dom(page: Path, fragment: str = "") -> str:
    result = chromium("--dump-dom", page.as_uri() + fragment)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<html" in result.stdout, result.stderr[-2000:]
    return result.stdout


def tag_attributes(dom: str, element_id: str) -> dict[str, str]:
    """The attributes of the element with ``element_id``."""
    found = re.search(rf'<\w+[^>]*\sid="{element_id}"[^>]*>', dom)
    assert found, f"no element #{element_id}"
    return dict(re.findall(r'([\w-]+)="([^"]*)"', found[0]))


@pytest.fixture(scope="module")
def dom(report) -> str:
    return dump_dom(report)


def test_the_page_loads_its_script_without_errors_or_dialogs(dom):
    root = tag_attributes(dom, "report-data")  # the data is there
    assert root["type"] == "application/json"
    html = re.search(r"<html[^>]*>", dom)
    assert html and 'data-report-ready="ok"' in html[0], html[0] if html else dom[:300]
    assert "data-alerted" not in html[0]
    assert dom.count("<script") == 3  # no script element came from user text


def test_the_leaderboard_matrix_and_charts_render(dom):
    leaderboard = dom.split('id="leaderboard-table"')[1].split("</table>")[0]
    assert leaderboard.count("<tr data-bot=") == 2
    assert 'tabindex="0"' in leaderboard  # the sortable headers are wired up
    matrix = dom.split('id="pair-matrix"')[1].split("</table>")[0]
    assert matrix.count('class="pair"') == 2
    assert re.search(r'<svg [^>]*class="chart chart-progress"', dom)
    assert re.search(r'<svg [^>]*class="chart chart-versions"', dom)


def test_the_viewer_opens_the_first_game_at_the_start(dom):
    viewer = tag_attributes(dom, "game-viewer")
    assert (viewer["data-game-index"], viewer["data-move"]) == ("0", "0")
    moves = int(viewer["data-moves"])
    assert moves > 20
    move_list = dom.split('id="move-list"')[1].split("</ol>")[0]
    assert move_list.count("data-move=") == moves + 1
    assert re.search(r'class="move start current" data-move="0"', move_list)
    position = dom.split('id="position"')[1]
    assert 'class="circles"' in position and position.count('class="empty"') >= 22
    assert "Start of the game." in dom


def test_a_link_opens_a_game_at_a_move(report, dom):
    stepped = dump_dom(report, "#game=2&move=10")
    viewer = tag_attributes(stepped, "game-viewer")
    assert (viewer["data-game-index"], viewer["data-move"]) == ("2", "10")
    assert re.search(r'class="move[^"]* current" data-move="10"', stepped)
    notation = re.search(r'id="notation"[^>]*>([^<]*)<', stepped)
    assert notation and notation[1].startswith("move 10: ")
    assert stepped.split('id="position"')[1] != dom.split('id="position"')[1]


def test_a_bot_named_like_a_script_is_shown_as_text(dom):
    escaped = "&lt;script&gt;alert(1)&lt;script&gt;"
    leaderboard = dom.split('id="leaderboard-table"')[1].split("</table>")[0]
    assert re.search(r"<td[^>]*>.*?" + re.escape(escaped), leaderboard, re.S)
    assert "<script>alert(1)" not in dom
    seats = dom.split('id="seat-panel"')[1].split('id="position"')[0]
    assert escaped in seats  # the viewer wrote the name with textContent


def test_a_screenshot_shows_the_page(report, tmp_path):
    shot = tmp_path / "report.png"
    result = chromium(f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000  # a rendered page, not a blank one
