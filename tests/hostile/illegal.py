class Illegal:
    """Answers with well-formed actions that are never legal when it is asked."""

    name, version = "illegal", "1"

    def act(self, observation):
        if observation.state.get("phase") == "reroll":
            return "place:max-15"
        return "reroll:0,1,2"
