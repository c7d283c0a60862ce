"""arena serve's security headers: a strict Content-Security-Policy, no framing, no
sniffing, a same-origin referrer, and no-store for what is a signed-in participant's
(the token page among it); and, in Chromium, that another origin cannot frame the
organizer's page while the real pages still work under the policy."""

from __future__ import annotations

import base64
import hashlib
import http.server
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_server import client, csrf_of, signed_in, site  # noqa: F401 - the fixtures

from arena.results.store import Store
from arena.server.app import create_app
from arena.tournaments.ladder import find_ladder

COMMON = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
          "referrer-policy": "same-origin"}
PUBLIC = ["/", "/healthz", "/signin", "/register", "/ladders/league",
          "/ladders/league/bots/greedy", "/ladders/league/compare",
          "/ladders/league/compare?a=greedy@1.0&b=steady@1.0", "/ladders/nope",
          "/api/ladders/league/leaderboard", "/api/ladders/league/bots/greedy",
          "/api/ladders/nope/leaderboard", "/submit", "/organizer", "/submissions/1",
          "/api/submissions/1"]
INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.S)


@pytest.fixture(scope="module")
def game_key(site) -> str:  # noqa: F811
    with Store(site["db"]) as store:
        return next(store.games(find_ladder(store, "league").id)).key


def policy_of(reply: Any) -> dict[str, list[str]]:
    """The Content-Security-Policy, as directive -> its sources."""
    found: dict[str, list[str]] = {}
    for part in reply.headers["content-security-policy"].split(";"):
        name, *sources = part.split()
        assert name not in found, f"{name} twice"
        found[name] = sources
    return found


def check_headers(reply: Any, what: str) -> dict[str, list[str]]:
    for name, value in COMMON.items():
        assert reply.headers.get(name) == value, (what, name, reply.headers)
    assert len(reply.headers.get_list("content-security-policy")) == 1, what
    policy = policy_of(reply)
    assert policy["default-src"] == ["'none'"], what
    assert policy["frame-ancestors"] == ["'none'"], what
    assert policy["base-uri"] == ["'none'"], what
    for name, sources in policy.items():
        assert "*" not in sources and "'unsafe-eval'" not in sources, (what, name)
        assert "'unsafe-inline'" not in sources or name == "style-src-attr", (what, name)
    return policy


def every_path(key: str) -> list[str]:
    return [*PUBLIC, f"/ladders/league/games/{key}", f"/api/ladders/league/games/{key}",
            "/ladders/league/games/r9-x"]


def test_every_page_and_api_answer_carries_the_security_headers(client, site, game_key):  # noqa: F811
    for path in every_path(game_key):
        check_headers(client.get(path), f"GET {path}")
    check_headers(client.head("/ladders/league"), "HEAD")
    check_headers(client.post("/signin", data={"token": "x"}), "POST without csrf")
    too_large = client.post("/api/submissions", content=b"x",
                            headers={"content-length": str(1 << 30)})
    assert too_large.status_code == 413
    check_headers(too_large, "413")
    signed_in(client, site["tokens"]["boss"])
    for path in [*every_path(game_key), "/submissions/1"]:
        check_headers(client.get(path), f"GET {path} signed in")
    check_headers(client.get("/api/submissions/1",
                             headers={"Authorization": f"Bearer {site['tokens']['alice']}"}),
                  "the API with a token")


def test_only_the_game_page_allows_script_and_style_attributes(client, game_key):  # noqa: F811
    page = policy_of(client.get("/ladders/league"))
    assert page["script-src"] == ["'none'"] and "style-src-attr" not in page
    assert page["form-action"] == ["'self'"] and page["img-src"] == ["data:"]
    game = policy_of(client.get(f"/ladders/league/games/{game_key}"))
    assert game["style-src-attr"] == ["'unsafe-inline'"]
    assert len(game["script-src"]) == 2 and all(s.startswith("'sha256-")
                                                 for s in game["script-src"])
    assert all(s.startswith("'sha256-") for s in game["style-src"] + page["style-src"])


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_policy_names_each_inline_block_of_a_page_by_its_hash(client, site, game_key):  # noqa: F811
    signed_in(client, site["tokens"]["boss"])
    for path in ["/", "/ladders/league", "/ladders/league/bots/greedy", "/organizer",
                 f"/ladders/league/games/{game_key}", "/ladders/nope"]:
        reply = client.get(path)
        policy = policy_of(reply)
        blocks = INLINE.findall(reply.text)
        assert blocks, path
        for tag, body in blocks:
            assert sha256(body) in policy[f"{tag}-src"], (path, tag, body[:80])
        if "games" not in path:  # the server's own pages need no style attribute
            assert not re.search(r"<[^>]+\sstyle=", reply.text), path
    # a block that is not the page's own runs nowhere
    assert sha256("alert(1)") not in client.get(
        f"/ladders/league/games/{game_key}").headers["content-security-policy"]


def test_anonymous_public_pages_may_be_cached_but_a_participants_pages_may_not(
        client, site, game_key):  # noqa: F811
    for path in ("/", "/ladders/league", f"/ladders/league/games/{game_key}",
                 "/api/ladders/league/leaderboard"):
        assert "no-store" not in client.get(path).headers.get("cache-control", ""), path
    signed_in(client, site["tokens"]["alice"])
    for path in [*every_path(game_key), "/submit", "/submissions/1"]:
        assert client.get(path).headers.get("cache-control") == "no-store", path
    client.cookies.clear()
    bearer = {"Authorization": f"Bearer {site['tokens']['alice']}"}
    for path in ("/api/submissions/1", "/api/ladders/league/leaderboard"):
        assert client.get(path, headers=bearer).headers.get("cache-control") == "no-store"


def test_head_answers_as_get_does_on_the_form_pages(client, site):  # noqa: F811
    """HEAD took the POST branch of /signin, /register and /submit: 403, as a forged form."""
    client.cookies.clear()
    for path in ("/signin", "/register"):
        assert client.head(path).status_code == client.get(path).status_code == 200, path
    signed_in(client, site["tokens"]["alice"])
    assert client.head("/submit").status_code == 200
    client.cookies.clear()


def test_the_token_page_is_never_stored(client):  # noqa: F811
    joined = client.post("/register", data={"name": "headers-erin", "invite": "let-me-in-please",
                                            "csrf": csrf_of(client, "/register")})
    assert joined.status_code == 200 and 'id="token">headers-erin.' in joined.text
    assert joined.headers["cache-control"] == "no-store"
    check_headers(joined, "the token page")


def test_a_server_error_page_carries_the_headers_too(site, monkeypatch):  # noqa: F811
    from arena.server import pages

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the store broke")

    monkeypatch.setattr(pages.Boards, "_fresh", broken)
    with TestClient(create_app(site["config"]), raise_server_exceptions=False) as test_client:
        for path in ("/ladders/league", "/api/ladders/league/leaderboard"):
            reply = test_client.get(path)
            assert reply.status_code == 500 and "something went wrong" in reply.text, path
            check_headers(reply, f"500 of {path}")
    with TestClient(create_app(site["config"])) as test_client, \
            pytest.raises(RuntimeError, match="the store broke"):
        test_client.get("/ladders/league")  # still raised for the server to log


# -- in Chromium ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium (as ``test_report_browser``'s), keeping the console's log."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        pytest.skip("Chromium or its driver is not installed: "
                    "apt-get install chromium chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium is not installed")
    from selenium.webdriver.chrome.service import Service
    from test_report_browser import FLAGS, TIMEOUT

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*FLAGS, "--window-size=1280,900"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(driver))
    browser.set_page_load_timeout(TIMEOUT)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def live(site) -> Iterator[str]:  # noqa: F811
    """The app under uvicorn on a free port of 127.0.0.1, in a thread."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(site["config"]), host="127.0.0.1",
                                           port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def framer(live, tmp_path_factory) -> Iterator[str]:
    """Another origin (another port of 127.0.0.1, so the same site: the session cookie
    goes along) whose page frames the organizer's page, beside a page of its own."""
    folder = tmp_path_factory.mktemp("framer")
    (folder / "own.html").write_text("<!doctype html><p id=own>framed fine</p>")
    (folder / "frame.html").write_text(
        "<!doctype html><title>win a prize</title>"
        f'<iframe id="victim" src="{live}/organizer" width="900" height="500"></iframe>'
        '<iframe id="own" src="/own.html"></iframe>')

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(10)


def sign_in(browser: Any, base: str, token: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    browser.delete_all_cookies()
    browser.get(f"{base}/signin")
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.ID, "signin").click()
    WebDriverWait(browser, 20).until(lambda b: b.current_url == f"{base}/")


def in_frame(browser: Any, frame_id: str, script: str) -> Any:
    browser.switch_to.frame(browser.find_element("id", frame_id))
    try:
        return browser.execute_script(script)
    finally:
        browser.switch_to.default_content()


def test_another_origin_cannot_frame_the_organizers_page(chromium, live, framer, site):  # noqa: F811
    sign_in(chromium, live, site["tokens"]["boss"])
    chromium.get(f"{live}/organizer")
    assert chromium.find_elements("css selector", "form[action='/organizer']")  # signed in
    chromium.get_log("browser")  # the console from here on
    chromium.get(f"{framer}/frame.html")
    time.sleep(1.0)
    assert in_frame(chromium, "own", "return document.getElementById('own').textContent"
                    ) == "framed fine"  # a frame the browser allows is read thus
    victim = in_frame(chromium, "victim", "return [location.href, document.querySelectorAll("
                                          "'form, button').length, document.body ? "
                                          "document.body.innerText : '']")
    assert not victim[0].startswith(live) and victim[1] == 0, victim
    assert "Freeze" not in victim[2] and "Organizer" not in victim[2]
    refusals = [entry["message"] for entry in chromium.get_log("browser")]
    assert any(f"Framing '{live}/'" in message and "\"frame-ancestors 'none'\"" in message
               for message in refusals), refusals


def test_the_pages_work_under_the_policy_with_no_violation(chromium, live, site, game_key):  # noqa: F811
    from selenium.webdriver.common.by import By

    def console() -> list[str]:
        return [entry["message"] for entry in chromium.get_log("browser")
                if entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"]]

    def styled() -> Any:
        return chromium.execute_script(
            "var h = document.querySelector('header'), s = document.querySelector("
            "'header .spacer'); return [getComputedStyle(h).backgroundColor,"
            " s ? getComputedStyle(s).flexGrow : null]")

    chromium.delete_all_cookies()
    chromium.get(f"{live}/")
    console()
    for path in ("/", "/ladders/league", "/ladders/league/bots/greedy", "/signin",
                 "/register", "/ladders/league/compare?a=greedy@1.0&b=steady@1.0"):
        chromium.get(f"{live}{path}")
        assert styled() == ["rgb(28, 47, 110)", "1"], path  # the hashed <style> applies
        assert console() == [], path
    sign_in(chromium, live, site["tokens"]["boss"])
    for path in ("/submit", "/organizer", "/ladders/league"):
        chromium.get(f"{live}{path}")
        assert styled() == ["rgb(28, 47, 110)", "1"], path
    assert console() == []

    chromium.get(f"{live}/ladders/league/games/{game_key}")
    state = chromium.execute_script("var d = document.documentElement.dataset;"
                                    "return [d.reportReady, d.reportError || '', d.alerted"
                                    " || '']")
    assert state == ["ok", "", ""]  # both hashed scripts ran
    dot = chromium.execute_script("return getComputedStyle(document.querySelector("
                                  "'#seats-table .dot')).backgroundColor")
    assert dot not in ("", "rgba(0, 0, 0, 0)")  # a style attribute applies there
    chromium.find_element(By.CSS_SELECTOR, "[data-step=last]").click()
    viewer = chromium.execute_script("var v = document.getElementById('game-viewer');"
                                     "return [v.dataset.move, v.dataset.moves,"
                                     " document.getElementById('move-counter').textContent]")
    assert viewer[0] == viewer[1] and int(viewer[1]) > 0
    assert viewer[2] == f"move {viewer[1]} / {viewer[1]}"
    chromium.find_element(By.CSS_SELECTOR, "[data-step=prev]").click()
    assert chromium.execute_script("return document.getElementById('game-viewer')"
                                   ".dataset.move") == str(int(viewer[1]) - 1)
    assert console() == []


def test_secure_cookies_send_the_session_over_https_only(site):  # noqa: F811
    import dataclasses

    config = dataclasses.replace(site["config"], secure_cookies=True)
    with TestClient(create_app(config), base_url="https://testserver",
                    follow_redirects=False) as https:
        signed_in(https, site["tokens"]["alice"])
        cookie = next(c for c in https.cookies.jar if c.name == "__Host-arena_session")
        assert cookie.secure and cookie.path == "/" and not cookie.domain_specified
        reply = https.get("/me")
        assert reply.status_code == 200 and "alice" in reply.text
        assert reply.headers["strict-transport-security"] == "max-age=31536000"
        # the same cookie over plain HTTP is not sent
        with TestClient(create_app(config), follow_redirects=False) as plain:
            plain.cookies.jar.set_cookie(cookie)
            assert plain.get("/me", follow_redirects=False).status_code in (302, 303)
    with TestClient(create_app(site["config"]), follow_redirects=False) as default:
        signed_in(default, site["tokens"]["alice"])
        assert [c.secure for c in default.cookies.jar] == [False]
        assert "strict-transport-security" not in default.get("/").headers
