"""Participants of a competition: who may submit, and who organizes.

A participant signs in with a name and a token. The token is shown once, when
the participant is added (``arena serve users add NAME``) or registers with the
competition's invite code; the database keeps only a salted scrypt hash of it.
No name may look like another participant's (:func:`~arena.bots.names.looks_alike`).
The first participant to submit a bot name owns it: only they may send new
versions of it, and only they see its crash details. ``sessions`` counts the
participant's sign-outs: a session made before the last one has ended
(:func:`end_sessions`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from arena.bots.names import looks_alike, name_problem
from arena.games.base import ArenaError
from arena.results.store import Store

TOKEN_BYTES = 24
SCRYPT = {"n": 2**14, "r": 8, "p": 1}


class ParticipantError(ArenaError):
    """A participant that cannot be added, or a sign-in that fails."""


@dataclass(frozen=True)
class Participant:
    id: int
    name: str
    organizer: bool
    sessions: int = 0
    """The generation of the participant's sessions: one of an older generation has ended."""


def _hash(token: str, salt: str) -> str:
    return hashlib.scrypt(token.encode(), salt=bytes.fromhex(salt), dklen=32,
                          **SCRYPT).hex()


_NOBODY = ("00" * 32, "00" * 16)
"""The hash and salt an unknown name is checked against: no token hashes to it, and the
check costs one scrypt, as a known name's does."""


def add_participant(store: Store, name: str, *, organizer: bool = False,
                    stranger: bool = False) -> tuple[Participant, str]:
    """Add ``name``; the participant and their token ``NAME.SECRET`` (shown once, stored
    only hashed). A look-alike of a participant's name is refused, naming theirs unless
    a ``stranger`` registers (who would learn the participants' names by trying)."""
    problem = name_problem(name, what="participant name")
    if problem:
        raise ParticipantError(problem)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    salt = secrets.token_hex(16)
    with store.transaction():
        if store.db.execute("SELECT 1 FROM participants WHERE name = ?", (name,)).fetchone():
            raise ParticipantError(f"a participant {name!r} exists already")
        for (existing,) in store.db.execute("SELECT name FROM participants ORDER BY id"):
            if looks_alike(name, str(existing)):
                whose = "another participant's" if stranger else \
                    f"the participant {str(existing)!r}"
                raise ParticipantError(f"the name {name!r} looks like {whose}; choose another")
        cursor = store.db.execute(
            "INSERT INTO participants (name, token_hash, salt, organizer, created)"
            " VALUES (?,?,?,?,?)", (name, _hash(token, salt), salt, int(organizer), time.time()))
    return Participant(int(cursor.lastrowid or 0), name, organizer), f"{name}.{token}"


def sign_in(store: Store, name: str, token: str) -> Participant:
    """The participant whose name and token these are; ParticipantError otherwise (the
    same message whether the name or the token is wrong)."""
    return _signed_in(store, name, token)[0]


def _signed_in(store: Store, name: str, token: str) -> tuple[Participant, str]:
    """:func:`sign_in`, and the stored hash the token matched."""
    row = store.db.execute("SELECT id, token_hash, salt, organizer, sessions FROM"
                           " participants WHERE name = ?", (name,)).fetchone()
    expected, salt = (row[1], row[2]) if row else _NOBODY  # as slow for an unknown name
    given = _hash(token, salt)
    if row is None or not hmac.compare_digest(expected, given):
        raise ParticipantError("that name and token do not match")
    return Participant(int(row[0]), name, bool(row[3]), int(row[4])), str(expected)


def by_token(store: Store, token: str, *, verified: VerifiedTokens | None = None
             ) -> Participant:
    """The participant a token ``NAME.SECRET`` belongs to (the sign-in form, and the JSON
    API's ``Authorization: Bearer``). With ``verified``, a token it verified lately costs
    no hash (and one verified now is added to it)."""
    if verified is not None:
        found = verified.check(store, token)
        if found is not None:
            return found
    name, _, secret = token.rpartition(".")
    if not secret:
        raise ParticipantError("a token is NAME.SECRET, as `arena serve users add` prints it")
    who, stored = _signed_in(store, name, secret)
    if verified is not None:
        verified.add(token, who, stored)
    return who


class VerifiedTokens:
    """The tokens a server verified lately, so that an API client's every request does not
    cost a scrypt hash: kept by a keyed hash (HMAC-SHA256 under a key of this process's
    own), never as themselves, each with the participant and the stored hash it matched.
    One counts as verified while that participant's stored hash is still the one it matched,
    for :data:`SECONDS` at most; :data:`SIZE` are kept. A wrong token is never kept: it
    costs its hash every time."""

    SECONDS = 600.0
    SIZE = 1024

    def __init__(self) -> None:
        self.key = secrets.token_bytes(32)
        self.lock = threading.Lock()
        self.kept: OrderedDict[bytes, tuple[int, str, float]] = OrderedDict()

    def _digest(self, token: str) -> bytes:
        return hmac.new(self.key, token.encode("utf-8", "surrogatepass"), "sha256").digest()

    def check(self, store: Store, token: str) -> Participant | None:
        digest = self._digest(token)
        with self.lock:
            kept = self.kept.get(digest)
        if kept is None or time.monotonic() - kept[2] > self.SECONDS:
            return None
        row = store.db.execute("SELECT id, name, token_hash, organizer, sessions FROM"
                               " participants WHERE id = ?", (kept[0],)).fetchone()
        if row is None or not hmac.compare_digest(str(row[2]), kept[1]):
            with self.lock:
                self.kept.pop(digest, None)
            return None
        return Participant(int(row[0]), str(row[1]), bool(row[3]), int(row[4]))

    def add(self, token: str, who: Participant, stored: str) -> None:
        digest = self._digest(token)
        with self.lock:
            self.kept[digest] = (who.id, stored, time.monotonic())
            self.kept.move_to_end(digest)
            while len(self.kept) > self.SIZE:
                self.kept.popitem(last=False)


def participant(store: Store, participant_id: int) -> Participant | None:
    row = store.db.execute("SELECT id, name, organizer, sessions FROM participants WHERE"
                           " id = ?", (participant_id,)).fetchone()
    return None if row is None else Participant(int(row[0]), str(row[1]), bool(row[2]),
                                                int(row[3]))


def end_sessions(store: Store, name: str) -> Participant:
    """End every session of participant ``name``, in every browser (sign-out does it for
    the participant's own; the organizer with ``arena serve users sign-out``)."""
    with store.transaction():
        store.db.execute("UPDATE participants SET sessions = sessions + 1 WHERE name = ?",
                         (name,))
        row = store.db.execute("SELECT id FROM participants WHERE name = ?",
                               (name,)).fetchone()
    if row is None:
        raise ParticipantError(f"no participant {name!r}")
    found = participant(store, int(row[0]))
    assert found is not None
    return found


def new_token(store: Store, name: str) -> tuple[Participant, str]:
    """Give participant ``name`` a new token (returned, shown once): the old one stops working
    at once, in the API too, and every session ends (for a token that leaked)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    salt = secrets.token_hex(16)
    with store.transaction():
        changed = store.db.execute(
            "UPDATE participants SET token_hash = ?, salt = ?, sessions = sessions + 1"
            " WHERE name = ?", (_hash(token, salt), salt, name)).rowcount
    if not changed:
        raise ParticipantError(f"no participant {name!r}")
    row = store.db.execute("SELECT id FROM participants WHERE name = ?", (name,)).fetchone()
    found = participant(store, int(row[0]))
    assert found is not None
    return found, f"{name}.{token}"


def participants(store: Store) -> list[Participant]:
    rows = store.db.execute("SELECT id, name, organizer FROM participants ORDER BY id")
    return [Participant(int(r[0]), str(r[1]), bool(r[2])) for r in rows]
