"""Hostile bots: each is contained, recorded with the right status, and changes nothing else."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.process import ProcessPlayer, bot_command
from arena.referee.match import play_game
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

HOSTILE = Path(__file__).parent / "hostile"
LIMIT = 0.5
EXPECTED = {
    "infinite_loop.py": ("timeout", "no answer within"),
    "sleeper.py": ("timeout", "no answer within"),
    "raiser.py": ("crash", "RuntimeError: hostile bot raising on purpose"),
    "illegal.py": ("illegal-action", "is not a legal action"),
    "garbage.py": ("illegal-action", "not an action: dict"),
    "exiter.py": ("crash", "exit status 3"),
    "memory_hog.py": ("crash", "MemoryError"),
    "forker.py": ("crash", "may not start processes"),
    "writer.py": ("crash", "may not write outside their folder"),
    "unloadable.py": ("crash", "this bot cannot even be imported"),
    "printer.py": ("ok", ""),
    "tamperer.py": ("ok", ""),
}


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def player(spec, **params):
    return ProcessPlayer(bot_command(spec, params))


@pytest.mark.parametrize("bot", sorted(EXPECTED))
def test_each_hostile_bot_is_contained_and_recorded(bot):
    status, detail = EXPECTED[bot]
    hostile, opponent = player(str(HOSTILE / bot)), player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [hostile, opponent], seed=3, time_limit=LIMIT)
    finally:
        hostile.close()
        opponent.close()
    assert record.seats[0].status == status
    assert detail in record.seats[0].detail
    assert record.seats[1].status == "ok"
    if status != "ok":
        assert record.ranks == (1, 0) and record.termination == status


def test_a_failed_bot_process_is_started_again_for_the_next_game():
    hostile, opponent = player(str(HOSTILE / "exiter.py")), player("bots/seasons/greedy.py")
    try:
        first = play_game("seasons", [hostile, opponent], seed=1)
        second = play_game("seasons", [opponent, hostile], seed=1)
    finally:
        hostile.close()
        opponent.close()
    assert first.seats[0].status == second.seats[1].status == "crash"
    assert first.seats[0].name == "exiter"  # the handshake worked again after the restart


def test_writing_outside_its_folder_leaves_no_file(tmp_path):
    target = tmp_path / "outside.txt"
    hostile = player(str(HOSTILE / "writer.py"), target=str(target))
    opponent = player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [hostile, opponent], seed=3)
    finally:
        hostile.close()
        opponent.close()
    assert record.seats[0].status == "crash" and not target.exists()


def sleepers():
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if line.strip() == "sleep 301")


def test_a_program_bots_children_die_with_it(tmp_path):
    script = tmp_path / "spawner.sh"
    script.write_text((HOSTILE / "fork_bomb.sh").read_text().replace("sleep 300", "sleep 301"))
    os.chmod(script, 0o755)
    bot = player(f"command:{script}")
    opponent = player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [bot, opponent], seed=3)
        assert sleepers() == 10
    finally:
        bot.close()
        opponent.close()
    assert record.seats[0].status == "ok" and record.seats[0].name == "fork-bomb-sh"
    assert sleepers() == 0


def running(args):
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if line.strip() == args)


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("setsid") is None,
                    reason="needs Linux and setsid")
def test_processes_a_bot_moves_out_of_its_process_group_die_too():
    bot = player(f"command:{HOSTILE / 'escaper.sh'}")
    opponent = player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [bot, opponent], seed=3)
        assert running("sleep 303") == 0  # orphaned during the game: gone when it ended
        assert running("sleep 302") == 1  # still the running bot's own child
    finally:
        bot.close()
        opponent.close()
    assert record.seats[0].status == "ok" and record.seats[0].name == "escaper-sh"
    assert running("sleep 302") == 0


def test_a_bot_that_never_reads_its_input_times_out_instead_of_blocking_arena():
    import signal

    from arena.games import find_game
    from arena.referee.protocol import PlayerFailure

    game = find_game("seasons")
    state = game.initial_state()
    state.apply(game.parse_action("dice:3,4,5"))
    seen = state.observation(0)
    observation = type(seen)(seen.game, 0, seen.state, seen.legal_actions, LIMIT)
    deaf = player(f"command:{HOSTILE / 'deaf.sh'}")
    signal.alarm(60)  # a regression would hang here, not fail
    try:
        deaf.ensure_running()
        with pytest.raises(PlayerFailure, match="does not read its input") as failure:
            for _ in range(10_000):
                assert deaf.act(observation) == "keep"
        assert failure.value.status == "timeout"
    finally:
        signal.alarm(0)
        deaf.close()


def test_the_shell_example_bot_plays_both_games():
    bot = player("command:bots/examples/first_legal.sh")
    opponent = player("bots/sonnentau/random_bot.py")
    try:
        for game in ("seasons", "sonnentau"):
            record = play_game(game, [bot, opponent], seed=2, time_limit=2.0)
            assert record.seats[0].status == "ok" and record.seats[0].name == "first-legal-sh"
    finally:
        bot.close()
        opponent.close()


def tournament(tmp_path, name, bots):
    config = parse_config({
        "name": name, "game": "seasons", "seed": 8, "workers": 2, "time_limit": LIMIT,
        "db": str(tmp_path / f"{name}.db"), "bots": bots})
    with Store(config.db) as store:
        report = run_tournament(config, store)
        games = list(store.games(report.tournament_id))
    return report, games


def test_a_round_robin_with_every_hostile_bot_finishes_and_changes_nothing(tmp_path):
    plain = ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"]
    hostile = [str(HOSTILE / bot) for bot in sorted(EXPECTED)]
    hostile.append("command:" + str(HOSTILE / "fork_bomb.sh"))
    report, games = tournament(tmp_path, "hostile", plain + hostile)
    assert report.complete and len(games) == 15 * 14  # every pair, both seat orders
    labels = report.standings
    by_label = {r.label: r for r in labels}
    for bot, (status, _detail) in EXPECTED.items():
        name = bot.removesuffix(".py").replace("_", "-")
        result = next(r for label, r in by_label.items() if label.startswith(name))
        if status == "ok":
            assert not result.overall.failures
        else:
            # It fails in every game it gets to play a move in (at least those it opens).
            assert set(result.overall.failures) == {status}, (bot, result.overall.failures)
            assert result.overall.failures[status] >= 14
    failing = {2 + i for i, bot in enumerate(sorted(EXPECTED)) if EXPECTED[bot][0] != "ok"}
    for game in games:
        for plain_bot in (0, 1):
            if plain_bot in game.seats and set(game.seats) & failing:
                assert game.ranks[game.seats.index(plain_bot)] == 0  # credited with the win
    assert by_label["greedy@1.0"].overall.failures == {}
    _, reference = tournament(tmp_path, "reference", plain)
    head_to_head = [(g.seed, g.ranks, g.scores) for g in games if set(g.seats) == {0, 1}]
    assert head_to_head == [(g.seed, g.ranks, g.scores) for g in reference]


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("setsid") is None,
                    reason="needs Linux and setsid")
def test_nothing_a_bot_started_outlives_a_tournament_on_workers(tmp_path):
    escaper = "command:" + str(HOSTILE / "escaper.sh")
    report, games = tournament(tmp_path, "escaper", ["bots/seasons/random_bot.py", escaper])
    assert report.complete and len(games) == 2
    assert all(status == "ok" for game in games for status in game.statuses)
    assert running("sleep 302") == running("sleep 303") == 0
