class MemoryHog:
    name, version = "memory-hog", "1"

    def act(self, observation):
        self.block = bytearray(4 * 1024**3)  # 4 GB
        return observation.legal_actions[0]
