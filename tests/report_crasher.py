"""A Seasons bot for the report tests: plays its first legal action, and fails in its
``crash_at``-th decision of a game whose seed is odd, with text that tries to be HTML."""

from __future__ import annotations

import sys
from typing import Any

HOSTILE = "<script>alert('crash')</script>"


class Crasher:
    name, version = "crasher", "1"

    def __init__(self, crash_at: int = 3) -> None:
        self.crash_at, self.decisions, self.odd = crash_at, 0, False

    def start(self, info: Any) -> None:
        self.decisions, self.odd = 0, info.seed % 2 == 1

    def act(self, observation: Any) -> Any:
        self.decisions += 1
        if self.odd and self.decisions == self.crash_at:
            print(f"about to fail {HOSTILE}", file=sys.stderr)
            raise KeyError(HOSTILE)
        return observation.legal_actions[0]
