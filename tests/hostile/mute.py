import time


class Mute:
    """Answers 5 decisions, then never again: only a time limit stops arena waiting."""

    name, version = "mute", "1"

    def __init__(self):
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > 5:
            time.sleep(3600)
        return observation.legal_actions[0]
