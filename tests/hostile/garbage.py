class Garbage:
    name, version = "garbage", "1"

    def act(self, observation):
        return {"not": ["an", "action"]}
