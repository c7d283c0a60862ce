"""Bot processes start side by side: launched for a game, they shake hands at its start."""

import pytest

from arena.bots.isolation import bot_process
from arena.bots.process import Limits
from arena.referee.match import play_game
from arena.referee.protocol import PlayerFailure


class Forfeits:
    name, version = "forfeits", "1"

    def start(self, info):
        raise PlayerFailure("crash", "cannot play")

    def act(self, observation):
        return observation.legal_actions[0]


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


@pytest.mark.parametrize("isolation", ["process", "sandbox"])
def test_a_launched_bot_whose_game_ends_before_its_start_plays_the_next(isolation):
    from arena.bots.sandbox import sandbox_problem

    if isolation == "sandbox" and sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    bot = bot_process("bots/seasons/random_bot.py", {}, isolation,
                      Limits(handshake_seconds=5.0))
    try:
        bot.launch()
        first = play_game("seasons", [Forfeits(), bot], seed=1, time_limit=2.0)
        assert first.seats[0].status == "crash" and first.seats[1].status == "ok"
        second = play_game("seasons", [bot, bot_process_started()], seed=2, time_limit=2.0)
        assert [seat.status for seat in second.seats] == ["ok", "ok"], second.seats
    finally:
        bot.close()


def bot_process_started():
    from arena.bots.isolation import start_bot

    return start_bot("bots/seasons/random_bot.py", "process")
