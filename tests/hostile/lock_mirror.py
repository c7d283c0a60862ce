"""Keeps its notes between the games of a duplicate set as file locks: on the standard
library's files, which every sandbox shares read-only (its own memory and /tmp are gone or
private, :mod:`mirror_reader` tries those). In seat 0 it locks a file, for good (a bot kept
for later games holds it while frozen between them); in seat 1, in the mirrored game and
perhaps another sandbox, it asks without waiting whether that file is locked. A lock it did
not take, seen, is a bit carried from one game to the other: the next could be the dice.
"""

import errno
import fcntl
import os
import sys

NOTE = os.path.join(os.path.dirname(os.__file__), "this.py")  # a file of every sandbox's
_held = []


def leave_note():
    try:
        fd = os.open(NOTE, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        _held.append(fd)  # kept open: the lock lasts as long as this process
    except OSError:
        pass


def note_seen():
    try:
        fd = os.open(NOTE, os.O_RDONLY)  # another open file: it does not share the lock
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
    finally:
        os.close(fd)


class LockMirror:
    name, version = "lock-mirror", "1"

    def __init__(self):
        self.seat, self.first = 0, True

    def start(self, info):
        self.seat, self.first = info.seat, True

    def act(self, observation):
        if self.first:
            self.first = False
            if self.seat == 0:
                leave_note()
            elif note_seen():
                sys.stderr.write("read a lock left in another game\n")
                raise RuntimeError("ESCAPED: read a note left as a lock on a shared file "
                                   "in another game of its set")
        return observation.legal_actions[0]
