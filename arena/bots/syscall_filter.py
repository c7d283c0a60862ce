"""The sandbox's system-call filter: a deny list compiled with libseccomp, as Docker's default
profile and nsjail have it.

Everything is allowed except the calls that reach parts of the kernel a bot has no use for
and that are where sandbox escapes come from: tracing and reading other processes, mounts,
keyrings, BPF, performance counters, userfaultfd, ``memfd_create`` (memory that no
address-space limit counts), loading kernels and modules, new
namespaces, io_uring, the clock, swap, reboot, the kernel log, ``personality`` values other
than Docker's, and the terminal ioctls that push input (``TIOCSTI``, ``TIOCLINUX``). A refused
call fails with ``EPERM``; only ``clone3``, whose flags a filter cannot see, fails with
``ENOSYS``, so that the C library falls back to ``clone``, whose namespace flags are checked.

Sandboxes share the system's files (read-only), and what the kernel keeps per file is
shared with them: its locks, its watchers, its pages in the page cache. So file locks
(``flock``, ``fcntl``'s record locks: ``ENOLCK``), leases, directory notifications,
inotify and fanotify (``EPERM``), and the calls that ask about the page cache (``ENOSYS``)
are refused too, and so are futexes shared between processes (their waiters were met by
file and offset), setting a file's times (``EPERM``: the sandbox's devices are the host's,
writable by all), and ``fallocate`` (``EOPNOTSUPP``: the C library then writes), which
could take disk blocks that no file-size limit counts.
Nothing is killed. The filter covers the 32-bit (x86) and x32 entry points too, and a call
of any other architecture fails with ``EPERM``. A second program, stacked on the first,
refuses every x86_64 call newer than this filter knows (``ENOSYS``).

The filter is compiled once per process (:func:`compiled`) and given to ``bwrap`` as a file
descriptor (:func:`filter_fd`); bubblewrap loads it just before it starts the bot.
"""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import tempfile
from typing import Any

INSTALL_HINT = ("install the Python package pyseccomp (pip install pyseccomp) and the "
                "system's libseccomp (apt-get install libseccomp2)")

REFUSED = (
    # other processes: tracing, reading and writing their memory, taking their files
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "process_madvise",
    # mounts, old and new
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # the kernel's keyrings, BPF programs, performance counters, userfaultfd
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    # memory in files of no file system: outside the address space RLIMIT_AS bounds, and
    # outside every limit where no memory cgroup can be had
    "memfd_create",
    # new kernels and modules
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "create_module", "get_kernel_syms", "query_module",
    # namespaces (clone's namespace flags: below), io_uring (which bypasses this filter)
    "unshare", "setns", "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the machine's: swap, reboot, kernel log, accounting, clock, quotas, ports, terminals
    "swapon", "swapoff", "reboot", "syslog", "acct", "settimeofday", "clock_settime",
    "clock_adjtime", "stime", "lookup_dcookie", "quotactl", "quotactl_fd",
    "name_to_handle_at", "open_by_handle_at", "vhangup", "iopl", "ioperm", "nfsservctl",
    "uselib", "ustat", "sysfs", "_sysctl", "vm86", "vm86old",
)
"""Refused whatever their arguments."""

WATCHERS = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init",
            "fanotify_mark")
"""Watching files for others' opening and reading them: a channel between sandboxes, which
share the system's files read-only. Refused (EPERM)."""

TIMES = ("utime", "utimes", "futimesat", "utimensat", "utimensat_time64")
"""Setting a file's times. "Now" needs only the right to write the file, and the sandbox's
devices (``/dev/null``, ...) are the host's own, writable by all: their times were a channel
between sandboxes (and changed the host's). Refused (EPERM)."""

FUTEX_PRIVATE = 128
FUTEX_WAITS = (0, 9)
"""FUTEX_WAIT and FUTEX_WAIT_BITSET: a shared one is refused with EAGAIN ("the value
changed"), so the C library's callers look again and wait by spinning."""
FUTEX_OTHERS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13)
"""The other futex operations (wakes, requeues, priority inheritance): a shared one is
refused with EINVAL, which the C library's wakes ignore."""

NOT_IMPLEMENTED = ("preadv2", "pwritev2", "cachestat", "io_setup", "io_submit",
                   "io_getevents", "io_pgetevents", "io_cancel", "io_destroy",
                   "futex_waitv", "futex_requeue")
"""Refused as a kernel without them would (ENOSYS; the C library and Python fall back to
``preadv``): the calls that ask whether a file's pages are in the page cache (``RWF_NOWAIT``
reads, ``cachestat``, Linux AIO's ``RWF_NOWAIT``). The page cache of the files sandboxes
share is shared too: a bot that reads pages could signal to any later bot that asks."""

LOCK_COMMANDS = (5, 6, 7, 12, 13, 14, 36, 37, 38)
"""``fcntl``'s record locks (F_GETLK, F_SETLK, F_SETLKW, their 64-bit forms of the 32-bit
ABI, and the open-file-description ones F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW). A lock, like
``flock``'s, is taken on a file, not on a sandbox's view of it: held on a shared system file,
it is a bit another sandbox can read, even from a bot frozen between games. Refused with
ENOLCK, as on a file system without locks."""

F_SETLEASE, F_NOTIFY = 1024, 1026
"""``fcntl``'s leases and directory notifications (dnotify: another's reading of a shared
file is an event). Refused (EPERM)."""

NOT_SYSTEM = ("create_module", "get_kernel_syms", "query_module", "nfsservctl", "stime",
              "vm86", "vm86old", "uselib", "ustat", "sysfs", "_sysctl", "quotactl_fd",
              "process_madvise", "pidfd_getfd", "mount_setattr", "cachestat",
              "io_pgetevents", "fcntl64", "utimensat_time64", "futex_time64", "futex_waitv",
              "futex_wait", "futex_wake", "futex_requeue")
"""Old or new calls an older libseccomp may not know: left out there, not an error."""

TIOCSTI, TIOCLINUX = 0x5412, 0x541C
"""The ioctls that push keystrokes into a terminal (and TIOCLINUX's console tricks)."""

PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
"""The ``personality`` values allowed (Docker's): Linux, 32-bit uname, 2.6 uname, both, and
the query. Every other value is refused."""

NAMESPACE_FLAGS = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
                   "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
                   "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
                   "CLONE_NEWNET": 0x40000000}
"""``clone`` with any of these is refused. (CLONE_NEWTIME shares its bit with clone's exit
signal; it can only be asked for with ``clone3`` and ``unshare``, both refused.)"""

LOW_32 = 0xFFFFFFFF


class SyscallFilterUnavailable(Exception):
    """The filter cannot be compiled here; the message says why and what to install."""


def personality_patterns() -> list[tuple[int, int]]:
    """(mask, value) pairs, one masked comparison each, whose union is every 32-bit value
    that is not one of :data:`PERSONALITIES`: libseccomp compares an argument only once per
    rule, so the refused set is a union of rules.

    A value outside the allowed set has a bit set outside 0x20008 (else it is one of the
    four) and a bit clear (else it is the query). Cyclically, the run of set bits holding
    such a bit ends at a bit k followed by a clear bit k+1: "k set, k+1 clear" catches it,
    unless k is 3 or 17 (allowed bits); then the run holds k-1 too: "k-1 and k set, k+1
    clear". None of these patterns matches an allowed value.
    """
    patterns = []
    for k in range(32):
        after = 1 << ((k + 1) % 32)
        if k in (3, 17):
            mask = (1 << (k - 1)) | (1 << k)
            patterns.append((mask | after, mask))
        else:
            patterns.append(((1 << k) | after, 1 << k))
    return patterns


def refuse_shared_futexes(refuse: Any, seccomp: Any) -> None:
    """Refuse every futex operation without the private flag.

    A shared futex on a file's mapping is keyed by the file and the offset: every sandbox
    maps the same interpreter, so a bot woke (and counted, to the one) the waiters another
    sandbox, or a frozen game of its set, parked there. Shared futexes are for memory shared
    between processes, which a bot shares only with itself. (The futex2 calls whose flags
    lie in memory the filter cannot read are refused as not implemented.)"""
    again, invalid = seccomp.ERRNO(errno.EAGAIN), seccomp.ERRNO(errno.EINVAL)
    operation_and_private = 0x7F | FUTEX_PRIVATE
    for name in ("futex", "futex_time64"):
        for operation in FUTEX_WAITS + FUTEX_OTHERS:
            refuse(name, seccomp.Arg(1, seccomp.MASKED_EQ, operation_and_private, operation),
                   action=again if operation in FUTEX_WAITS else invalid)
    shared = seccomp.Arg(3, seccomp.MASKED_EQ, FUTEX_PRIVATE, 0)  # futex2's flags
    refuse("futex_wait", shared, action=again)
    refuse("futex_wake", shared, action=invalid)


def _seccomp() -> Any:
    """The pyseccomp module; SyscallFilterUnavailable if it or libseccomp is not there."""
    try:
        import pyseccomp  # type: ignore[import-untyped]
    except ImportError:
        raise SyscallFilterUnavailable(
            f"the Python package pyseccomp is not installed; {INSTALL_HINT}") from None
    except (OSError, RuntimeError) as exc:  # it loads libseccomp.so.2 when imported
        raise SyscallFilterUnavailable(
            f"libseccomp cannot be loaded ({exc}); {INSTALL_HINT}") from None
    return pyseccomp


def build() -> bytes:
    """Compile the filter: the BPF program bubblewrap loads (``--seccomp``)."""
    seccomp = _seccomp()
    eperm = seccomp.ERRNO(errno.EPERM)
    arg = seccomp.Arg
    try:
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        rules.set_attr(seccomp.Attr.ACT_BADARCH, eperm)  # an unknown ABI: refused, not killed
        with contextlib.suppress(OSError):  # a binary tree of calls, not a list (libseccomp 2.5)
            rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
        if platform.machine() == "x86_64":  # the 32-bit and x32 entry points of an x86_64 kernel
            for arch in (seccomp.Arch.X86, seccomp.Arch.X32):
                with contextlib.suppress(OSError):  # EEXIST: already in
                    rules.add_arch(arch)

        def refuse(name: str, *args: Any, action: int = eperm) -> None:
            number = seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
            if number == -1:  # __NR_SCMP_ERROR: this libseccomp does not know it
                if name in NOT_SYSTEM:
                    return
                raise SyscallFilterUnavailable(f"this libseccomp does not know {name!r}; "
                                               "a newer one is needed (libseccomp2 >= 2.5)")
            rules.add_rule(action, number, *args)

        for name in REFUSED + WATCHERS + TIMES:
            refuse(name)
        for name in NOT_IMPLEMENTED:
            refuse(name, action=seccomp.ERRNO(errno.ENOSYS))
        refuse("flock", action=seccomp.ERRNO(errno.ENOLCK))
        # posix_fallocate then writes, which the file-size limit counts (FALLOC_FL_KEEP_SIZE
        # would take disk blocks without growing the file: no limit counts them)
        refuse("fallocate", action=seccomp.ERRNO(errno.EOPNOTSUPP))
        for name in ("fcntl", "fcntl64"):
            for command in LOCK_COMMANDS:
                refuse(name, arg(1, seccomp.MASKED_EQ, LOW_32, command),
                       action=seccomp.ERRNO(errno.ENOLCK))
            for command in (F_SETLEASE, F_NOTIFY):
                refuse(name, arg(1, seccomp.MASKED_EQ, LOW_32, command))
        refuse_shared_futexes(refuse, seccomp)
        refuse("clone3", action=seccomp.ERRNO(errno.ENOSYS))  # glibc then falls back to clone
        for flag in NAMESPACE_FLAGS.values():
            refuse("clone", arg(0, seccomp.MASKED_EQ, flag, flag))
        for command in (TIOCSTI, TIOCLINUX):  # the kernel reads the command as 32 bits
            refuse("ioctl", arg(1, seccomp.MASKED_EQ, LOW_32, command))
        for mask, value in personality_patterns():
            refuse("personality", arg(0, seccomp.MASKED_EQ, mask, value))
    except OSError as exc:
        raise SyscallFilterUnavailable(f"libseccomp cannot compile the filter: {exc}") from None
    return _exported(rules)


def _exported(rules: Any) -> bytes:
    """The BPF program libseccomp compiles ``rules`` into."""
    try:
        with tempfile.TemporaryFile() as file:
            rules.export_bpf(file)
            file.seek(0)
            program = file.read()
    except OSError as exc:
        raise SyscallFilterUnavailable(f"libseccomp cannot compile the filter: {exc}") from None
    if not isinstance(program, bytes) or not program or len(program) % 8:
        raise SyscallFilterUnavailable("libseccomp gave no BPF program")
    return program


NEWEST_KNOWN = 456
"""The highest x86_64 system-call number this filter was written for (``futex_requeue``).
A later call is one nobody here has looked at: refused as a kernel without it would
(``ENOSYS``; programs fall back), through :func:`build_newer`."""
HIGHEST_REFUSED = 1023


def build_newer() -> bytes | None:
    """A second program, stacked on the first: every x86_64 call numbered above
    :data:`NEWEST_KNOWN` fails with ``ENOSYS``. libseccomp refuses rules for numbers it does
    not know in a filter of several architectures, so this one has only the native one and
    lets the others' calls through to the first (None off x86_64)."""
    if platform.machine() != "x86_64":
        return None
    seccomp = _seccomp()
    try:
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.ALLOW)  # i386, x32: the first's
        with contextlib.suppress(OSError):
            rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
        for number in range(NEWEST_KNOWN + 1, HIGHEST_REFUSED + 1):
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), number)
    except OSError as exc:
        raise SyscallFilterUnavailable(f"libseccomp cannot compile the filter: {exc}") from None
    return _exported(rules)


_compiled: bytes | None = None
_compiled_newer: bytes | None = None


def compiled() -> bytes:
    """The filter's BPF program, compiled on first use and kept for the process."""
    global _compiled
    if _compiled is None:
        _compiled = build()
    return _compiled


def problem() -> str | None:
    """Why the filter cannot be had here (None if it can)."""
    try:
        compiled()
    except SyscallFilterUnavailable as exc:
        return str(exc)
    return None


def programs() -> list[bytes]:
    """The filter's BPF programs, compiled on first use and kept for the process: the
    first, and the one for calls newer than it (:func:`build_newer`)."""
    global _compiled_newer
    first = compiled()
    if _compiled_newer is None:
        _compiled_newer = build_newer() or b""
    return [first, _compiled_newer] if _compiled_newer else [first]


def filter_fds() -> list[int]:
    """New file descriptors (close-on-exec: pass them on explicitly), one per program at
    offset 0, for ``bwrap --add-seccomp-fd FD``."""
    fds: list[int] = []
    try:
        for program in programs():
            fds.append(_program_fd(program))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds


def _program_fd(program: bytes) -> int:
    """A memory file, not a pipe, holding ``program``: bwrap reads it when it likes,
    however long the program is."""
    try:
        fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # no memfd: an unnamed temporary file
        with tempfile.TemporaryFile() as file:
            fd = os.dup(file.fileno())
    try:
        written = 0
        while written < len(program):
            written += os.write(fd, program[written:])
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
