"""A game's start in a bot process: warm-up is not a decision; the bot says when it is ready."""

import os

import pytest

from arena.bots.process import ProcessPlayer, bot_command
from arena.referee.match import play_game

SLOW_START = '''
import time


class SlowStarter:
    name, version = "slow-starter", "1"

    def start(self, info):
        time.sleep(0.8)  # loading a model, say

    def act(self, observation):
        return observation.legal_actions[0]
'''

FAILING_START = '''
class FailingStarter:
    name, version = "failing-starter", "1"

    def start(self, info):
        raise RuntimeError("cannot warm up")

    def act(self, observation):
        return observation.legal_actions[0]
'''

WRONG_ANSWER = '''#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\\n' '{"name": "chatty", "version": "1", "ready": true}' ;;
    *'"type": "start"'*) printf '%s\\n' 'hello there' ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
'''


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def play_against_random(spec, **limits):
    bot = ProcessPlayer(bot_command(spec, {}))
    opponent = ProcessPlayer(bot_command("bots/seasons/random_bot.py", {}))
    try:
        return play_game("seasons", [bot, opponent], seed=2, **limits)
    finally:
        bot.close()
        opponent.close()


def test_a_python_bots_warm_up_does_not_count_against_its_first_decision(tmp_path):
    path = tmp_path / "slow_starter.py"
    path.write_text(SLOW_START)
    record = play_against_random(str(path), time_limit=0.3)
    assert record.seats[0].status == "ok"
    assert max(record.decision_times(0)) < 0.3


def test_a_python_bot_whose_start_fails_crashes_before_any_move(tmp_path):
    path = tmp_path / "failing_starter.py"
    path.write_text(FAILING_START)
    record = play_against_random(str(path))
    assert record.seats[0].status == "crash"
    assert record.seats[0].detail.startswith("start() raised RuntimeError: cannot warm up")
    assert f'File "{path}", line 6, in start' in record.seats[0].detail
    assert record.moves == () and record.ranks == (1, 0)


def test_a_bot_that_promised_ready_must_say_it(tmp_path):
    path = tmp_path / "chatty.sh"
    path.write_text(WRONG_ANSWER)
    os.chmod(path, 0o755)
    record = play_against_random(f"command:{path}")
    assert record.seats[0].status == "crash"
    assert "expected 'ready' after the start of a game, got 'hello there'" in record.seats[0].detail
