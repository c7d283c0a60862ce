"""Benchmark: how fast a ladder's ranking converges, its matchmaking against random pairing
and against a round-robin order.

Seven bots of known relative strength play real games of Seasons of the Sun:
greedy (``bots/seasons/greedy.py``) that plays a uniformly random legal move
instead with probability ``p``, for ``p`` in 0, 0.15, 0.3, 0.45, 0.6, 0.8 and 1
(the coin is seeded from the game seed and seat). The *true order* is their
TrueSkill μ after a long round-robin (``--truth-sets`` duplicate sets per pair,
played once, from the first seed); it must come out monotone in ``p``. Then
each repetition runs three ladders on the same game budget, ``--tables`` tables
a round (default one per bot, as the ladder), one per way of choosing who plays:

* ``ladder``: :func:`arena.tournaments.matchmaking.plan_round` with exploration
  0.1, its default (``--exploration`` runs other values too), given arena's
  draw probability and the pairs' earlier meetings, as the ladder is,
* ``random``: :func:`arena.tournaments.matchmaking.uniform_round` (pairs drawn
  with replacement),
* ``round-robin``: every pair in turn, in an order shuffled once per repetition,
  cycle after cycle: each pair once per cycle, the fair fixed design.

A table is a duplicate set: both seat orders on one game seed, the seed of a
pair's ``m``-th meeting in the repetition whatever the strategy (so identical
games are played once and memoised). Ratings are TrueSkill with arena's default
settings, updated after each round in table and seat-rotation order; the
ranking is by μ. After each round, Kendall's τ-b between that ranking and the
true order; a seed's curve is its mean over ``--reps`` repetitions (each with
its own seeds and its own random assignment of bots to entrant numbers, so
index order, which breaks ties, tells nothing). *Games to τ ≥ 0.9*: where the
mean curve crosses 0.9 for the last time (interpolated linearly between
rounds), i.e. the game count from which it stays at or above 0.9 to the end of
the budget.

Each of ``--seeds`` (default five) repeats all of it on its own repetitions;
the figures are the mean and the worst over the seeds of the ladder's games to
τ ≥ 0.9 divided by random pairing's and by the round-robin order's (and, pooled
over all repetitions, a bootstrap 95 % interval). Goals: the worst seed at most
0.7× random pairing, and the mean at most 0.75× the round-robin order. Second
figure (the first seed): a newcomer (the ``p = 0.45`` bot) joins after the
other six have settled (``--warmup`` round-robin cycles among them); how many
of *its own* games until its σ is below 2.0 (from μ = 25, σ = 25/3), under the
ladder's matchmaking and under random pairing. ``--timing`` measures instead
what choosing a round costs with 1,000 entrants (``--timing-entrants``),
against what its games cost.

Run from the repository root (about 12 minutes on 2 cores; ``--quick`` under a
minute)::

    .venv/bin/python bench/ladder_convergence.py [--seeds 1 2 3 4 5] [--reps 160] [--workers 2]
    .venv/bin/python bench/ladder_convergence.py --timing
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from multiprocessing.pool import Pool as PoolType
from pathlib import Path
from typing import cast

import numpy as np

from arena.bots.loading import load_bot
from arena.games.base import Action, Observation
from arena.referee.dice import derive_seed
from arena.referee.match import play_game
from arena.referee.protocol import Player, PlayerInfo
from arena.reports.charts import MUTED, chart
from arena.results.ratings import RatedGame, RatingSettings, RatingTable, make_rater
from arena.tournaments.matchmaking import Candidate, plan_round, uniform_round
from arena.tournaments.schedule import Table, table_tasks

ROOT = Path(__file__).resolve().parent.parent
GREEDY = ROOT / "bots" / "seasons" / "greedy.py"
DEFAULT_CHART = ROOT / "docs" / "ladder-convergence.svg"

GOAL_WORST_RANDOM = 0.7  # the worst seed, against random pairing
GOAL_MEAN_ROUND_ROBIN = 0.75  # the mean over seeds, against the round-robin order
TARGET_TAU = 0.9
SETTLED_SIGMA = 2.0
STRENGTHS = (0.0, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0)
NEWCOMER = 0.45
DEFAULT_EXPLORATION = 0.1
BOOTSTRAP = 2000
SETTINGS = RatingSettings()
COLOURS = {"random": "#dc2626", "round-robin": "#16a34a"}
LADDER_COLOURS = ("#2563eb", "#7c3aed", "#0891b2", "#db2777", "#ca8a04")


class NoisyGreedy:
    """Greedy, but with probability ``p`` a uniformly random legal move instead. The
    coin is seeded with the bot seed the referee hands it (a function of the game seed
    and the seat), so every game is reproducible."""

    version = "1.0"

    def __init__(self, p: float) -> None:
        self.p = p
        self.name = f"greedy-p{p:g}"
        self.greedy: Player = load_bot(str(GREEDY)).player
        self.rng = random.Random(0)

    def start(self, info: PlayerInfo) -> None:
        self.rng = random.Random(info.seed)

    def act(self, observation: Observation) -> Action | str:
        if self.rng.random() < self.p:
            return self.rng.choice(observation.legal_actions)
        return self.greedy.act(observation)


def label(bot: NoisyGreedy) -> str:
    return f"{bot.name}@{bot.version}"


# -- playing and rating -----------------------------------------------------------------


@dataclass
class Games:
    """The bots of one repetition by entrant number and every game played so far
    (``(seats, seed) -> ranks``: a game is a pure function of both)."""

    bots: list[NoisyGreedy]
    seed: int
    memo: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = field(default_factory=dict)
    played: int = 0

    def duplicate_set(self, table: Table) -> list[RatedGame]:
        """One game per seat rotation on the table's seed."""
        games = []
        for task in table_tasks(table, 1, self.seed, [label(bot) for bot in self.bots]):
            key = (task.seats, task.seed)
            if key not in self.memo:
                record = play_game("seasons", [self.bots[b] for b in task.seats], task.seed)
                self.memo[key] = record.ranks
                self.played += 1
            games.append(RatedGame(task.seats, self.memo[key]))
        return games


@dataclass
class Ladder:
    """Ratings of ``keys`` and how often each pair has met (its next meeting's seed)."""

    keys: list[int]
    table: RatingTable = field(default_factory=lambda: RatingTable(make_rater(SETTINGS)))
    meetings: Counter[tuple[int, ...]] = field(default_factory=Counter)

    def play_round(self, games: Games, groups: Sequence[tuple[int, ...]],
                   on_game: Callable[[RatedGame], None] | None = None) -> None:
        """Play the round's tables, then rate their games in table and rotation order
        (``on_game`` after each)."""
        rated = []
        for index, group in enumerate(groups):
            pair = tuple(sorted(group))
            rated.extend(games.duplicate_set(Table(self.meetings[pair], index, pair)))
            self.meetings[pair] += 1
        for game in rated:
            self.table.add(game)
            if on_game is not None:
                on_game(game)

    def candidates(self) -> list[Candidate]:
        return [Candidate(key, rating.mu, rating.sigma)
                for key, rating in zip(self.keys, map(self.table.get, self.keys), strict=True)]

    def mus(self) -> list[float]:
        return [self.table.get(key).mu for key in self.keys]

    def fork(self) -> Ladder:
        table = RatingTable(self.table.rater, dict(self.table.ratings), dict(self.table.games))
        return Ladder(list(self.keys), table, Counter(self.meetings))


@dataclass(frozen=True)
class Strategy:
    """A way of choosing a round's tables."""

    kind: str  # "ladder", "random" or "round-robin"
    exploration: float = 0.0

    @property
    def name(self) -> str:
        return f"ladder x={self.exploration:g}" if self.kind == "ladder" else self.kind

    def rounds(self, ladder: Ladder, tables: int, seed: int
               ) -> Callable[[], list[tuple[int, ...]]]:
        """The next round's groups of keys, each time it is called."""
        rng = random.Random(f"{seed}-{self.name}")
        if self.kind == "ladder":
            return lambda: plan_round(
                ladder.candidates(), 2, tables, rng, beta=SETTINGS.beta,
                draw_probability=SETTINGS.draw_probability, exploration=self.exploration,
                games_per_table=2, meetings=ladder.meetings)
        if self.kind == "random":
            return lambda: cast(list[tuple[int, ...]],
                                uniform_round(ladder.keys, 2, tables, rng))
        order = list(itertools.combinations(sorted(ladder.keys), 2))
        rng.shuffle(order)  # once: every cycle plays the pairs in this order
        pairs = itertools.cycle(order)
        return lambda: [next(pairs) for _ in range(tables)]


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's τ-b (a pair tied in one sequence counts for neither side; 0 if all tie)."""
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(xs)), 2):
        dx, dy = xs[i] - xs[j], ys[i] - ys[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tied_x += 1
        elif dy == 0:
            tied_y += 1
        elif (dx > 0) == (dy > 0):
            concordant += 1
        else:
            discordant += 1
    pairs = concordant + discordant
    denominator = math.sqrt((pairs + tied_x) * (pairs + tied_y))
    return (concordant - discordant) / denominator if denominator else 0.0


# -- one repetition ---------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    rep: int
    seed: int
    truth: tuple[float, ...]  # true μ of each bot of STRENGTHS
    rounds: int
    tables: int
    strategies: tuple[Strategy, ...]
    warmup: int
    newcomer: bool  # run the newcomer trial too


@dataclass
class RepResult:
    taus: dict[str, list[float]]  # strategy -> τ before the first round and after each
    newcomer_games: dict[str, int]  # strategy -> the newcomer's games until σ < bound
    newcomer_rounds: dict[str, int]  # ... and the rounds that took (both empty: no trial)
    warm_sigma: float  # the largest σ of the settled bots when the newcomer joins
    played: int  # games played (not taken from the memo)
    seed: int = 0


def run_rep(job: Job) -> RepResult:
    seed = derive_seed(job.seed, "repetition", job.rep)
    order = list(range(len(STRENGTHS)))
    random.Random(seed).shuffle(order)  # entrant number -> bot
    games = Games([NoisyGreedy(STRENGTHS[i]) for i in order], seed)
    truth = [job.truth[i] for i in order]
    n = len(order)
    taus = {}
    for strategy in job.strategies:
        ladder = Ladder(list(range(n)))
        next_round = strategy.rounds(ladder, job.tables, seed)
        curve = [kendall_tau(ladder.mus(), truth)]
        for _ in range(job.rounds):
            ladder.play_round(games, next_round())
            curve.append(kendall_tau(ladder.mus(), truth))
        taus[strategy.name] = curve
    if not job.newcomer:
        return RepResult(taus, {}, {}, math.nan, games.played, job.seed)
    newcomer = order.index(STRENGTHS.index(NEWCOMER))
    trial = newcomer_trial(games, newcomer, job)
    return RepResult(taus, *trial, played=games.played, seed=job.seed)


def newcomer_trial(games: Games, newcomer: int, job: Job
                   ) -> tuple[dict[str, int], dict[str, int], float]:
    """Settle the others with ``job.warmup`` round-robin cycles, then let the newcomer
    in: its games, and the rounds, until its σ is below :data:`SETTLED_SIGMA`."""
    n = len(games.bots)
    settled = Ladder([key for key in range(n) if key != newcomer])
    cycle = Strategy("round-robin").rounds(settled, math.comb(n - 1, 2), games.seed)
    for _ in range(job.warmup):
        settled.play_round(games, cycle())
    warm_sigma = max(settled.table.get(key).sigma for key in settled.keys)
    its_games, rounds = {}, {}
    for strategy in [s for s in job.strategies if s.kind != "round-robin"]:
        ladder = settled.fork()
        ladder.keys = list(range(n))
        next_round = strategy.rounds(ladder, job.tables, games.seed + 1)
        when: list[int] = []

        def watch(game: RatedGame, ladder: Ladder = ladder, when: list[int] = when) -> None:
            if (not when and newcomer in game.players
                    and ladder.table.get(newcomer).sigma < SETTLED_SIGMA):
                when.append(ladder.table.games[newcomer])

        count = 0
        while not when:
            count += 1
            if count > 10_000:
                raise RuntimeError(f"{strategy.name}: the newcomer's σ never settled")
            ladder.play_round(games, next_round(), watch)
        its_games[strategy.name], rounds[strategy.name] = when[0], count
    return its_games, rounds, warm_sigma


# -- the true order ---------------------------------------------------------------------


def truth_pair(job: tuple[tuple[int, int], int, int]) -> list[RatedGame]:
    """The true-order round-robin's games of one pair: ``sets`` duplicate sets."""
    pair, sets, seed = job
    bots = [NoisyGreedy(p) for p in STRENGTHS]
    return [RatedGame(task.seats, play_game(
                "seasons", [bots[s] for s in task.seats], task.seed).ranks)
            for task in table_tasks(Table(0, 0, pair), sets, seed, [label(b) for b in bots])]


def true_order(sets: int, seed: int, pool: PoolType) -> tuple[list[float], list[float]]:
    """Each bot's μ after a round-robin of ``sets`` duplicate sets per pair (rated set
    by set, pair by pair), and each bot's score against its next weaker neighbour."""
    pairs = list(itertools.combinations(range(len(STRENGTHS)), 2))
    truth_seed = derive_seed(seed, "true-order")
    per_pair = dict(zip(pairs, pool.map(truth_pair, [(pair, sets, truth_seed)
                                                     for pair in pairs]), strict=True))
    table = RatingTable(make_rater(SETTINGS))
    for game_set in range(sets):
        for pair in pairs:
            for game in per_pair[pair][2 * game_set:2 * game_set + 2]:
                table.add(game)
    neighbours = []
    for a in range(len(STRENGTHS) - 1):
        points = [1.0 if g.ranks[g.players.index(a)] < g.ranks[g.players.index(a + 1)]
                  else 0.5 if g.ranks[0] == g.ranks[1] else 0.0 for g in per_pair[a, a + 1]]
        neighbours.append(sum(points) / len(points))
    return [table.get(i).mu for i in range(len(STRENGTHS))], neighbours


# -- figures ----------------------------------------------------------------------------


def games_to_target(curve: Sequence[float], games_per_round: int) -> float | None:
    """Where ``curve`` (one point per round) last crosses up through the target, in
    games, interpolated between rounds; None if it ends below."""
    if curve[-1] < TARGET_TAU:
        return None
    last_below = max(i for i, tau in enumerate(curve) if tau < TARGET_TAU)
    low, high = curve[last_below], curve[last_below + 1]
    return (last_below + (TARGET_TAU - low) / (high - low)) * games_per_round


def bootstrap_ratio(ladder: np.ndarray, uniform: np.ndarray, games_per_round: int,
                    seed: int) -> tuple[float, float] | None:
    """95 % percentile interval of the ratio of games to target, resampling repetitions
    (rows of the two τ arrays, kept paired)."""
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(BOOTSTRAP):
        rows = rng.integers(0, len(ladder), len(ladder))
        a = games_to_target(ladder[rows].mean(axis=0).tolist(), games_per_round)
        b = games_to_target(uniform[rows].mean(axis=0).tolist(), games_per_round)
        if a is None or b is None:
            return None
        ratios.append(a / b)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def write_chart(path: Path, curves: dict[str, list[float]], games_per_round: int,
                reps: int, needed: dict[str, float | None]) -> None:
    """Mean τ against games, a line per strategy, the target dashed."""
    budget = (len(next(iter(curves.values()))) - 1) * games_per_round
    with chart("ladder-convergence", width=7.5, height=3.8) as (figure, ax):
        ladder_colours = itertools.cycle(LADDER_COLOURS)
        for name, curve in curves.items():
            colour = COLOURS.get(name) or next(ladder_colours)
            reached = needed[name]
            shown = f"{name} (τ ≥ {TARGET_TAU:g} from {reached:.0f} games)" if reached else name
            ax.plot([i * games_per_round for i in range(len(curve))], curve, color=colour,
                    linewidth=1.6, label=shown)
            if reached:
                ax.plot([reached], [TARGET_TAU], marker="o", markersize=4, color=colour)
        ax.axhline(TARGET_TAU, color=MUTED, linestyle="--", linewidth=0.9)
        ax.text(budget, TARGET_TAU + 0.012, f"τ = {TARGET_TAU:g}", color=MUTED, ha="right",
                va="bottom", fontsize=8)
        ax.set_xlabel("games played (per strategy)")
        ax.set_ylabel("Kendall τ against the true order")
        ax.set_title(f"{len(STRENGTHS)} Seasons bots of known strength, ranked by TrueSkill μ: "
                     f"mean τ over {reps} runs", fontsize=9)
        ax.set_xlim(0, budget)
        ax.set_ylim(0, 1.02)
        ax.legend(loc="lower right")
        path.parent.mkdir(parents=True, exist_ok=True)
        # a standalone file with its own size, not the report's inline SVG (to_svg)
        metadata = {"Date": None, "Creator": None} if path.suffix == ".svg" else None
        figure.savefig(path, metadata=metadata)


@dataclass(frozen=True)
class Ratio:
    """The ladder's games to target over a baseline's, per seed; and pooled over all
    repetitions with a bootstrap interval."""

    per_seed: dict[int, float | None]
    pooled: float | None
    interval: tuple[float, float] | None

    def known(self) -> list[float]:
        return [r for r in self.per_seed.values() if r is not None]

    @property
    def mean(self) -> float | None:
        known = self.known()
        return sum(known) / len(known) if len(known) == len(self.per_seed) else None

    @property
    def worst(self) -> float | None:
        known = self.known()
        return max(known) if len(known) == len(self.per_seed) else None


def ratio_of(taus: dict[int, dict[str, np.ndarray]], ladder: str, base: str,
             games_per_round: int, seed: int) -> Ratio:
    per_seed: dict[int, float | None] = {}
    for s, curves in taus.items():
        mine = games_to_target(curves[ladder].mean(axis=0).tolist(), games_per_round)
        theirs = games_to_target(curves[base].mean(axis=0).tolist(), games_per_round)
        per_seed[s] = mine / theirs if mine is not None and theirs is not None else None
    pooled_ladder = np.concatenate([c[ladder] for c in taus.values()])
    pooled_base = np.concatenate([c[base] for c in taus.values()])
    mine = games_to_target(pooled_ladder.mean(axis=0).tolist(), games_per_round)
    theirs = games_to_target(pooled_base.mean(axis=0).tolist(), games_per_round)
    pooled = mine / theirs if mine is not None and theirs is not None else None
    interval = bootstrap_ratio(pooled_ladder, pooled_base, games_per_round, seed)
    return Ratio(per_seed, pooled, interval)


def report(results: list[RepResult], strategies: Sequence[Strategy], games_per_round: int,
           seed: int) -> dict[str, float | None]:
    """Print the pooled τ curves, each seed's games to target, and the ladder's ratios to
    both baselines with their goals; the pooled games to target of each strategy."""
    names = [s.name for s in strategies]
    seeds = sorted({r.seed for r in results})
    taus = {s: {name: np.array([r.taus[name] for r in results if r.seed == s])
                for name in names} for s in seeds}
    pooled = {name: np.concatenate([taus[s][name] for s in seeds]).mean(axis=0).tolist()
              for name in names}
    rounds = len(pooled[names[0]]) - 1
    width = max(len(name) for name in names)
    print(f"\nMean Kendall τ (ranking by μ against the true order) after each number of games,"
          f" all {len(results)} repetitions ({len(seeds)} seeds):")
    print(f"  {'games':>5}  " + "  ".join(f"{name:>{width}}" for name in names))
    for i in range(rounds + 1):
        if i <= 12 or i % 5 == 0:
            print(f"  {i * games_per_round:5d}  "
                  + "  ".join(f"{pooled[name][i]:>{width}.3f}" for name in names))

    def shown(value: float | None, digits: int = 1) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    print(f"\nGames to τ ≥ {TARGET_TAU:g} (where a seed's mean τ crosses it for the last time;"
          f" not within {rounds * games_per_round}: -):")
    print(f"  {'seed':>4}  " + "  ".join(f"{name:>{width}}" for name in names))
    for s in seeds:
        row = [games_to_target(taus[s][name].mean(axis=0).tolist(), games_per_round)
               for name in names]
        print(f"  {s:>4}  " + "  ".join(f"{shown(g):>{width}}" for g in row))
    needed = {name: games_to_target(pooled[name], games_per_round) for name in names}
    print(f"  {'all':>4}  " + "  ".join(f"{shown(needed[name]):>{width}}" for name in names))
    for strategy in strategies:
        if strategy.kind != "ladder":
            continue
        for base, goal_name, goal in (("random", "worst", GOAL_WORST_RANDOM),
                                      ("round-robin", "mean", GOAL_MEAN_ROUND_ROBIN)):
            ratio = ratio_of(taus, strategy.name, base, games_per_round, seed)
            per_seed = ", ".join(shown(ratio.per_seed[s], 2) for s in seeds)
            line = (f"\n  {strategy.name} / {base}: {per_seed}; mean {shown(ratio.mean, 3)}, "
                    f"worst {shown(ratio.worst, 3)}")
            if ratio.pooled is not None:
                line += f"; pooled {ratio.pooled:.3f}"
                if ratio.interval is not None:
                    line += f" (95% {ratio.interval[0]:.2f}-{ratio.interval[1]:.2f})"
            judged = ratio.worst if goal_name == "worst" else ratio.mean
            if judged is None:
                line += f"\n    goal: the {goal_name} <= {goal:g}: not measurable within the budget"
            else:
                verdict = "met" if judged <= goal else "NOT met"
                line += (f"\n    goal: the {goal_name} <= {goal:g}: {verdict}, "
                         f"ratio to goal = {judged / goal:.2f}")
            print(line, end="")
        print()
    return needed


def report_newcomer(results: list[RepResult], strategies: Sequence[Strategy],
                    warmup: int) -> None:
    results = [r for r in results if r.newcomer_games]
    if not results:
        return
    warm = sum(r.warm_sigma for r in results) / len(results)
    print(f"\nNewcomer (p = {NEWCOMER:g}) joining the other {len(STRENGTHS) - 1} after "
          f"{warmup} round-robin cycles among them (their largest σ then: {warm:.2f} on "
          f"average; {len(results)} repetitions of seed {results[0].seed}); its games until "
          f"its σ < {SETTLED_SIGMA:g}:")
    names = [s.name for s in strategies if s.kind != "round-robin"]
    width = max(len(name) for name in names)
    for name in names:
        games = sorted(r.newcomer_games[name] for r in results)
        rounds = [r.newcomer_rounds[name] for r in results]
        print(f"  {name:<{width}}  mean {sum(games) / len(games):4.1f} of its games "
              f"(median {games[len(games) // 2]}, max {games[-1]}), "
              f"{sum(rounds) / len(rounds):4.1f} rounds")


# -- the cost of choosing a round -------------------------------------------------------


def timing(entrants: int, exploration: float, seed: int) -> None:
    """What :func:`plan_round` costs for a round of ``entrants`` tables (one per entrant,
    a duplicate set each) in a settled field with a few newcomers and earlier meetings,
    against the in-process cost of that round's games between the bench's bots."""
    rng = random.Random(seed)
    field_ = [Candidate(key, rng.gauss(25, 5), 25 / 3 if key < 5 else rng.uniform(0.8, 3))
              for key in range(entrants)]
    order = sorted(range(entrants), key=lambda k: field_[k].mu)
    meetings: Counter[tuple[int, ...]] = Counter()
    for _ in range(20 * entrants):  # neighbours in rating have met, a few times each
        i = rng.randrange(entrants - 1)
        j = min(entrants - 1, i + 1 + int(rng.expovariate(1 / 4)))
        meetings[tuple(sorted((order[i], order[j])))] += 1
    pairs = dict(meetings)
    costs = []
    for index in range(5):
        started = time.perf_counter()
        plan_round(field_, 2, entrants, random.Random(index), beta=SETTINGS.beta,
                   draw_probability=SETTINGS.draw_probability, exploration=exploration,
                   games_per_table=2, meetings=pairs)
        costs.append(time.perf_counter() - started)
    bots = [NoisyGreedy(p) for p in STRENGTHS]
    sample = 200
    started = time.perf_counter()
    for game in range(sample):
        play_game("seasons", [bots[game % 7], bots[(game + 3) % 7]], derive_seed(seed, game))
    per_game = (time.perf_counter() - started) / sample
    round_games = 2 * entrants * per_game
    best, median = min(costs), sorted(costs)[len(costs) // 2]
    print(f"Choosing a round of {entrants} tables among {entrants} entrants "
          f"({len(pairs)} pairs met before; exploration {exploration:g}): "
          f"median {median:.3f} s, best {best:.3f} s of 5")
    print(f"Its {2 * entrants} games between the bench's bots, in-process (no sandbox): "
          f"{per_game * 1000:.2f} ms a game, {round_games:.1f} s of CPU; choosing is "
          f"{median / round_games:.1%} of that")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5],
                        help="seeds, each with its own repetitions (the true order and the "
                             "newcomer from the first)")
    parser.add_argument("--reps", type=int, default=160, help="repetitions per seed")
    parser.add_argument("--games", type=int, default=240, help="game budget per strategy")
    parser.add_argument("--tables", type=int, default=len(STRENGTHS),
                        help="tables a round (default: one per bot, as the ladder)")
    parser.add_argument("--truth-sets", type=int, default=300,
                        help="duplicate sets per pair in the true-order round-robin")
    parser.add_argument("--warmup", type=int, default=10,
                        help="round-robin cycles that settle the field before the newcomer")
    parser.add_argument("--exploration", type=float, nargs="+", default=[DEFAULT_EXPLORATION],
                        help="the ladder's exploration value(s), a ladder line for each")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chart", type=Path, default=DEFAULT_CHART)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: seeds 1 and 2, 24 repetitions each, 180 games, "
                             "60 truth sets")
    parser.add_argument("--timing", action="store_true",
                        help="only measure the cost of choosing a round (see --timing-entrants)")
    parser.add_argument("--timing-entrants", type=int, default=1000)
    args = parser.parse_args()
    if args.timing:
        timing(args.timing_entrants, args.exploration[0], args.seeds[0])
        return
    if args.quick:
        args.seeds, args.reps, args.games, args.truth_sets = [1, 2], 24, 180, 60
    started = time.perf_counter()
    n = len(STRENGTHS)
    games_per_round = 2 * args.tables
    rounds = math.ceil(args.games / games_per_round)
    strategies = (*(Strategy("ladder", x) for x in args.exploration), Strategy("random"),
                  Strategy("round-robin"))
    print(f"Ladder convergence, Seasons: {n} bots (greedy playing a random move with "
          f"p = {', '.join(f'{p:g}' for p in STRENGTHS)}), {args.tables} tables a round "
          f"(duplicate sets: {games_per_round} games), {rounds * games_per_round} games per "
          f"strategy, {args.reps} repetitions for each of the seeds "
          f"{', '.join(map(str, args.seeds))}")
    with Pool(args.workers) as pool:
        mus, neighbours = true_order(args.truth_sets, args.seeds[0], pool)
        print(f"\nTrue order: round-robin of {args.truth_sets} duplicate sets per pair "
              f"({math.comb(n, 2) * args.truth_sets * 2} games), TrueSkill μ:")
        for i, p in enumerate(STRENGTHS):
            against = (f"   scores {100 * neighbours[i]:.1f}% against p = {STRENGTHS[i + 1]:g}"
                       if i + 1 < n else "")
            print(f"  p = {p:<4g}  μ = {mus[i]:5.2f}{against}")
        monotone = all(a > b for a, b in itertools.pairwise(mus))
        print("  monotone in p: " + ("yes" if monotone else "NO (the true order is by μ)"))
        jobs = [Job(rep, seed, tuple(mus), rounds, args.tables, strategies, args.warmup,
                    newcomer=seed == args.seeds[0])
                for seed in args.seeds for rep in range(args.reps)]
        results = pool.map(run_rep, jobs, chunksize=1)
    needed = report(results, strategies, games_per_round, args.seeds[0])
    report_newcomer(results, strategies, args.warmup)
    curves = {s.name: np.array([r.taus[s.name] for r in results]).mean(axis=0).tolist()
              for s in strategies}
    write_chart(args.chart, curves, games_per_round, len(results), needed)
    played = sum(r.played for r in results) + math.comb(n, 2) * args.truth_sets * 2
    print(f"\nChart: {args.chart}")
    print(f"{played} games played in {time.perf_counter() - started:.0f} s "
          f"({args.workers} workers)")


if __name__ == "__main__":
    main()
