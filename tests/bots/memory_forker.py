"""Forks (through libc, past the audit hook) 6 children that each fill 300 MB, under a memory
limit of 512 MB: it reports how many of them the kernel killed."""

import ctypes
import os
import signal
import time


class MemoryForker:
    name, version = "memory-forker", "1"

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        children = []
        for _ in range(6):
            pid = libc.fork()
            if pid == 0:
                block = bytearray(300 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                libc.pause()
                libc._exit(0)
            children.append(pid)
        time.sleep(2)
        killed = 0
        for pid in children:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
                killed += 1
            else:
                libc.kill(pid, signal.SIGKILL)
        raise RuntimeError(f"KILLED {killed} KILLED")

    def act(self, observation):
        return observation.legal_actions[0]
