"""Counter-based, seat-bound dice streams.

Every die is a pure function of ``(game seed, seat, turn of that seat, roll
within the turn, die slot)``: no state, no global ``random``, no salted
``hash()``. Playing the same seed with the bots swapped between seats hands
each bot exactly the luck its opponent had.

The function, fixed for all versions of arena (``v2``):

1. Encode the roll's key as ASCII ``"arena-dice-v2:{seed}:{seat}:{turn}:{roll}"``
   (decimal integers, no padding) and take its SHA-512 digest: 64 bytes.
2. Die slot ``i`` (0 to 7) reads bytes ``8*i`` to ``8*i+7`` of the digest as a
   big-endian unsigned integer ``x``.
3. With ``n`` faces, accept ``x`` if ``x < 2**64 - (2**64 % n)`` and return face
   number ``x % n`` (0-based, into the die's face list). Otherwise (probability
   below 1e-18) take SHA-256 of ``"{key}:{slot}:{attempt}"`` for attempt 1, 2, …,
   its first 8 bytes as ``x``, until one is accepted — rejection keeps the result
   exactly uniform.

One hash per roll serves all its dice, and a die depends only on its own slot's
bytes, so re-rolling slot ``i`` gives the same value whatever else is re-rolled.

Seeds for games and bots are derived the same way by :func:`derive_seed`.
"""

from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import Callable, Sequence

from arena.games.base import DiceRequest

STANDARD_DIE: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
_WORD = 2**64
MAX_SLOTS = 8
_WORDS = struct.Struct(">8Q").unpack
# For a die of fewer than _FAST_FACES faces only words of at least 2**64 - 2**16
# can be rejected, and all of those begin with six 0xFF bytes: a digest without
# that run needs no per-word test.
_FAST_FACES = 2**16
_NEAR_TOP = b"\xff" * 6


def _accept(x: int, n: int) -> int | None:
    return x % n if x < _WORD - (_WORD % n) else None


def _retry(key: str, slot: int, n: int) -> int:
    attempt = 0
    while True:
        attempt += 1
        text = f"{key}:{slot}:{attempt}".encode("ascii")
        face = _accept(int.from_bytes(hashlib.sha256(text).digest()[:8], "big"), n)
        if face is not None:
            return face


def _seed_prefix(seed: int) -> str:
    return f"arena-dice-v2:{seed}:"


def _roll_key(seed: int, seat: int, turn: int, roll: int) -> str:
    return f"{_seed_prefix(seed)}{seat}:{turn}:{roll}"


def _check_slots(slots: Sequence[int]) -> None:
    for slot in slots:
        if not 0 <= slot < MAX_SLOTS:
            raise ValueError(f"die slot {slot} is outside 0..{MAX_SLOTS - 1}")


def face_indices(seed: int, seat: int, turn: int, roll: int,
                 slots: Sequence[int], n_faces: Sequence[int]) -> list[int]:
    """The 0-based faces shown by ``slots`` in roll ``roll`` of turn ``turn`` of ``seat``."""
    _check_slots(slots)
    key = _roll_key(seed, seat, turn, roll)
    words = _WORDS(hashlib.sha512(key.encode("ascii")).digest())
    faces = []
    for slot, n in zip(slots, n_faces, strict=True):
        face = _accept(words[slot], n)
        faces.append(face if face is not None else _retry(key, slot, n))
    return faces


def face_index(seed: int, seat: int, turn: int, roll: int, slot: int, n_faces: int) -> int:
    """The 0-based face shown by die ``slot`` in roll ``roll`` of turn ``turn`` of ``seat``."""
    return face_indices(seed, seat, turn, roll, (slot,), (n_faces,))[0]


def die_value(seed: int, seat: int, turn: int, roll: int, slot: int,
              faces: Sequence[int] = STANDARD_DIE) -> int:
    """The value shown by one die of the stream."""
    return faces[face_index(seed, seat, turn, roll, slot, len(faces))]


def game_seed(seed: object) -> int:
    """``seed`` as an int if it is an integer (Python's or NumPy's), else a TypeError: the
    dice of 1.5, ``True`` or ``"3"`` would be another game's than its record could say."""
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        raise TypeError(f"a game's seed is an integer, not {seed!r}")
    return operator.index(seed)  # type: ignore[arg-type]


def roll_dice(seed: int, request: DiceRequest) -> tuple[int, ...]:
    """Resolve a chance node: the values of ``request.slots``, in that order."""
    return DiceStream(seed).roll(request)


class DiceStream:
    """The dice of one game seed, rolled as fast as the referee needs them.

    Same values as :func:`face_indices`: one hash per roll, only the requested
    slots' words unpacked, and the rejection test run only for a digest with a
    word near ``2**64`` (practically never).
    """

    __slots__ = ("_head", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._head = _seed_prefix(seed).encode("ascii")

    def roll(self, request: DiceRequest) -> tuple[int, ...]:
        """The values of ``request.slots``, in that order."""
        seat, turn, roll, slots, faces = request
        digest = _sha512(self._head + b"%d:%d:%d" % (seat, turn, roll)).digest()
        if _NEAR_TOP in digest or len(slots) != len(faces):
            return self._roll_exactly(seat, turn, roll, slots, faces)
        words = (_SLOT_WORDS.get(slots) or _slot_words(slots))(digest)
        # Unrolled for rolls of one to three dice: a loop would cost more than the hash.
        if len(words) == 3:
            (a, b, c), (fa, fb, fc) = words, faces
            if len(fa) | len(fb) | len(fc) < _FAST_FACES:
                return fa[a % len(fa)], fb[b % len(fb)], fc[c % len(fc)]
        elif len(words) == 2:
            (a, b), (fa, fb) = words, faces
            if len(fa) | len(fb) < _FAST_FACES:
                return fa[a % len(fa)], fb[b % len(fb)]
        elif len(words) == 1:
            (a,), (fa,) = words, faces
            if len(fa) < _FAST_FACES:
                return (fa[a % len(fa)],)
        return self._roll_exactly(seat, turn, roll, slots, faces)

    def _roll_exactly(self, seat: int, turn: int, roll: int, slots: Sequence[int],
                      faces: Sequence[Sequence[int]]) -> tuple[int, ...]:
        indices = face_indices(self.seed, seat, turn, roll, slots, [len(f) for f in faces])
        return tuple(f[i] for f, i in zip(faces, indices, strict=True))


_sha512 = hashlib.sha512
_SLOT_WORDS: dict[tuple[int, ...], Callable[[bytes], tuple[int, ...]]] = {}


def _slot_words(slots: Sequence[int]) -> Callable[[bytes], tuple[int, ...]]:
    """A function that reads the words of ``slots``, in that order, from a roll's digest."""
    _check_slots(slots)
    slots = tuple(slots)
    if list(slots) != sorted(set(slots)):
        return lambda digest: tuple(_WORDS(digest)[slot] for slot in slots)
    layout, at = ">", 0
    for slot in slots:
        layout += f"{8 * (slot - at)}xQ" if slot > at else "Q"
        at = slot + 1
    unpack = struct.Struct(layout).unpack_from
    _SLOT_WORDS[slots] = unpack  # at most 2**MAX_SLOTS sorted subsets
    return unpack


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels, e.g. ``derive_seed(s, "game", 3)``."""
    text = "arena-seed-v1:" + ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
