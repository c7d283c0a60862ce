import ctypes


class Segfaulter:
    """Reads address 0 at its first decision, as a bot in C might: its failure names the
    signal, not a number (bubblewrap reports a killed bot as exit status 128 + 11)."""

    name, version = "segfaulter", "1"

    def act(self, observation):
        ctypes.string_at(0)
        return observation.legal_actions[0]
