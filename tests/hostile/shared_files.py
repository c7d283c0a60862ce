"""Tries the channels between sandboxes that go through what the kernel keeps per file: the
system's files are the same files in every sandbox (read-only), so a lock held on one, a
watch on it, its pages in the page cache are seen from every other sandbox, even from a
bot frozen between games. And it tries to take disk blocks through its stderr with
``fallocate(FALLOC_FL_KEEP_SIZE)``, which no file-size limit counts, and says whether its
stderr is a disk file (whose writes and syncs take the disk's bandwidth from everyone).

At its first decision it writes ``CHANNELS {json}`` to stderr: each attempt and the error
it got (``"ok"`` if it got through), then plays the first legal action. It also tries the
host's devices, which a sandbox shares (their times), the machine's counts in
``/proc/sys`` that a bot can set exactly (its ptys, its open files), and futexes keyed by a
shared file and offset (a waiter in one sandbox woken and counted from another).
"""

import ctypes
import errno
import fcntl
import json
import mmap
import os
import struct
import sys

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
F_OFD_GETLK, F_OFD_SETLK, F_SETLEASE, F_NOTIFY, DN_ACCESS = 36, 37, 1024, 1026, 0x1
SYS_FANOTIFY_INIT, SYS_IO_SETUP, SYS_CACHESTAT = 300, 206, 451
FALLOC_FL_KEEP_SIZE, AT_FDCWD = 1, -100
SYS_FUTEX, SYS_FUTEX_WAITV, SYS_FUTEX_WAKE, SYS_FUTEX_WAIT, SYS_FUTEX_REQUEUE = (
    202, 449, 454, 455, 456)
FUTEX_PRIVATE, FUTEX2_SIZE_U32, CLOCK_MONOTONIC, LOW_32 = 128, 2, 1, 0xFFFFFFFF
MILLISECOND = (ctypes.c_long * 2)(0, 1_000_000)  # a struct timespec
PRIVATE_WORD = ctypes.c_uint32(0)
MAPPED = []


def _flock_struct(kind):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)


def _libc(name, *args):
    result = getattr(LIBC, name)(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), name)
    return result


def _futex(number, *args):
    return _libc("syscall", number, *(ctypes.c_long(a) for a in args))


def futex_attempts(shared):
    """A futex keyed by a shared file's offset: a waiter parked in one sandbox, woken and
    counted from another (futex, and futex2's wait and wake; waitv and requeue take their
    flags from memory)."""
    page = mmap.mmap(shared, mmap.PAGESIZE, prot=mmap.PROT_READ)
    MAPPED.append(page)  # mapped as long as the bot runs
    word = ctypes.c_uint32.from_address(_mapped_address(page))
    at = ctypes.addressof(word)
    return {
        "futex_shared_wake": lambda: _futex(SYS_FUTEX, at, 1, 1, 0, 0, 0),
        "futex_shared_wait": lambda: _futex(SYS_FUTEX, at, 0, word.value,
                                            ctypes.addressof(MILLISECOND), 0, 0),
        "futex_shared_cmp_requeue": lambda: _futex(SYS_FUTEX, at, 4, 1, 1, at + 4, word.value),
        "futex2_wake": lambda: _futex(SYS_FUTEX_WAKE, at, LOW_32, 1, FUTEX2_SIZE_U32),
        "futex2_wait": lambda: _futex(SYS_FUTEX_WAIT, at, word.value, LOW_32, FUTEX2_SIZE_U32,
                                      ctypes.addressof(MILLISECOND), CLOCK_MONOTONIC),
        "futex_waitv": lambda: _futex(SYS_FUTEX_WAITV, 0, 0, 0, 0, 0),
        "futex_requeue": lambda: _futex(SYS_FUTEX_REQUEUE, 0, 0, 0, 0),
        "futex_private_wake": lambda: _futex(SYS_FUTEX, ctypes.addressof(PRIVATE_WORD),
                                             1 | FUTEX_PRIVATE, 1, 0, 0, 0),
    }


def _mapped_address(page):
    """Where a read-only mmap object's memory lies (it exports no writable buffer)."""
    return ctypes.c_void_p.from_address(id(page) + 2 * ctypes.sizeof(ctypes.c_void_p)).value


def attempts(shared, folder):
    """name -> a call that a channel needs."""
    return {
        **futex_attempts(shared),
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


def writable_mounts():
    """The mount points the sandbox may write to (its /proc's files hold their own rights)."""
    with open("/proc/self/mountinfo") as file:
        mounts = [line.split() for line in file]
    return sorted(fields[4] for fields in mounts if "rw" in fields[5].split(","))


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
    try:  # through libc: Python's audit hook refuses it, the kernel must
        _libc("mkdir", b"/proc/sys/notes", 0o700)
        found["write_proc_sys"] = "ok"
    except OSError as exc:
        found["write_proc_sys"] = errno.errorcode.get(exc.errno, str(exc.errno))
    found["writable_mounts"] = writable_mounts()
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
