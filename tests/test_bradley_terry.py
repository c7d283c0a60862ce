"""The Bradley-Terry fit: it recovers known strengths within its intervals."""

import math
import random

import pytest
from bench_scripts import load_bench
from click.testing import CliRunner

from arena.cli import cli
from arena.results.bradley_terry import (
    ELO_PER_UNIT,
    MIN_DESIGN_EFFECT,
    SeatedGame,
    connected_groups,
    fit,
)
from arena.results.store import Store
from arena.results.versions import seated_games
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

TRUE_ELO = {0: 0.0, 1: 100.0, 2: 200.0, 3: 350.0}
SEAT_ELO = 40.0


def synthetic_games(sets_per_pair: int, seed: int) -> list[SeatedGame]:
    """Duplicate sets (both seat orders) between every pair, drawn from the model."""
    rng = random.Random(seed)
    games = []
    for a in TRUE_ELO:
        for b in TRUE_ELO:
            if a >= b:
                continue
            for number in range(sets_per_pair):
                for first, second in ((a, b), (b, a)):
                    d = (TRUE_ELO[first] - TRUE_ELO[second] + SEAT_ELO) / ELO_PER_UNIT
                    won = rng.random() < 1 / (1 + math.exp(-d))
                    games.append(SeatedGame((first, second), (0, 1) if won else (1, 0),
                                            (a, b, number)))
    return games


def test_known_strengths_and_the_seat_advantage_lie_within_their_intervals():
    """Over eight seeded samples, the 95 % intervals hold the true values about 95 % of the
    time (a fit that ignored the seat, or intervals from single games, would not), and
    the estimates are unbiased."""
    covered, seats_covered, errors = 0, 0, []
    for seed in range(8):
        result = fit(synthetic_games(150, seed=seed), anchor=(0, 0.0))
        assert result.order() == [3, 2, 1, 0]
        assert result.elo[0] == result.low[0] == result.high[0] == 0.0  # the anchor
        for bot in (1, 2, 3):
            covered += result.low[bot] <= TRUE_ELO[bot] <= result.high[bot]
            errors.append(result.elo[bot] - TRUE_ELO[bot])
        low, high = result.seat_interval
        seats_covered += low <= SEAT_ELO <= high
    assert covered >= 20 and seats_covered >= 6, (covered, seats_covered)
    assert abs(sum(errors) / len(errors)) < 15
    assert all(fit(synthetic_games(2, seed=1)).games[bot] == 3 * 2 * 2
               for bot in TRUE_ELO)


def test_the_fit_does_not_depend_on_the_order_of_the_games():
    games = synthetic_games(40, seed=5)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    first, second = fit(games), fit(shuffled)
    assert all(abs(first.elo[bot] - second.elo[bot]) < 1e-6 for bot in TRUE_ELO)
    assert all(abs(first.low[bot] - second.low[bot]) < 1e-3 for bot in TRUE_ELO)
    assert abs(sum(first.elo.values())) < 1e-6  # no anchor: the mean is 0


def test_intervals_come_from_whole_duplicate_sets_and_are_reproducible():
    """Playing every game twice in its own set adds no information, and the intervals
    say so (the design effect); the same games twice in new sets narrow them by √2."""
    games = synthetic_games(30, seed=7)
    once = fit(games)
    assert once == fit(games)  # no resampling: the same games, the same intervals
    assert all(once.low[bot] < once.elo[bot] < once.high[bot] for bot in TRUE_ELO)
    same_sets = fit(games + games)
    new_sets = fit(games + [SeatedGame(g.bots, g.ranks, ("again", g.group)) for g in games])
    for bot in TRUE_ELO:
        width = once.high[bot] - once.low[bot]
        assert abs(same_sets.elo[bot] - once.elo[bot]) < 15
        assert 0.85 < (same_sets.high[bot] - same_sets.low[bot]) / width < 1.15
        assert 0.62 < (new_sets.high[bot] - new_sets.low[bot]) / width < 0.8


def test_a_clean_sweep_is_finite_and_cancelling_sets_are_not_certain():
    """A bot that won every game gets a finite rating and interval; two bots that split
    every set (the dice decide) are equal, with an interval no narrower than the design
    effect's floor allows."""
    sweep = [SeatedGame(order, (0, 1) if order[0] == 0 else (1, 0), ("sweep", lost, number))
             for lost in (1, 2) for number in range(5) for order in ((0, lost), (lost, 0))]
    result = fit(sweep + [g for g in synthetic_games(5, seed=3) if 0 not in g.bots])
    assert result.order()[0] == 0
    assert all(math.isfinite(value) for value in (*result.low.values(), *result.high.values()))
    assert result.low[0] < result.elo[0] < result.high[0] < result.elo[0] + 2000
    split = [SeatedGame(order, (number % 2, 1 - number % 2), (number,)) for number in range(20)
             for order in ((0, 1), (1, 0))]  # each set: the same seat wins both games
    even = fit(split)
    assert abs(even.elo[0]) < 1e-6
    independent = fit([SeatedGame(g.bots, g.ranks, i) for i, g in enumerate(split)])
    ratio = (even.high[0] - even.low[0]) / (independent.high[0] - independent.low[0])
    assert math.sqrt(MIN_DESIGN_EFFECT) * 0.9 < ratio < math.sqrt(MIN_DESIGN_EFFECT) * 1.2


@pytest.mark.stress
def test_intervals_cover_at_90_games_where_the_bootstrap_percentiles_did_not():
    """The quick version of bench/bt_coverage.py: 6 bots from −300 to +400 Elo, 3
    duplicate sets per pair (half of them sharing dice). The replaced percentile
    bootstrap of MAP fits pushed the extreme bots outward and missed on one side."""
    bench = load_bench("bt_coverage")
    new = bench.coverage("new", 3, 150, "mixed", seed=1)
    old = bench.coverage("old", 3, 60, "mixed", seed=1)
    assert new.pooled >= 0.93 and new.extremes >= 0.92, new
    assert old.extremes < 0.92 and old.pooled < new.pooled - 0.02, old
    assert abs(new.extreme_error[1]) < abs(old.extreme_error[1]) / 2, (new, old)


def test_arena_ratings_system_bt_prints_anchored_elo_with_intervals(tmp_path, root,
                                                                    monkeypatch):
    monkeypatch.chdir(root)
    config = parse_config({"name": "bt", "game": "seasons", "seed": 2, "isolation": "none",
                           "games_per_pairing": 6, "db": str(tmp_path / "a.db"), "workers": 1,
                           "bots": ["bots/seasons/random_bot.py", "bots/seasons/greedy.py",
                                    {"spec": "bots/seasons/greedy.py", "name": "keep",
                                     "params": {"rerolls": False}}]})
    with Store(config.db) as store:
        run_tournament(config, store)
    result = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                      "bt", "--anchor", "random=0"])
    assert result.exit_code == 0, result.output
    assert "Bradley-Terry, 36 games" in result.output
    assert "the earlier seat's advantage" in result.output
    random_line = next(line for line in result.output.splitlines() if "random@1.0" in line)
    assert random_line.split()[2:5] == ["0", "anchor", "anchor"]  # not a zero-width interval
    bad = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                   "bt", "--anchor", "random"])
    assert bad.exit_code == 2 and "is not BOT=ELO" in bad.output
    huge = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                    "bt", "--anchor", "random=1e30"])  # every bot read 1e30
    assert huge.exit_code == 2 and "an anchor within ±100,000 Elo" in huge.output
    ignored = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"),
                                       "--anchor", "random=0"])  # TrueSkill ignored it
    assert ignored.exit_code == 2 and "goes with --system bt" in ignored.output


def test_two_games_give_symmetric_bounds_or_none_and_never_a_negative_zero(tmp_path, root,
                                                                          monkeypatch):
    """After one set (2 games), greedy's upper bound was where the search for random's lower
    one gave up (15274 against -28782, though with two bots one is the other's negative),
    and the seat advantage read "-0 Elo"."""
    monkeypatch.chdir(root)
    config = parse_config({"name": "one", "game": "seasons", "seed": 7, "isolation": "none",
                           "games_per_pairing": 1, "db": str(tmp_path / "a.db"), "workers": 1,
                           "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"]})
    with Store(config.db) as store:
        run_tournament(config, store)
        games = seated_games(store, "seasons", None)
        result = fit(games)
    first, second = sorted(result.elo)
    assert result.low[first] == pytest.approx(-result.high[second], rel=1e-3)
    assert result.high[first] == pytest.approx(-result.low[second], rel=1e-3)
    shown = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                     "bt"]).output
    assert "-0 " not in shown and "-0)" not in shown, shown
    assert "advantage: +0 Elo (none to none)" in shown, shown


def _pair_sets(results: list[tuple[int, int]]) -> list[SeatedGame]:
    """Duplicate sets of bots 0 and 1: per set, whether 0 won with the first seat, then with
    the second."""
    games = []
    for number, (first, second) in enumerate(results):
        games.append(SeatedGame((0, 1), (0, 1) if first else (1, 0), number))
        games.append(SeatedGame((1, 0), (1, 0) if second else (0, 1), number))
    return games


def test_a_sweep_is_no_surer_than_its_games_say():
    """Ten sets won 2-0 each: the robust variance sees no game go the other way, and
    narrowed the interval to [410, 676] Elo, above compare's bound for the same 20 games
    (Wilson: 83.9 %, +287)."""
    result = fit(_pair_sets([(1, 1)] * 10), anchor=(1, 0.0))
    assert result.low[0] < 287 < result.elo[0]


def test_a_strong_pair_over_few_sets_is_covered():
    """A +400 Elo pair over 10 sets of independent games: narrowed intervals covered 0.83."""
    rng = random.Random(5)
    p = 1 / (1 + 10 ** (-400 / 400))
    samples, covered = 120, 0
    for _ in range(samples):
        results = [(int(rng.random() < p), int(rng.random() < p)) for _ in range(10)]
        result = fit(_pair_sets(results), anchor=(1, 0.0))
        covered += result.low[0] <= 400 <= result.high[0]
    assert covered / samples >= 0.93


def test_bots_that_never_met_the_others_are_rated_in_a_group_of_their_own(tmp_path, root,
                                                                          monkeypatch):
    """Two tournaments in one database with no bot in common: one fit rated the second
    pair by its prior alone (455 Elo above the anchor, ranked above it)."""
    monkeypatch.chdir(root)
    db = str(tmp_path / "a.db")
    pairs = [["bots/seasons/greedy.py", "bots/seasons/random_bot.py"],
             [{"spec": "bots/seasons/greedy.py", "name": "keep", "params": {"rerolls": False}},
              {"spec": "bots/seasons/random_bot.py", "name": "random-b"}]]
    for number, bots in enumerate(pairs):
        config = parse_config({"name": f"t{number}", "game": "seasons", "seed": 2,
                               "isolation": "none", "games_per_pairing": 4, "db": db,
                               "workers": 1, "bots": bots})
        with Store(config.db) as store:
            run_tournament(config, store)
    with Store(db) as store:
        groups = connected_groups(seated_games(store, "seasons", None))
    assert [len(group) for group in groups] == [8, 8]
    shown = CliRunner().invoke(cli, ["ratings", "--db", db, "--system", "bt", "--anchor",
                                     "random=0"]).output
    assert "group 1 of 2: bots that met each other" in shown and "group 3" not in shown, shown
    tables = shown.split("group 2 of 2")
    assert "random@1.0" in tables[0] and "anchor" in tables[0] and "keep@" not in tables[0]
    assert "keep@" in tables[1] and "random-b@" in tables[1] and "anchor" not in tables[1]


def test_an_anchor_on_a_bot_without_rated_games_is_refused(tmp_path, root, monkeypatch):
    """`--anchor broken=0` for a bot whose games were all forfeited printed the unanchored
    table as if anchored."""
    monkeypatch.chdir(root)
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no such thing')\n")
    config = parse_config({"name": "anchor", "game": "seasons", "seed": 2, "isolation": "none",
                           "games_per_pairing": 1, "db": str(tmp_path / "a.db"), "workers": 1,
                           "broken_bots": "forfeit",
                           "bots": ["bots/seasons/random_bot.py", "bots/seasons/greedy.py",
                                    str(broken)]})
    with Store(config.db) as store:
        run_tournament(config, store)
    result = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                      "bt", "--anchor", "broken=0"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "has no rated game in seasons" in said and "nothing to anchor" in said
