import os


class Exiter:
    name, version = "exiter", "1"

    def act(self, observation):
        os._exit(3)
