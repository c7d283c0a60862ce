"""tools/seasons_value_training.py: its data, fit and player work as its docstring says."""

import importlib.util
import json
import math

from arena.bots.loading import load_bot
from arena.referee.match import play_game


def tool(root):
    spec = importlib.util.spec_from_file_location(
        "seasons_value_training", root / "tools" / "seasons_value_training.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_its_weights_come_from_the_data_and_its_player_plays_whole_games_alike(tmp_path,
                                                                                 root):
    training = tool(root)
    training.main(["generate", "--games", "2", "--seed", "9", "--out", str(tmp_path / "d.npz")])
    training.main(["fit", str(tmp_path / "d.npz"), "--out", str(tmp_path / "w.json")])
    weights = json.loads((tmp_path / "w.json").read_text())
    assert len(weights) == len(training.PositionValue().features((0,) * 11, (0,) * 11))
    assert all(math.isfinite(w) for w in weights)
    rival = load_bot(str(root / "bots" / "seasons" / "expectimax.py"), {}).player
    games = [play_game("seasons", [training.OnePlyPlayer(weights), rival], seed=3)
             for _ in range(2)]
    assert games[0].termination == "normal" and [s.status for s in games[0].seats] == ["ok"] * 2
    assert [[(m.seat, m.action) for m in game.moves] for game in games] == [
        [(m.seat, m.action) for m in games[0].moves]] * 2  # no randomness, no clock
