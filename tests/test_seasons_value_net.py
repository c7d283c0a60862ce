"""tools/seasons_value_net.py: its data, fits and players work as its docstring says."""

import importlib.util
import json

from arena.bots.loading import load_bot
from arena.referee.match import play_game


def tool(root, monkeypatch):
    monkeypatch.syspath_prepend(str(root / "tools"))  # it imports seasons_value_training
    spec = importlib.util.spec_from_file_location(
        "seasons_value_net", root / "tools" / "seasons_value_net.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def moves(game):
    return [(m.seat, m.action) for m in game.moves]


def test_the_net_is_fitted_on_self_play_and_its_player_plays_whole_games_alike(
        tmp_path, root, monkeypatch):
    net = tool(root, monkeypatch)
    data, weights = tmp_path / "d.npz", tmp_path / "n.json"
    net.main(["generate", "--games", "2", "--seed", "9", "--out", str(data)])
    net.main(["fit", str(data), "--out", str(weights), "--lam", "0", "--epochs", "2",
              "--hidden", "8"])
    player = net.NetPlayer(net.load(str(weights)))
    rival = load_bot(str(root / "bots" / "seasons" / "expectimax.py"), {}).player
    games = [play_game("seasons", [rival, player], seed=4) for _ in range(2)]
    assert games[0].termination == "normal" and [s.status for s in games[0].seats] == ["ok"] * 2
    assert moves(games[1]) == moves(games[0])  # no randomness, no clock


def test_the_heads_against_expectimax_are_fitted_on_games_against_it(
        tmp_path, root, monkeypatch):
    net = tool(root, monkeypatch)
    data, heads = tmp_path / "v.npz", tmp_path / "h.json"
    net.main(["generate-vs", "--games", "2", "--seed", "9", "--out", str(data)])
    net.main(["fit-vs", str(data), "--out", str(heads)])
    fitted = json.loads(heads.read_text())
    assert [len(h) for h in fitted] == [len(net.W3)] * 2
    rival = load_bot(str(root / "bots" / "seasons" / "expectimax.py"), {}).player
    game = play_game("seasons", [net.TwoHeadPlayer(fitted), rival], seed=5)
    assert [s.status for s in game.seats] == ["ok"] * 2
