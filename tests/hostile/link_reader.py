"""The ``__init__.py`` of a hostile package (see ``links.py``, which builds one around it):
at start it reads every entry of its own folder, following links, and raises with
``ESCAPED`` and what it read if any entry led it outside its folder — a root-only file,
``/etc/shadow``, arena's environment, the results database, a device, the operator's
terminal, a FIFO. Entries named ``plain*`` are its own data and may be read."""

import os

name, version, games = "link-reader", "1", ("seasons", "sonnentau")
HERE = os.path.dirname(os.path.abspath(__file__))


def agent(observation):
    return observation.legal_actions[0]


def _read_everything():
    reached = []
    for folder, folders, files in os.walk(HERE, followlinks=True):
        for entry in files + folders:
            path = os.path.join(folder, entry)
            if entry.startswith("plain") or entry in ("__init__.py", "__pycache__", "sub"):
                continue
            try:  # never blocks: a FIFO or a terminal gives nothing or EAGAIN
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                data = b"" if os.path.isdir(path) else os.read(fd, 64)
            except OSError:
                data = b""
            finally:
                os.close(fd)
            if data or os.path.islink(path):
                reached.append(f"{os.path.relpath(path, HERE)}: {data[:40]!r}")
    if reached:
        raise RuntimeError("ESCAPED: read " + "; ".join(reached))


_read_everything()  # at import: the first thing the bot does
