"""What a bot's name and version may be, wherever they come from.

A name or version comes from a bot's handshake, its class, a submission or a
config, and it ends up in file paths (``results/submissions/NAME/VERSION/``),
CSV cells, HTML and the terminal. So each must be short, printable text: no
control or format characters (no terminal escapes, no bidirectional
overrides), no lone surrogates, no path separators, not ``.`` or ``..``, no
surrounding spaces; a version has no ``@`` (``NAME@VERSION`` names a version).

Two names that look alike (``greedy``, and ``greedy`` with a Cyrillic ie, U+0435) have
one :func:`name_skeleton`: a new participant or bot name whose skeleton is taken is refused.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

from arena.referee.protocol import printable

MAX_NAME = 64
MAX_VERSION = 32


def name_problem(name: object, *, what: str = "name", limit: int = MAX_NAME) -> str | None:
    """Why ``name`` cannot be a bot's name (None if it can)."""
    if not isinstance(name, str):
        return f"the {what} must be a string, not {type(name).__name__}"
    if not name:
        return f"the {what} is empty"
    if len(name) > limit:
        return f"the {what} is {len(name)} characters long (at most {limit})"
    if not name.isprintable():
        return f"the {what} {shown(name)} holds control or other unprintable characters"
    if name != name.strip():
        return f"the {what} {shown(name)} starts or ends with a space"
    if "/" in name or "\\" in name or name in (".", ".."):
        return f"the {what} {shown(name)} could be read as a file path"
    return None


def version_problem(version: object) -> str | None:
    """Why ``version`` cannot be a bot's version (None if it can)."""
    problem = name_problem(version, what="version", limit=MAX_VERSION)
    if problem is None and "@" in str(version):
        return f"the version {shown(str(version))} holds '@' (NAME@VERSION names a version)"
    return problem


def identity_problem(name: object, version: object) -> str | None:
    """Why ``name`` and ``version`` cannot identify a bot (None if they can)."""
    return name_problem(name) or version_problem(version)


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, its unprintable characters escaped, cut to ``limit``."""
    more = f" (and {len(text) - limit} more characters)" if len(text) > limit else ""
    return "'" + printable(text[:limit]).replace("\n", "\\n") + "'" + more


_SMALL_CAPITAL = re.compile(r"(\w+) LETTER SMALL CAPITAL (.+)")
_BIDI_MARKS = str.maketrans("", "", "\u200e\u200f")
_EXTRA_PROTOTYPES = {"\ua793": "e"}
"""Look-alikes TR39 leaves apart: its prototype of the epsilons (Greek ``ε``, ``ϵ``, Latin
``ɛ``) is a c with a bar, which next to ``e`` reads as ``e``."""


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's confusables.txt (TR39).

    confusable-homoglyphs keeps the file's pairs both ways round; TR39's table is a set of
    stars (each source maps to one prototype, a prototype to none), so a star's centre
    (the one with several look-alikes, or a sequence such as ``rn``) is its prototype.
    A lone pair gets one of its two as prototype, the same every time.
    """
    links: dict[str, set[str]] = {}
    for char, homoglyphs in confusables_data.items():
        for homoglyph in homoglyphs:
            one = str(char).translate(_BIDI_MARKS)
            other = str(homoglyph["c"]).translate(_BIDI_MARKS)
            links.setdefault(one, set()).add(other)
            links.setdefault(other, set()).add(one)
    table: dict[str, str] = {}
    for char, others in links.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a sequence, or a prototype with several look-alikes
        (other,) = others
        if len(links[other]) > 1 or len(other) > 1 or other < char:
            table[char] = other
    table.update(_EXTRA_PROTOTYPES)
    return table


def _lowercase(char: str) -> str:
    """A small capital (``ɢ``, ``ᴛ``) as its small letter (``g``, ``t``)."""
    found = _SMALL_CAPITAL.fullmatch(unicodedata.name(char, ""))
    if found is None:
        return char
    try:
        return unicodedata.lookup(f"{found[1]} SMALL LETTER {found[2]}")
    except KeyError:
        return char


def _round(text: str, *, fold: bool) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = unicodedata.normalize("NFD", text.casefold() if fold else text)
    table = _prototypes()
    return "".join(table.get(c, c) for c in (_lowercase(c) for c in text)
                   if unicodedata.category(c) not in ("Mn", "Me"))


def _skeleton(name: str, *, fold: bool) -> str:
    for _ in range(8):  # each round maps what the last one made, till nothing changes
        name, last = _round(name, fold=fold), name
        if name == last:
            break
    return name


def name_skeleton(name: str) -> str:
    """What ``name`` looks like (after Unicode TR39's skeleton): NFKC, case-folded, without
    combining marks, small capitals as small letters and each confusable character as its
    prototype; so ``greedy`` has one skeleton with a Cyrillic ie (U+0435), a small capital
    ``ɢ``, in fullwidth letters or with a combining accent, while ``greedy2`` has another."""
    return _skeleton(name, fold=True)


def looks_alike(one: str, other: str) -> bool:
    """Whether two names look alike: the same :func:`name_skeleton`, or the same skeleton
    without case-folding, TR39's own, where a capital ``I`` is a small ``l`` (case-folded,
    it would be an ``i``, and ``bill`` and ``bili`` would look alike)."""
    return (name_skeleton(one) == name_skeleton(other)
            or _skeleton(one, fold=False) == _skeleton(other, fold=False))
