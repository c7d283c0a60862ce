"""Fills 60 MB of a file in memory at its first decision: its stderr or its /tmp (the option
``where``), under a memory limit smaller than that. Neither is on disk, and both count
against the bot's memory."""

import os


class FileFiller:
    name, version = "file-filler", "1"

    def __init__(self, where="stderr"):
        self.where = where

    def act(self, observation):
        fd = 2 if self.where == "stderr" else os.open("/tmp/filler", os.O_WRONLY | os.O_CREAT)
        block = b"x" * (1 << 20)
        for _ in range(60):
            os.write(fd, block)
        return observation.legal_actions[0]
