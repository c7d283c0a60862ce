

class DiskFiller:
    """Writes into its folder until the disk is full (its folder is bounded: only it is)."""

    name, version = "disk-filler", "1"

    def start(self, info):
        block = b"x" * (1 << 20)
        for index in range(100_000):
            try:
                with open(f"fill-{index}", "wb") as out:
                    for _ in range(32):
                        out.write(block)
            except OSError:
                return

    def act(self, observation):
        return observation.legal_actions[0]
