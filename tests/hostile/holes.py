import ctypes
import os


class Holes:
    """Tries the ways around an audit hook (directory fds, links, renames, truncation, mode
    changes, fifos, /proc through a directory fd, libc) on a file outside its folder. Plays
    the first legal action; raises if any of them reached the file."""

    name, version = "holes", "1"

    def __init__(self, target="/tmp/none"):
        self.target = target

    def start(self, info):
        folder, name = os.path.split(self.target)
        libc = ctypes.CDLL(None, use_errno=True)
        attempts = {
            "dir_fd": lambda: os.close(os.open(name, os.O_WRONLY | os.O_APPEND,
                                               dir_fd=os.open(folder, os.O_RDONLY))),
            "link": lambda: os.link(self.target, "linked"),
            "symlink": lambda: os.symlink(self.target, "pointer"),
            "rename": lambda: os.rename(self.target, self.target + ".moved"),
            "truncate": lambda: os.truncate(self.target, 0),
            "chmod": lambda: os.chmod(self.target, 0o777),
            "mkfifo": lambda: os.mkfifo(self.target + ".fifo"),
            "proc": lambda: os.open("cmdline", os.O_RDONLY,
                                    dir_fd=os.open(f"/proc/{os.getppid() or 2}", os.O_RDONLY)),
            "libc": lambda: self._check(libc.open(self.target.encode(), os.O_WRONLY) >= 0),
        }
        for label, attempt in attempts.items():
            try:
                attempt()
            except Exception:
                continue
            raise RuntimeError(f"ESCAPED: {label} reached {self.target}")

    @staticmethod
    def _check(ok):
        if not ok:
            raise OSError("refused")

    def act(self, observation):
        return observation.legal_actions[0]
