"""Issue 25's "numbers that cannot be", reproduced through compare, pairs.csv and the report.

After an 8-bot round robin of Seasons, ``arena compare expectimax random`` printed a
luck-adjusted ``104.3% (95% interval 100.3% to 100.0%)``, the reverse ``-4.3% (0.0% to
-0.3%)``, the raw score ``100.0% (100.0% to 100.0%)`` after 20 games; ``pairs.csv`` had
``adjusted_low 1.0031 > adjusted_high 1.0`` and ``inf`` Elo, the pair matrix ``adj. 104%``.
Here a cheap tournament (greedy sweeps random) gets stored luck that a value model
overstating the luck would give, so the adjusted sets average 104.3 % again.
"""

from __future__ import annotations

import csv
import html
import re

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.results.store import Store
from arena.results.values.seasons import NAME
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

MODEL = NAME  # the shipped model's name: its stored luck is used as is
OVERSTATED = 0.043


def sweep(tmp, overstated):
    """greedy sweeps random in 20 games; the stored luck says greedy was lucky by
    ``overstated`` a game, so the adjusted sets average 100 % + ``overstated``."""
    config = parse_config({
        "name": "sweep", "game": "seasons", "bots": ["bots/seasons/greedy.py",
                                                     "bots/seasons/random_bot.py"],
        "games_per_pairing": 10, "seed": 2026, "isolation": "none", "workers": 1,
        "db": str(tmp / "arena.db"), "output": str(tmp / "out")}, source="test")
    with Store(config.db) as store:
        run_tournament(config, store)
        tid = store.find_tournament("sweep").id
        greedy = store.find_bot("seasons", "greedy").id
        luck = {}
        for game in store.played_games("seasons"):
            seat = game.bots.index(greedy)
            values = [overstated, overstated]
            values[seat] = -overstated
            luck[game.key] = tuple(values)
        store.save_luck(tid, MODEL, luck)
    return tmp


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    return sweep(tmp_path_factory.mktemp("sweep"), OVERSTATED)


@pytest.fixture(scope="module")
def barely_swept(tmp_path_factory):
    """The adjusted sets average 100.3 % and -0.3 %: ``adj. -0%`` in the pair matrix."""
    return sweep(tmp_path_factory.mktemp("barely"), 0.003)


def invoke(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def scores(text):
    return [float(p) for p in re.findall(r"score (-?\d+\.\d+)%", text)]


def intervals(text):
    return [(float(a), float(b)) for a, b in
            re.findall(r"interval (-?\d+\.\d+)% to (-?\d+\.\d+)%", text)]


def test_compare_shows_no_impossible_score_and_says_why(swept):
    db = str(swept / "arena.db")
    for first, second in (("greedy", "random"), ("random", "greedy")):
        printed = invoke("compare", first, second, "--db", db)
        assert max(len(line) for line in printed.splitlines()) <= 80
        shown = " ".join(printed.split())  # lines wrapped at 80 columns, read as one text
        assert "20 games, +20" in shown or "20 games, +0 =0 -20" in shown, shown
        assert len(scores(shown)) == 2 and all(0.0 <= p <= 100.0 for p in scores(shown)), shown
        assert len(intervals(shown)) == 2, shown
        assert all(0.0 <= low < high <= 100.0 for low, high in intervals(shown)), shown
        assert "outside 0-100%" in shown and "raw sets' score stands" in shown
        average = "104.3%" if first == "greedy" else "-4.3%"
        assert f"the adjusted sets average {average}" in shown
        assert "inf" not in shown
        assert "Elo above +" in shown or "Elo below -" in shown
        # the raw sets' score stands for one reason, and no variance ratio is claimed
        assert "no luck taken out" not in shown and "variance" not in shown, shown


def test_pairs_csv_and_the_pair_matrix_show_no_impossible_number(swept):
    db, out = str(swept / "arena.db"), swept / "report"
    invoke("report", "sweep", "--db", db, "--out", str(out))
    text = (out / "pairs.csv").read_text()
    assert "inf" not in text
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 2
    for row in rows:
        assert row["elo"] == "" and row["elo_error"] == ""  # a sweep has no Elo estimate
        low, high = float(row["adjusted_low"]), float(row["adjusted_high"])
        assert 0.0 <= low <= float(row["adjusted_score"]) <= high <= 1.0 and low < high
        assert "outside 0-100%" in row["adjusted_note"]
    won = next(row for row in rows if row["bot"] == "greedy")
    # the one-sided bound, over the 10 duplicate sets (over 20 games as if independent: +277)
    assert float(won["elo_low"]) > 100 and won["elo_high"] == ""
    assert float(won["adjusted_score"]) == 1.0
    assert float(won["adjusted_elo_low"]) > 100
    lost = next(row for row in rows if row["bot"] == "random")
    assert lost["elo_low"] == "" and float(lost["elo_high"]) < -100
    shown = [int(n) for n in re.findall(r"adj\. (-?\d+)\s*%", (out / "report.html").read_text())]
    assert shown and all(0 <= n <= 100 for n in shown)


def shown_percents(text):
    return re.findall(r"(-?\d+(?:\.\d+)?)\s*%", text)


@pytest.mark.parametrize("fixture", ["swept", "barely_swept"])
def test_the_rendered_report_shows_no_minus_zero_and_no_score_outside_0_100(fixture, request):
    """Regression (issue 25): the pair matrix showed ``adj. 104%`` and ``adj. -0%``."""
    folder = request.getfixturevalue(fixture)
    out = folder / "report"
    invoke("report", "sweep", "--db", str(folder / "arena.db"), "--out", str(out))
    text = (out / "report.html").read_text()
    shown = shown_percents(text)
    assert len(re.findall(r"adj\. \d+%", text)) == 2, text  # both cells of the pair
    assert shown and not [p for p in shown if p.startswith("-")], shown
    assert all(0.0 <= float(p) <= 100.0 for p in shown), shown
    assert "adj. 100%" in text and "adj. 0%" in text


def test_the_pair_matrix_gives_a_sweep_no_infinite_elo_and_says_when_adjusting_fell_back(swept):
    """The report's cell read ``10 g · +∞`` and its hover ``Elo +∞ ± ∞``, and a luck-adjusted
    score that had fallen back to the raw sets' read as luck-adjusted."""
    out = swept / "matrix"
    invoke("report", "sweep", "--db", str(swept / "arena.db"), "--out", str(out))
    text = (out / "report.html").read_text()
    assert "∞" not in text and "inf" not in re.sub(r"info|infinit", "", text.lower())
    cells = re.findall(r'<td class="pair"[^>]*title="([^"]*)"[^>]*>(.*?)</td>', text)
    assert len(cells) == 2
    for title, cell in cells:
        title = html.unescape(title)
        assert "no estimate, the" in title and "end of its 95% interval" in title
        assert "outside 0 to 100 %" in title and "the raw sets' score stands" in title
        assert re.search(r"adj\. (100|0)%\*", cell), cell
        assert re.search(r"20 g · [&gt;&lt;]+ [+−]\d+", cell), cell


def test_compare_keeps_games_of_other_rules_apart(tmp_path, root, monkeypatch):
    """The same two bots under two sets of options: compare pooled them (40 games, 75 %,
    half of them played to other rules), where ratings keeps the variants apart."""
    monkeypatch.chdir(root)
    db = str(tmp_path / "arena.db")
    for name, options in (("default", {}), ("short", {"placement_limit": 2})):
        config = parse_config({
            "name": name, "game": "seasons", "options": options, "games_per_pairing": 5,
            "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"], "seed": 3,
            "isolation": "none", "workers": 1, "db": db, "output": str(tmp_path / name)},
            source="test")
        with Store(config.db) as store:
            run_tournament(config, store)
    shown = CliRunner().invoke(cli, ["compare", "greedy", "random", "--db", db,
                                     "--no-luck"]).output
    assert "in 2 players:" in shown and "in 2 players, placement_limit 2:" in shown, shown
    assert shown.count(": 10 games, ") == 2 and "20 games" not in shown, shown


def test_two_revisions_compared_through_common_opponents_keep_variants_apart(
        tmp_path, root, monkeypatch):
    """Each revision played the same opponents on the same dice in two variants: compare
    paired the games within each variant but printed them as one block."""
    monkeypatch.chdir(root)
    db, bot = str(tmp_path / "arena.db"), tmp_path / "mine.py"
    source = (root / "bots/seasons/greedy.py").read_text().replace(
        'name = "greedy"', 'name = "mine"')
    assert 'name = "mine"' in source
    for rerolls in ("True", "False"):
        bot.write_text(source.replace("def __init__(self, rerolls=True)",
                                      f"def __init__(self, rerolls={rerolls})"))
        for name, options in (("plain", {}), ("short", {"placement_limit": 4})):
            config = parse_config({
                "name": name, "game": "seasons", "options": options, "games_per_pairing": 4,
                "bots": [str(bot), "bots/seasons/greedy.py", "bots/seasons/random_bot.py"],
                "seed": 7, "isolation": "none", "workers": 1, "db": db,
                "output": str(tmp_path / name)}, source="test")
            with Store(config.db) as store:
                run_tournament(config, store)
    with Store(db) as store:
        old, new = sorted((b.id, b.label) for b in store.bots("seasons")
                          if b.identity.name == "mine")
    old, new = old[1], new[1]
    shown = CliRunner().invoke(cli, ["compare", old, new, "--db", db, "--no-luck"]).output
    blocks = shown.split("\n\n")
    assert len(blocks) == 2, shown
    assert blocks[0].startswith("in 2 players:") or blocks[1].startswith("in 2 players:")
    assert any(block.startswith("in 2 players, placement_limit 4:") for block in blocks), shown
    assert all("through common opponents" in block and "each played the same 16 games"
               in " ".join(block.split()) for block in blocks), shown


def test_the_sprt_tests_the_raw_pairs_where_the_raw_score_stands(swept):
    """compare said the raw sets' score stands (the adjusted sets averaged 104.3 %), then
    ran the SPRT "on the luck-adjusted sets" all the same."""
    from arena.results.comparison import stored_comparison
    from arena.results.luck_book import LuckSource
    from arena.results.stats import SprtSettings, sprt

    settings = SprtSettings(0, 100)
    with Store(str(swept / "arena.db")) as store:
        greedy, rival = (store.find_bot("seasons", name) for name in ("greedy", "random"))
        found = stored_comparison(store, "seasons", greedy, rival, settings,
                                  luck=LuckSource())
    assert found.adjusted is not None and found.adjusted.raw_stands
    assert found.sprt == sprt(found.pairs, settings)
    text = " ".join(found.lines())
    assert "SPRT: LLR" in text and "on the luck-adjusted sets" not in text, text


def test_a_forfeit_at_a_larger_table_compares_the_failed_seat_only(tmp_path, root,
                                                                   monkeypatch):
    """A bot that crashes at its first move ended each of its 3-seat games at Sonnentau's
    start, where every other seat ranks first: those games counted as draws between the
    others, and TrueSkill put random above the heuristic that won every game they finished
    (21.21 against 20.98)."""
    import csv

    monkeypatch.chdir(root)
    crasher = tmp_path / "crasher.py"
    crasher.write_text("class Crasher:\n    name = 'crasher'\n    version = '1.0'\n\n"
                       "    def act(self, observation):\n        raise RuntimeError('boom')\n")
    db = str(tmp_path / "arena.db")
    config = parse_config({
        "name": "s3", "game": "sonnentau", "seats": 3, "games_per_pairing": 3, "seed": 3,
        "isolation": "none", "workers": 1, "db": db, "output": str(tmp_path / "out"),
        "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                 {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"},
                 str(crasher)]}, source="test")
    with Store(config.db) as store:
        run_tournament(config, store)
    for system in ("trueskill", "bt"):
        shown = CliRunner().invoke(cli, ["ratings", "--db", db, "--system", system]).output
        order = [line.split()[1].split("@")[0] for line in shown.splitlines()
                 if line.strip()[:1].isdigit()]
        assert order[0] == "heuristic" and order[-1] == "crasher", (system, shown)
    reported = CliRunner().invoke(cli, ["report", "s3", "--db", db, "--out",
                                        str(tmp_path / "out"), "--no-luck"])
    assert reported.exit_code == 0, reported.output
    pairs = {(row["bot"], row["opponent"]): row
             for row in csv.DictReader((tmp_path / "out" / "pairs.csv").open())}
    survivors = pairs["heuristic", "random"]
    assert survivors["draws"] == "0", survivors  # 9 W 9 D 0 L: the crashes counted as draws
    assert pairs["heuristic", "crasher"]["wins"] == pairs["heuristic", "crasher"]["games"]


def test_every_bot_that_cannot_start_loses_not_only_the_first(tmp_path, root, monkeypatch):
    """Two bots that could not load at one 4-seat table: the game ended at the first, and
    the second was recorded `ok`, ranked first: 3 draws and 2 points for a bot that never
    played, and a rating above the other's."""
    import csv
    import json

    import arena

    monkeypatch.chdir(root)
    for name in ("broken", "broken2"):
        (tmp_path / f"{name}.py").write_text("class Broken(:\n    pass\n")
    db = str(tmp_path / "arena.db")
    config = parse_config({
        "name": "b4", "game": "sonnentau", "seats": 4, "games_per_pairing": 1, "seed": 7,
        "broken_bots": "forfeit", "isolation": "none", "workers": 1, "db": db,
        "output": str(tmp_path / "out"),
        "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                 str(tmp_path / "broken.py"), str(tmp_path / "broken2.py")]}, source="test")
    with Store(config.db) as store:
        run_tournament(config, store)
        tid = store.find_tournament("b4").id
        rows = list(store.games(tid))
    assert len(rows) == 4
    for row in rows:
        failed = sorted(seat for seat, status in enumerate(row.statuses) if status != "ok")
        assert len(failed) == 2 and all(row.ranks[seat] == 2 for seat in failed), row
    exported = CliRunner().invoke(cli, ["export", "b4", "--db", db])
    assert exported.exit_code == 0, exported.output
    for line in exported.stdout.splitlines():
        arena.check_replay(json.loads(line))  # several failed seats before the first move
    reported = CliRunner().invoke(cli, ["report", "b4", "--db", db, "--out",
                                        str(tmp_path / "out"), "--no-luck"])
    assert reported.exit_code == 0, reported.output
    pairs = {(row["bot"], row["opponent"]): row
             for row in csv.DictReader((tmp_path / "out" / "pairs.csv").open())}
    assert ("broken", "broken2") not in pairs  # neither played: nothing between them
    assert pairs["heuristic", "broken2"]["wins"] == pairs["heuristic", "broken2"]["games"] == "4"


def test_an_interval_shown_as_0_to_100_percent_sets_no_elo_bound():
    """A win and a loss: "score 50.0% (95% interval 0.0% to 100.0%), Elo 0.0 ± 1323.5",
    and pairs.csv elo_low -1323.5, beside a pentanomial line saying too few games; and
    "1 seat-swapped pairs"."""
    from arena.reports.csv_export import _elo_bounds
    from arena.results.comparison import Comparison
    from arena.results.stats import MatchScore, Pentanomial, elo_with_error, score_interval

    drawn = MatchScore(1, 0, 1)
    low, high = score_interval(drawn)
    assert f"{100 * low:.1f}" == "0.0" and f"{100 * high:.1f}" == "100.0"
    assert elo_with_error(drawn)[1] == float("inf")
    assert _elo_bounds(score_interval(drawn)) == ["", ""]
    shown = Comparison("a", "b", drawn, Pentanomial((0, 0, 1, 0, 0))).lines()
    lines = " ".join(" ".join(shown).split())
    assert "Elo +0.0 (too few games or duplicate sets for a 95% interval)" in lines
    assert "±" not in lines and "1323" not in lines
    assert "1 seat-swapped pair [" in lines


def test_where_the_raw_sets_score_stands_it_is_the_raw_lines_score_even_with_a_set_cut_short():
    """The adjusted block's fallback averaged sets as equals: 97.0 % (83.7-99.9 %) under a
    raw line of 98.5 % (85.9-100 %) when one set of 33 had one game."""
    from arena.results.comparison import Comparison
    from arena.results.stats import MatchScore, Pentanomial, luck_adjusted

    sizes = [2] * 32 + [1]
    means = [1.0] * 32 + [0.0]
    adjusted = luck_adjusted(means, [-0.05] * 32 + [-0.3], 65, sizes=sizes)
    assert adjusted.raw_stands
    lines = Comparison("A", "B", MatchScore(64, 0, 1), Pentanomial((0, 0, 0, 0, 32)), None,
                       adjusted, "m", tuple(means), tuple(sizes)).lines()
    text = " ".join(" ".join(lines).split())
    raw = re.search(r"score (\S+%) \(95% interval (\S+%) to (\S+%) over 33", text)
    assert raw is not None and raw.groups() == ("98.5%", "85.9%", "100.0%")
    stands = text.split("so the raw sets' score stands:")[1]
    assert stands.strip().startswith("score 98.5% (95% interval 85.9% to 100.0%)")


def test_luck_adjusted_sets_of_unequal_size_give_the_games_score():
    from arena.results.stats import StatsError, luck_adjusted

    adjusted = luck_adjusted([1.0, 0.5, 0.0], [0.1, 0.0, -0.2], 5, sizes=[2, 2, 1])
    assert adjusted.mean == pytest.approx((2 * 0.9 + 2 * 0.5 + 0.2) / 5)
    assert sum(adjusted.raw_units) / 3 == pytest.approx((2 + 1 + 0) / 5)
    same = luck_adjusted([1.0, 0.5], [0.1, 0.0], 4, sizes=[2, 2])
    assert same.units == luck_adjusted([1.0, 0.5], [0.1, 0.0], 4).units
    with pytest.raises(StatsError, match="differ in length"):
        luck_adjusted([1.0, 0.5], [0.1, 0.0], 4, sizes=[2])
