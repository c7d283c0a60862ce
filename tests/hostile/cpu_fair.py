import time


class CpuFair:
    """A fair bot that thinks hard: about 0.1 s of CPU per game (under cpu_limit 0.6 s,
    game after game: a per-game limit must be reset, not used up)."""

    name, version = "cpu-fair", "1"

    def start(self, info):
        self.spent = 0.0

    def act(self, observation):
        if self.spent < 0.1:
            began = time.process_time()
            while time.process_time() - began < 0.02:
                pass
            self.spent += time.process_time() - began
        return observation.legal_actions[0]
