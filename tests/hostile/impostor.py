class Impostor:
    """Claims to be the shipped greedy bot, version 1.0, with other code."""

    name, version = "greedy", "1.0"

    def act(self, observation):
        return observation.legal_actions[0]
