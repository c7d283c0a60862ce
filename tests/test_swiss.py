import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournaments.swiss import (
    RoundPairing,
    SwissError,
    TableResult,
    max_byes_needed,
    pair_round,
    rematches_unavoidable,
    standings,
    validate_swiss,
)

# --- helpers -----------------------------------------------------------------------------------


def play(table: tuple[int, ...], rng: random.Random) -> TableResult:
    """A table in all seat rotations with random scores: (beaten + 0.5 tied) / (k - 1) a game."""
    k = len(table)
    points = [0.0] * k
    for _ in range(k):
        scores = [rng.randint(0, 3) for _ in table]
        for i in range(k):
            beaten = sum(scores[i] > scores[j] for j in range(k) if j != i)
            tied = sum(scores[i] == scores[j] for j in range(k) if j != i)
            points[i] += (beaten + 0.5 * tied) / (k - 1)
    return TableResult(table, tuple(points))


def simulate(n_bots: int, k: int, rounds: int, seed: int):
    """Yield (history, byes, pairing) before each round is played, then play it."""
    rng = random.Random(seed)
    history: list[list[TableResult]] = []
    byes: list[list[int]] = []
    for _ in range(rounds):
        pairing = pair_round(n_bots, k, history, byes, bye_points=float(k))
        yield list(history), list(byes), pairing
        history.append([play(table, rng) for table in pairing.tables])
        byes.append(list(pairing.byes))


def meetings(history) -> Counter:
    met: Counter = Counter()
    for round_tables in history:
        for table in round_tables:
            met.update(itertools.combinations(sorted(table.bots), 2))
    return met


def repeats(tables, met: Counter) -> int:
    return sum(met[pair] for table in tables for pair in itertools.combinations(sorted(table), 2))


def fewest_repeats(bots: list[int], k: int, met: Counter) -> int:
    """Brute force over every partition of ``bots`` into tables of ``k``."""
    if not bots:
        return 0
    anchor, rest = bots[0], bots[1:]
    best = None
    for group in itertools.combinations(rest, k - 1):
        table = (anchor, *group)
        left = [bot for bot in rest if bot not in group]
        total = repeats([table], met) + fewest_repeats(left, k, met)
        best = total if best is None else min(best, total)
    return best


def assert_valid(pairing: RoundPairing, n_bots: int, k: int) -> None:
    seated = [bot for table in pairing.tables for bot in table]
    assert sorted(seated + list(pairing.byes)) == list(range(n_bots))
    assert all(len(table) == k for table in pairing.tables)
    assert all(list(table) == sorted(table) for table in pairing.tables)
    assert len(pairing.byes) == n_bots % k
    assert list(pairing.byes) == sorted(pairing.byes)


def table(bots, points) -> TableResult:
    return TableResult(tuple(bots), tuple(points))


# --- round 1 -----------------------------------------------------------------------------------


def test_round_one_two_players_is_the_classic_fold():
    assert pair_round(8, 2, [], [], 2.0) == RoundPairing(((0, 4), (1, 5), (2, 6), (3, 7)), ())


def test_round_one_with_odd_field_gives_the_last_bot_the_bye():
    assert pair_round(7, 2, [], [], 2.0) == RoundPairing(((0, 3), (1, 4), (2, 5)), (6,))


@pytest.mark.parametrize(("n_bots", "k", "tables", "byes"), [
    (9, 3, ((0, 3, 6), (1, 4, 7), (2, 5, 8)), ()),
    (8, 4, ((0, 2, 4, 6), (1, 3, 5, 7)), ()),
    (10, 4, ((0, 2, 4, 6), (1, 3, 5, 7)), (8, 9)),
    (4, 4, ((0, 1, 2, 3),), ()),
])
def test_round_one_k_players_is_a_fold(n_bots, k, tables, byes):
    assert pair_round(n_bots, k, [], [], float(k)) == RoundPairing(tables, byes)


# --- standings ---------------------------------------------------------------------------------


def test_standings_buchholz_and_sonneborn_berger_by_hand():
    history = [
        [table((0, 2), (2, 0)), table((1, 3), (1.5, 0.5))],
        [table((0, 1), (1, 1)), table((2, 3), (0.5, 1.5))],
    ]
    lines = standings(4, history, [[], []], 2.0)
    # points 0: 3, 1: 2.5, 2: 0.5, 3: 2
    assert [line.bot for line in lines] == [0, 1, 3, 2]
    by_bot = {line.bot: line for line in lines}
    assert [by_bot[b].points for b in range(4)] == [3.0, 2.5, 0.5, 2.0]
    assert [by_bot[b].buchholz for b in range(4)] == [3.0, 5.0, 5.0, 3.0]
    assert [by_bot[b].sonneborn_berger for b in range(4)] == [3.5, 6.0, 1.0, 2.0]
    assert [line.rank for line in lines] == [1, 2, 3, 4]
    assert all(line.tables == 2 and line.byes == 0 for line in lines)


def test_standings_count_a_bye_as_points_but_not_for_buchholz():
    history = [[table((0, 1), (2, 0))], [table((1, 2), (1, 1))]]
    lines = standings(3, history, [[2], [0]], 2.0)
    assert [(s.bot, s.points, s.buchholz, s.sonneborn_berger, s.tables, s.byes, s.rank)
            for s in lines] == [
        (0, 4.0, 1.0, 2.0, 1, 1, 1),
        (2, 3.0, 1.0, 1.0, 1, 1, 2),
        (1, 1.0, 7.0, 3.0, 2, 0, 3),
    ]


def test_sonneborn_berger_at_three_player_tables_uses_the_mean_opponent():
    lines = standings(3, [[table((0, 1, 2), (2.5, 1.5, 0.5))]], [[]], 3.0)
    by_bot = {line.bot: line for line in lines}
    assert [by_bot[b].buchholz for b in range(3)] == [2.0, 3.0, 4.0]
    assert [by_bot[b].sonneborn_berger for b in range(3)] == [2.5, 2.25, 1.0]


def test_full_ties_share_a_rank():
    history = [[table((0, 1), (1, 1)), table((2, 3), (1, 1))]]
    assert [line.rank for line in standings(4, history, [[]], 2.0)] == [1, 1, 1, 1]


def test_rank_after_a_shared_rank_skips():
    history = [[table((0, 1), (1, 1)), table((2, 3), (2, 0))]]
    lines = standings(4, history, [[]], 2.0)
    assert [(line.bot, line.rank) for line in lines] == [(2, 1), (0, 2), (1, 2), (3, 4)]


def test_empty_history_ranks_everyone_first_in_index_order():
    lines = standings(3, [], [], 2.0)
    assert [(line.bot, line.points, line.rank) for line in lines] == [(0, 0, 1), (1, 0, 1),
                                                                      (2, 0, 1)]


@pytest.mark.parametrize(("history", "byes", "message"), [
    ([[table((0, 5), (1, 1))]], [[]], "not in 0..3"),
    ([[table((0, 1), (1, 1)), table((1, 2), (1, 1))]], [[]], "more than once"),
    ([[table((0, 1), (1, 1))]], [[1]], "more than once"),
])
def test_standings_reject_malformed_rounds(history, byes, message):
    with pytest.raises(SwissError, match=message):
        standings(4, history, byes, 2.0)


def test_table_result_checks_its_shape():
    with pytest.raises(SwissError, match="points for"):
        TableResult((0, 1), (1.0,))
    with pytest.raises(SwissError, match="twice"):
        TableResult((0, 0), (1.0, 1.0))
    with pytest.raises(SwissError, match=">= 0"):
        TableResult((0, 1), (-1.0, 1.0))
    assert TableResult([0, 1], [1, 1]) == TableResult((0, 1), (1.0, 1.0))


# --- feasibility -------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_bots", "k", "rounds", "message"), [
    (1, 2, 1, "cannot fill a table of 2"),
    (3, 4, 1, "cannot fill a table of 4"),
    (5, 1, 1, "at least 2"),
    (8, 2, 0, "at least one round"),
    (7, 2, 8, "some bot would get two; use at most 7 rounds"),
    (10, 4, 6, "12 byes"),
])
def test_validate_swiss_rejects_impossible_requests(n_bots, k, rounds, message):
    with pytest.raises(ValueError, match=message):
        validate_swiss(n_bots, k, rounds)


@pytest.mark.parametrize(("n_bots", "k", "rounds"), [(7, 2, 7), (10, 4, 5), (8, 2, 12), (4, 4, 9)])
def test_validate_swiss_allows_feasible_requests_even_with_rematches(n_bots, k, rounds):
    validate_swiss(n_bots, k, rounds)


def test_max_byes_and_unavoidable_rematches():
    assert max_byes_needed(7, 2, 7) == 1
    assert max_byes_needed(7, 2, 8) == 2
    assert max_byes_needed(8, 2, 20) == 0
    assert not rematches_unavoidable(8, 2, 7)
    assert rematches_unavoidable(8, 2, 8)
    assert not rematches_unavoidable(9, 3, 4)
    assert rematches_unavoidable(9, 3, 5)
    assert not rematches_unavoidable(7, 2, 7)  # one bye each: six tables for six opponents


def test_pair_round_rejects_too_few_bots():
    with pytest.raises(SwissError, match="cannot fill"):
        pair_round(3, 4, [], [], 4.0)


# --- two-player pairing ------------------------------------------------------------------------


def test_winners_meet_winners_in_round_two():
    history = [[table((i, i + 4), (2, 0)) for i in range(4)]]
    pairing = pair_round(8, 2, history, [[]], 2.0)
    assert pairing.tables == ((0, 1), (2, 3), (4, 5), (6, 7))


@given(seed=st.integers(0, 10**6))
def test_score_groups_stay_together_when_they_can(seed):
    # Round 1 without draws in an 16-bot field leaves two groups of eight: 2 and 0 points.
    rng = random.Random(seed)
    history = [[table(pair, (2, 0) if rng.random() < 0.5 else (0, 2))
                for pair in pair_round(16, 2, [], [], 2.0).tables]]
    points = {line.bot: line.points for line in standings(16, history, [[]], 2.0)}
    pairing = pair_round(16, 2, history, [[]], 2.0)
    assert all(points[a] == points[b] for a, b in pairing.tables)
    assert repeats(pairing.tables, meetings(history)) == 0


@given(seed=st.integers(0, 10**6))
def test_eight_bots_five_rounds_without_rematches(seed):
    # After r <= 4 rematch-free rounds the unmet pairs form a (7 - r)-regular graph on
    # eight vertices, which always has a perfect matching.
    met: Counter = Counter()
    for _, _, pairing in simulate(8, 2, 5, seed):
        assert repeats(pairing.tables, met) == 0
        met.update(pairing.tables)


@given(n_bots=st.integers(2, 12), rounds=st.integers(1, 9), seed=st.integers(0, 10**6))
def test_two_player_rematches_are_as_few_as_possible(n_bots, rounds, seed):
    for history, _, pairing in simulate(n_bots, 2, rounds, seed):
        met = meetings(history)
        seated = sorted(bot for pair in pairing.tables for bot in pair)
        assert repeats(pairing.tables, met) == fewest_repeats(seated, 2, met)


@given(n_bots=st.sampled_from([5, 7, 9, 11]), seed=st.integers(0, 10**6))
def test_bye_goes_to_the_lowest_ranked_bot_without_one(n_bots, seed):
    had_bye: set[int] = set()
    for history, byes, pairing in simulate(n_bots, 2, n_bots, seed):
        order = [line.bot for line in standings(n_bots, history, byes, 2.0)]
        (bye,) = pairing.byes
        assert bye not in had_bye
        assert bye == [bot for bot in order if bot not in had_bye][-1]
        had_bye.add(bye)
    assert had_bye == set(range(n_bots))


def test_a_large_field_is_paired_without_rematches():
    met: Counter = Counter()
    for _, _, pairing in simulate(300, 2, 8, seed=3):
        assert_valid(pairing, 300, 2)
        assert repeats(pairing.tables, met) == 0
        met.update(pairing.tables)


def test_pairing_is_deterministic():
    rounds = list(simulate(21, 2, 4, seed=5))
    history, byes, pairing = rounds[-1]
    assert pair_round(21, 2, history, byes, 2.0) == pairing


def test_tables_are_listed_best_standing_first():
    history = [[table((0, 1), (0, 2)), table((2, 3), (2, 0))]]
    # standings: 1 and 2 on 2 points, 0 and 3 on 0; the pair of leaders comes first
    assert pair_round(4, 2, history, [[]], 2.0).tables == ((1, 2), (0, 3))


# --- k-player tables ---------------------------------------------------------------------------


@settings(max_examples=20)  # the brute-force oracle is slow
@given(n_bots=st.sampled_from([6, 7, 8, 9, 10, 11, 12]), k=st.sampled_from([3, 4]),
       seed=st.integers(0, 10**6))
def test_k_player_repeats_are_as_few_as_possible(n_bots, k, seed):
    for history, _, pairing in simulate(n_bots, k, 4, seed):
        assert_valid(pairing, n_bots, k)
        met = meetings(history)
        seated = sorted(bot for group in pairing.tables for bot in group)
        assert repeats(pairing.tables, met) == fewest_repeats(seated, k, met)


def test_nine_bots_in_threes_meet_everyone_once_in_four_rounds():
    met: Counter = Counter()
    for _, _, pairing in simulate(9, 3, 4, seed=11):
        assert repeats(pairing.tables, met) == 0
        met.update(pair for group in pairing.tables for pair in itertools.combinations(group, 2))
    assert len(met) == 36


def test_k_player_leaders_share_a_table():
    # Round 1 fold of 8 bots in fours: (0, 2, 4, 6) and (1, 3, 5, 7); 0, 2, 1, 3 lead.
    history = [[table((0, 2, 4, 6), (4, 3, 1, 0)), table((1, 3, 5, 7), (4, 3, 1, 0))]]
    pairing = pair_round(8, 4, history, [[]], 4.0)
    assert pairing.tables[0] == (0, 1, 2, 3)  # repeats 0-2 and 1-3 are unavoidable


@given(k=st.sampled_from([3, 4]), seed=st.integers(0, 10**6))
def test_k_player_byes_rotate_to_the_lowest_ranked(k, seed):
    n_bots = 3 * k + (k - 1)
    rounds = n_bots // (k - 1)
    counts: Counter = Counter()
    for history, byes, pairing in simulate(n_bots, k, rounds, seed):
        order = [line.bot for line in standings(n_bots, history, byes, float(k))]
        fewest = min(counts[bot] for bot in range(n_bots))
        eligible = [bot for bot in order if counts[bot] == fewest]
        expected = eligible[-(k - 1):] if len(eligible) >= k - 1 else None
        if expected is not None:
            assert sorted(pairing.byes) == sorted(expected)
        counts.update(pairing.byes)
    assert max(counts.values()) == 1


# --- every pairing is a partition --------------------------------------------------------------


@given(data=st.data(), k=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6))
def test_every_pairing_is_a_partition(data, k, seed):
    n_bots = data.draw(st.integers(k, 30), label="n_bots")
    rounds = data.draw(st.integers(1, 5), label="rounds")
    for _, _, pairing in simulate(n_bots, k, rounds, seed):
        assert_valid(pairing, n_bots, k)
