"""Tries the channels between sandboxes that go through what the kernel keeps per file: the
system's files are the same files in every sandbox (read-only), so a lock held on one, a
watch on it, its pages in the page cache are seen from every other sandbox, even from a
bot frozen between games. And it tries to take disk blocks through its stderr with
``fallocate(FALLOC_FL_KEEP_SIZE)``, which no file-size limit counts, and says whether its
stderr is a disk file (whose writes and syncs take the disk's bandwidth from everyone).

At its first decision it writes ``CHANNELS {json}`` to stderr: each attempt and the error
it got (``"ok"`` if it got through), then plays the first legal action. It also tries the
host's devices, which a sandbox shares (their times), and the machine's counts in
``/proc/sys`` that a bot can set exactly (its ptys, its open files).
"""

import ctypes
import errno
import fcntl
import json
import os
import struct
import sys

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
F_OFD_GETLK, F_OFD_SETLK, F_SETLEASE, F_NOTIFY, DN_ACCESS = 36, 37, 1024, 1026, 0x1
SYS_FANOTIFY_INIT, SYS_IO_SETUP, SYS_CACHESTAT = 300, 206, 451
FALLOC_FL_KEEP_SIZE, AT_FDCWD = 1, -100


def _flock_struct(kind):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)


def _libc(name, *args):
    result = getattr(LIBC, name)(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), name)
    return result


def attempts(shared, folder):
    """name -> a call that a channel needs."""
    return {
        "flock": lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB),
        "lockf": lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB),
        "ofd_lock": lambda: fcntl.fcntl(shared, F_OFD_SETLK, _flock_struct(fcntl.F_RDLCK)),
        "get_lock": lambda: fcntl.fcntl(shared, fcntl.F_GETLK, _flock_struct(fcntl.F_WRLCK)),
        "ofd_get_lock": lambda: fcntl.fcntl(shared, F_OFD_GETLK, _flock_struct(fcntl.F_WRLCK)),
        "lease": lambda: fcntl.fcntl(shared, F_SETLEASE, fcntl.F_RDLCK),
        "dnotify": lambda: fcntl.fcntl(folder, F_NOTIFY, DN_ACCESS),
        "inotify": lambda: _libc("inotify_init1", 0),
        "fanotify": lambda: _libc("syscall", SYS_FANOTIFY_INIT, 0x200, 0),  # FAN_REPORT_FID
        "nowait_read": lambda: os.preadv(shared, [bytearray(4096)], 0, os.RWF_NOWAIT),
        "cachestat": lambda: _libc("syscall", SYS_CACHESTAT, shared,
                                   ctypes.create_string_buffer(16),
                                   ctypes.create_string_buffer(64), 0),
        "aio": lambda: _libc("syscall", SYS_IO_SETUP, 1, ctypes.byref(ctypes.c_ulong(0))),
        "fallocate_stderr": lambda: _libc("fallocate", 2, FALLOC_FL_KEEP_SIZE,
                                          ctypes.c_long(0), ctypes.c_long(1 << 30)),
        # the devices are the host's inodes, writable by all: "now" as their times is a bit
        "touch_dev_null": lambda: _libc("utimensat", AT_FDCWD, b"/dev/null", None, 0),
        "touch_dev_urandom": lambda: _libc("utimes", b"/dev/urandom", None),
        # a pty counts in the machine's /proc/sys/kernel/pty/nr, exactly
        "pty": lambda: _libc("open", b"/dev/ptmx", os.O_RDWR | os.O_NOCTTY),
        "pty_count": lambda: _libc("open", b"/proc/sys/kernel/pty/nr", os.O_RDONLY),
        "open_files_count": lambda: _libc("open", b"/proc/sys/fs/file-nr", os.O_RDONLY),
    }


def probe():
    shared = os.open(os.__file__, os.O_RDONLY)
    # through libc: Python's audit hook refuses folders outside its own, the kernel does not
    folder = _libc("open", os.path.dirname(os.__file__).encode(), os.O_RDONLY | os.O_DIRECTORY)
    found = {}
    for name, attempt in attempts(shared, folder).items():
        try:
            attempt()
            found[name] = "ok"
        except OSError as exc:
            found[name] = errno.errorcode.get(exc.errno, str(exc.errno))
    own = os.open("/tmp/own", os.O_RDWR | os.O_CREAT, 0o600)  # its own file: still usable
    os.posix_fallocate(own, 0, 4096)  # the C library writes when fallocate is refused
    found["own_file_allocated"] = os.fstat(own).st_size
    found["stderr_blocks"] = os.fstat(2).st_blocks
    # written and synced again and again, a stderr on disk took the disk from everyone
    found["stderr_in_memory"] = os.readlink("/proc/self/fd/2").startswith("/memfd:")
    return found


class SharedFiles:
    name, version = "shared-files", "1"

    def __init__(self):
        self.done = False

    def act(self, observation):
        if not self.done:
            self.done = True
            sys.stderr.write("CHANNELS " + json.dumps(probe()) + "\n")
            sys.stderr.flush()
        return observation.legal_actions[0]
