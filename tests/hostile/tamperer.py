import os


class Tamperer:
    """Looks for the dice seed and tampers with the referee's modules in its own process.

    It plays legally, so its games must be ordinary games: nothing it does here can
    reach the referee, which runs in another process.
    """

    name, version = "tamperer", "1"

    def __init__(self):
        self.found = []

    def start(self, info):
        import arena.referee.dice
        import arena.referee.match

        arena.referee.dice.die_value = lambda *args, **kwargs: 6
        arena.referee.dice.roll_dice = lambda seed, request: (6,) * len(request.slots)
        arena.referee.match.play_game = None
        self.found.append(repr(info))
        self.found.extend(f"{k}={v}" for k, v in os.environ.items())
        for path in (f"/proc/{os.getppid()}/cmdline", f"/proc/{os.getppid()}/environ"):
            try:
                with open(path, "rb") as source:
                    self.found.append(source.read().decode(errors="replace"))
            except OSError:
                pass

    def act(self, observation):
        return observation.legal_actions[0]
