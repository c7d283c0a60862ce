"""A bot process's end: closing it never fails, however the bot left its pipes."""

import os

from arena.bots.process import ProcessPlayer, bot_command

DEAF = '''#!/bin/sh
read -r line
printf '%s\\n' '{"name": "deaf", "version": "1"}'
exec 0<&-
exec sleep 30
'''


def test_issue_close_when_the_quit_message_cannot_be_sent(tmp_path):
    path = tmp_path / "deaf.sh"
    path.write_text(DEAF)
    os.chmod(path, 0o755)
    player = ProcessPlayer(bot_command(f"command:{path}", {}))
    player.ensure_running()
    assert player.process is not None
    pid = player.process.pid
    player.close()  # the quit message meets a closed pipe: the bot is killed all the same
    assert player.process is None
    assert not os.path.exists(f"/proc/{pid}")  # killed and reaped


def test_a_referee_held_up_past_the_deadline_says_how_long_the_decision_took(monkeypatch):
    """Regression: under load, a hostile round-robin forfeited a fair bot with "no answer
    within -0.67 s to a decision": the referee had been held up for over a second after
    sending the observation, found the time left negative and gave up without looking at
    the pipe, where the answer may have been waiting. It now looks first; the time the
    decision took, as the referee's clock measures it, decides, and the message says it."""
    import time

    from arena.referee.match import play_game

    sent, delays = ProcessPlayer._write, [0.4]

    def held_up(self, line, kind, seconds=None):
        sent(self, line, kind, seconds)
        if kind == "act" and delays:
            time.sleep(delays.pop())  # the referee's process is not scheduled; the bot answers

    bot = ProcessPlayer(bot_command("bots/seasons/greedy.py", {}))
    opponent = ProcessPlayer(bot_command("bots/seasons/random_bot.py", {}))
    try:
        monkeypatch.setattr(ProcessPlayer, "_write", held_up)
        record = play_game("seasons", [bot, opponent], seed=1, time_limit=0.1)
    finally:
        monkeypatch.undo()
        bot.close()
        opponent.close()
    assert not delays
    assert record.seats[0].status == "timeout"
    assert record.seats[0].detail.startswith("took 0.4"), record.seats[0].detail
    assert "limit 0.1 s" in record.seats[0].detail
