class LongName:
    """A name of a million characters: slow reports, huge files."""

    name, version = "x" * 1_000_000, "1"

    def act(self, observation):
        return observation.legal_actions[0]
