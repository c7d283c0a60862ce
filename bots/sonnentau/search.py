"""Sonnentau: a bot that plans the whole roll and weighs the position it leaves behind.

The method, in four parts.

1. **Whole-roll plans.** When the dice have been rolled, the bot enumerates
   every way to play them: each order of the dice, each piece, track and
   direction, and where each hit piece goes, up to the end of the roll (the
   dice are used up or none can move; after doubles the next roll is a new
   chance node, so a plan ends there). Different plans that reach the same
   position are merged (the position - every seat's piece places and the dice
   left - is the key of a dictionary). The search runs one die at a time (one
   *layer* per die); when a layer holds more than ``beam`` positions only the
   best ones by the evaluation below (plus what their unplayed dice are worth)
   go on. Relocations are pruned to a few targets: for an own piece the fields
   closest to the goal, the goal itself after a hit on Z, the fields from which
   a remaining die lands on another piece (the next link of a shortcut chain)
   and the fields another own piece can land on next (so that it can be sent
   on again); for another player's piece the fields farthest from the goal,
   the start among them where it is allowed. A budget of generated nodes
   bounds the work, so the same position always gets the same answer; the
   clock (``observation.time_left``) only stops a search that would overrun:
   no new expansions after 30 % of the time left, no more evaluations after
   50 % (the best position evaluated so far is played; the rest is the margin
   for finishing the plan on a loaded machine).

2. **Evaluation** of a position, per seat, in *dice*: a piece's cost is the
   expected number of dice it needs to get home on its own along the board
   graph (``cost``, solved once per board and dice variant by value
   iteration: each die, drawn from the variant, moves the piece or is left to
   others). This knows what the plain field distance (``board.goal_distance``)
   misses: Z and the goal straight need exact throws, so a piece two fields
   from the goal is far from home. (``distance_weight`` blends the plain
   distance back in; in measured matches that made the bot no stronger.) Two
   corrections use the probability that a piece can be landed on next turn
   (``hit_probability``: over a whole roll of the variant, one piece chaining
   any of the dice in any order; blocking pieces are ignored, and several
   pieces count as independent chances):

   - *exposure*: the chance that some opponent lands on the piece, times what
     it would lose (the worst relocation for it: the start, or the far side of
     its circle);
   - *shortcut*: the chance that another own piece lands on it, times what the
     best relocation would gain (from the final circle onto Z, from Z into the
     goal). An own piece on an intersection next to a good relocation target
     is an asset.

   A seat's *race* is the sum of the costs of its best ``3 - home`` pieces
   (plus a little for the spare ones, the helpers for shortcuts). The score of
   a position for the mover is the opponents' race minus its own; with more
   opponents the leader's race counts most.

3. **The decision.** The bot plays the first action of the best plan and
   keeps the rest: at the next decision of the same roll it follows the plan
   if the position is the one it expected, else it plans again.

4. **Determinism.** Nothing is random and the work is bounded by counts, not
   by the clock, so the same seed gives the same games on every machine
   (unless a tight ``time_left`` cuts a search short).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter

from arena.games.sonnentau.board import board_for_option
from arena.games.sonnentau.race import dice_to_home, extend_mask, hit_chances
from arena.games.sonnentau.rules import (
    DICE_VARIANTS,
    HIT,
    HOME,
    PIECES_TO_WIN,
    START,
    Enter,
    Move,
    Relocate,
    SonnentauState,
)

WIN = 1e6
"""The score of a position in which the mover has won (its negative: another seat won)."""


# -- tables per board and dice variant ------------------------------------------------------


class Tables:
    """Everything the evaluation looks up, computed once per board and dice variant.

    Field indices are the board's; index ``n_fields`` stands for the start.
    """

    def __init__(self, board, variant, distance_weight=0.0):
        self.board = board
        self.n = board.n_fields
        self.start = self.n
        faces = DICE_VARIANTS[variant]
        self.die_values = self._die_distribution(faces)
        self.rolls = self._roll_distribution(faces)
        self.mean_die = sum(v * p for v, p in self.die_values.items())
        self.values = sorted({v for die in faces for v in die})
        self.reach = self._one_die_reach()
        self.reach_mask = [{v: _mask(fields) for v, fields in by_value.items()}
                           for by_value in self.reach]
        self.cost = self._blend(self._solve_cost(), distance_weight)
        self._relocation_values()
        shared = _HIT_CACHE.get((id(board), variant))
        if shared is None or shared[0] is not board:
            shared = _HIT_CACHE[(id(board), variant)] = (board, {})
        self._hit_probability: dict[int, list[float]] = shared[1]
        self._extend_cache: dict[tuple[int, int], int] = {}

    @staticmethod
    def _die_distribution(faces):
        """The value of one die picked at random among the variant's dice."""
        counts = Counter(v for die in faces for v in die)
        total = sum(counts.values())
        return {v: c / total for v, c in sorted(counts.items())}

    @staticmethod
    def _roll_distribution(faces):
        """Every roll as (sorted values, probability), equal multisets merged."""
        counts = Counter(tuple(sorted(r)) for r in itertools.product(*faces))
        total = sum(counts.values())
        return [(values, c / total) for values, c in sorted(counts.items())]

    def _one_die_reach(self):
        """``reach[source][v]``: the fields one die of ``v`` can move a piece to, ignoring
        the other pieces (they block or are hit, which the tables do not know)."""
        board = self.board
        reach = []
        for field in range(self.n):
            by_value = {}
            if field != board.goal:
                for v in self.values:
                    by_value[v] = sorted({s.path[v - 1] for s in board.steps[field]
                                          if v <= len(s.path) and s.path[v - 1] != field})
            reach.append(by_value)
        from_start = {}
        for v in self.values:
            if v == 1:
                from_start[v] = sorted(board.entries)
            else:
                from_start[v] = sorted({s.path[v - 2] for e in board.entries
                                        for s in board.steps[e] if v - 1 <= len(s.path)})
        reach.append(from_start)
        return reach

    def _solve_cost(self):
        """Expected dice a lone piece needs to get home from each field (and the start).

        Each die is drawn from :attr:`die_values`; the piece moves to the best field it
        reaches or stays (the die is used elsewhere). For a field with best reachable
        costs ``m_v`` the optimal rule "move when ``m_v < V``" gives
        ``V = (1 + sum p_v m_v) / sum p_v`` over the values that move, minimised over the
        thresholds; Gauss-Seidel sweeps repeat that until nothing changes.
        """
        return dice_to_home(self.reach, self.die_values, self.board.goal, tolerance=1e-9,
                            sweeps=500)

    def _blend(self, cost, weight):
        """Mix the dice cost with the board distance to the goal (scaled to agree at the
        start): ``weight`` 0 is the pure dice cost, 1 the pure distance."""
        if not weight:
            return cost
        board = self.board
        scale = cost[self.start] / board.start_distance
        blended = [(1.0 - weight) * c + weight * scale * d
                   for c, d in zip(cost, board.goal_distance, strict=False)]
        blended.append(cost[self.start])
        return blended

    def _relocation_values(self):
        """What a hit on each field costs its owner at worst, and gains it at best."""
        board, cost = self.board, self.cost
        self.loss = [0.0] * (self.n + 1)
        self.gain = [0.0] * (self.n + 1)
        for f in range(self.n):
            if f == board.goal:
                continue
            rule = board.relocation[f]
            targets = [cost[t] for t in rule.fields]
            worst = max(targets + ([cost[self.start]] if rule.to_start else []), default=cost[f])
            best = 0.0 if rule.to_goal else min(targets, default=cost[f])
            self.loss[f] = max(0.0, worst - cost[f])
            self.gain[f] = max(0.0, cost[f] - best)

    def hit_probability(self, source):
        """``p[f]``: the chance that a piece on ``source`` can end a die on field ``f`` in
        one roll, chaining any of the roll's dice in any order (blocking ignored)."""
        probs = self._hit_probability.get(source)
        if probs is None:
            probs = self._hit_probability[source] = hit_chances(
                self._extend, self.rolls, source, self.n + 1)
        return probs

    def _extend(self, mask, v):
        key = (mask, v)
        moved = self._extend_cache.get(key)
        if moved is None:
            moved = self._extend_cache[key] = extend_mask(self.reach_mask, mask, v)
        return moved


def _mask(fields):
    mask = 0
    for f in fields:
        mask |= 1 << f
    return mask


_TABLES: dict[tuple[int, str, float], Tables] = {}
_HIT_CACHE: dict[tuple[int, str], tuple] = {}
"""Hit probabilities per (board, variant), shared by tables that differ in their costs."""


def tables_for(board, variant, distance_weight=0.0):
    """The tables of a board and dice variant, built on first use and kept."""
    key = (id(board), variant, distance_weight)
    tables = _TABLES.get(key)
    if tables is None or tables.board is not board:
        tables = _TABLES[key] = Tables(board, variant, distance_weight)
    return tables


# -- evaluation ------------------------------------------------------------------------------


class Evaluator:
    """Scores positions (tuples of piece places per seat) for one seat, in dice."""

    def __init__(self, tables, me, seats, *, exposure=0.75, shortcut=1.0, spare=0.1,
                 home_bonus=0.0, leader_weight=0.6, field_weight=0.4):
        self.t = tables
        self.me = me
        self.seats = seats
        self.exposure = exposure
        self.shortcut = shortcut
        self.spare = spare
        self.home_bonus = home_bonus
        self.leader_weight = leader_weight
        self.field_weight = field_weight
        self._danger: dict[tuple, list[float]] = {}
        self._race: dict[tuple, float] = {}

    def score(self, places):
        """Higher is better for ``me``: the others' races against its own."""
        me = self.me
        for seat, own in enumerate(places):
            if own.count(HOME) >= PIECES_TO_WIN:
                return WIN if seat == me else -WIN
        mine = self.race(places, me, exposed=True)
        others = [self.race(places, s, exposed=False) for s in range(self.seats) if s != me]
        if len(others) == 1:
            return others[0] - mine
        field = sum(others) / len(others)
        return self.leader_weight * min(others) + self.field_weight * field - mine

    def race(self, places, seat, *, exposed):
        """Dice ``seat`` still needs for its best ``3 - home`` pieces, with corrections.

        ``exposed``: count the risk of being hit by the others on their next rolls (for
        the mover; the others move before the mover's pieces can be hit, and hardly any
        of them keep still, so their exposure is left out).
        """
        own = places[seat]
        enemies = places[:seat] + places[seat + 1:] if exposed else None
        key = (seat, own, enemies)
        value = self._race.get(key)
        if value is not None:
            return value
        t = self.t
        cost, gain, loss = t.cost, t.gain, t.loss
        danger = self.danger(enemies) if exposed else None
        helpers = None
        costs = []
        home = 0
        for f in own:
            if f < 0:
                if f == HOME:
                    home += 1
                else:
                    costs.append(cost[t.start])
                continue
            c = cost[f]
            if gain[f] > 0.0 and self.shortcut:
                if helpers is None:
                    helpers = [(src, t.hit_probability(src))
                               for src in {t.start if g == START else g for g in own if g != HOME}]
                miss = 1.0
                for src, probs in helpers:
                    if src != f:
                        miss *= 1.0 - probs[f]
                c -= self.shortcut * (1.0 - miss) * gain[f]
            if danger is not None and loss[f] > 0.0:
                c += self.exposure * danger[f] * loss[f]
            costs.append(c)
        costs.sort()
        need = PIECES_TO_WIN - home
        value = sum(costs[:need]) + self.spare * sum(costs[need:]) - self.home_bonus * home
        self._race[key] = value
        return value

    def danger(self, enemies):
        """Per field, the chance that one of the ``enemies`` (their piece places) can land
        there on their next rolls."""
        vector = self._danger.get(enemies)
        if vector is None:
            t = self.t
            sources = []
            for own in enemies:
                sources.extend({t.start if f == START else f for f in own if f != HOME})
            miss = [1.0] * (t.n + 1)
            for src in sources:
                probs = t.hit_probability(src)
                for f in range(t.n):
                    if probs[f]:
                        miss[f] *= 1.0 - probs[f]
            vector = [1.0 - m for m in miss]
            self._danger[enemies] = vector
        return vector


# -- plans -----------------------------------------------------------------------------------


class Node:
    """A position inside the roll: piece places per seat (sorted tuples), dice left
    (sorted values), a pending hit (seat, field) or None, whether the game is ``over``
    (a seat has three pieces home); ``parent`` and ``steps`` say how it was reached."""

    __slots__ = ("hit", "key", "left", "over", "parent", "places", "steps")

    def __init__(self, places, left, hit, parent, steps, over=False):
        self.places = places
        self.left = left
        self.hit = hit
        self.parent = parent
        self.steps = steps
        self.over = over
        self.key = (places, left, hit)

    def plan(self):
        """The (key, step) pairs from the root to this node: each decision to take."""
        chain = []
        node = self
        while node is not None:
            chain.extend(reversed(node.steps))
            node = node.parent
        chain.reverse()
        return chain


def _without(values, value):
    """A sorted tuple with one ``value`` removed."""
    i = values.index(value)
    return values[:i] + values[i + 1:]


def _with(values, value):
    return tuple(sorted((*values, value)))


class Planner:
    """Enumerates the plans of one roll for seat ``me`` (see the module docstring)."""

    def __init__(self, tables, evaluator, me, *, beam, budget, own_targets, other_targets,
                 deadline=None, last_call=None):
        self.t = tables
        self.board = tables.board
        self.evaluator = evaluator
        self.me = me
        self.beam = beam
        self.budget = budget
        self.own_targets = own_targets
        self.other_targets = other_targets
        self.deadline = deadline  # no new expansions after it
        self.last_call = last_call  # no more evaluations after it: answer with what is known
        self.work = 0
        self._scores: dict[tuple, float] = {}

    def score(self, node):
        """The evaluation of the position a node has reached."""
        score = self._scores.get(node.key)
        if score is None:
            score = self.evaluator.score(node.places)
            self._scores[node.key] = score
        return score

    def promise(self, node):
        """The evaluation of a node inside the roll, plus what its unplayed dice are worth
        (nodes of one layer have played as many dice, but not the same values)."""
        return self.score(node) + sum(node.left) / self.t.mean_die

    def search(self, root):
        """The best end-of-roll node reachable from ``root`` (a node without a pending
        hit, or one whose hit the mover must place now)."""
        best, best_score = None, 0.0
        for node in self.ends(root):
            score = self.score(node)
            if best is None or score > best_score:
                best, best_score = node, score
            if self.too_late():
                break
        return best

    def ends(self, root):
        """The end-of-roll nodes the search reaches, one per position, in a fixed order.

        Layer by layer (one die per layer), merging transpositions; a layer larger than
        ``beam`` keeps its most promising nodes. When the budget (or the clock) runs
        out, the nodes not yet expanded count as ends.
        """
        first = list(self.relocations(root)) if root.hit is not None else [root]
        seen = {node.key for node in first}
        ends = [node for node in first if node.over or not node.left]
        layer = [node for node in first if not (node.over or not node.left)]
        while layer:
            following = []
            for node in layer:
                if self.out_of_work():
                    following.append(node)
                    continue
                children = list(self.children(node))
                self.work += len(children) + 1
                if not children:
                    ends.append(node)
                for child in children:
                    if child.key in seen:
                        continue
                    seen.add(child.key)
                    if child.over or not child.left:
                        ends.append(child)
                    else:
                        following.append(child)
            if self.out_of_work():
                ends.extend(following)
                break
            if self.beam is not None and len(following) > self.beam:
                following = self.most_promising(following)
            layer = following
        return ends

    def out_of_work(self):
        """Whether the budget or the clock is used up (never before the root's moves)."""
        if self.work == 0:
            return False
        if self.budget is not None and self.work >= self.budget:
            return True
        return self.deadline is not None and time.perf_counter() > self.deadline

    def most_promising(self, nodes):
        """The ``beam`` most promising nodes; out of time, those evaluated come first."""
        evaluated = 0
        while evaluated < len(nodes) and not self.too_late():
            self.promise(nodes[evaluated])
            evaluated += 1
        best = sorted(nodes[:evaluated], key=self.promise, reverse=True)
        return (best + nodes[evaluated:])[:self.beam]

    def too_late(self):
        """Whether even evaluating more positions would overrun the decision's time."""
        return self.last_call is not None and time.perf_counter() > self.last_call

    # -- moves ----------------------------------------------------------------------------

    def children(self, node):
        """Every position one die (with its relocation, if it hits) leads to."""
        me = self.me
        places = node.places
        occupant = [-1] * self.t.n
        for seat, own in enumerate(places):
            for f in own:
                if f >= 0:
                    occupant[f] = seat
        mine = places[me]
        origins = sorted(set(mine) - {HOME})
        for v in sorted(set(node.left)):
            for origin in origins:
                if origin == START:
                    moves = self._entries(v, occupant)
                else:
                    moves = self._moves(origin, v, occupant)
                for step, dest in moves:
                    yield from self._arrive(node, step, origin, dest, v, occupant)

    def _moves(self, origin, v, occupant):
        me = self.me
        for s in self.board.steps[origin]:
            path = s.path
            if v > len(path) or path[v - 1] == origin:
                continue
            if all(occupant[f] in (-1, me) for f in path[:v - 1]):
                yield ("move", v, origin, s.track, s.direction), path[v - 1]

    def _entries(self, v, occupant):
        me, board = self.me, self.board
        for entry in board.entries:
            if v == 1:
                yield ("enter", v, entry, None, None), entry
                continue
            if occupant[entry] not in (-1, me):
                continue
            for s in board.steps[entry]:
                path = s.path
                if v - 1 <= len(path) and all(occupant[f] in (-1, me) for f in path[:v - 2]):
                    yield ("enter", v, entry, s.track, s.direction), path[v - 2]

    def _arrive(self, node, step, origin, dest, v, occupant):
        me = self.me
        places = list(node.places)
        left = _without(node.left, v)
        mine = _without(places[me], origin)
        steps = ((node.key, step),)
        if dest == self.board.goal:
            places[me] = _with(mine, HOME)
            yield Node(tuple(places), left, None, node, steps,
                       over=places[me].count(HOME) >= PIECES_TO_WIN)
            return
        places[me] = _with(mine, dest)
        struck = occupant[dest]
        if struck == -1:
            yield Node(tuple(places), left, None, node, steps)
            return
        places[struck] = _without(places[struck], dest)
        hit = Node(tuple(places), left, (struck, dest), node, steps)
        yield from self.relocations(hit)

    def relocations(self, node):
        """The pruned relocation targets of the pending hit, each as a finished node."""
        me, board, t = self.me, self.board, self.t
        seat, field = node.hit
        occupant = [-1] * t.n
        for s, own in enumerate(node.places):
            for f in own:
                if f >= 0:
                    occupant[f] = s
        rule = board.relocation[field]
        empty = [f for f in rule.fields if occupant[f] == -1]
        if not empty and not rule.to_goal:
            yield self._put(node, seat, START, None)
            return
        if (self.own_targets if seat == me else self.other_targets) is None:
            targets = [*empty, *([START] if rule.to_start else []),
                       *([HOME] if rule.to_goal else [])]
        elif seat == me:
            targets = self._own_targets(node, rule, empty, occupant)
        else:
            targets = self._other_targets(rule, empty)
        for target in targets:
            yield self._put(node, seat, target, ("relocate", target))

    def _own_targets(self, node, rule, empty, occupant):
        me = self.me
        if rule.to_goal:
            return [HOME]
        cost = self.t.cost
        ranked = sorted(empty, key=lambda f: (cost[f], f))
        chosen = ranked[:self.own_targets]
        values = set(node.left)
        # The next link of a chain: a field from which a remaining die lands on a piece
        # (or the goal), or one that another own piece can land on with a remaining die.
        links = [f for f in ranked if any(
            occupant[g] != -1 or g == self.board.goal
            for v in values for g in self.t.reach[f].get(v, ()))]
        chosen += [f for f in links[:self.own_targets] if f not in chosen]
        helpers = [self.t.start if f == START else f for f in set(node.places[me]) if f != HOME]
        gain = self.t.gain
        bridges = [f for f in ranked if gain[f] > 0.0 and any(
            f in self.t.reach[src].get(v, ()) for src in helpers for v in values)]
        chosen += [f for f in bridges[:self.own_targets] if f not in chosen]
        return chosen

    def _other_targets(self, rule, empty):
        cost, start = self.t.cost, self.t.start
        options = [(cost[f], f) for f in empty]
        if rule.to_start:
            options.append((cost[start], START))
        options.sort(key=lambda o: (-o[0], o[1]))
        return [f for _c, f in options[:self.other_targets]]

    def _put(self, node, seat, target, step):
        places = list(node.places)
        places[seat] = _with(places[seat], target)
        over = target == HOME and places[seat].count(HOME) >= PIECES_TO_WIN
        steps = () if step is None else ((node.key, step),)
        return Node(tuple(places), node.left, None, node, steps, over=over)


# -- the player ------------------------------------------------------------------------------


def node_key(state, me):
    """The planner's key of an engine state: piece places per seat, dice left, pending hit."""
    places = tuple(tuple(sorted(p for p in pieces if p != HIT)) for pieces in state.pieces)
    left = tuple(sorted(state.dice_left()))
    hit = None if state.hit is None else (state.hit[0], state.hit[2])
    return places, left, hit


def engine_action(state, step, legal):
    """The legal action that carries out a plan ``step``, or None if none does."""
    board, me = state.board, state.seat
    kind = step[0]
    for action in legal:
        if kind == "relocate" and isinstance(action, Relocate):
            target = step[1]
            name = "goal" if target == HOME else "start" if target == START \
                else board.field_ids[target]
            if action.target == name:
                return action
        elif kind == "move" and isinstance(action, Move):
            _, v, origin, track, direction = step
            if (state.dice[action.slot] == v and state.pieces[me][action.piece] == origin
                    and action.track == track and action.direction == direction):
                return action
        elif kind == "enter" and isinstance(action, Enter):
            _, v, entry, track, direction = step
            if (state.dice[action.slot] == v and action.entry == board.field_ids[entry]
                    and action.track == track and action.direction == direction):
                return action
    return None


class SearchPlayer:
    """Plans whole rolls and evaluates what they leave (see the module docstring).

    Parameters: ``beam`` (positions kept per die; None keeps all), ``budget`` (nodes
    generated per plan; None for no limit), ``own_targets`` / ``other_targets``
    (relocation targets tried per rule; None tries every legal one), and the
    evaluation's weights: ``exposure`` (risk of being hit), ``shortcut`` (chance of an
    own-piece hit), ``spare`` (pieces beyond the three needed), ``home_bonus`` (per piece
    home), ``leader_weight`` (with more opponents: the leader's share, the rest goes to
    their mean) and ``distance_weight`` (0: the dice cost alone, 1: the board distance).
    """

    name = "search"
    version = "1.1"
    games = ("sonnentau",)

    def __init__(self, beam=60, budget=6000, own_targets=3, other_targets=2, exposure=0.75,
                 shortcut=1.0, spare=0.1, home_bonus=0.0, leader_weight=0.6,
                 distance_weight=0.0):
        self.beam = beam
        self.budget = budget
        self.own_targets = own_targets
        self.other_targets = other_targets
        self.weights = {"exposure": exposure, "shortcut": shortcut, "spare": spare,
                        "home_bonus": home_bonus,
                        "leader_weight": leader_weight, "field_weight": 1.0 - leader_weight}
        self.distance_weight = distance_weight
        self.seed = 0
        self.plan: list = []

    def start(self, info):
        self.seed = info.seed  # nothing here is random: the seed needs no use
        self.plan = []

    def act(self, observation):
        began = time.perf_counter()
        legal = list(observation.legal_actions)
        state = SonnentauState.from_json(observation.state, self._board(observation.state))
        me = state.seat
        key = node_key(state, me)
        action = self._follow(state, key, legal)
        if action is not None:
            return action
        if len(legal) == 1:
            return legal[0]
        deadline = last_call = None
        if observation.time_left is not None:
            deadline = began + 0.3 * observation.time_left
            last_call = began + 0.5 * observation.time_left
        self.plan = self.make_plan(state, me, key, deadline, last_call)
        action = self._follow(state, key, legal)
        return legal[0] if action is None else action

    def _follow(self, state, key, legal):
        """The stored plan's action for this position if the plan foresaw it (and drop the
        steps up to it), else None."""
        for i, (expected, step) in enumerate(self.plan):
            if expected == key:
                action = engine_action(state, step, legal)
                if action is not None:
                    del self.plan[:i + 1]
                    return action
                break
        self.plan = []
        return None

    @staticmethod
    def _board(state_json):
        return board_for_option(str(state_json.get("board", "")))

    def make_plan(self, state, me, key, deadline=None, last_call=None):
        """The (key, step) decisions of the best plan for the rest of the roll."""
        tables = tables_for(state.board, state.variant, self.distance_weight)
        evaluator = Evaluator(tables, me, state.n_seats, **self.weights)
        planner = Planner(tables, evaluator, me, beam=self.beam, budget=self.budget,
                          own_targets=self.own_targets, other_targets=self.other_targets,
                          deadline=deadline, last_call=last_call)
        places, left, hit = key
        best = planner.search(Node(places, left, hit, None, ()))
        return best.plan()
