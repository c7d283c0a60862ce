import socket


class Networker:
    """Connects to a port arena's machine listens on (given) and to the outside world.
    Plays the first legal action; raises if it reached anything."""

    name, version = "networker", "1"

    def __init__(self, port=1):
        self.port = port

    def start(self, info):
        for address in (("127.0.0.1", self.port), ("1.1.1.1", 53)):
            try:
                socket.create_connection(address, timeout=0.5).close()
            except OSError:
                continue
            raise RuntimeError(f"ESCAPED: connected to {address}")

    def act(self, observation):
        return observation.legal_actions[0]
