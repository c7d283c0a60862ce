class InfiniteLoop:
    name, version = "infinite-loop", "1"

    def act(self, observation):
        while True:
            pass
