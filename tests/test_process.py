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
