"""Seasons of the Sun: an expectimax bot with an exact re-roll and an exact endgame.

How it decides
--------------

Every decision comes down to one question: *what is each total 3..18 worth to
me right now?* Total ``t`` is worth as much as its best placement, judged by
the evaluation below or, near the end, by an exact search. With that table
both decisions are exact and cheap:

* placement: put the current total where it is worth most;
* re-roll: for each of the 8 subsets of die slots, the expected worth of the
  final total over every outcome of the re-rolled dice (at most 6**3 = 216),
  see :func:`reroll_values`; the bot takes the best subset (on ties the one
  re-rolling fewest dice).

The evaluation (midgame)
~~~~~~~~~~~~~~~~~~~~~~~~

It estimates my final points sector by sector and turns them into a chance of
winning (a draw counts 1/2):

* a **decided** sector counts fully for its winner;
* where **I filled my field and the opponent did not**, the opponent will
  answer. Its chance to beat my total is computed exactly for a player who
  re-rolls optimally for "beat ``v``" (:func:`response_chances`), a tie
  counting half (the sector is neutralised and played again), and it grows
  with the opponent's empty fields - more turns to wait for a good roll:
  ``1 - (1 - r) ** (1 + flexibility * (n - 1))``. In games against
  ``greedy`` this predicted its answers within about 5 percentage points;
* **my own empty fields** are valued together by an exact *solitaire*
  dynamic programme over their subsets (:meth:`Evaluation.future_points`): I
  roll, re-roll optimally and place, turn after turn, until my fields are
  full, and each placement earns its expected points in that sector - a sure
  win or loss against the opponent's standing total, a share for a
  neutralisation, or the chance that the opponent cannot answer my lead in an
  empty sector. This prices what the rules' tips point at: a player left with
  only Max (or only min) fields has no good place for a low (high) roll, and
  an open field is an option worth more than an average roll;
* a placement that neutralises the opponent's total is worth
  ``neutralise_value`` (0.7) of the sector, and leading in an empty sector
  costs ``lead_penalty`` (5%) of it, the chance that the opponent would have
  led there first - in play the answering player wins about 70% of sectors;
* tempo - moving again after winning a sector - is a parameter (``tempo``
  points) left at 0: it measured no gain, since the evaluation already
  values what the extra placement does.

The expected points and a variance (the sum of ``value**2 * p * (1 - p)`` over
the open sectors) give ``P(win) ~ Phi((points - 60) / sd)``, which the bot
maximises; a tiny multiple of the points breaks ties.

The endgame
~~~~~~~~~~~

When few fields are left (:func:`endgame_size` estimates at most
``endgame_nodes`` positions, e.g. up to 4 or 5 empty fields in all) the bot
searches the game tree to the end (:class:`Endgame`): chance nodes over every
roll (56 distinct rolls) and every re-roll, each player choosing the re-roll
and placement that maximise its own chance of winning (the game is zero-sum,
so the opponent is assumed to do the same); a finished game is worth 1, 1/2
or 0. A neutralisation re-opens fields and could go on for ever, so the search
stops there and asks the evaluation.

Time and determinism
~~~~~~~~~~~~~~~~~~~~

The bot uses no randomness: equal positions give equal decisions, so a game
is reproducible from its seed. How much it searches is decided by the
position alone, never by the clock, and its caches only save time, they never
change a value. Without a time limit nothing depends on the clock. With one
(``observation.time_left``) the bot plans to use at most 40% of it: the
solitaire programme (about ``2**empty fields`` subsets) and the endgame search
are only started when a fixed, generous estimate of their cost fits that
share, a choice that depends on the position and the limit only, so decisions
stay reproducible. Otherwise - and, as a safety net, should the machine be so
slow that a deadline passes - it judges each sector alone, which takes about a
millisecond. A limit of 0.7 s or more per decision lets it play at full
strength from the first move.

The arithmetic and the search live in ``arena.games.seasons.evaluation``,
which the game's value model for luck accounting shares.

Decisions take about 4 ms on average (median 0.2 ms, 99% under 70 ms; the
first decisions of a process, with cold caches, up to about 0.3 s). Against
``greedy`` it scores about 70-74% in seat-balanced games, against ``random``
100%.
"""

from __future__ import annotations

from arena.games.seasons.evaluation import (  # noqa: F401 - the arithmetic, for readers
    Planner,
    best_reroll,
    optimal_distribution,
    reroll_values,
    response_chances,
    turn_value,
)
from arena.games.seasons.rules import SECTORS


class ExpectimaxPlayer:
    """Exact re-roll over a table of what each total is worth; exact endgame search.

    Parameters (all optional, for experiments): ``endgame_nodes`` - search to
    the end when ``endgame_size`` estimates at most this many positions
    (0 switches the endgame search off); the others are those of
    ``Evaluation``.
    """

    name = "expectimax"
    version = "1.0"
    games = ("seasons",)

    TIME_SHARE = 0.4  # of observation.time_left

    def __init__(self, endgame_nodes=700, **evaluation_parameters):
        self.planner = Planner(endgame_nodes, **evaluation_parameters)
        self.seed = None

    def start(self, info):
        # The bot uses no randomness, so the seed is only kept for the record.
        self.seed = info.seed

    def act(self, observation):
        state = observation.state
        seat = state["seat_to_move"]
        fields = [state["fields"][sector] for sector in SECTORS]
        mine = tuple(f[seat] or 0 for f in fields)
        theirs = tuple(f[1 - seat] or 0 for f in fields)
        dice = state["dice"]
        budget = (None if observation.time_left is None
                  else self.TIME_SHARE * observation.time_left)
        if state["phase"] == "reroll":
            values, _ = self.planner.decide(mine, theirs, None, budget)
            slots = best_reroll(dice, values)
            return "reroll:" + ",".join(map(str, slots)) if slots else "keep"
        total = sum(dice)
        _, where = self.planner.decide(mine, theirs, total, budget)
        return "place:" + SECTORS[where[total]]
