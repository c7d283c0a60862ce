import sys


class Printer:
    """Prints protocol-looking noise to stdout; its own answers are legal."""

    name, version = "printer", "1"

    def act(self, observation):
        print("place:max-15")
        print('{"name": "impostor", "version": "0"}')
        sys.stdout.write("keep\n" * 1000)
        sys.stdout.flush()
        return observation.legal_actions[-1]
