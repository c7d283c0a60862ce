"""Forks (through libc, past the audit hook) 6 children that each fill 300 MB, under a memory
limit of 512 MB: it reports how many of them the kernel killed."""

import ctypes
import os
import select
import signal
import time


class MemoryForker:
    name, version = "memory-forker", "1"

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        filled_r, filled_w = os.pipe()
        children = []
        for _ in range(6):
            pid = libc.fork()
            if pid == 0:
                block = bytearray(300 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                os.write(filled_w, b"x")
                libc.pause()
                libc._exit(0)
            children.append(pid)
        # every child is either killed or has filled its block (a slow machine takes a while)
        killed, filled, pending = 0, 0, set(children)
        deadline = time.monotonic() + 7
        while killed + filled < len(children) and time.monotonic() < deadline:
            for pid in list(pending):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    pending.discard(pid)
                    killed += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            if select.select([filled_r], [], [], 0.05)[0]:
                filled += len(os.read(filled_r, 16))
        for pid in pending:
            libc.kill(pid, signal.SIGKILL)
        raise RuntimeError(f"KILLED {killed} KILLED")

    def act(self, observation):
        return observation.legal_actions[0]
