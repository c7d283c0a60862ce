"""Luck accounting: zero-mean luck, exact expectations, adjusted results from the store."""

import contextlib
import csv
import math
import os
import random
import signal
import statistics
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.loading import load_bot
from arena.cli import cli
from arena.games import find_game
from arena.referee.match import play_game
from arena.results.comparison import stored_comparison
from arena.results.llr import PSEUDO_COUNT, exact_llr
from arena.results.luck import (
    LuckError,
    account,
    account_games,
    enumerated_expectation,
    expected_values,
    roll_rng,
)
from arena.results.luck_book import LuckSource, tournament_luck
from arena.results.stats import (
    AdjustedScore,
    SprtSettings,
    adjusted_interval,
    expected_score,
    sprt,
    sprt_llr_adjusted,
)
from arena.results.store import Store
from arena.results.values import ValueModelError, load_value_model, model_for
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

RANDOM = "bots/seasons/random_bot.py"
GREEDY = "bots/seasons/greedy.py"
EXPECTIMAX = "bots/seasons/expectimax.py"


class InterimScore:
    """A cheap V for tests: the share of the decided points each seat holds."""

    name = "test-interim/1"

    def values(self, state):
        if state.is_terminal:
            first, second = state.scores()
            return (1.0, 0.0) if first > second else (0.0, 1.0) if second > first else (.5, .5)
        first, second = state.scores()
        lead = (first - second) / 120 + (sum(state.dice) - 10.5) / 60 * (
            1 if state.seat == 0 else -1)
        return 0.5 + lead / 2, 0.5 - lead / 2


class Biased:
    """The shipped model with an expectation a little off: luck no longer has mean 0."""

    name = "test-biased/1"

    def __init__(self, model):
        self.model = model

    def values(self, state):
        return self.model.values(state)

    def expected_values(self, state):
        first, second = self.model.expected_values(state)
        return first + 0.01, second - 0.01


def random_records(count, seed=0):
    bot = load_bot(RANDOM).player
    return [play_game("seasons", [bot, bot], seed=seed + i) for i in range(count)]


def mean_luck_z(records, model):
    lucks = [account(record, model).luck[0] for record in records]
    return statistics.fmean(lucks) / (statistics.stdev(lucks) / math.sqrt(len(lucks)))


@pytest.fixture(scope="module")
def records():
    return random_records(16)


@pytest.fixture(scope="module")
def shipped():
    return model_for("seasons", {})


def test_the_luck_of_random_games_has_mean_zero_and_a_biased_expectation_is_caught(
        records, shipped):
    assert abs(mean_luck_z(records, shipped)) < 3
    assert abs(mean_luck_z(records, InterimScore())) < 3
    assert abs(mean_luck_z(records, Biased(shipped))) > 3


def test_the_seasons_models_expectation_is_the_exact_one_over_every_roll(shipped):
    """At first rolls and at re-rolls of random positions, the model's own expectation
    equals the enumeration of every outcome with its probability."""
    rng = random.Random(3)
    game = find_game("seasons")
    checked = {"roll": 0, "reroll-roll": 0}
    for seed in range(6):
        state = game.initial_state()
        while not state.is_terminal:
            if state.is_chance_node():
                phase = state.to_json()["phase"]
                if checked[phase] < 12 and rng.random() < 0.3:
                    exact = enumerated_expectation(shipped, state)
                    assert expected_values(shipped, state) == pytest.approx(exact, abs=1e-9)
                    checked[phase] += 1
                outcomes = state.chance_outcomes()
                state.apply(rng.choice(outcomes)[0])
            else:
                state.apply(rng.choice(list(state.legal_actions())))
        del seed
    assert min(checked.values()) >= 6


def test_a_decided_game_is_worth_exactly_its_winner_and_its_rolls_carry_no_luck(shipped):
    """Once one seat holds more than half the points in full sectors no roll can change the
    winner: the model says so exactly, at every phase, and the rolls from then on have no
    luck (the model searched tables for those positions, and their small changes counted
    as luck)."""
    from arena.results.values.seasons import decided_winner

    greedy = load_bot("bots/seasons/greedy.py").player
    random_bot = load_bot("bots/seasons/random_bot.py").player
    game = find_game("seasons")
    decided_rolls = 0
    phases = set()
    for seed in range(6):
        record = play_game("seasons", [greedy, random_bot], seed)
        rolls = {roll.move: roll.luck for roll in account(record, shipped, keep_rolls=True).rolls}
        state = game.initial_state()
        for index, move in enumerate(record.moves):
            winner = None if state.is_terminal else decided_winner(*state.fields)
            if winner is not None and state.is_chance_node():
                assert rolls[index] == (0.0, 0.0)
                decided_rolls += 1
            if winner is not None:
                phases.add(state.to_json()["phase"])
                assert shipped.values(state) == ((1.0, 0.0) if winner else (0.0, 1.0))
            state.apply(game.parse_action(move.action))
    assert decided_rolls >= 10 and {"roll", "reroll", "place"} <= phases


def test_an_account_sums_each_rolls_luck_and_adjusts_the_points(records, shipped):
    record = records[0]
    result = account(record, shipped, keep_rolls=True)
    chance_moves = [i for i, move in enumerate(record.moves) if move.seat == -1]
    assert [roll.move for roll in result.rolls] == chance_moves
    assert sum(roll.luck[0] for roll in result.rolls) == pytest.approx(result.luck[0])
    assert result.luck[0] == pytest.approx(-result.luck[1])
    assert sum(result.adjusted) == pytest.approx(1.0)
    assert result.model == "seasons-expectimax/4"


def test_a_model_for_another_game_is_a_clear_error(records):
    with pytest.raises(LuckError, match="cannot account"):
        account(records[0], _SonnentauOnly())


class _SonnentauOnly:
    name = "sonnentau-only"

    def values(self, state):
        raise ValueError("not a Sonnentau state")


def test_the_value_model_hook_loads_a_users_model_and_refuses_bad_specs(tmp_path):
    path = tmp_path / "my_values.py"
    path.write_text("class Flat:\n    name = 'flat/1'\n    def values(self, state):\n"
                    "        return (0.5, 0.5)\n\nMODEL = Flat()\n\n"
                    "def make(options):\n    return Flat()\n")
    assert load_value_model(f"{path}:MODEL", {}).name == "flat/1"
    assert load_value_model(f"{path}:make", {}).name == "flat/1"
    with pytest.raises(ValueModelError, match="has no 'nothing'"):
        load_value_model(f"{path}:nothing", {})
    with pytest.raises(ValueModelError, match="no file"):
        load_value_model(f"{tmp_path / 'absent.py'}:MODEL", {})
    with pytest.raises(ValueModelError, match=r"expected FILE\.py:NAME"):
        load_value_model("no-colon", {})


def test_the_variance_saved_is_said_only_from_ten_sets_on():
    """From three sets a ratio of variances read 7.49x, as if it were known."""
    from arena.results.comparison import RATIO_SETS, adjusted_lines

    few = AdjustedScore((0.6, 0.7, 0.65), games=6, raw_variance=0.001)
    shown = " ".join(" ".join(adjusted_lines(few, "model")).split())
    assert "× the raw one" not in shown
    assert f"shown from {RATIO_SETS} duplicate sets on: 3 cannot tell it" in shown
    enough = AdjustedScore((0.6, 0.7, 0.65, 0.62, 0.58) * 2, games=20, raw_variance=0.02)
    assert "× the raw one over 10 duplicate sets" in " ".join(adjusted_lines(enough, "model"))


def test_adjusted_statistics_and_the_sprt_on_them():
    adjusted = AdjustedScore((0.6, 0.7, 0.65, 0.62), games=8, raw_variance=0.02)
    assert adjusted.score == pytest.approx(0.6425)
    assert adjusted.variance == pytest.approx(statistics.pvariance(adjusted.units))
    assert adjusted.variance_ratio == pytest.approx(adjusted.variance / 0.02)
    low, high = adjusted_interval(adjusted)
    assert low < adjusted.score < high
    settings = SprtSettings(0, 10)
    s0, s1 = expected_score(0), expected_score(10)
    # fishtest's exact LLR with the sets as outcomes (and pseudo-counts at 0 and 1); the
    # normal approximation gave 5.49 here and accepted H1 after four sets
    expected = exact_llr([*adjusted.units, 0.0, 1.0], [1, 1, 1, 1, PSEUDO_COUNT, PSEUDO_COUNT],
                         s0, s1)
    assert sprt_llr_adjusted(adjusted, settings) == pytest.approx(expected)
    assert sprt(adjusted, settings).llr == pytest.approx(expected)
    assert 0 < expected < 0.2


def two_bot_config(tmp_path, games=6, **extra):
    return parse_config({
        "name": "luck", "game": "seasons", "bots": [EXPECTIMAX, GREEDY],
        "games_per_pairing": games, "seed": 9, "isolation": "none", "workers": 1,
        "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out"), **extra},
        source="test")


def test_adjusted_results_are_reproducible_from_the_store(tmp_path):
    config = two_bot_config(tmp_path)
    with Store(config.db) as store:
        run_tournament(config, store)
        tid = store.find_tournament("luck").id
        keys = [row.key for row in store.games(tid)]
        name, first = tournament_luck(store, tid, keys, workers=1)
        assert name == "seasons-expectimax/4" and set(first) == set(keys)
        model = model_for("seasons", {})
        for key in keys:
            assert first[key] == pytest.approx(account(store.record(tid, key), model).luck)
        store.db.execute("DELETE FROM luck")
        _, again = tournament_luck(store, tid, keys, workers=2)
        assert again == first
        bots = [store.find_bot("seasons", name) for name in ("expectimax", "greedy")]
        compared = stored_comparison(store, "seasons", *bots, luck=LuckSource())
        adjusted = compared.adjusted
        assert adjusted is not None and adjusted.sets == 6 and adjusted.games == 12
        assert compared.model == "seasons-expectimax/4"
        assert stored_comparison(store, "seasons", *bots).adjusted is None


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_compare_report_and_pairs_csv_show_the_adjusted_score_beside_the_raw_one(tmp_path):
    config = two_bot_config(tmp_path, games=4)
    with Store(config.db) as store:
        run_tournament(config, store)
    db = str(tmp_path / "arena.db")
    shown = invoke("compare", "expectimax", "greedy", "--db", db)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())  # lines wrapped at 80 columns, read as one text
    assert "luck-adjusted (seasons-expectimax/4): score" in text
    assert "the variance it saves is shown from 10 duplicate sets on: 4 cannot" in text
    plain = invoke("compare", "expectimax", "greedy", "--db", db, "--no-luck")
    assert "luck-adjusted" not in plain.output and "score" in plain.output
    flat = tmp_path / "flat.py"
    flat.write_text("class Flat:\n    name = 'flat/1'\n    def values(self, state):\n"
                    "        return (0.5, 0.5)\n\nMODEL = Flat()\n")
    own = invoke("compare", "expectimax", "greedy", "--db", db, "--value-model", f"{flat}:MODEL")
    assert "luck-adjusted (flat/1)" in own.output
    out = tmp_path / "report"
    written = invoke("report", "luck", "--db", db, "--out", str(out))
    assert written.exit_code == 0, written.output
    rows = list(csv.DictReader((out / "pairs.csv").open()))
    first = next(row for row in rows if row["bot"] == "expectimax")
    assert 0 <= float(first["adjusted_low"]) <= float(first["adjusted_score"]) <= float(
        first["adjusted_high"]) <= 1
    assert "adj." in (out / "report.html").read_text()
    invoke("report", "luck", "--db", db, "--out", str(out), "--no-luck")
    rows = list(csv.DictReader((out / "pairs.csv").open()))
    assert all(row["adjusted_score"] == "" for row in rows)
    bad = CliRunner().invoke(cli, ["compare", "expectimax", "greedy", "--db", db,
                                   "--value-model", "nowhere.py:X"])
    assert bad.exit_code != 0 and "no file nowhere.py" in " ".join(bad.output.split())
    assert "Traceback" not in bad.output


def test_the_models_array_programme_gives_the_bots_own_tables():
    from arena.games.seasons.evaluation import Evaluation
    from arena.results.values.seasons import ArrayEvaluation

    rng = random.Random(1)
    bot, model = Evaluation(), ArrayEvaluation()
    for _ in range(25):
        mine = (*(rng.randint(3, 18) if rng.random() < 0.4 else 0 for _ in range(10)), 0)
        theirs = tuple(rng.randint(3, 18) if rng.random() < 0.4 else 0 for _ in range(11))
        expected, where = bot.placement_table(mine, theirs)
        values, sectors = model.placement_table(mine, theirs)
        assert values == pytest.approx(expected, abs=1e-12) and sectors == where


def test_the_models_tables_are_the_same_bits_alone_or_together():
    """Tables computed together, or after others whose sets of fields are kept, equal
    those computed alone to the bit."""
    from arena.results.values.seasons import ArrayEvaluation

    rng = random.Random(7)
    positions = []
    while len(positions) < 40:
        filled = rng.random()
        mine, theirs = (tuple(rng.randint(3, 18) if rng.random() < filled else 0
                              for _ in range(11)) for _ in range(2))
        if 0 in mine:
            positions.append((mine, theirs))
    together = ArrayEvaluation().placement_tables(positions)
    alone = [ArrayEvaluation().placement_table(*position) for position in positions]
    kept = ArrayEvaluation()
    one_after_another = [kept.placement_table(*position) for position in positions[::-1]]
    assert together == alone == one_after_another[::-1]


def test_a_games_luck_is_the_same_bits_whatever_was_accounted_before_or_with_it(records):
    """Which games a process accounts for, and in which order, depends on the accounting
    while playing; a game's luck must not."""
    alone = [account(record, model_for("seasons", {})).luck for record in records]
    for order in (records, records[::-1], random.Random(0).sample(records, len(records))):
        kept = model_for("seasons", {})
        after_others = {id(record): account(record, kept).luck for record in order}
        assert [after_others[id(record)] for record in records] == alone
    together = account_games(records, model_for("seasons", {}))
    assert [found.luck for found in together] == alone


def test_endgames_searched_together_have_the_same_bits_as_searched_alone():
    """The model searches the endgames of a batch of games together (level by level, each
    level's values in one array operation): each position's value is the one a search of
    it alone finds, to the bit, and so are the tables of the placements."""
    from arena.games.seasons.evaluation import Endgame, Planner, decided_points, undecided
    from arena.results.values.seasons import ArrayEvaluation

    rng = random.Random(11)
    positions = []
    planner = Planner(300)
    while len(positions) < 30:
        mine, theirs = (tuple(0 if rng.random() < 0.3 else rng.randint(3, 18)
                              for _ in range(11)) for _ in range(2))
        if 0 in mine and planner.uses_endgame(mine, theirs):
            positions.append((mine, theirs))
    roots = [(undecided(*position), decided_points(*position)) for position in positions]
    together = Endgame(ArrayEvaluation()).fill(roots)
    alone = {root: Endgame(ArrayEvaluation()).fill([root])[root] for root in roots}
    assert {root: together[root] for root in roots} == alone
    ahead = Planner(300)
    ahead.evaluation = ahead.endgame.evaluation = ArrayEvaluation()
    ahead.search_ahead(positions)
    fresh = Planner(300)
    fresh.evaluation = fresh.endgame.evaluation = ArrayEvaluation()
    assert [ahead.decide(*p) for p in positions] == [fresh.decide(*p) for p in positions]


def test_the_models_endgame_search_gives_the_bots_own_values():
    """The model's endgame values a roll's outcomes together (NumPy); the bot's one at a
    time: the same chances and placements."""
    from arena.games.seasons.evaluation import Endgame, Evaluation, endgame_size
    from arena.games.seasons.rules import SECTOR_VALUES
    from arena.results.values.seasons import ArrayEvaluation

    rng = random.Random(4)
    bot, model = Endgame(Evaluation()), Endgame(ArrayEvaluation())
    searched = 0
    while searched < 12:
        sectors = rng.sample(range(11), rng.randint(2, 4))
        open_ = tuple(sorted((s, rng.choice([0, 0, rng.randint(3, 18)]),
                              rng.choice([0, 0, rng.randint(3, 18)])) for s in sectors))
        if all(m for _, m, _ in open_) or endgame_size(open_) > 2000:
            continue
        decided = 120 - sum(SECTOR_VALUES[s] for s in sectors)
        points = rng.randint(0, decided)
        expected, where = bot.best_by_total(open_, points)
        values, chosen = model.best_by_total(open_, points)
        assert values == pytest.approx(expected, abs=1e-12) and chosen == where
        assert model.turn(open_, points) == pytest.approx(bot.turn(open_, points), abs=1e-12)
        searched += 1


def test_the_share_of_luck_taken_out_is_fitted_on_the_other_half_and_stays_unbiased():
    from arena.results.stats import CROSS_FIT_FROM, luck_adjusted

    few = luck_adjusted([0.5, 1.0, 0.0], [0.1, 0.3, -0.2])
    assert few.scale == 1.0 and few.units == pytest.approx((0.4, 0.7, 0.2))
    rng = random.Random(5)
    means, scales = [], []
    for _ in range(200):
        luck = [rng.gauss(0, 0.3) for _ in range(CROSS_FIT_FROM * 2)]
        points = [0.6 + 0.5 * lk + rng.gauss(0, 0.05) for lk in luck]
        adjusted = luck_adjusted(points, luck)
        means.append(adjusted.score)
        scales.append(adjusted.scale)
        assert adjusted.variance < 0.2 * adjusted.raw_variance
    assert statistics.fmean(scales) == pytest.approx(0.5, abs=0.02)
    assert statistics.fmean(means) == pytest.approx(0.6, abs=0.002)
    # each half is adjusted by the other half's fit: a half whose points follow the luck
    # twice as much is adjusted with the other half's factor of 1
    luck = [0.1 * (i % 7 - 3) for i in range(CROSS_FIT_FROM)]
    points = [0.5 + (2.0 if i % 2 == 0 else 1.0) * lk for i, lk in enumerate(luck)]
    split = luck_adjusted(points, luck)
    assert split.units[1] == pytest.approx(points[1] - 1.5 * luck[1])  # clamped 2.0
    assert split.units[0] == pytest.approx(points[0] - 1.0 * luck[0])


def test_a_report_skips_the_accounting_of_very_many_games_unless_asked(tmp_path, monkeypatch):
    import arena.cli.console as console

    config = two_bot_config(tmp_path, games=2)
    with Store(config.db) as store:
        run_tournament(config, store)
    monkeypatch.setattr(console, "AUTO_LUCK_LIMIT", 3)
    db, out = str(tmp_path / "arena.db"), tmp_path / "report"
    skipped = CliRunner().invoke(cli, ["report", "luck", "--db", db, "--out", str(out)])
    assert "luck accounting skipped: 4 games wait for it" in skipped.output
    assert all(row["adjusted_score"] == "" for row in csv.DictReader((out / "pairs.csv").open()))
    asked = invoke("report", "luck", "--db", db, "--out", str(out), "--luck")
    assert "skipped" not in asked.output
    assert all(row["adjusted_score"] for row in csv.DictReader((out / "pairs.csv").open()))


def test_a_failing_value_model_is_one_line_naming_it(records):
    class Broken:
        name = "broken/1"

        def values(self, state):
            return {}["missing"]

    with pytest.raises(LuckError, match=r"value model 'broken/1' failed at move 1: KeyError"):
        account(records[0], Broken())


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_value_that_is_not_a_finite_number_is_refused_naming_the_model(records, shipped, bad):
    class NotANumber:
        name = "not-a-number/1"

        def values(self, state):
            return (0.5, 0.5) if state.is_terminal else (bad, 0.5)

    with pytest.raises(LuckError, match=r"'not-a-number/1' gave a value that is not a finite"):
        account(records[0], NotANumber())


@pytest.mark.parametrize("scale", [0, -0.5, math.nan, math.inf, "0.5", True, None])
def test_a_luck_scale_must_be_a_number_above_zero(records, shipped, scale):
    class Scaled:
        name = "scaled/1"
        luck_scale = scale

        def values(self, state):
            return shipped.values(state)

    with pytest.raises(LuckError, match=r"'scaled/1': luck_scale must be a number above 0"):
        account(records[0], Scaled())


def test_a_luck_scale_counts_that_share_of_the_luck(records, shipped):
    class Half:
        name = "half/1"
        luck_scale = 0.5

        def values(self, state):
            return shipped.values(state)

    whole = account(records[0], shipped)
    assert whole.luck[0] != 0.0
    assert account(records[0], Half()).luck == pytest.approx(tuple(x / 2 for x in whole.luck))


def test_a_models_estimate_is_drawn_from_the_games_seed_and_the_rolls_move(records, shipped):
    """A model's ``estimated_values`` is used in place of its expectation, with draws
    that depend on the game's seed and the roll's move only: the same every time, and
    other at each roll and in each game."""
    drawn: list[float] = []

    class Estimated:
        name = "estimated/1"

        def values(self, state):
            return shipped.values(state)

        def expected_values(self, state):
            raise AssertionError("the estimate is used where a model has both")

        def estimated_values(self, state, rng):
            draw = rng.random()
            drawn.append(draw)
            first, second = shipped.expected_values(state)
            return first + draw - 0.5, second - draw + 0.5

    record = records[0]
    result = account(record, Estimated(), keep_rolls=True)
    assert [roll.move for roll in result.rolls] == [
        i for i, move in enumerate(record.moves) if move.seat == -1]
    assert drawn == [roll_rng(record.seed, roll.move).random() for roll in result.rolls]
    assert len(set(drawn)) == len(drawn)
    exact = account(record, shipped, keep_rolls=True)
    assert [roll.luck[0] for roll in result.rolls] == pytest.approx(
        [roll.luck[0] - draw + 0.5 for roll, draw in zip(exact.rolls, drawn, strict=True)])
    assert account(record, Estimated()).luck == result.luck
    drawn.clear()
    account(records[1], Estimated())
    assert drawn[0] != roll_rng(record.seed, 0).random()


def test_games_are_accounted_for_while_the_tournament_is_played(tmp_path):
    from arena.results.luck_book import LuckWhilePlaying
    from arena.tournaments.runner import Progress, round_robin_tasks

    config = parse_config({
        "name": "while", "game": "seasons", "bots": [GREEDY, RANDOM], "games_per_pairing": 3,
        "seed": 4, "isolation": "none", "workers": 1, "db": str(tmp_path / "arena.db"),
        "output": str(tmp_path / "out")}, source="test")
    opened, seen_while_playing = {}, []

    def open_run(run):
        opened["last"] = list(round_robin_tasks(run.config, run.entrants.seed_keys))[-1].key
        opened["tid"] = run.tid
        # at its own priority: under a loaded test run the lowest could wait for minutes
        opened["accountant"] = LuckWhilePlaying(config.db, run.tid, niceness=0).start()

    def game_done(result):
        if result.task.key != opened["last"]:
            return
        for _ in range(600):  # while the run is still under way (the process may start slowly)
            seen_while_playing.extend(store.luck(opened["tid"], "seasons-expectimax/4"))
            if seen_while_playing:
                return
            time.sleep(0.1)

    with Store(config.db) as store:
        run_tournament(config, store, Progress(opened=open_run, game_done=game_done))
        opened["accountant"].stop()
        kept = store.luck(opened["tid"], "seasons-expectimax/4")
        assert seen_while_playing and set(seen_while_playing) <= set(kept)
        model = model_for("seasons", {})
        for key, luck in kept.items():
            assert luck == pytest.approx(account(store.record(opened["tid"], key), model).luck,
                                         abs=1e-12)


def test_after_play_this_process_accounts_newest_first_beside_the_running_accountant(
        tmp_path):
    """What `arena run` does after the games on two CPUs: no pool to start; the running
    accountant goes on from the oldest game, this process takes the newest; every game
    gets the luck a plain accounting gives it, and the accountant is stopped."""
    from arena.results.luck_book import LuckWhilePlaying, account_alongside

    config = parse_config({
        "name": "alongside", "game": "seasons", "bots": [GREEDY, RANDOM],
        "games_per_pairing": 20, "seed": 5, "isolation": "none", "workers": 1,
        "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out")}, source="test")
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        accountant = LuckWhilePlaying(config.db, tid, niceness=0).start()
        seen = []
        account_alongside(store, tid, accountant, progress=lambda done, total: seen.append(
            (done, total)))
        assert not accountant.alive
        kept = store.luck(tid, "seasons-expectimax/4")
        keys = [row.key for row in store.games(tid)]
        assert set(kept) == set(keys) and len(keys) == 40
        assert seen[0][1] == 40 and [done for done, _ in seen] == sorted(done for done, _ in seen)
        model = model_for("seasons", {})
        for key in keys:
            assert kept[key] == pytest.approx(account(store.record(tid, key), model).luck,
                                              abs=1e-12)


def test_the_accounting_beside_a_running_accountant_stops_it_whatever_happens(tmp_path):
    from arena.results.luck_book import LuckWhilePlaying, account_alongside

    config = two_bot_config(tmp_path, games=1)
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        accountant = LuckWhilePlaying(config.db, tid, niceness=0).start()

        def interrupted(done, total):
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            account_alongside(store, tid, accountant, progress=interrupted)
        assert not accountant.alive


def test_a_killed_accountant_is_stopped_at_once_and_its_games_accounted_after_play(tmp_path):
    # Killed while it waits for the next game (the OOM killer, a user's kill -9): were it
    # told to stop through a shared lock and a count of sleepers, telling it would wait for
    # ever for the dead sleeper to wake, and `arena run` with it.
    from arena.results.luck_book import LuckWhilePlaying, account_alongside

    with Store(tmp_path / "arena.db"):
        pass
    accountant = LuckWhilePlaying(tmp_path / "arena.db", 1, niceness=0).start()
    try:
        _until_waiting(accountant.pid)
    finally:
        os.kill(accountant.pid, signal.SIGKILL)
    stopping = threading.Thread(target=accountant.stop, daemon=True)
    stopping.start()
    stopping.join(timeout=30)
    assert not stopping.is_alive(), "stopping a killed accountant hangs"

    config = two_bot_config(tmp_path, games=2)
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        killed = LuckWhilePlaying(config.db, tid, niceness=0).start()
        _until_waiting(killed.pid)
        os.kill(killed.pid, signal.SIGKILL)
        account_alongside(store, tid, killed)
        assert len(store.luck(tid, "seasons-expectimax/4")) == 4


def test_a_stopped_accountant_is_stopped_all_the_same(tmp_path):
    from arena.results.luck_book import LuckWhilePlaying

    with Store(tmp_path / "arena.db"):
        pass
    accountant = LuckWhilePlaying(tmp_path / "arena.db", 1, niceness=0).start()
    _until_waiting(accountant.pid)
    os.kill(accountant.pid, signal.SIGSTOP)  # kill -STOP, or a terminal's Ctrl-Z on it
    stopping = threading.Thread(target=accountant.stop, daemon=True)
    stopping.start()
    stopping.join(timeout=30)
    if stopping.is_alive():
        os.kill(accountant.pid, signal.SIGKILL)
    assert not stopping.is_alive(), "stopping a stopped accountant hangs"


def test_the_accounting_pool_losing_a_process_still_accounts_for_every_game(tmp_path):
    # With more than two workers the games left after play are accounted for in a pool;
    # one of its processes killed (the out-of-memory killer) broke the whole accounting.
    from arena.results.luck_book import POOL_FROM

    config = parse_config({
        "name": "pool", "game": "seasons", "bots": [GREEDY, RANDOM],
        "games_per_pairing": POOL_FROM // 2 + 2, "seed": 9, "isolation": "none",
        "workers": 1, "db": str(tmp_path / "arena.db")}, source="test")
    killed = []

    def kill_one_of_the_pool(done, total):
        if not killed:
            pool = [pid for pid in _children() if pid not in before]
            os.kill(pool[0], signal.SIGKILL)
            killed.append(pool[0])

    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        keys = [row.key for row in store.games(tid)]
        before = set(_children())
        name, found = tournament_luck(store, tid, keys, workers=3,
                                      progress=kill_one_of_the_pool)
        assert killed and name == "seasons-expectimax/4" and set(found) == set(keys)
        model = model_for("seasons", {})
        for key in keys[::7]:
            assert found[key] == pytest.approx(account(store.record(tid, key), model).luck,
                                               abs=1e-12)


def test_an_accounting_that_kills_its_workers_stops_with_one_clear_error(tmp_path):
    from arena.games.base import ArenaError
    from arena.results.luck_book import POOL_FROM

    config = parse_config({
        "name": "pool", "game": "seasons", "bots": [GREEDY, RANDOM],
        "games_per_pairing": POOL_FROM // 2 + 2, "seed": 9, "isolation": "none",
        "workers": 1, "db": str(tmp_path / "arena.db")}, source="test")
    deadly = tmp_path / "deadly.py"
    deadly.write_text("import os\n\n\nclass Deadly:\n    name = 'deadly/1'\n\n"
                      "    def values(self, state):\n        os._exit(3)\n\n\nMODEL = Deadly()\n")
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        keys = [row.key for row in store.games(tid)]
        with pytest.raises(ArenaError) as died:
            tournament_luck(store, tid, keys, workers=2,
                            source=LuckSource(f"{deadly}:MODEL"))
    message = str(died.value)
    assert "worker processes died 3 times" in message and "exit code 3" in message
    assert len(message) < 300


def _children():
    pids = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            pids += [int(pid) for pid in (task / "children").read_text().split()]
    return pids


def _until_waiting(pid):
    """Until the process ``pid`` has started and sleeps (it found no game to account for, or
    has accounted for them all): its CPU time stands still for half a second."""
    last = None
    for _ in range(240):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            used = int(fields[11]) + int(fields[12])
            if used and used == last and fields[0] == "S":
                return
            last = used
        time.sleep(0.5)
    raise AssertionError("the accountant never waited")


def test_arena_run_accounts_while_playing_where_its_report_will(tmp_path):
    from arena.cli.run import luck_while_playing
    from arena.results.luck_book import WHILE_PLAYING_FROM

    many = two_bot_config(tmp_path, games=WHILE_PLAYING_FROM)
    few = two_bot_config(tmp_path, games=2)
    assert luck_while_playing(many, None).db == many.db
    assert luck_while_playing(many, True).db == many.db
    assert luck_while_playing(many, False).db is None
    assert luck_while_playing(few, True).db is None


def test_the_accounting_while_playing_ends_quietly_on_a_failing_model(tmp_path, capfd):
    from arena.results.luck_book import LuckWhilePlaying

    config = two_bot_config(tmp_path, games=1)
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
    failing = tmp_path / "failing.py"
    failing.write_text("class Failing:\n    name = 'failing/1'\n\n    def values(self, state):\n"
                       "        raise RuntimeError('boom')\n\n\nMODEL = Failing()\n")
    accountant = LuckWhilePlaying(config.db, tid, LuckSource(f"{failing}:MODEL"),
                                  niceness=0).start()
    ended_by_itself = accountant.wait(timeout=120)
    accountant.stop()
    assert ended_by_itself
    assert "boom" not in capfd.readouterr().err
    with Store(config.db) as store:
        assert store.luck(tid, "failing/1") == {}


def test_the_accounting_while_playing_runs_at_the_lowest_cpu_priority(tmp_path):
    from arena.results.luck_book import LuckWhilePlaying

    with Store(tmp_path / "arena.db"):
        pass
    accountant = LuckWhilePlaying(tmp_path / "arena.db", 1).start()  # no games yet: it waits
    try:
        for _ in range(600):
            niceness = os.getpriority(os.PRIO_PROCESS, accountant.pid)
            if niceness == 19:
                break
            time.sleep(0.1)
    finally:
        accountant.stop()
    assert niceness == 19


def test_told_to_end_the_accounting_while_playing_exits_on_its_own(tmp_path):
    """`arena run` tells it to end a few games before the accounting after play is done,
    so that it is not waited for at the end."""
    from arena.results.luck_book import LuckWhilePlaying

    with Store(tmp_path / "arena.db"):
        pass
    accountant = LuckWhilePlaying(tmp_path / "arena.db", 1, niceness=0).start()  # it waits
    try:
        assert not accountant.wait(timeout=0.5)
        accountant.ending()
        assert accountant.wait(timeout=60)
    finally:
        accountant.stop()
