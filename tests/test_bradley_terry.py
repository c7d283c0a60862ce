"""The Bradley-Terry fit: it recovers known strengths within its intervals."""

import math
import random

from click.testing import CliRunner

from arena.cli import cli
from arena.results.bradley_terry import ELO_PER_UNIT, SeatedGame, fit
from arena.results.store import Store
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
        result = fit(synthetic_games(150, seed=seed), anchor=(0, 0.0), bootstrap=100)
        assert result.order() == [3, 2, 1, 0]
        assert result.elo[0] == result.low[0] == result.high[0] == 0.0  # the anchor
        for bot in (1, 2, 3):
            covered += result.low[bot] <= TRUE_ELO[bot] <= result.high[bot]
            errors.append(result.elo[bot] - TRUE_ELO[bot])
        low, high = result.seat_interval
        seats_covered += low <= SEAT_ELO <= high
    assert covered >= 20 and seats_covered >= 6, (covered, seats_covered)
    assert abs(sum(errors) / len(errors)) < 15
    assert all(fit(synthetic_games(2, seed=1), bootstrap=0).games[bot] == 3 * 2 * 2
               for bot in TRUE_ELO)


def test_the_fit_does_not_depend_on_the_order_of_the_games():
    games = synthetic_games(40, seed=5)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    first, second = fit(games, bootstrap=0), fit(shuffled, bootstrap=0)
    assert all(abs(first.elo[bot] - second.elo[bot]) < 1e-6 for bot in TRUE_ELO)
    assert abs(sum(first.elo.values())) < 1e-6  # no anchor: the mean is 0


def test_intervals_come_from_whole_duplicate_sets_and_are_reproducible():
    games = synthetic_games(30, seed=7)
    again = fit(games, bootstrap=50, seed=2)
    assert again == fit(games, bootstrap=50, seed=2)
    assert all(again.low[bot] < again.elo[bot] < again.high[bot] for bot in (1, 2, 3))


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
                                      "bt", "--anchor", "random=0", "--bootstrap", "30"])
    assert result.exit_code == 0, result.output
    assert "Bradley-Terry, 36 games" in result.output
    assert "the earlier seat's advantage" in result.output
    random_line = next(line for line in result.output.splitlines() if "random@1.0" in line)
    assert random_line.split()[2:5] == ["0", "0", "0"]
    bad = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db"), "--system",
                                   "bt", "--anchor", "random"])
    assert bad.exit_code == 2 and "is not BOT=ELO" in bad.output
