class Raiser:
    name, version = "raiser", "1"

    def act(self, observation):
        raise RuntimeError("hostile bot raising on purpose")
