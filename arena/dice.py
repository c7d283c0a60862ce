"""Counter-based, seat-bound dice streams.

Every die is a pure function of ``(game seed, seat, turn of that seat, roll
within the turn, die slot)``: no state, no global ``random``, no salted
``hash()``. Playing the same seed with the bots swapped between seats hands
each bot exactly the luck its opponent had.

The function, fixed for all versions of arena (``v1``):

1. Encode the key as ASCII ``"arena-dice-v1:{seed}:{seat}:{turn}:{roll}:{slot}"``
   (decimal integers, no padding).
2. Take SHA-256 of it; read the first 8 bytes as a big-endian unsigned integer
   ``x``.
3. With ``n`` faces, accept ``x`` if ``x < 2**64 - (2**64 % n)`` and return face
   number ``x % n`` (0-based, into the die's face list); otherwise append
   ``":{attempt}"`` (1, 2, …) to the key and repeat — rejection keeps the
   result exactly uniform.

Seeds for games and bots are derived the same way by :func:`derive_seed`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from arena.games.base import DiceRequest

STANDARD_DIE: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
_WORD = 2**64


def _uniform(key: str, n: int) -> int:
    limit = _WORD - (_WORD % n)
    attempt = 0
    text = key
    while True:
        x = int.from_bytes(hashlib.sha256(text.encode("ascii")).digest()[:8], "big")
        if x < limit:
            return x % n
        attempt += 1
        text = f"{key}:{attempt}"


def face_index(seed: int, seat: int, turn: int, roll: int, slot: int, n_faces: int) -> int:
    """The 0-based face shown by die ``slot`` in roll ``roll`` of turn ``turn`` of ``seat``."""
    return _uniform(f"arena-dice-v1:{seed}:{seat}:{turn}:{roll}:{slot}", n_faces)


def die_value(seed: int, seat: int, turn: int, roll: int, slot: int,
              faces: Sequence[int] = STANDARD_DIE) -> int:
    """The value shown by one die of the stream."""
    return faces[face_index(seed, seat, turn, roll, slot, len(faces))]


def roll_dice(seed: int, request: DiceRequest) -> tuple[int, ...]:
    """Resolve a chance node: the values of ``request.slots``, in that order."""
    return tuple(
        die_value(seed, request.seat, request.turn, request.roll, slot, faces)
        for slot, faces in zip(request.slots, request.faces, strict=True)
    )


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels, e.g. ``derive_seed(s, "game", 3)``."""
    text = "arena-seed-v1:" + ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
