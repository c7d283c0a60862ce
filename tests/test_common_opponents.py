"""compare through common opponents: two revisions paired game by game on the same dice
(issue 26, item 1)."""

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.results.common_opponents import CommonComparison, PairedGame, _adjusted
from arena.results.standings import game_points
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parent.parent
GREEDY = str(ROOT / "bots/seasons/greedy.py")
RANDOM = str(ROOT / "bots/seasons/random_bot.py")
SETS = 4


def play(path, name, params, *, seed=3, opponent=RANDOM, sets=SETS):
    """A tournament of greedy 1.0 (its revision set by ``params``) against ``opponent``."""
    config = parse_config({
        "name": name, "game": "seasons", "seed": seed, "workers": 1, "db": str(path),
        "games_per_pairing": sets, "isolation": "none",
        "bots": [{"spec": GREEDY, "name": "greedy", "version": "1.0", "params": params},
                 opponent]})
    with Store(path) as store:
        run_tournament(config, store)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two revisions of greedy 1.0 (rerolling, and keeping every roll), each against
    random in a tournament of the same config: the same dice game by game."""
    path = tmp_path_factory.mktemp("revisions") / "arena.db"
    play(path, "rerolls", {})
    play(path, "keeps", {"rerolls": False})
    return path


@pytest.fixture
def db(played, tmp_path):
    """A copy of the two revisions' database, for a test to add to."""
    path = tmp_path / "arena.db"
    shutil.copy(played, path)
    return path


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def labels(path):
    with Store(path) as store:
        return [bot.label for bot in store.bots("seasons") if bot.identity.name == "greedy"]


def by_seat_and_seed(path, tournament):
    """(seed, seat of greedy) -> greedy's points, from the stored games."""
    with Store(path) as store:
        row = store.find_tournament(tournament)
        return {(game.seed, game.seats.index(0)): game_points(game.ranks)[game.seats.index(0)]
                for game in store.games(row.id)}


def test_two_revisions_on_the_same_dice_are_paired_game_by_game(db):
    first, second = labels(db)
    result = run("compare", first, second, "--db", db, "--no-luck")
    assert result.exit_code == 0, result.output
    rerolls, keeps = by_seat_and_seed(db, "rerolls"), by_seat_and_seed(db, "keeps")
    assert rerolls.keys() == keeps.keys() and len(rerolls) == 2 * SETS
    differences = [rerolls[k] - keeps[k] for k in rerolls]
    better = sum(d > 0 for d in differences)
    worse = sum(d < 0 for d in differences)
    text = " ".join(result.output.split())
    assert f"{first} vs {second} through common opponents, not head-to-head" in text
    assert (f"each played the same {2 * SETS} games ({SETS} duplicate sets: the same dice, "
            "seats and opponents, random@1.0+") in text
    assert (f"{first} did better in {better}, the same in {len(differences) - better - worse}, "
            f"worse in {worse} of them") in text
    mean = sum(differences) / len(differences)
    assert f"score difference {100 * mean:+.1f} percentage points" in text
    assert f"paired score {100 * (0.5 + mean / 2):.1f}%" in text
    assert "LOS" in text and "Elo" in text
    assert "have not met" not in text
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_the_sets_are_the_independent_units():
    games = (PairedGame(("v", 1), 1.0, 0.0), PairedGame(("v", 1), 0.0, 0.0),
             PairedGame(("v", 2), 0.5, 1.0))
    comparison = CommonComparison("a", "b", games)
    assert comparison.sets == 2
    # 1/2 + the set's mean difference / 2 (0.75 and 0.25), weighed by its games (two and
    # one): their mean is the games' paired score, 1/2 + 1/6 / 2
    assert comparison.score == pytest.approx(0.5 + 1 / 12)
    assert comparison.units == pytest.approx((0.5 + 1 / 12 + 4 / 3 * (0.75 - 0.5 - 1 / 12),
                                              0.5 + 1 / 12 + 2 / 3 * (0.25 - 0.5 - 1 / 12)))


def test_the_luck_adjusted_difference_takes_out_each_games_own_luck():
    games = (PairedGame(("v", 1), 1.0, 0.0, 0.25, -0.25), PairedGame(("v", 1), 0.5, 0.5, 0.0, 0.0),
             PairedGame(("v", 2), 0.0, 1.0, -0.5, 0.5), PairedGame(("v", 3), 1.0, 1.0, None, 0.1))
    adjusted = _adjusted(games)
    assert adjusted.sets == 2 and adjusted.games == 3  # set 3 was not accounted for
    # set 1: differences 1 and 0, luck differences 0.5 and 0: 1/2 + (1/2 - 1/4) / 2, set 2
    # 1/2; as units of sets of two games and of one (set_units), points 0.75 and 0 with
    # luck 0.125 and -0.5 around their weighted means 1/2 and -1/12
    assert sum(adjusted.units) / 2 == pytest.approx((2 * 0.625 + 0.5) / 3)
    luck = (-1 / 12 + 4 / 3 * (0.125 + 1 / 12), -1 / 12 + 2 / 3 * (-0.5 + 1 / 12))
    assert adjusted.units == pytest.approx((0.5 + 4 / 3 * 0.25 - luck[0],
                                            0.5 - 2 / 3 * 0.5 - luck[1]))
    assert adjusted.raw_units == pytest.approx((0.5 + 4 / 3 * 0.25, 0.5 - 2 / 3 * 0.5))


def test_the_luck_adjusted_comparison_is_shown_where_the_game_has_a_value_model(db):
    result = run("compare", *labels(db), "--db", db, "--workers", 1)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "luck-adjusted (seasons-" in text


def test_bots_that_met_and_shared_opponents_show_both(db):
    first, second = labels(db)
    played = run("compare", first, second, "--db", db, "--games", 2, "--workers", 1,
                 "--no-progress", "--no-luck")
    assert played.exit_code == 0, played.output
    both = run("compare", first, second, "--db", db, "--no-luck").output
    met, through = both.split("\n\n")
    assert met.startswith(f"{first} vs {second}: 4 games")
    assert through.startswith(f"{first} vs {second} through common opponents")


def test_another_config_seed_plays_other_dice_and_compare_says_so(tmp_path, monkeypatch):
    path = tmp_path / "arena.db"
    play(path, "rerolls", {}, sets=1)
    play(path, "keeps", {"rerolls": False}, seed=4, sets=1)
    monkeypatch.chdir(tmp_path)
    result = run("compare", *labels(path), "--db", "arena.db")
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "have not met" in text and "though both played random@1.0+" in text
    assert "never sat in the same seat against the same bots on the same dice" in text
    assert "--games N" in text  # (wrapped on a terminal: test_terminal_output.py)


def test_bots_without_common_games_get_a_clear_message(tmp_path):
    path = tmp_path / "arena.db"
    play(path, "rerolls", {}, sets=1)
    play(path, "keeps", {"rerolls": False}, sets=1,
         opponent={"spec": GREEDY, "name": "other"})
    result = run("compare", *labels(path), "--db", path)
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "have not met" in text and "played no opponent in common" in text
    assert "--games N" in text


@pytest.mark.parametrize(("names", "said"), [
    (("greedy", "randm"), "no bot named 'randm' in"),
    (("greedy", "randm"), "(did you mean 'random'?)"),
    (("bots/seasons/greedy.py", "random"), "compare takes the names of stored bots, not files"),
])
def test_a_name_no_stored_bot_has_is_refused_with_what_to_do(db, names, said):
    """A typo, a file, or a bot never run: "name the game with --game (games with both
    bots: none)" said nothing of the name."""
    result = run("compare", *names, "--db", db)
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert said in text and "--game" not in text
    assert "a bot is stored once it has played in a tournament there" in text


def test_bots_that_met_only_at_larger_tables_are_told_so(tmp_path):
    """They met 18 times at three-seat tables, and compare said they "have not met"."""
    path = tmp_path / "arena.db"
    config = parse_config({
        "name": "three", "game": "sonnentau", "seats": 3, "seed": 5, "isolation": "none",
        "workers": 1, "games_per_pairing": 1, "db": str(path),
        "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                 {"spec": "bots/sonnentau/random_bot.py", "name": "third"}]}, source="test")
    with Store(path) as store:
        run_tournament(config, store)
        met = sum(1 for game in store.played_games("sonnentau") if len(game.bots) == 3)
    result = run("compare", "heuristic", "random", "--db", path)
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "have not met" not in text
    assert f"met only at tables of more than two seats ({met} games in" in text and met > 0
    assert "pairs.csv" in text and "--games N" in text


def test_larger_tables_count_the_games_pairs_csv_counts(tmp_path):
    """A game another seat's failure stopped says nothing between the two that did not fail:
    pairs.csv leaves it out, and compare's count of their games said it in."""
    path = tmp_path / "arena.db"
    config = parse_config({
        "name": "three", "game": "sonnentau", "seats": 3, "seed": 5, "isolation": "none",
        "workers": 1, "games_per_pairing": 1, "db": str(path),
        "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                 {"spec": "bots/sonnentau/random_bot.py", "name": "third"},
                 {"spec": "tests/report_crasher.py:Crasher", "name": "crasher"}]},
        source="test")
    with Store(path) as store:
        run_tournament(config, store)
        ids = {bot.identity.name: bot.id for bot in store.bots("sonnentau")}
        both = [game for game in store.played_games("sonnentau")
                if {ids["heuristic"], ids["random"]} <= set(game.bots)]
    stopped = sum(1 for game in both if game.failed)
    assert stopped and all(game.bots[seat] == ids["crasher"] for game in both
                           for seat in game.failed)
    text = " ".join(run("compare", "heuristic", "random", "--db", path).output.split())
    assert f"({len(both) - stopped} games in {path}; {stopped} more ended by another " \
           "seat's failure, where their places are not compared)" in text


@pytest.mark.parametrize("differences", [
    [1.0] * 6,  # the first won every game the second lost
    [-1.0] * 6,
    [0.0] * 6,  # the same results throughout
    [1.0],  # one set: no interval to speak of
    [1.0, 0.0, 0.0, 0.0, -0.5, 1.0],
], ids=["all-better", "all-worse", "all-same", "one-set", "mixed"])
def test_every_number_a_paired_comparison_prints_is_possible(differences):
    games = tuple(PairedGame(("v", n), max(0.0, d), max(0.0, -d), d / 4, -d / 4)
                  for n, d in enumerate(differences))
    comparison = CommonComparison("first@1+aaaaaa", "second@1+bbbbbb", games,
                                  ("other@1+cccccc",), adjusted=_adjusted(games), model="m")
    text = " ".join(comparison.lines())
    assert max(len(line) for line in comparison.lines()) <= 80
    percentages = [float(p) for p in re.findall(r"(-?\d+\.\d+)%", text)]
    assert percentages and all(0.0 <= p <= 100.0 for p in percentages), text
    for low, high in re.findall(r"interval (-?\d+\.\d+)%? to (-?\d+\.\d+)%?", text):
        assert float(low) <= float(high), text
    points = re.search(r"difference ([-+]\d+\.\d) percentage points \(95% interval "
                       r"([-+]\d+\.\d) to ([-+]\d+\.\d)\)", text)
    assert points, text
    assert all(-100.0 <= float(value) <= 100.0 for value in points.groups())
    assert "inf" not in text and "nan" not in text


def test_many_opponents_are_counted_not_listed():
    games = (PairedGame(("v", 1), 1.0, 0.0),)
    many = CommonComparison("a@1+aaaaaa", "b@1+bbbbbb", games,
                            tuple(f"o{n}@1+cccccc" for n in range(31)))
    text = " ".join(" ".join(many.lines()).split())
    assert "o0@1+cccccc, o1@1+cccccc, o2@1+cccccc and 28 others)" in text
    assert "o3@1" not in text


def test_a_config_run_again_counts_its_replayed_games_once(tmp_path):
    """Running a config again after one bot changed replays the other tables on the same
    seeds: the same game, not a new observation for the bots that met there."""
    path = tmp_path / "arena.db"
    play(path, "rerolls", {}, sets=2)
    play(path, "rerolls-again", {}, sets=2)  # the same bots, seed and tables: replays
    result = run("compare", "greedy", "random", "--db", path, "--no-luck")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{labels(path)[0]} vs random@1.0+")
    assert ": 4 games," in result.output and "2 seat-swapped pairs" in result.output
    # the ratings count them once too: TrueSkill's and Bradley-Terry's games were 8, as if
    # twice the evidence (their intervals as much too narrow)
    from arena.results.versions import all_time, seated_games

    with Store(path) as store:
        rated = all_time(store, "seasons")
        assert sorted(rated.table.games.values()) == [4, 4]
        assert len(seated_games(store, "seasons")) == 4
    shown = run("ratings", "--system", "bt", "--db", path)
    assert "Bradley-Terry, 4 games" in " ".join(shown.output.split())


def test_a_revision_is_not_compared_with_itself(db):
    first, _ = labels(db)
    result = run("compare", first, "greedy@1.0+" + first.rpartition("+")[2][:4], "--db", db)
    assert result.exit_code == 1
    assert "are the same revision" in " ".join(result.output.split())


def test_a_set_cut_short_weighs_as_its_games_in_the_paired_score():
    """Sets were averaged as equals: 2 better games of 9 printed +30.0 points, where the
    games give +22.2 (at most 2/9), and one of a set of one weighed as two."""
    from arena.results.common_opponents import CommonComparison, PairedGame

    games = (PairedGame(("v", 1), 1, 0), PairedGame(("v", 1), 0, 0),  # a whole set
             PairedGame(("v", 2), 1, 0),  # a set cut short
             *[PairedGame(("v", s), 0, 0) for s in range(3, 6) for _ in range(2)])
    comparison = CommonComparison("A", "B", games, ("x",))
    assert comparison.score == pytest.approx(0.5 + 2 / 9 / 2)
    text = " ".join(" ".join(comparison.lines()).split())
    assert "did better in 2, the same in 7, worse in 0" in text
    assert "score difference +22.2 percentage points" in text
    assert "paired score 61.1%" in text
    whole = CommonComparison("A", "B", games[:2] + games[3:], ("x",))
    assert whole.units == (0.75, 0.5, 0.5, 0.5)  # sets of one size are their means
