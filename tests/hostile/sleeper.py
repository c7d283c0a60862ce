import time


class Sleeper:
    name, version = "sleeper", "1"

    def act(self, observation):
        time.sleep(60)
        return observation.legal_actions[0]
