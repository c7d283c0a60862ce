"""The few Linux calls Python's ``os`` module lacks here: prctl, unshare and mount.

Each returns whether it worked (False on other systems), and none loads a
library when called: libc is loaded once, in the parent, because a child
between fork and exec must not load libraries (another thread may have held
the loader's lock at the fork).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18


@functools.cache
def libc() -> Any:
    """The C library with its functions looked up, or None where there is none to use."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        lib = ctypes.CDLL(None, use_errno=True)
        for name in ("prctl", "unshare", "mount"):
            getattr(lib, name)  # resolved now, not in a child
    except (OSError, AttributeError):
        return None
    return lib


def prctl(option: int, value: int) -> bool:
    lib = libc()
    return lib is not None and int(lib.prctl(option, value, 0, 0, 0)) == 0


def unshare_mounts() -> bool:
    """Give this process a private mount namespace (root only): mounts made in it stay in it."""
    lib = libc()
    return (lib is not None and int(lib.unshare(CLONE_NEWNS)) == 0
            and int(lib.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)) == 0)


def bind_mount(source: str, target: str) -> bool:
    """Mount ``source`` on ``target`` as well, read-only (in this mount namespace)."""
    lib = libc()
    if lib is None:
        return False
    src, dst = source.encode(), target.encode()
    return (int(lib.mount(src, dst, None, MS_BIND | MS_REC, None)) == 0
            and int(lib.mount(None, dst, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID
                              | MS_NODEV, None)) == 0)
