"""Tables, seat rotations and seeds."""

import itertools
from collections import Counter

import pytest

from arena.referee.dice import derive_seed
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


def test_names_holding_a_bar_never_give_two_tables_one_seed():
    labels = ["X@1|c@1", "X@1", "c@1|X@1"]  # tables 0-1 and 1-2 both join to X@1|c@1|X@1
    seeds = [t.seed for t in tasks_for(round_robin_tables(3, 2, 1, seed=0), 1, 5, labels)]
    assert len(set(seeds)) == 3
    plain = tasks_for([Table(0, 0, (0, 1))], 1, 5, ["a@1", "b@1"])[0].seed
    assert plain == derive_seed(5, "game", 0, "a@1|b@1", 0)  # other names keep their dice


def test_a_group_a_balanced_design_seats_twice_in_a_round_gets_dice_of_its_own():
    """16 bots at 3 seats: the design seats b2, b11 and b15 at tables 17 and 28 of round 0,
    which played the same dice."""
    from arena.tournaments.schedule import round_robin_schedule

    labels = [f"b{i}@1" for i in range(16)]
    tables = round_robin_schedule(16, 3, 1, seed=2)
    groups = [tuple(sorted(t.bots)) for t in tables]
    assert len(set(groups)) < len(groups)  # a repeat, as the design made it
    tasks = tasks_for(tables, 2, 2, labels)
    per_seed = Counter(task.seed for task in tasks if task.rotation == 0)
    assert max(per_seed.values()) == 1
    first = next(t for t in tables if t.repeat == 0)  # a first seating keeps its dice
    assert tasks_for([first], 1, 2, labels)[0].seed == derive_seed(
        2, "game", 0, "|".join(labels[b] for b in first.bots), 0)


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


# -- play order: interleaved, so that interim standings compare like with like ---------------


def round_robin(bots, seats=2, games_per_pairing=1, rounds=1, seat_orders="rotations"):
    from arena.tournaments.config import parse_config
    from arena.tournaments.runner import round_robin_tasks

    config = parse_config({
        "name": "order", "game": "sonnentau" if seats > 2 else "seasons", "seed": 3,
        "seats": seats, "games_per_pairing": games_per_pairing, "rounds": rounds,
        "seat_orders": seat_orders,
        "bots": [{"spec": "bots/seasons/greedy.py", "name": f"b{i}"} for i in range(bots)]})
    return list(round_robin_tasks(config, LABELS[:bots]))


def widest_spread(tasks, bots, games_per_set):
    """Over every point of the schedule, the most sets one bot has played beyond another."""
    played, widest = Counter(), 0
    for task in tasks:
        played.update(task.seats)
        widest = max(widest, max(played[b] for b in range(bots))
                     - min(played[b] for b in range(bots)))
    return widest / games_per_set


def test_after_99_games_of_32_bots_every_bot_has_played_about_as_many():
    tasks = round_robin(32)
    played = Counter(bot for task in tasks[:99] for bot in task.seats)
    assert max(played.values()) <= 8 and min(played[b] for b in range(32)) >= 4
    assert widest_spread(tasks, 32, 2) <= 1  # at every point: one set at most
    for block in range(31):  # the circle method: each 16 tables, every bot plays once
        assert sorted(b for t in tasks[32 * block:32 * (block + 1)] for b in t.seats) \
            == sorted(list(range(32)) * 2)


@pytest.mark.parametrize(("bots", "seats", "sets", "rounds", "spread"), [
    (7, 2, 3, 2, 2), (6, 4, 2, 1, 2), (9, 3, 1, 1, 2), (12, 4, 1, 1, 2), (40, 4, 1, 1, 1)])
def test_every_shape_of_round_robin_is_interleaved(bots, seats, sets, rounds, spread):
    tasks = round_robin(bots, seats, sets, rounds)
    assert widest_spread(tasks, bots, seats) <= spread


@pytest.mark.parametrize(("bots", "seats", "sets", "design"), [
    (32, 2, 1, "rotations"), (5, 2, 3, "rotations"), (6, 3, 2, "balanced"),
    (40, 4, 1, "rotations")])
def test_the_play_order_plays_the_same_games_on_the_same_seeds(bots, seats, sets, design):
    tasks = round_robin(bots, seats, sets, rounds=2, seat_orders=design)
    by_table = tasks_for(round_robin_tables(bots, seats, 2, seed=3), sets, 3, LABELS[:bots],
                         design)
    assert sorted(tasks, key=lambda t: t.key) == sorted(by_table, key=lambda t: t.key)
    assert len({t.key for t in tasks}) == len(tasks)


def test_a_set_is_played_whole_every_table_plays_a_set_before_any_plays_its_next():
    tasks = round_robin(5, games_per_pairing=3, rounds=2)
    sets = [(t.round, t.table, t.set) for t in tasks]
    assert all(sets[i] == sets[i + 1] for i in range(0, len(sets), 2))  # seat-swapped pairs
    assert [(t.round, t.set) for t in tasks] == sorted((t.round, t.set) for t in tasks)
    assert [t.rotation for t in tasks[:2]] == [0, 1]
    assert tasks[0].key == "r0-t0-s0-o0"


def test_the_order_is_the_same_every_time():
    from arena.tournaments.schedule import circle_blocks

    assert round_robin(12, 4) == round_robin(12, 4)
    assert circle_blocks(4) == [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
