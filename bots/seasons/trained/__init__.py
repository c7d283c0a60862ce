"""Seasons of the Sun: a tabular policy trained through arena's PettingZoo adapter.

The policy is two tables of preferences (logits), learned by
``examples/train_seasons_policy.py`` and kept in ``policy.json`` next to this
file. The bot plays the action whose preference is highest.

Placement: one preference per (sector, total 3..18, what the placement does
there), the last being one of

* ``open``: the opponent's field is empty, the sector stays undecided;
* ``win``: the placement decides the sector for me (and I move again);
* ``lose``: it decides the sector for the opponent;
* ``tie``: the opponent holds the same total, both fields are emptied.

Re-roll: one preference per (context, sum of the dice kept, number of dice
re-rolled), the context being how many Max and how many min fields of mine
are still empty (none, one, two or more of each; both none never comes to a
decision).

The actions are numbered as arena's PettingZoo adapter numbers them
(:mod:`arena.env.actions`): ids 0-7 the re-rolls, 8-18 the placements in
sector order. The same functions turn an adapter's observation vector and an
arena observation into the same table entries, so the policy trained on the
one plays the other. Pure Python: the sandbox shows this folder, nothing to
install.
"""

from __future__ import annotations

import json
from pathlib import Path

SECTORS = ("max-5", "max-8", "max-9", "max-10", "max-13", "max-15",
           "min-9", "min-10", "min-11", "min-13", "min-17")
IS_MAX = tuple(sector.startswith("max") for sector in SECTORS)
REROLLS = ((), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2))
ACTION_NAMES = ("keep", *("reroll:" + ",".join(map(str, s)) for s in REROLLS[1:]),
                *(f"place:{sector}" for sector in SECTORS))
ACTION_IDS = {name: number for number, name in enumerate(ACTION_NAMES)}
FIRST_PLACE = len(REROLLS)

OPEN, WIN, LOSE, TIE = range(4)
N_TOTALS = 16  # 3..18
N_KEPT = 19    # the sum of the kept dice, 0..18
N_CONTEXTS = 16  # (open Max fields 0..3+) x (open min fields 0..3+)
PLACE_SIZE = len(SECTORS) * N_TOTALS * 4
REROLL_SIZE = N_CONTEXTS * N_KEPT * 4
SIZE = PLACE_SIZE + REROLL_SIZE
PARAMETERS = Path(__file__).resolve().with_name("policy.json")


def placement_key(sector: int, total: int, opponent: int) -> int:
    """The table entry of placing ``total`` on ``sector`` against the opponent's field
    there (0 = empty)."""
    if opponent == 0:
        effect = OPEN
    elif opponent == total:
        effect = TIE
    else:
        effect = WIN if (total > opponent) == IS_MAX[sector] else LOSE
    return (sector * N_TOTALS + total - 3) * 4 + effect


def reroll_context(own: list[int]) -> int:
    """How many of my Max and of my min fields are empty, each counted up to 3."""
    open_max = sum(1 for i, value in enumerate(own) if value == 0 and IS_MAX[i])
    open_min = sum(1 for i, value in enumerate(own) if value == 0 and not IS_MAX[i])
    return min(open_max, 3) * 4 + min(open_min, 3)


def reroll_key(context: int, dice: list[int], reroll: int) -> int:
    """The table entry of re-roll ``reroll`` (an id 0-7) with ``dice`` in ``context``."""
    slots = REROLLS[reroll]
    kept = sum(value for slot, value in enumerate(dice) if slot not in slots)
    return PLACE_SIZE + (context * N_KEPT + kept) * 4 + len(slots)


def action_keys(own: list[int], opponent: list[int], dice: list[int],
                legal: list[int]) -> list[int]:
    """The table entry of each legal action id, for my fields ``own``, the opponent's
    fields (both in sector order, 0 = empty) and the three dice."""
    if legal[0] >= FIRST_PLACE:
        total = sum(dice)
        return [placement_key(a - FIRST_PLACE, total, opponent[a - FIRST_PLACE])
                for a in legal]
    context = reroll_context(own)
    return [reroll_key(context, dice, a) for a in legal]


def vector_keys(vector: list[int], legal: list[int]) -> list[int]:
    """:func:`action_keys` from the adapter's observation vector (my fields, the
    opponent's, the dice: entries 0-10, 11-21, 22-24)."""
    return action_keys(vector[0:11], vector[11:22], vector[22:25], legal)


def observation_keys(observation) -> list[int]:
    """:func:`action_keys` of an arena observation, one per ``observation.legal_actions``."""
    state = observation.state
    seat = state["seat_to_move"]
    fields = state["fields"]
    own = [fields[s][seat] or 0 for s in SECTORS]
    opponent = [fields[s][1 - seat] or 0 for s in SECTORS]
    legal = [ACTION_IDS[str(action)] for action in observation.legal_actions]
    return action_keys(own, opponent, list(state["dice"]), legal)


def load_parameters(path: Path = PARAMETERS) -> list[float]:
    """The preferences stored at ``path``, checked against the tables' size."""
    data = json.loads(path.read_text())
    weights = [float(w) for w in data["placement"] + data["reroll"]]
    if len(weights) != SIZE:
        raise ValueError(f"{path}: {len(weights)} preferences, expected {SIZE}")
    return weights


def best_action(weights: list[float], keys: list[int]) -> int:
    """The position in ``keys`` of the highest preference (the first on ties)."""
    return max(range(len(keys)), key=lambda i: weights[keys[i]])


class TrainedPlayer:
    """Plays the action the trained tables prefer; ``parameters`` names another file."""

    name = "trained"
    version = "1.0"
    games = ("seasons",)

    def __init__(self, parameters: str | None = None) -> None:
        self.weights = load_parameters(Path(parameters) if parameters else PARAMETERS)

    def act(self, observation):
        keys = observation_keys(observation)
        return observation.legal_actions[best_action(self.weights, keys)]
