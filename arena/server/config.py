"""A competition's server config: which ladders it serves and how people take part.

::

    title: Seasons of the Sun bot competition
    ladders: [configs/seasons-ladder.yaml]   # ladder configs; all on one database
    invite_code: null          # a code that lets people register themselves; null: only
                               #   `arena serve users add NAME`
    submissions_per_hour: 10   # per participant
    run_ladders: true          # run the ladders' games alongside the web server
    trusted_proxies: []        # addresses (or networks, 10.0.0.0/8) of the reverse proxies
                               #   whose X-Forwarded-For gives the client's address; from
                               #   anyone else (and with none) the header is ignored
    secure_cookies: false      # true behind HTTPS: the session cookie is sent only over
                               #   HTTPS (__Host- prefixed, Secure), and HSTS is on
    connections:               # slow clients (slowloris) cannot hold the server
      max: 2000                # open connections in all (at most the open-file limit allows)
      per_address: 200         # from one client address (a trusted proxy's not counted)
      head_seconds: 10         # a request head must arrive within this
      body_seconds: 60         # and its body within this,
      idle_seconds: 10         #   never pausing longer than this
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.base import unknown_name_message
from arena.tournaments.config import ConfigError, check_keys, read_config_data
from arena.tournaments.ladder_config import LadderConfig, load_ladder_config

_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "title": ((str,), False),
    "ladders": ((list,), True),
    "invite_code": ((str, type(None)), False),
    "submissions_per_hour": ((int,), False),
    "run_ladders": ((bool,), False),
    "trusted_proxies": ((list,), False),
    "secure_cookies": ((bool,), False),
    "connections": ((dict,), False),
}
_CONNECTION_KEYS = {"max": (1, 100_000), "per_address": (1, 100_000),
                    "head_seconds": (1, 3600), "body_seconds": (1, 3600),
                    "idle_seconds": (1, 3600)}
MIN_INVITE = 12


@dataclass(frozen=True)
class ConnectionLimits:
    """How long a client may take to send a request, and how many connections it may hold
    (``arena.server.connections``)."""

    max: int = 2000
    per_address: int = 200
    head_seconds: float = 10.0
    body_seconds: float = 60.0
    idle_seconds: float = 10.0


@dataclass(frozen=True)
class ServeConfig:
    title: str
    ladders: tuple[LadderConfig, ...]
    ladder_paths: tuple[str, ...]
    invite_code: str | None = None
    submissions_per_hour: int = 10
    run_ladders: bool = True
    source: str = "<serve config>"
    trusted_proxies: tuple[str, ...] = ()
    """The reverse proxies whose ``X-Forwarded-For`` uvicorn believes (addresses or
    networks); with none it believes nobody's, and a client's address is its own."""
    secure_cookies: bool = False
    """Served over HTTPS (by a reverse proxy): the session cookie is ``Secure``."""
    connections: ConnectionLimits = ConnectionLimits()

    @property
    def db(self) -> str:
        return self.ladders[0].play.db

    def ladder(self, name: str) -> LadderConfig | None:
        return next((ladder for ladder in self.ladders if ladder.name == name), None)


def load_serve_config(path: str | Path) -> ServeConfig:
    source = str(path)
    data = read_config_data(path)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: the config must be a mapping of keys to values")
    if "ladders" not in data and {"game", "bots"} <= set(data):
        raise ConfigError(
            f"{source}: this is a tournament or ladder config (it names a game and bots); "
            "arena serve takes a serve config that lists ladder configs under `ladders:` "
            "(see configs/serve.yaml), and `arena run` or `arena ladder run` takes this one")
    flags = ("run_ladders", "secure_cookies")
    for flag in flags:
        if flag in data and not isinstance(data[flag], bool):
            raise ConfigError(f"{source}: {flag}: must be true or false")
    check_keys({k: v for k, v in data.items() if k not in flags},
               {k: v for k, v in _KEYS.items() if k not in flags}, source, "")
    return parse_serve_config(data, source)


def parse_serve_config(data: Mapping[str, Any], source: str) -> ServeConfig:
    folder = Path(source).parent
    paths = []
    for index, item in enumerate(data["ladders"]):
        if not isinstance(item, str):
            raise ConfigError(f"{source}: ladders[{index}]: must be a ladder config's path")
        path = folder / item  # from the config's folder, never the current one
        paths.append(str(path))
    if not paths:
        raise ConfigError(f"{source}: ladders: name at least one ladder config")
    ladders = tuple(load_ladder_config(path) for path in paths)
    if len({ladder.play.db for ladder in ladders}) != 1:
        raise ConfigError(f"{source}: ladders: all ladders of a server share one database "
                          "(their configs' db)")
    if len({ladder.name for ladder in ladders}) != len(ladders):
        raise ConfigError(f"{source}: ladders: two ladders have the same name")
    invite = data.get("invite_code")
    if invite is not None and len(invite) < MIN_INVITE:
        raise ConfigError(f"{source}: invite_code: at least {MIN_INVITE} characters, or null")
    per_hour = data.get("submissions_per_hour", 10)
    if not 1 <= per_hour <= 10_000:
        raise ConfigError(f"{source}: submissions_per_hour: must be from 1 to 10000")
    return ServeConfig(str(data.get("title", "arena competition")), ladders, tuple(paths),
                       invite, per_hour, bool(data.get("run_ladders", True)), source,
                       trusted_proxies(data.get("trusted_proxies", []), source),
                       bool(data.get("secure_cookies", False)),
                       connection_limits(data.get("connections", {}), source))


def connection_limits(data: Mapping[str, Any], source: str) -> ConnectionLimits:
    """The ``connections`` settings, each a number within its range."""
    for key, value in data.items():
        if key not in _CONNECTION_KEYS:
            raise ConfigError(f"{source}: connections: "
                              + unknown_name_message("key", str(key), _CONNECTION_KEYS))
        low, high = _CONNECTION_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not low <= value <= high:
            raise ConfigError(f"{source}: connections: {key}: must be a number from {low} "
                              f"to {high}, got {value!r}")
        if key in ("max", "per_address") and not isinstance(value, int):
            raise ConfigError(f"{source}: connections: {key}: must be a whole number")
    return ConnectionLimits(**data)


def client_key(host: str) -> str:
    """What the server's limits count ``host`` as: an IPv4 address itself, an IPv6 address
    its /64 network, the smallest block a site is given, so that one site's 2**64 addresses
    are one client (an IPv4 address mapped into IPv6 is that IPv4 address)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def trusted_proxies(items: list[Any], source: str) -> tuple[str, ...]:
    """The ``trusted_proxies`` entries, each an IP address or network (``10.0.0.0/8``)."""
    found = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, str):
                raise ValueError
            found.append(str(ipaddress.ip_network(item.strip(), strict=False)))
        except ValueError:
            raise ConfigError(f"{source}: trusted_proxies[{index}]: must be an IP address "
                              f"or network (10.0.0.0/8), got {item!r}") from None
    return tuple(found)


def public_seed_warnings(config: ServeConfig) -> list[str]:
    """What to say of each served ladder whose seed is written in its config: whoever reads
    the config knows every game's dice."""
    return [f"ladder {ladder.name}'s seed is written in its config: whoever reads it knows "
            "every game's dice; write `seed: secret`"
            for ladder in config.ladders if not ladder.play.secret_seed]
