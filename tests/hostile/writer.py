class Writer:
    """Tries to write a file outside its working folder (the path is its parameter)."""

    name, version = "writer", "1"

    def __init__(self, target="/tmp/arena-hostile-writer.txt"):
        self.target = target

    def act(self, observation):
        with open(self.target, "w") as out:
            out.write("written by a hostile bot")
        return observation.legal_actions[0]
