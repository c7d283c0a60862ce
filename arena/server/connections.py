"""Connections held by slow clients: deadlines for a request's head and body, and a cap on
open connections, in all and per client address.

uvicorn waits for a request head without end and accepts connections until the process runs
out of file descriptors, so a few hundred clients that trickle bytes (slowloris) shut
everyone else out. :func:`guarded_h11` is uvicorn's HTTP/1.1 protocol with
:class:`ConnectionLimits` kept:

- a request head (the first, or the next one on a kept-alive connection) must arrive within
  ``head_seconds`` of the connection being ready for it, however it trickles;
- a request body must arrive within ``body_seconds``, never pausing over ``idle_seconds``
  (while the application, not the client, holds it back, the pause does not count);
- at most ``max`` connections are open, and ``per_address`` from one client address (a
  trusted proxy's are not counted per address: they are everybody's). A connection over
  either cap closes the one of the same scope that has waited longest for a request head;
  if every such connection has a request under way, the new one is closed instead.

A closed connection is closed without an answer or a log line; a summary of what was
closed is logged at most once a minute.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import socket
import time
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from arena.server.config import ConnectionLimits, client_key

log = logging.getLogger("arena.server")
SUMMARY_SECONDS = 60.0
RESOURCE_ERRORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
SEND_BUFFER = 128 << 10
"""Each connection's kernel send buffer (the kernel doubles it). Left to autotuning, a client
that pipelines requests and never reads their answers had about 2.4 MB of them queued in the
kernel per connection; uvicorn itself holds back the next answer until the last is sent."""


class Guard:
    """The server's open connections, by client address, and those waiting for a head."""

    def __init__(self, limits: ConnectionLimits, trusted_proxies: tuple[str, ...] = ()):
        self.limits = limits
        self.trusted = tuple(ipaddress.ip_network(item) for item in trusted_proxies)
        self.open: dict[str, int] = {}
        self.total = 0
        self.waiting: OrderedDict[GuardedH11, str] = OrderedDict()
        """Connections waiting for a request head, the longest-waiting first."""
        self.closed = {"head": 0, "body": 0, "crowded": 0, "files": 0}
        self.summarised = time.monotonic()

    def is_proxy(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def admit(self, connection: GuardedH11, address: str, *, proxy: bool = False) -> bool:
        """Count ``connection`` from ``address`` (a :func:`client_key`; a trusted ``proxy``
        has no per-address cap); False if it must be closed (no room was made for it)."""
        self.total += 1
        self.open[address] = self.open.get(address, 0) + 1
        crowded = self.open[address] > self.limits.per_address and not proxy
        if crowded and not self._close_longest_waiting(address):
            return False
        return self.total <= self.limits.max or self._close_longest_waiting(None)

    def leave(self, address: str) -> None:
        self.total -= 1
        left = self.open.get(address, 1) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)

    def _close_longest_waiting(self, address: str | None) -> bool:
        for waiting, at in self.waiting.items():
            if address is None or at == address:
                waiting.drop("crowded")
                return True
        return False

    def count(self, why: str) -> None:
        self.closed[why] += 1
        now = time.monotonic()
        if now - self.summarised >= SUMMARY_SECONDS:
            log.warning("slow clients: %d connections closed in %.0f s (%d too slow with a "
                        "request head, %d with a body, %d to make room, %d not accepted "
                        "for want of open files)",
                        sum(self.closed.values()), now - self.summarised,
                        self.closed["head"], self.closed["body"], self.closed["crowded"],
                        self.closed["files"])
            self.closed = dict.fromkeys(self.closed, 0)
            self.summarised = now


    def loop_exception(self, loop: asyncio.AbstractEventLoop,
                       context: dict[str, Any]) -> None:
        """The event loop's exception handler: a connection not accepted for want of open
        files is counted in the summary, not logged with a traceback at every try."""
        exception = context.get("exception")
        if isinstance(exception, OSError) and exception.errno in RESOURCE_ERRORS:
            self.count("files")
        elif isinstance(exception, ValueError) and "_start_serving" in repr(
                context.get("handle")):  # its retry after such a try, once closed
            return
        else:
            loop.default_exception_handler(context)


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol under a :class:`Guard` (``guard``, set by
    :func:`guarded_h11`)."""

    guard: Guard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = ""
        self.counted = False
        self.dropped = False
        self.timer: asyncio.TimerHandle | None = None
        self.head_cycle: Any = None
        """The request cycle under way when the wait for a head began (none, or the one
        answered): a different one means a head has come."""
        self.body_ends = 0.0

    # -- uvicorn's protocol, with the guard's bookkeeping around it ------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        connection = transport.get_extra_info("socket")
        if connection is not None:  # no autotuned megabytes for a client that never reads
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        host = self.client[0] if self.client else ""
        self.address = client_key(host)
        self.counted = True
        if not self.guard.admit(self, self.address, proxy=self.guard.is_proxy(host)):
            self.drop("crowded")
            return
        self._wait_for_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.dropped or self.transport.is_closing():
            return
        if self.cycle is not self.head_cycle and self in self.guard.waiting:
            self._head_came()
        elif self._reading_body():
            self._arm_body()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
        super().connection_lost(exc)

    # -- the deadlines ---------------------------------------------------------------------

    @property
    def limits(self) -> ConnectionLimits:
        return self.guard.limits

    def drop(self, why: str) -> None:
        """Close the connection at once, without an answer."""
        if self.dropped:
            return
        self.dropped = True
        self._forget()
        self.guard.count(why)
        self.transport.abort()

    def _forget(self) -> None:
        self._disarm()
        self.guard.waiting.pop(self, None)
        if self.counted:
            self.counted = False
            self.guard.leave(self.address)

    def _wait_for_head(self) -> None:
        self.head_cycle = self.cycle
        self.guard.waiting.pop(self, None)
        self.guard.waiting[self] = self.address
        self._arm(self.limits.head_seconds, self._head_too_slow)

    def _head_came(self) -> None:
        self.guard.waiting.pop(self, None)
        self._disarm()
        if self._reading_body():
            self.body_ends = time.monotonic() + self.limits.body_seconds
            self._arm_body()

    def _reading_body(self) -> bool:
        cycle = self.cycle
        return cycle is not None and cycle is not self.head_cycle and cycle.more_body \
            and not cycle.response_complete

    def _head_too_slow(self) -> None:
        self.timer = None
        if self.cycle is not self.head_cycle:  # a pipelined head came meanwhile
            self._head_came()
        else:
            self.drop("head")

    def _body_too_slow(self) -> None:
        self.timer = None
        if not self._reading_body():
            return
        if time.monotonic() < self.body_ends and self.flow.read_paused:
            self._arm_body()  # the application has not taken what came yet
        else:
            self.drop("body")

    def _arm_body(self) -> None:
        left = self.body_ends - time.monotonic()
        self._arm(max(0.0, min(self.limits.idle_seconds, left)), self._body_too_slow)

    def _arm(self, seconds: float, then: Any) -> None:
        self._disarm()
        self.timer = self.loop.call_later(seconds, then)

    def _disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def guarded_h11(guard: Guard) -> type[GuardedH11]:
    """uvicorn's ``http`` protocol class for a server kept by ``guard``."""
    return type("GuardedServerH11", (GuardedH11,), {"guard": guard})
