import ctypes
import errno
import json
import mmap
import os
import struct
import sys
import threading
import time

PID = "pid"  # stands for its own pid
CLONE_THREAD = 0x10000  # without CLONE_SIGHAND: clone fails (EINVAL) even where it is not refused
NAMESPACES = {"NEWNS": 0x20000, "NEWCGROUP": 0x02000000, "NEWUTS": 0x04000000,
              "NEWIPC": 0x08000000, "NEWUSER": 0x10000000, "NEWPID": 0x20000000,
              "NEWNET": 0x40000000}
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
X32 = 0x40000000
CHAR = ctypes.c_char(b"x")

# name: (x86_64 number, arguments). The arguments are harmless: where the call is not
# refused it fails on them (EFAULT, EBADF, EINVAL, ESRCH) or does nothing (unshare(0)).
CALLS = {
    "ptrace": (101, (3, PID, 0, 0)),  # PTRACE_PEEKUSER on itself: ESRCH if let through
    "process_vm_readv": (310, (PID, 0, 0, 0, 0, 0)),
    "process_vm_writev": (311, (PID, 0, 0, 0, 0, 0)),
    "kcmp": (312, (PID, PID, 0, 0, 0)),
    "pidfd_getfd": (438, (-1, 0, 0)),
    "process_madvise": (440, (-1, 0, 0, 0, 0)),
    "mount": (165, (0, 0, 0, 0, 0)),
    "umount2": (166, (0, 0)),
    "pivot_root": (155, (0, 0)),
    "move_mount": (429, (-1, 0, -1, 0, 0)),
    "open_tree": (428, (-1, 0, 0)),
    "fsopen": (430, (0, 0)),
    "fsconfig": (431, (-1, 0, 0, 0, 0)),
    "fsmount": (432, (-1, 0, 0)),
    "fspick": (433, (-1, 0, 0)),
    "mount_setattr": (442, (-1, 0, 0, 0, 0)),
    "keyctl": (250, (0, -3, 0)),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "add_key": (248, (0, 0, 0, 0, 0)),
    "request_key": (249, (0, 0, 0, 0)),
    "bpf": (321, (0, 0, 0)),
    "perf_event_open": (298, (0, 0, -1, -1, 0)),
    "userfaultfd": (323, (0,)),
    "memfd_create": (319, (0, 0)),  # a NULL name: EFAULT if let through
    "kexec_load": (246, (0, 0, 0, 0)),
    "kexec_file_load": (320, (-1, -1, 0, 0, 0)),
    "init_module": (175, (0, 0, 0)),
    "finit_module": (313, (-1, 0, 0)),
    "delete_module": (176, (0, 0)),
    "create_module": (174, (0, 0)),
    "get_kernel_syms": (177, (0,)),
    "query_module": (178, (0, 0, 0, 0, 0)),
    "unshare": (272, (0,)),  # unshare nothing: succeeds if let through
    "setns": (308, (-1, 0)),
    "io_uring_setup": (425, (1, 0)),
    "io_uring_enter": (426, (-1, 0, 0, 0, 0, 0)),
    "io_uring_register": (427, (-1, 0, 0, 0)),
    "swapon": (167, (0, 0)),
    "swapoff": (168, (0,)),
    "reboot": (169, (0, 0, 0, 0)),  # wrong magic numbers
    "syslog": (103, (10, 0, 0)),  # SYSLOG_ACTION_SIZE_BUFFER
    "acct": (163, (0,)),
    "settimeofday": (164, (0, 0)),
    "clock_settime": (227, (0, 0)),
    "clock_adjtime": (305, (0, 0)),
    "lookup_dcookie": (212, (0, 0, 0)),
    "quotactl": (179, (0, 0, 0, 0)),
    "quotactl_fd": (443, (-1, 0, 0, 0)),
    "name_to_handle_at": (303, (-1, 0, 0, 0, 0)),
    "open_by_handle_at": (304, (-1, 0, 0)),
    "vhangup": (153, ()),
    "iopl": (172, (0,)),  # level 0: succeeds if let through
    "ioperm": (173, (0, 0, 0)),
    "nfsservctl": (180, (0, 0, 0)),
    "uselib": (134, (0,)),
    "ustat": (136, (0, 0)),
    "sysfs": (139, (3,)),
    "_sysctl": (156, (0,)),
    **{f"clone({name})": (56, (flag | CLONE_THREAD, 0, 0, 0, 0))
       for name, flag in NAMESPACES.items()},
    "ioctl(TIOCSTI)": (16, (0, TIOCSTI, CHAR)),
    "ioctl(TIOCSTI|1<<32)": (16, (0, TIOCSTI | 1 << 32, CHAR)),  # the kernel reads 32 bits
    "ioctl(TIOCLINUX)": (16, (0, TIOCLINUX, CHAR)),
    **{f"personality({value:#x})": (135, (value,))
       for value in (0x1, 0x40000, 0x400000, 0x20001, 0x40008, 0x7FFFFFFF, 0x80000000,
                     0xFFFFFFFE, 0x1_0004_0000)},
    # what the kernel keeps per file, shared by every sandbox: locks, leases, watches, the
    # page cache; and fallocate (on fd -1: EBADF if let through)
    "flock": (73, (-1, 0)),
    **{f"fcntl({name})": (72, (-1, command, 0)) for name, command in (
        ("F_GETLK", 5), ("F_SETLK", 6), ("F_SETLKW", 7), ("F_OFD_GETLK", 36),
        ("F_OFD_SETLK", 37), ("F_OFD_SETLKW", 38), ("F_SETLK|1<<32", 6 | 1 << 32),
        ("F_SETLEASE", 1024), ("F_NOTIFY", 1026))},
    "inotify_init": (253, ()),
    "inotify_init1": (294, (0,)),
    "inotify_add_watch": (254, (-1, 0, 0)),
    "fanotify_init": (300, (0, 0)),
    "fanotify_mark": (301, (-1, 0, 0, -1, 0)),
    "preadv2": (327, (-1, 0, 0, 0, 0, 8)),  # RWF_NOWAIT
    "pwritev2": (328, (-1, 0, 0, 0, 0, 8)),
    "cachestat": (451, (-1, 0, 0, 0)),
    "io_setup": (206, (0, 0)),
    "io_destroy": (207, (0,)),
    "io_getevents": (208, (0, 0, 0, 0, 0)),
    "io_submit": (209, (0, 0, 0)),
    "io_cancel": (210, (0, 0, 0)),
    "io_pgetevents": (333, (0, 0, 0, 0, 0, 0)),
    "fallocate": (285, (-1, 1, 0, 4096)),  # FALLOC_FL_KEEP_SIZE
    # setting a file's times (a null path: EFAULT if let through)
    "utime": (132, (0, 0)),
    "utimes": (235, (0, 0)),
    "futimesat": (261, (-1, 0, 0)),
    "utimensat": (280, (-1, 0, 0, 0)),
    # shared futexes, keyed by a shared file's offset (a null address: EFAULT if let through)
    **{f"futex({name})": (202, (0, operation, 1, 0, 0, 0)) for name, operation in (
        ("FUTEX_WAIT", 0), ("FUTEX_WAKE", 1), ("FUTEX_REQUEUE", 3), ("FUTEX_CMP_REQUEUE", 4),
        ("FUTEX_WAKE_OP", 5), ("FUTEX_LOCK_PI", 6), ("FUTEX_WAIT_BITSET", 9),
        ("FUTEX_WAKE_BITSET", 10), ("FUTEX_WAKE|1<<32", 1 | 1 << 32),
        ("FUTEX_WAIT|CLOCK_REALTIME", 256))},
    "futex_wake": (454, (0, 0xFFFFFFFF, 1, 2)),
    "futex_wait": (455, (0, 0, 0xFFFFFFFF, 2, 0, 1)),
    "futex_waitv": (449, (0, 0, 0, 0, 0)),
    "futex_requeue": (456, (0, 0, 0, 0)),
    # calls newer than the filter knows (on a kernel that has them: mseal(0, 0, 0) returns
    # 0, listmount and statmount fail on their null arguments): "no such call"
    "statmount": (457, (0, 0, 0, 0)),
    "listmount": (458, (0, 0, 0, 0)),
    "mseal": (462, (0, 0, 0)),
    "file_setattr": (469, (-1, 0, 0, 0, 0)),
    # the x32 entry points (x32 numbers), which the kernel may not even have
    "x32 ptrace": (X32 | 521, (3, PID, 0, 0)),
    "x32 unshare": (X32 | 272, (0,)),
    "x32 personality": (X32 | 135, (0x40000,)),
    "x32 flock": (X32 | 73, (-1, 0)),
    "x32 fcntl(F_SETLK)": (X32 | 72, (-1, 6, 0)),
    "x32 inotify_init1": (X32 | 294, (0,)),
    "x32 utimensat": (X32 | 280, (-1, 0, 0, 0)),
    "x32 futex(FUTEX_WAKE)": (X32 | 202, (0, 1, 1, 0, 0, 0)),
}
NO_LOCKS = ("flock", "fcntl(F_GETLK)", "fcntl(F_SETLK)", "fcntl(F_SETLKW)",
            "fcntl(F_OFD_GETLK)", "fcntl(F_OFD_SETLK)", "fcntl(F_OFD_SETLKW)",
            "fcntl(F_SETLK|1<<32)", "x32 flock", "x32 fcntl(F_SETLK)", "i386 flock",
            "i386 fcntl(F_SETLK)", "i386 fcntl64(F_SETLK64)")
NOT_IMPLEMENTED = ("clone3", "preadv2", "pwritev2", "cachestat", "io_setup", "io_destroy",
                   "io_getevents", "io_submit", "io_cancel", "io_pgetevents", "futex_waitv",
                   "futex_requeue", "statmount", "listmount", "mseal", "file_setattr")
FUTEX_WAITS = ("futex(FUTEX_WAIT)", "futex(FUTEX_WAIT_BITSET)", "futex(FUTEX_WAIT|CLOCK_REALTIME)",
               "futex_wait", "i386 futex_time64(FUTEX_WAIT)")
FUTEX_OTHERS = ("futex(FUTEX_WAKE)", "futex(FUTEX_REQUEUE)", "futex(FUTEX_CMP_REQUEUE)",
                "futex(FUTEX_WAKE_OP)", "futex(FUTEX_LOCK_PI)", "futex(FUTEX_WAKE_BITSET)",
                "futex(FUTEX_WAKE|1<<32)", "futex_wake", "x32 futex(FUTEX_WAKE)",
                "i386 futex(FUTEX_WAKE)")
EXPECTED = {  # clone3 says "no such call": the C library falls back; so for the others
    **dict.fromkeys(NOT_IMPLEMENTED, errno.ENOSYS), **dict.fromkeys(NO_LOCKS, errno.ENOLCK),
    **dict.fromkeys(FUTEX_WAITS, errno.EAGAIN), **dict.fromkeys(FUTEX_OTHERS, errno.EINVAL),
    "fallocate": errno.EOPNOTSUPP}
CALLS["clone3"] = (435, (0, 0))
# the 32-bit entry points (int 0x80, i386 numbers, arguments in ebx and ecx)
I386 = {"i386 ptrace": (26, 3, 0), "i386 umount": (22, 0, 0), "i386 unshare": (310, 0, 0),
        "i386 personality": (136, 0x40000, 0), "i386 flock": (143, 0xFFFFFFFF, 0),
        "i386 fcntl(F_SETLK)": (55, 0xFFFFFFFF, 6),
        "i386 fcntl64(F_SETLK64)": (221, 0xFFFFFFFF, 13), "i386 utime": (30, 0, 0),
        "i386 utimensat_time64": (412, 0xFFFFFFFF, 0), "i386 futex(FUTEX_WAKE)": (240, 0, 1),
        "i386 futex_time64(FUTEX_WAIT)": (422, 0, 0)}
ALLOWED_PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0x1_0000_0000)


class Syscaller:
    """Tries the system calls a sandbox's filter refuses (ptrace, mounts, keyrings, BPF,
    namespaces, io_uring, kernel modules, the clock, personality, TIOCSTI, ...) through libc's
    syscall() with x86_64 numbers, and through the 32-bit and x32 entry points. Writes what it
    found as one JSON line to stderr, plays the first legal action; raises if any call was let
    through (``ESCAPED`` and its names)."""

    name, version = "syscaller", "1"

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        results = {name: self.call(libc, number, args) for name, (number, args) in CALLS.items()}
        results.update(self.int80_all(libc))
        expected = {name: errno.errorcode[EXPECTED.get(name, errno.EPERM)] for name in results}
        let_through = {name: got for name, got in results.items() if got != expected[name]}
        with open("/proc/self/status") as file:
            status = dict(line.split(":\t", 1) for line in file if line.startswith("Seccomp"))
        summary = {"seccomp": status.get("Seccomp", "?").strip(), "tried": len(results),
                   "refused": len(results) - len(let_through), "let_through": let_through,
                   "works": self.what_works(libc)}
        print("SYSCALLS " + json.dumps(summary, separators=(",", ":")), file=sys.stderr,
              flush=True)
        if let_through:
            raise RuntimeError(f"ESCAPED {', '.join(let_through)}")

    @staticmethod
    def call(libc, number, args):
        words = [ctypes.c_long(os.getpid() if a == PID else a) if isinstance(a, (int, str))
                 else ctypes.byref(a) for a in args]
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(number), *words)
        if result == -1:
            return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
        if number in (253, 294, 300, 323, 425, X32 | 294) and result >= 0:  # an fd it got
            os.close(result)
        return f"returned {result}"

    @staticmethod
    def int80_all(libc):
        """The i386 calls, each in a child (libc's fork: past the audit hook): int 0x80 may
        be missing (SIGSEGV)."""
        found = {}
        for name, (number, ebx, ecx) in {"i386 getpid": (20, 0, 0), **I386}.items():
            read, write = os.pipe()
            pid = libc.fork()
            if pid == 0:
                os.close(read)
                result = int80(number, ebx, ecx)
                os.write(write, str(result - os.getpid() if number == 20 else result).encode())
                os._exit(0)
            os.close(write)
            with os.fdopen(read) as pipe:
                said = pipe.read()
            os.waitpid(pid, 0)
            if not said:
                found[name] = "no int 0x80 here"
            elif name == "i386 getpid":  # the entry point works: what it refuses counts
                if said != "0":
                    found[name] = f"getpid said {said}"
            else:
                result = int(said)
                found[name] = errno.errorcode.get(-result, f"returned {result}") if (
                    -4096 < result < 0) else f"returned {result}"
        if found.get("i386 getpid") == "no int 0x80 here":
            return {}
        return found

    @staticmethod
    def what_works(libc):
        works = {}
        libc.personality.restype = ctypes.c_int
        before = libc.personality(ctypes.c_ulong(0xFFFFFFFF))
        for value in ALLOWED_PERSONALITIES:
            ok = libc.personality(ctypes.c_ulong(value)) != -1
            works[f"personality({value:#x})"] = ok
        libc.personality(ctypes.c_ulong(before))
        pid = libc.fork()
        if pid == 0:
            os._exit(7)
        works["fork"] = os.waitpid(pid, 0)[1] == 7 << 8
        thread = threading.Thread(target=lambda: works.setdefault("thread", True))
        thread.start()
        thread.join()
        works["pthread_join"] = pthread_join_works(libc)  # a shared wait, refused: it spins
        works["system"] = libc.system(b"/bin/true") == 0  # posix_spawn: clone3, then clone
        return works

    def act(self, observation):
        return observation.legal_actions[0]


def pthread_join_works(libc):
    """The C library's pthread_join waits for a thread's end with a shared futex."""
    started = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(
        lambda _: time.sleep(0.05) or 7)  # still running when it is joined
    thread = ctypes.c_ulong()
    if libc.pthread_create(ctypes.byref(thread), None, started, None) != 0:
        return False
    result = ctypes.c_void_p()
    return libc.pthread_join(thread, ctypes.byref(result)) == 0 and result.value == 7


def int80(number, ebx, ecx):
    """A 32-bit system call through int 0x80: ``number`` in eax, ``ebx``, ``ecx``, the rest
    0."""
    code = (b"\x53\xbb" + struct.pack("<I", ebx)    # push rbx; mov ebx, ebx_value
            + b"\xb9" + struct.pack("<I", ecx)     # mov ecx, ecx_value
            + b"\x31\xd2\x31\xf6\x31\xff"            # edx = esi = edi = 0
            + b"\xb8" + struct.pack("<I", number)   # mov eax, number
            + b"\xcd\x80\x5b\xc3")                   # int 0x80; pop rbx; ret
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    function = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    return function()
