"""Seasons of the Sun: high totals on Max sectors, low totals on min sectors.

An example of a bot published as a package: its distribution declares the
entry point ``highlow`` in group ``arena.bots`` (see ``pyproject.toml``), so
once installed, arena names it ``highlow`` from any folder.
"""

MIDDLE = 10.5  # the mean total of three dice


class HighLowPlayer:
    """Keeps every roll; places a total above the mean on the most valuable open Max
    sector and one below it on the most valuable open min sector (either, if none)."""

    name = "highlow"
    version = "1.0"
    games = ("seasons",)

    def act(self, observation):
        state = observation.state
        if state["phase"] == "reroll":
            return "keep"
        wanted = "max" if sum(state["dice"]) > MIDDLE else "min"
        places = observation.legal_actions
        fitting = [a for a in places if a.sector.startswith(wanted)] or places
        return max(fitting, key=lambda a: int(a.sector.split("-")[1]))
