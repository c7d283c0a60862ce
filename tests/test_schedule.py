"""Tables, seat rotations and seeds."""

import itertools
from collections import Counter

import pytest

from arena.tournaments.schedule import (
    GameTask,
    Table,
    balanced_groups,
    round_robin_tables,
    table_tasks,
    tasks_for,
)

LABELS = [f"bot{i}@1" for i in range(50)]


def test_a_pairing_has_the_same_dice_whoever_else_plays():
    small = tasks_for(round_robin_tables(3, 2, 1, seed=0), 1, 5, ["a@1", "b@1", "c@1"])
    large = tasks_for(round_robin_tables(5, 2, 1, seed=0), 1, 5,
                      ["x@1", "a@1", "b@1", "y@1", "c@1"])
    seeds = {t.seed for t in small}
    assert len(seeds) == 3 and seeds <= {t.seed for t in large}


def test_a_two_player_table_is_two_games_with_seats_swapped_on_one_seed():
    tasks = table_tasks(Table(0, 3, (4, 7)), games_per_pairing=1, seed=1, labels=LABELS)
    assert [t.seats for t in tasks] == [(4, 7), (7, 4)]
    assert tasks[0].seed == tasks[1].seed
    assert [t.key for t in tasks] == ["r0-t3-s0-o0", "r0-t3-s0-o1"]


def test_a_four_player_table_plays_every_rotation_and_every_bot_every_seat():
    tasks = table_tasks(Table(1, 0, (0, 1, 2, 3)), games_per_pairing=2, seed=1, labels=LABELS)
    assert len(tasks) == 8
    for game_set in (0, 1):
        rotations = [t for t in tasks if t.set == game_set]
        assert len({t.seed for t in rotations}) == 1
        for seat in range(4):
            assert sorted(t.seats[seat] for t in rotations) == [0, 1, 2, 3]
    assert tasks[0].seed != tasks[4].seed


def test_seeds_follow_the_tournament_seed_and_keys_are_unique():
    tables = round_robin_tables(5, 2, rounds=2, seed=1)
    a, b = tasks_for(tables, 2, 1, LABELS), tasks_for(tables, 2, 2, LABELS)
    assert len({t.key for t in a}) == len(a) == 10 * 2 * 2 * 2
    assert {t.seed for t in a}.isdisjoint({t.seed for t in b})
    assert tasks_for(tables, 2, 1, LABELS) == a


def test_two_player_round_robin_is_every_pair():
    tables = round_robin_tables(5, 2, rounds=1, seed=0)
    assert [t.bots for t in tables] == list(itertools.combinations(range(5), 2))


def test_small_k_player_round_robin_is_every_subset():
    tables = round_robin_tables(6, 4, rounds=1, seed=0)
    assert len(tables) == 15 and len({t.bots for t in tables}) == 15


@pytest.mark.parametrize(("bots", "seats"), [(40, 4), (30, 3), (41, 4)])
def test_large_k_player_round_robin_is_a_balanced_design(bots, seats):
    groups = balanced_groups(bots, seats, seed=3)
    games = Counter(b for g in groups for b in g)
    assert max(games.values()) - min(games.values()) <= 1
    meetings = Counter(pair for g in groups for pair in itertools.combinations(g, 2))
    assert len(meetings) >= 0.6 * bots * (bots - 1) / 2  # most pairs meet
    assert max(meetings.values()) <= 3
    assert all(len(set(g)) == seats for g in groups)
    assert balanced_groups(bots, seats, seed=3) == groups
    assert len(round_robin_tables(bots, seats, 1, seed=3)) == len(groups)


def test_tasks_are_plain_picklable_data():
    import pickle

    task = GameTask(0, 1, 0, 1, (2, 3), 99)
    assert pickle.loads(pickle.dumps(task)) == task
