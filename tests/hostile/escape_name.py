class EscapeName:
    """A name with terminal escape codes and a newline, to fake a line of the standings."""

    name, version = "\x1b[2K\rgreedy@1.0  100  100  0  0\nx", "1"

    def act(self, observation):
        return observation.legal_actions[0]
