class PathName:
    """A name that is a path: a submission of it would be written outside its folder."""

    name, version = "../../bots/seasons/greedy", "/tmp/x"

    def act(self, observation):
        return observation.legal_actions[0]
