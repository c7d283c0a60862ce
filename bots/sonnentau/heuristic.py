"""Sonnentau: a one-step lookahead bot that races by shortest distance and hits.

Each decision tries every legal action on a copy of the position and keeps the
one whose result scores best:

- a seat's *race* is the sum of the three smallest distances to the goal among
  its pieces (three pieces home win), counted along the board graph (a piece
  on the start is one step before its nearest entry); pieces home add a bonus
  because they can no longer be hit;
- the score is the mover's race against the opponents' (the leader counts
  most), so sending an opponent back (to the start, or far away on its
  circle) scores like running forward;
- a move that hits is scored with its best relocation, and a relocation of an
  own piece also counts the best hit the remaining dice could then make. That
  is how the original's examples use own pieces as shortcuts: hit an own piece
  on an intersection, put it where the next die hits the next own piece, and
  put that one on Z.
"""

from arena.games.sonnentau.rules import (
    HOME,
    MOVE,
    OVER,
    PIECES_TO_WIN,
    RELOCATE,
    START,
    SonnentauState,
)

WIN = 1e6
HOME_BONUS = 4.0
SPARE_WEIGHT = 0.05
LEADER_WEIGHT = 0.6
FIELD_WEIGHT = 0.4
OPPORTUNITY_WEIGHT = 0.7


def piece_distance(state, place):
    board = state.board
    if place == HOME:
        return 0
    if place == START or place < 0:
        return board.start_distance
    return board.goal_distance[place]


def seat_value(state, seat):
    """Higher is better: minus the race of the best three pieces, plus home bonuses."""
    distances = sorted(piece_distance(state, p) for p in state.pieces[seat])
    race = sum(distances[:PIECES_TO_WIN]) + SPARE_WEIGHT * sum(distances[PIECES_TO_WIN:])
    return HOME_BONUS * state.home[seat] - race


def evaluate(state, me, leader_weight=LEADER_WEIGHT):
    """The position from ``me``'s point of view."""
    if state.phase == OVER:
        winner = state.winner()
        if winner is not None:
            return WIN if winner == me else -WIN
    own = seat_value(state, me)
    others = [seat_value(state, s) for s in range(state.n_seats) if s != me]
    field = sum(others) / len(others)
    return own - leader_weight * max(others) - FIELD_WEIGHT * field


def best_follow_up(state, me):
    """The best gain one remaining die could make next (a cheap second ply).

    Counts the distance the moved piece gains (plus the home bonus) and, for a
    hit, what relocating the hit piece would gain.
    """
    best = 0.0
    board = state.board
    for value in {state.dice[slot] for slot in state.left}:
        for origin in state.pieces[me]:
            if origin < 0:
                continue
            for step in board.steps[origin]:
                if value > len(step.path) or not state.can_walk(step, value, me, origin):
                    continue
                target = step.path[value - 1]
                best = max(best, _landing_gain(state, me, origin, target))
    return best


def _landing_gain(state, me, origin, target):
    board = state.board
    if target == board.goal:
        return board.goal_distance[origin] + HOME_BONUS
    occupant = state.piece_at(target)
    if occupant is None:
        return board.goal_distance[origin] - board.goal_distance[target]
    return _hit_target_gain(state, me, occupant, target, origin)


def _hit_target_gain(state, me, occupant, target, origin):
    """Rough value of landing on ``target`` from ``origin`` and relocating the piece there."""
    board = state.board
    seat, _piece = occupant
    mover_gain = board.goal_distance[origin] - board.goal_distance[target]
    rule = board.relocation[target]
    here = board.goal_distance[target]
    if seat == me:
        spots = [board.goal_distance[f] for f in rule.fields if state.occupant[f] < 0]
        best = min(spots, default=here)
        if rule.to_goal:
            best = 0
        return mover_gain + max(0, here - best)
    spots = [board.goal_distance[f] for f in rule.fields if state.occupant[f] < 0]
    worst = max(spots, default=here)
    if rule.to_start:
        worst = max(worst, board.start_distance)
    return mover_gain + LEADER_WEIGHT * max(0, worst - here)


class HeuristicPlayer:
    """Parameters make weaker variants for tournaments.

    ``lookahead=False`` drops the second ply (the best relocation of a hit and
    the follow-up of the remaining dice); ``leader_weight`` is how much sending
    the leading opponent back is worth (0: a pure racer).
    """

    name = "heuristic"
    version = "1.0"
    games = ("sonnentau",)

    def __init__(self, lookahead=True, leader_weight=LEADER_WEIGHT):
        self.lookahead = lookahead
        self.leader_weight = leader_weight

    def act(self, observation):
        state = SonnentauState.from_json(observation.state)
        me = observation.seat
        actions = observation.legal_actions
        if len(actions) == 1:
            return actions[0]
        return max(actions, key=lambda action: self.score(state, action, me))

    def score(self, state, action, me, *, deep=True):
        after = state.copy()
        after.apply(action)
        if after.phase == RELOCATE and after.seat == me and deep and self.lookahead:
            return max(self.score(after, r, me, deep=False) for r in after.legal_actions())
        value = evaluate(after, me, self.leader_weight)
        if self.lookahead and after.phase in (MOVE, RELOCATE) and after.seat == me:
            value += OPPORTUNITY_WEIGHT * best_follow_up(after, me)
        return value
