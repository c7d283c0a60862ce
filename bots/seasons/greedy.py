"""Seasons of the Sun: a one-step greedy bot.

Placement: for every open sector, the *gain* of putting the current total
there is the sector's value times how much the total raises the chance of
winning the sector above what an average roll would give. The bot places
where the gain is largest.

Re-roll: for each of the 8 subsets of die slots, the expected best gain over
every outcome of the re-rolled dice; the bot picks the subset with the
highest expectation (keeping on ties).
"""

from functools import cache
from itertools import product

TOTALS = range(3, 19)


def _total_distribution():
    counts = dict.fromkeys(TOTALS, 0)
    for dice in product(range(1, 7), repeat=3):
        counts[sum(dice)] += 1
    return {t: c / 216 for t, c in counts.items()}


P_TOTAL = _total_distribution()


@cache
def win_chance(total, sector, opponent):
    """Chance that ``total`` wins ``sector`` against the opponent's field (None = empty)."""
    is_max = sector.startswith("max")

    def against(other):
        if total == other:
            return 0.5  # neutralised: the sector is played again
        return 1.0 if (total > other) == is_max else 0.0

    if opponent is not None:
        return against(opponent)
    return sum(p * against(t) for t, p in P_TOTAL.items())


@cache
def sector_gain(total, sector, opponent):
    """Value of the sector times the rise in winning chance over an average roll."""
    value = int(sector.split("-")[1])
    baseline = sum(p * win_chance(t, sector, opponent) for t, p in P_TOTAL.items())
    return value * (win_chance(total, sector, opponent) - baseline)


class GreedyPlayer:
    """``rerolls=False`` makes a weaker variant that always keeps its first roll."""

    name = "greedy"
    version = "1.0"
    games = ("seasons",)

    def __init__(self, rerolls=True):
        self.rerolls = rerolls

    def act(self, observation):
        state = observation.state
        gains = self.gains_by_total(state)
        if state["phase"] == "reroll":
            if not self.rerolls:
                return "keep"
            return self.best_reroll(observation.legal_actions, state["dice"], gains)
        total = sum(state["dice"])
        return max(observation.legal_actions,
                   key=lambda a: self.gain(state, a.sector, total))

    def gain(self, state, sector, total):
        opponent = state["fields"][sector][1 - state["seat_to_move"]]
        return sector_gain(total, sector, opponent)

    def gains_by_total(self, state):
        seat = state["seat_to_move"]
        open_sectors = [s for s, f in state["fields"].items() if f[seat] is None]
        return {t: max(self.gain(state, s, t) for s in open_sectors) for t in TOTALS}

    def best_reroll(self, actions, dice, gains):
        def expected(action):
            outcomes = list(product(range(1, 7), repeat=len(action.slots)))
            kept = sum(v for i, v in enumerate(dice) if i not in action.slots)
            return sum(gains[kept + sum(o)] for o in outcomes) / len(outcomes)

        return max(actions, key=lambda a: (expected(a), -len(a.slots)))


