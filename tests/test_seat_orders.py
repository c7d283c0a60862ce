"""Seat orders of a duplicate set: cyclic rotations, or the balanced design."""

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from arena.reports.model import stored_config
from arena.results.store import Store, StoreError
from arena.tournaments.config import ConfigError, parse_config
from arena.tournaments.ladder import LadderControl, run_ladder
from arena.tournaments.ladder_config import parse_ladder_config
from arena.tournaments.runner import bye_points, run_tournament, total_games
from arena.tournaments.schedule import (
    BALANCED,
    ROTATIONS,
    Table,
    games_in,
    games_per_set,
    rotate,
    seat_orders,
    table_tasks,
)

ROOT = Path(__file__).resolve().parent.parent
LABELS = [f"bot{i}@1" for i in range(8)]
RANDOM = "bots/sonnentau/random_bot.py"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def seat_counts(orders):
    return Counter((seat, order[seat]) for order in orders for seat in range(len(order)))


def predecessor_counts(orders):
    """(bot in the seat before, bot): seat k - 1 comes before seat 0 (turns go round)."""
    return Counter((order[seat - 1], order[seat])
                   for order in orders for seat in range(len(order)))


@pytest.mark.parametrize(("seats", "size"), [(3, 6), (4, 12)])
def test_balanced_orders_balance_seats_and_predecessors(seats, size):
    orders = seat_orders(seats, BALANCED)
    assert len(orders) == len(set(orders)) == size == seats * (seats - 1)
    assert all(sorted(order) == list(range(seats)) for order in orders)
    by_seat = seat_counts(orders)
    assert len(by_seat) == seats * seats and set(by_seat.values()) == {size // seats}
    before = predecessor_counts(orders)
    assert set(before) == set(itertools.permutations(range(seats), 2))
    assert set(before.values()) == {size // (seats - 1)}


def test_rotations_give_every_bot_one_predecessor_and_balanced_orders_fix_that():
    assert predecessor_counts(seat_orders(3, ROTATIONS)) == Counter({(2, 0): 3, (0, 1): 3,
                                                                     (1, 2): 3})


def test_at_four_seats_balanced_orders_also_balance_who_sits_across():
    across = Counter(frozenset((order[seat], order[seat + 2]))
                     for order in seat_orders(4, BALANCED) for seat in range(2))
    assert len(across) == 6 and set(across.values()) == {4}


def balanced(orders, seats):
    return (len(seat_counts(orders)) == seats * seats
            and len(set(seat_counts(orders).values())) == 1
            and len(predecessor_counts(orders)) == seats * (seats - 1)
            and len(set(predecessor_counts(orders).values())) == 1)


def test_twelve_orders_are_the_fewest_that_balance_four_seats():
    """Seats balance only in multiples of 4 orders; predecessors need the 4 n pairs of n
    orders to share out evenly over 12 pairs, so n is a multiple of 3 too: 4 orders
    (a Williams square balances predecessors in a row, not round the table) never do."""
    assert not any(balanced(orders, 4)
                   for orders in itertools.combinations(itertools.permutations(range(4)), 4))
    assert [n for n in range(1, 13) if n % 4 == 0 and (n * 4) % 12 == 0] == [12]
    assert balanced(seat_orders(4, BALANCED), 4)


def test_rotations_are_the_old_cyclic_rotations_and_two_seats_are_the_same_in_both():
    for seats in (2, 3, 4):
        assert seat_orders(seats) == tuple(rotate(range(seats), r) for r in range(seats))
    assert seat_orders(2, BALANCED) == seat_orders(2, ROTATIONS) == ((0, 1), (1, 0))
    assert games_per_set(5, BALANCED) == 120  # more seats: every order
    with pytest.raises(ValueError, match="rotations, balanced"):
        seat_orders(3, "shuffled")


def test_a_balanced_four_player_set_is_twelve_games_on_one_seed_with_stable_keys():
    table = Table(2, 5, (1, 3, 4, 6))
    tasks = table_tasks(table, 2, seed=7, labels=LABELS, design=BALANCED)
    assert len(tasks) == 24 and len({t.key for t in tasks}) == 24
    first = [t for t in tasks if t.set == 0]
    assert len({t.seed for t in first}) == 1 and first[0].seed != tasks[12].seed
    assert [t.key for t in first[:2]] == ["r2-t5-s0-o0", "r2-t5-s0-o1"]
    assert [t.seats for t in first] == [tuple(table.bots[p] for p in order)
                                        for order in seat_orders(4, BALANCED)]
    rotations = table_tasks(table, 2, seed=7, labels=LABELS)
    assert {t.seed for t in rotations} == {t.seed for t in tasks}  # the same dice
    assert table_tasks(table, 2, seed=7, labels=LABELS, design=BALANCED) == tasks
    assert games_in("round-robin", 5, 4, 1, 2, BALANCED) == 5 * 2 * 12


def sonnentau(tmp_path, **changes):
    data = {"name": "s", "game": "sonnentau", "seats": 3, "options": {"turn_limit": 20},
            "isolation": "none", "workers": 1, "seed": 5,
            "bots": [RANDOM, {"spec": RANDOM, "name": "random-b"},
                     {"spec": RANDOM, "name": "random-c"}],
            "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out")}
    return parse_config({**data, **changes}, "s.yaml")


def test_the_setting_defaults_to_rotations_and_is_checked(tmp_path):
    assert sonnentau(tmp_path).seat_orders == ROTATIONS
    four = sonnentau(tmp_path, seats=4, bots=[RANDOM, *({"spec": RANDOM, "name": f"r-{n}"}
                                                       for n in "bcd")])
    assert four.seat_orders == ROTATIONS  # measured: see bench/seat_orders.py
    config = sonnentau(tmp_path, seat_orders="balanced", format="swiss", rounds=1)
    assert config.seat_orders == BALANCED and total_games(config) == 6
    assert bye_points(config) == 6.0
    with pytest.raises(ConfigError, match=r"s.yaml: seat_orders: unknown design 'balance' "
                                          r"\(did you mean 'balanced'\?\)"):
        sonnentau(tmp_path, seat_orders="balance")
    with pytest.raises(ConfigError, match=r"s\.yaml: seat_orders: must be a string, got 4"):
        sonnentau(tmp_path, seat_orders=4)


def test_only_balanced_orders_enter_the_stored_settings_so_old_fingerprints_hold(tmp_path):
    rotations, balanced = sonnentau(tmp_path), sonnentau(tmp_path, seat_orders="balanced")
    assert "seat_orders" not in rotations.to_json()
    assert sonnentau(tmp_path, seat_orders="rotations").fingerprint() == rotations.fingerprint()
    assert balanced.to_json()["seat_orders"] == BALANCED
    assert balanced.fingerprint() != rotations.fingerprint()


def stored_games(store, tid):
    return [(g.key, g.seed, g.seats, g.ranks) for g in store.games(tid)]


def test_a_tournament_stored_without_the_setting_resumes_in_rotations(tmp_path):
    config = sonnentau(tmp_path)
    with Store(config.db) as store:
        tid = run_tournament(config, store).tournament_id
        played = stored_games(store, tid)
        old = {k: v for k, v in store.find_tournament(tid).config.items()
               if k != "seat_orders"}  # as a config stored before the setting existed
        store.db.execute("UPDATE tournaments SET config = ? WHERE id = ?",
                         (json.dumps(old), tid))
        store.db.execute("DELETE FROM games WHERE tournament_id = ? AND key = ?",
                         (tid, played[1][0]))
        again = run_tournament(config, store)
        assert (again.tournament_id, again.played) == (tid, 1)
        assert stored_games(store, tid) == played
        assert stored_config(store.find_tournament(tid)).seat_orders == ROTATIONS
        with pytest.raises(StoreError, match=r'seat_orders: \(not set\) → "balanced"'):
            run_tournament(sonnentau(tmp_path, seat_orders="balanced"), store)
    assert [seats for _key, _seed, seats, _ranks in played[:3]] == [
        rotate((0, 1, 2), r) for r in range(3)]


def test_a_balanced_tournament_plays_every_order_and_resumes_the_same(tmp_path):
    config = sonnentau(tmp_path, seat_orders="balanced", games_per_pairing=2)
    with Store(config.db) as store:
        report = run_tournament(config, store)
        games = stored_games(store, report.tournament_id)
        assert report.total == report.played == len(games) == 12
        assert [seats for _key, _seed, seats, _ranks in games[:6]] == list(
            seat_orders(3, BALANCED))
        assert len({seed for _key, seed, *_ in games[:6]}) == 1
        assert run_tournament(config, store).played == 0
    other = sonnentau(tmp_path / "again", seat_orders="balanced", games_per_pairing=2)
    with Store(other.db) as store:
        assert stored_games(store, run_tournament(other, store).tournament_id) == games


def test_a_ladder_plays_its_tables_in_the_configured_orders(tmp_path):
    data = {"name": "l", "game": "sonnentau", "seats": 3, "options": {"turn_limit": 20},
            "isolation": "none", "workers": 1, "seed": 5, "seat_orders": "balanced",
            "bots": [RANDOM, *({"spec": RANDOM, "name": f"random-{n}"} for n in "bcd")],
            "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out"),
            "ladder": {"tables_per_round": 2}}
    config = parse_ladder_config(data, "l.yaml")
    assert config.to_json()["seat_orders"] == BALANCED
    assert "seat_orders" not in parse_ladder_config(
        {**data, "seat_orders": "rotations"}, "l.yaml").to_json()
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=1, idle_exit=True))
        rows = store.db.execute("SELECT key, seats, seed FROM games ORDER BY id").fetchall()
    assert len(rows) == 2 * 6
    for table in ("r0-t0-", "r0-t1-"):
        sets = [(json.loads(seats), seed) for key, seats, seed in rows if key.startswith(table)]
        assert len({seed for _seats, seed in sets}) == 1
        bots = sorted(sets[0][0])
        assert sorted(tuple(seats) for seats, _seed in sets) == sorted(
            tuple(bots[p] for p in order) for order in seat_orders(3, BALANCED))
