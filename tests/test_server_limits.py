"""arena serve's sign-in and registration limits, and its event loop kept free of hashing.

The limits count per client address, per participant name and on the whole server, and a
try is reserved before its token is hashed, so tries that arrive at once never get past a
limit; the address is the connection's own unless ``trusted_proxies`` names the proxy it
comes through. Hashes and upload checks run in worker threads, so ``/healthz`` stays fast
while tokens are checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_server
import yaml
from starlette.testclient import TestClient
from test_server import GREEDY, bearer, csrf_of, named

from arena.results.ladder_book import LadderBook
from arena.results.store import Store
from arena.server import app as server
from arena.server import connections as server_connections
from arena.server.app import SIGN_IN_FAILURES, create_app
from arena.server.config import client_key
from arena.server.participants import add_participant

site = test_server.site  # the fixture: a ladder of three bots, and four participants
INVITE = "let-me-in-please"  # the site's invite code


def addressed(app: Any) -> Any:
    """``app`` seen from the address a request's ``X-Test-Client`` header names."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        host = dict(scope.get("headers") or []).get(b"x-test-client")
        if scope["type"] == "http" and host:
            scope = dict(scope, client=(host.decode(), 50000))
        await app(scope, receive, send)

    return wrapped


def at(address: str, token: str | None = None) -> dict[str, str]:
    return {"X-Test-Client": address, **(bearer(token) if token else {})}


def register(http: TestClient, address: str, name: str, code: str = INVITE) -> httpx.Response:
    found = http.get("/register", headers=at(address))
    csrf = found.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    return http.post("/register", headers=at(address),
                     data={"name": name, "invite": code, "csrf": csrf})


# -- with Starlette's TestClient ---------------------------------------------------------


def test_a_hundred_wrong_tokens_at_once_are_hashed_no_more_than_the_limit(site, monkeypatch):
    from arena.server import participants

    hashed = []
    real = participants._hash
    monkeypatch.setattr(participants, "_hash", lambda *a: hashed.append(a) or real(*a))
    app = create_app(site["config"])

    async def at_once() -> list[int]:
        transport = httpx.ASGITransport(app=app, client=("10.1.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            replies = await asyncio.gather(*(
                http.get("/api/submissions/1", headers=bearer(f"someone{i}.wrong"))
                for i in range(100)))
        return [reply.status_code for reply in replies]

    codes = asyncio.run(at_once())
    assert len(hashed) <= SIGN_IN_FAILURES
    assert codes.count(401) == len(hashed) and codes.count(429) == 100 - len(hashed)


def test_uploads_sent_at_once_stay_within_the_hourly_limit(site, monkeypatch):
    """Twelve uploads at once, each slow to stage, from a participant allowed three an
    hour: three are queued, the others refused; none waited for another to be checked."""
    slow_stage = server.stage

    def stage(*args: Any, **kwargs: Any) -> int:
        time.sleep(0.05)  # the window in which a second upload was counted before the first
        return slow_stage(*args, **kwargs)

    monkeypatch.setattr(server, "stage", stage)
    with Store(site["db"]) as store:
        hasty, token = add_participant(store, "hasty")
    app = create_app(site["config"])

    async def at_once() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app, client=("10.1.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            known = await http.get("/api/submissions/1", headers=bearer(token))
            assert known.status_code == 404  # the token verified once, not twelve times
            return list(await asyncio.gather(*(
                http.post("/api/submissions", headers=bearer(token), data={"ladder": "league"},
                          files={"bot": (f"h{i}.py", named(GREEDY, f"hasty{i}"))})
                for i in range(12))))

    replies = asyncio.run(at_once())
    assert {reply.json()["error"] for reply in replies if reply.status_code == 400} == {
        "at most 3 submissions an hour; try again later"}
    assert sorted(reply.status_code for reply in replies) == [201] * 3 + [400] * 9
    with Store(site["db"]) as store:
        assert LadderBook(store, 1).submissions_since(hasty.id, 0) == 3


def test_no_ones_failures_lock_a_participant_out_and_a_verified_token_passes_every_limit(
        site, monkeypatch):
    """Ten wrong tokens for bob's name from ten addresses locked bob out (and ten more every
    five minutes kept him out); two hundred from anywhere locked everyone out, the organizer
    too. A token's secret is 192 random bits: no number of tries guesses it."""
    monkeypatch.setattr(server, "SIGN_IN_CEILING", 15)
    tokens = site["tokens"]
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        signed_in = http.get("/api/submissions/1", headers=at("10.2.9.1", tokens["alice"]))
        assert signed_in.status_code not in (401, 429)
        wrong = [http.get("/api/submissions/1", headers=at(f"10.2.0.{i}", "bob.wrong"))
                 .status_code for i in range(SIGN_IN_FAILURES)]
        assert wrong == [401] * SIGN_IN_FAILURES
        bob = http.get("/api/submissions/1", headers=at("10.2.1.1", tokens["bob"]))
        assert bob.status_code not in (401, 429)  # no lock for his name
        csrf = csrf_of(http)
        form = http.post("/signin", headers=at("10.2.1.2"),
                         data={"token": tokens["bob"], "csrf": csrf})
        assert form.status_code == 303
        flood = [http.get("/api/submissions/1", headers=at(f"10.2.2.{i}", f"x{i}.wrong"))
                 .status_code for i in range(10)]
        assert flood[-1] == 429  # over the server's ceiling
        nobody_yet = http.get("/api/submissions/1", headers=at("10.2.3.1", tokens["zoe"]))
        assert nobody_yet.status_code == 429  # a token not verified lately would be hashed
        for address in ("10.2.9.1", "10.2.0.1"):  # anywhere, even where failures came from
            again = http.get("/api/submissions/1", headers=at(address, tokens["alice"]))
            assert again.status_code not in (401, 429)


def test_an_address_is_locked_for_every_name_and_a_right_token_from_it_waits(site):
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        wrong = [http.get("/api/submissions/1", headers=at("10.3.0.1", f"guess{i}.wrong"))
                 .status_code for i in range(SIGN_IN_FAILURES)]
        assert wrong == [401] * SIGN_IN_FAILURES
        locked = http.get("/api/submissions/1", headers=at("10.3.0.1", site["tokens"]["zoe"]))
        assert locked.status_code == 429
        assert locked.json()["error"] == ("too many failed sign-ins from here; try again in "
                                          "5 minutes")
        elsewhere = http.get("/api/submissions/1",
                             headers=at("10.3.0.2", site["tokens"]["zoe"]))
        assert elsewhere.status_code not in (401, 429)


def test_an_ipv6_site_is_one_address_however_many_it_has(site):
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        wrong = [http.get("/api/submissions/1", headers=at(f"2001:db8:1:2::{i:x}",
                                                           f"guess{i}.wrong")).status_code
                 for i in range(SIGN_IN_FAILURES)]
        assert wrong == [401] * SIGN_IN_FAILURES
        same_site = http.get("/api/submissions/1",
                             headers=at("2001:db8:1:2:ffff:1:2:3", site["tokens"]["zoe"]))
        assert same_site.status_code == 429
        other_site = http.get("/api/submissions/1",
                              headers=at("2001:db8:1:3::1", site["tokens"]["zoe"]))
        assert other_site.status_code not in (401, 429)


@pytest.mark.parametrize(("host", "key"), [
    ("192.0.2.7", "192.0.2.7"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::", "2001:db8:1:2::/64"), ("::ffff:192.0.2.7", "192.0.2.7"),
    ("testclient", "testclient")])
def test_limits_count_an_ipv6_address_by_its_64_network(host, key):
    assert client_key(host) == key


def test_failed_sign_ins_have_a_ceiling_on_the_whole_server(site, monkeypatch):
    monkeypatch.setattr(server, "SIGN_IN_CEILING", 15)
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        wrong = [http.get("/api/submissions/1", headers=at(f"10.4.0.{i}", f"who{i}.wrong"))
                 .status_code for i in range(15)]
        assert wrong == [401] * 15
        ceiling = http.get("/api/submissions/1", headers=at("10.4.1.1", "fresh.wrong"))
        assert ceiling.status_code == 429
        assert "too many failed sign-ins on this server" in ceiling.json()["error"]


def test_wrong_invite_codes_count_as_failed_sign_ins(site):
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        wrong = [register(http, "10.5.0.1", "newcomer", f"not-the-code-{i}").status_code
                 for i in range(SIGN_IN_FAILURES)]
        assert wrong == [403] * SIGN_IN_FAILURES
        locked = register(http, "10.5.0.1", "newcomer")
        assert locked.status_code == 429 and "too many failed sign-ins from here" in locked.text
        form = http.post("/signin", headers=at("10.5.0.1"),
                         data={"token": site["tokens"]["alice"], "csrf": csrf_of(http)})
        assert form.status_code == 429
        assert register(http, "10.5.0.2", "newcomer").status_code == 200


def test_registrations_are_limited_per_address(site):
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        joined = [register(http, "10.6.0.1", f"sock{i}").status_code for i in range(4)]
        assert joined == [200, 200, 200, 429]
        again = register(http, "10.6.0.1", "sock9")
        assert again.status_code == 429
        assert "too many registrations from here; try again in 60 minutes" in again.text
        assert register(http, "10.6.0.2", "sock4").status_code == 200


def test_registrations_have_a_ceiling_on_the_whole_server(site, monkeypatch):
    monkeypatch.setattr(server, "REGISTRATIONS_CEILING", 4)
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        joined = [register(http, f"10.7.0.{i}", f"crowd{i}").status_code for i in range(5)]
        assert joined == [200, 200, 200, 200, 429]
        assert "too many registrations on this server" in register(
            http, "10.7.1.1", "crowd9").text


# -- under a real uvicorn ------------------------------------------------------------------


@contextlib.contextmanager
def serving(site: dict[str, Any], folder: Any, monkeypatch: Any,
            **settings: Any) -> Iterator[str]:
    """``arena serve``'s server (:func:`arena.server.service.serve`, under uvicorn, in a
    thread) for the site's ladder (its games not run) on a free port; its URL."""
    import uvicorn

    from arena.server.config import load_serve_config
    from arena.server.service import serve

    servers: list[uvicorn.Server] = []

    class Kept(uvicorn.Server):  # serve()'s server, so that the test can stop it
        def __init__(self, config: uvicorn.Config) -> None:
            super().__init__(config)
            servers.append(self)

    monkeypatch.setattr(uvicorn, "Server", Kept)
    (folder / "serve.yaml").write_text(yaml.safe_dump({
        "ladders": [site["config"].ladder_paths[0]], "run_ladders": False,
        "invite_code": INVITE, **settings}))
    config = load_serve_config(folder / "serve.yaml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    thread = threading.Thread(target=serve, args=(config, "127.0.0.1", port), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert thread.is_alive() and time.monotonic() < deadline, "no server"
                time.sleep(0.02)
        yield url
    finally:
        for server in servers:
            server.should_exit = True
        thread.join(15)


def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(site, tmp_path, monkeypatch):
    def tries(url: str, forwarded: list[str]) -> list[int]:
        with httpx.Client(base_url=url, timeout=10) as http:
            return [http.get("/api/submissions/1", headers={
                **bearer(f"nobody{i}.wrong"), "X-Forwarded-For": ip}).status_code
                for i, ip in enumerate(forwarded)]

    (tmp_path / "plain").mkdir()
    with serving(site, tmp_path / "plain", monkeypatch) as url:  # no trusted_proxies
        assert tries(url, [f"203.0.113.{i}" for i in range(SIGN_IN_FAILURES + 1)]) == \
            [401] * SIGN_IN_FAILURES + [429]
    (tmp_path / "proxied").mkdir()
    with serving(site, tmp_path / "proxied", monkeypatch,
                 trusted_proxies=["127.0.0.1"]) as url:
        assert tries(url, ["198.51.100.1"] * (SIGN_IN_FAILURES + 1)) == \
            [401] * SIGN_IN_FAILURES + [429]
        assert tries(url, ["198.51.100.2"]) == [401]  # another client behind the proxy


def test_healthz_answers_while_every_hashing_thread_is_busy(site, tmp_path, monkeypatch):
    from arena.server import participants

    real, release = participants._hash, threading.Event()
    hashing: list[int] = []

    def held(*args: Any) -> str:  # a hash that lasts until the test lets it end
        hashing.append(1)
        release.wait(20)
        return real(*args)

    monkeypatch.setattr(participants, "_hash", held)
    signed: list[int] = []

    def sign_in(url: str, token: str, form: bool) -> None:
        with httpx.Client(base_url=url, timeout=30) as http:
            if form:
                csrf = http.get("/signin").text.split('name="csrf" value="', 1)[1]
                reply = http.post("/signin", data={"token": token,
                                                   "csrf": csrf.split('"', 1)[0]})
            else:  # authenticated, then no such ladder
                reply = http.post("/api/submissions", headers=bearer(token),
                                  data={"ladder": "none"}, files={"bot": ("a.py", b"")})
            signed.append(reply.status_code)

    with serving(site, tmp_path, monkeypatch) as url:
        clients = [threading.Thread(target=sign_in, args=(url, site["tokens"][name], form),
                                    daemon=True)
                   for name, form in (("alice", True), ("bob", True), ("zoe", False),
                                      ("boss", False))]
        for client in clients:
            client.start()
        try:
            deadline = time.monotonic() + 20
            while len(hashing) < server.WORK_THREADS and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(hashing) == server.WORK_THREADS, "the sign-ins never reached the hash"
            health = [httpx.get(f"{url}/healthz", timeout=10).status_code for _ in range(3)]
            assert health == [200] * 3 and signed == []  # answered while the hashes last
        finally:
            release.set()
            for client in clients:
                client.join(30)
    assert sorted(signed) == [303, 303, 404, 404] and len(hashing) == 4


def test_the_servers_connections_send_without_waiting_for_acknowledgements(
        site, tmp_path, monkeypatch):
    """Nagle's algorithm on a server socket holds a response's second write (its body after
    its head) until the client acknowledges the first, which a client delays by 40 ms: every
    answer on a kept-alive connection would take 40 ms more."""
    from arena.server.connections import GuardedH11

    delays: list[int] = []
    made = GuardedH11.connection_made

    def noted(self: GuardedH11, transport: Any) -> None:
        connection = transport.get_extra_info("socket")
        delays.append(connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        made(self, transport)

    monkeypatch.setattr(GuardedH11, "connection_made", noted)
    with serving(site, tmp_path, monkeypatch) as url, httpx.Client(base_url=url) as http:
        assert [http.get("/healthz").status_code for _ in range(3)] == [200] * 3
    assert delays and all(delays), delays


def test_trusted_proxies_are_addresses_or_networks(site, tmp_path):
    from arena.server.config import load_serve_config
    from arena.tournaments.config import ConfigError

    def config(proxies: Any) -> Any:
        (tmp_path / "serve.yaml").write_text(yaml.safe_dump({
            "ladders": [site["config"].ladder_paths[0]], "trusted_proxies": proxies}))
        return load_serve_config(tmp_path / "serve.yaml")

    assert config(["127.0.0.1", "10.0.0.0/8", "::1"]).trusted_proxies == (
        "127.0.0.1/32", "10.0.0.0/8", "::1/128")
    assert site["config"].trusted_proxies == ()  # none unless named
    for wrong in (["*"], ["example.org"], [8]):
        with pytest.raises(ConfigError, match=r"trusted_proxies\[0\]: must be an IP address"):
            config(wrong)


def raw_multipart(http: TestClient, address: str, path: str, fields: dict[str, bytes],
                  charset: str | None) -> httpx.Response:
    """A multipart POST of ``fields`` as they are given (bytes), its charset named in its
    Content-Type, the session's CSRF token added."""
    http.get(path, headers=at(address))
    fields = {"csrf": csrf_of(http).encode(), **fields}
    body = b"".join(b"--B\r\nContent-Disposition: form-data; name=\"" + name.encode()
                    + b"\"\r\n\r\n" + value + b"\r\n" for name, value in fields.items())
    kind = "multipart/form-data; boundary=B" + (f"; charset={charset}" if charset else "")
    return http.post(path, headers={**at(address), "Content-Type": kind},
                     content=body + b"--B--\r\n")


@pytest.mark.parametrize("charset", ["unicode_escape", "utf-7", "utf-16", "raw_unicode_escape",
                                     "no-such-charset"])
def test_a_form_in_another_charset_is_refused_and_holds_no_try(site, monkeypatch, charset):
    """A charset that decodes to a lone surrogate (``\\ud800``) made the invite check fail
    between taking a try and ending it: each such request held a try for ever, and 20
    addresses shut sign-in for the whole server until it restarted."""
    monkeypatch.setattr(server, "SIGN_IN_CEILING", 6)
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        for i in range(3 * SIGN_IN_FAILURES):
            attack = raw_multipart(http, f"10.9.0.{i % 4}", "/register",
                                   {"invite": b"\\ud800", "name": b"x"}, charset)
            assert attack.status_code == 415, attack.text
            assert "forms are read in UTF-8 only" in attack.text
        signed = http.post("/signin", headers=at("10.9.0.1"),
                           data={"token": site["tokens"]["alice"], "csrf": csrf_of(http)})
        assert signed.status_code == 303
        joined = register(http, "10.9.0.2", f"after-{charset.replace('_', '-')}")
        assert joined.status_code == 200, joined.text


def test_a_form_field_that_is_not_text_is_refused_and_utf8_is_read(site):
    with TestClient(addressed(create_app(site["config"])), follow_redirects=False) as http:
        for number, charset in enumerate((None, "UTF-8", "utf8")):
            name = f"björn{number}"
            joined = raw_multipart(http, f"10.9.1.{number}", "/register",
                                   {"invite": INVITE.encode(), "name": name.encode()}, charset)
            assert joined.status_code == 200 and name in joined.text, joined.text
        broken = raw_multipart(http, "10.9.1.9", "/register",
                               {"invite": INVITE.encode(), "name": b"\xed\xa0\x80"}, "utf-8")
        assert broken.status_code == 400 and "problem" in broken.text, broken.text


def test_a_try_is_settled_however_the_work_it_guards_ends():
    from arena.server.app import Limits, Window

    limits = Limits(per=Window(1, 60.0, "no more"))
    for counted in (False, True):
        with pytest.raises(UnicodeEncodeError), limits.attempt(counted, per=f"k{counted}"):
            "\ud800".encode()
    with limits.attempt(False, per="kFalse"):  # not counted: the key has its try back
        pass
    with pytest.raises(Exception, match="no more"), limits.attempt(False, per="kTrue"):
        pass


def queued_to(port: int, client_port: int) -> int:
    """The bytes the kernel holds unsent on the server's side of one IPv4 connection."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1].split(":")[1], fields[2].split(":")[1]
        if (int(local, 16), int(remote, 16)) == (port, client_port):
            return int(fields[4].split(":")[0], 16)
    raise AssertionError("no such connection")


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc/net/tcp")
def test_a_client_that_never_reads_its_pipelined_answers_has_little_queued(
        site, tmp_path, monkeypatch):
    """The kernel's autotuning let about 2.4 MB of answers queue per such connection, and a
    client address may hold 200 connections."""
    with serving(site, tmp_path, monkeypatch) as url:
        port = int(url.rsplit(":", 1)[1])
        heads = b"GET /ladders/league HTTP/1.1\r\nHost: x\r\n\r\n" * 400
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.sendall(heads)
            queued, deadline = 0, time.monotonic() + 3
            while time.monotonic() < deadline:
                time.sleep(0.2)
                queued = max(queued, queued_to(port, client.getsockname()[1]))
    assert 0 < queued <= 3 * server_connections.SEND_BUFFER, queued  # the kernel doubles it
