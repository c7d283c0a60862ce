"""What a bot's name and version may be, wherever they come from.

A name or version comes from a bot's handshake, its class, a submission or a
config, and it ends up in file paths (``results/submissions/NAME/VERSION/``),
CSV cells, HTML and the terminal. So each must be short, printable text: no
control or format characters (no terminal escapes, no bidirectional
overrides), no lone surrogates, no path separators, not ``.`` or ``..``, no
surrounding spaces; a version has no ``@`` (``NAME@VERSION`` names a version).
"""

from __future__ import annotations

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
