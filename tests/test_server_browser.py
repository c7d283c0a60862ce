"""``arena serve`` in a real browser (Debian's headless Chromium, driven by Selenium).

A participant added with ``arena serve users add`` signs in with their token, uploads a
bot through the submit form, watches the submission until the ladder (running beside the
server, its bots in the sandbox) has validated it and made it active, finds it on the
leaderboard, opens its page and one of its games, and steps the game's viewer to the end.

Skipped, as ``test_report_browser`` is (whose browser fixture and helpers this reuses),
when Chromium, its driver (``apt-get install chromium chromium-driver``) or Selenium is
missing; this file installs nothing. Screenshots of the leaderboard, the bot page and the
game go to the test's folder, and also to the folder named by ``ARENA_REPORT_SHOTS``.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import test_report_browser as report_browser  # without Selenium, it skips this module too
import yaml
from test_report_browser import js, save_shot

from arena.referee.record import GameRecord, game_log

browser = report_browser.browser  # its fixture: headless Chromium at 1280×900
pytestmark = pytest.mark.skipif(
    report_browser.CHROMIUM is None or report_browser.CHROMEDRIVER is None,
    reason="Chromium or its driver is not installed: apt-get install chromium chromium-driver")

ROOT = Path(__file__).resolve().parent.parent
LADDER = "web"
BOT = "browserbot"
WAIT = 120.0
"""Seconds to wait for the ladder: to validate the upload, and to play it a game."""
T = TypeVar("T")


@pytest.fixture
def served(tmp_path) -> Iterator[dict[str, Any]]:
    """``arena serve`` of a two-bot Seasons ladder on a free port, with participant alice;
    stopped with SIGINT (as Ctrl-C would), which must end it cleanly."""
    ladder = {"name": LADDER, "game": "seasons", "seed": 11, "workers": 1, "time_limit": 2,
              "db": str(tmp_path / "arena.db"),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    (tmp_path / "serve.yaml").write_text(yaml.safe_dump({"title": "Browser league",
                                                         "ladders": ["ladder.yaml"]}))
    added = subprocess.run([sys.executable, "-m", "arena", "serve", "users", "add", "alice",
                            "--db", ladder["db"]], capture_output=True, text=True, check=True,
                           cwd=tmp_path)
    token = added.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"alice\.\S+", token), added.stdout
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve",
                               str(tmp_path / "serve.yaml"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not up(base):
            assert server.poll() is None, server.communicate()[1]
            assert time.monotonic() < deadline, "the server did not answer in 30 s"
            time.sleep(0.2)
        yield {"base": base, "token": token}
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=90)
    assert server.returncode == 0, err
    assert f"{base}/" in out


def up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/api/ladders/{LADDER}/leaderboard", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def reload_until(driver: Any, found: Callable[[], T], what: str, seconds: float = WAIT) -> T:
    """``found()`` once it is truthy, reloading the page each second until it is."""
    deadline = time.monotonic() + seconds
    while True:
        value = found()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"after {seconds:.0f} s, still not {what}")
        time.sleep(1)
        driver.refresh()


def text_of(driver: Any, selector: str) -> str | None:
    """The text of the first element ``selector`` finds, or None (read in one script, so
    that a page refreshing itself cannot leave a stale element)."""
    return js(driver, "var e = document.querySelector(arguments[0]);"
                       "return e ? e.textContent.trim() : null;", selector)


def severe(driver: Any, base: str) -> list[dict[str, Any]]:
    """The console's errors since it was last read."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_a_participant_uploads_a_bot_and_follows_it_to_a_game(served, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.wait import WebDriverWait

    base = served["base"]
    wait = WebDriverWait(browser, 20)
    bot = tmp_path / f"{BOT}.py"
    bot.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace('"greedy"', f'"{BOT}"'))
    severe(browser, base)  # the console from here on

    # sign in with the token that `arena serve users add` printed
    browser.get(f"{base}/signin")
    browser.find_element(By.ID, "token").send_keys(served["token"])
    browser.find_element(By.ID, "signin").click()
    wait.until(lambda b: b.current_url == f"{base}/")
    assert "alice" in text_of(browser, "header") and "Submit a bot" in text_of(browser, "header")

    # upload the bot
    browser.get(f"{base}/submit")
    Select(browser.find_element(By.ID, "ladder")).select_by_visible_text(LADDER)
    browser.find_element(By.ID, "bot").send_keys(str(bot))
    browser.find_element(By.ID, "upload").click()
    wait.until(lambda b: re.fullmatch(rf"{base}/submissions/\d+", b.current_url))
    assert text_of(browser, "#status") in ("queued", "validating", "validated", "active")

    # the ladder validates it in the sandbox and lets it play
    def settled() -> str | None:
        status = text_of(browser, "#status")
        return status if status in ("active", "error") else None

    status = reload_until(browser, settled, "validated and active")
    assert status == "active", text_of(browser, "#log")
    label = text_of(browser, "#bot-link") or ""  # its name, version and revision
    assert re.fullmatch(rf"{BOT}@1\.0\+[0-9a-f]{{6}}", label), label

    # the leaderboard lists it once it has a rating
    browser.get(f"{base}/ladders/{LADDER}")
    reload_until(browser, lambda: label in (text_of(browser, "#leaderboard") or ""),
                 f"{label} on the leaderboard")
    save_shot(browser, tmp_path / "serve-leaderboard.png")
    browser.find_element(By.CSS_SELECTOR, "#leaderboard").find_element(
        By.LINK_TEXT, label).click()
    wait.until(lambda b: b.current_url == f"{base}/ladders/{LADDER}/bots/{BOT}")
    assert text_of(browser, "#versions").count(label) == 1

    # its page lists the games it has played
    link = reload_until(browser, lambda: js(browser, "var a = document.querySelector("
                                                     "'#recent a'); return a && a.href;"),
                        f"a game of {BOT} on its page")
    save_shot(browser, tmp_path / "serve-bot.png")
    key = link.rsplit("/", 1)[1]
    assert link == f"{base}/ladders/{LADDER}/games/{key}"
    browser.find_element(By.CSS_SELECTOR, "#recent a").click()
    wait.until(lambda b: b.current_url == link)
    assert severe(browser, base) == []

    # the game opens in the report's viewer, which steps to the last move and the result
    wait.until(lambda b: js(b, "return document.documentElement.dataset.reportReady")
               != "loading")
    assert js(browser, "var d = document.documentElement.dataset;"
                       "return [d.reportReady, d.reportError || '', d.alerted || ''];"
              ) == ["ok", "", ""]
    record = GameRecord.from_json(httpx.get(f"{base}/api/ladders/{LADDER}/games/{key}").json())
    log = game_log(record)
    browser.find_element(By.CSS_SELECTOR, "[data-step=last]").click()
    state = js(browser, """
        var v = document.getElementById('game-viewer');
        return {move: v.dataset.move, moves: v.dataset.moves,
                counter: document.getElementById('move-counter').textContent,
                notation: document.getElementById('notation').textContent,
                seats: document.getElementById('seat-panel').textContent,
                summary: document.getElementById('game-summary').textContent};""")
    last = len(log) - 1
    assert (state["move"], state["moves"]) == (str(last), str(last))
    assert state["counter"] == f"move {last} / {last}"
    move, result = state["notation"].split("\n")  # the last move, then the result
    assert move == log[-2] and "@" in result  # the result names the seats by their labels
    assert re.sub(r"\((\S+?)@\S+\)", r"(\1)", result) == log[-1]
    assert state["summary"].strip()
    assert any(seat.name == BOT for seat in record.seats)
    assert all(f"{seat.name}@{seat.version}" in state["seats"] for seat in record.seats)
    save_shot(browser, tmp_path / "serve-game.png")
    assert severe(browser, base) == []
