"""The deeper-search bench's challenger: where the endgame search is exact, it decides
as expectimax does (so its loss elsewhere is the evaluation's, not the search's)."""

from bench_scripts import load_bench

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.seasons.evaluation import N_SECTORS, endgame_size
from arena.referee.match import play_game

bench = load_bench("seasons_search_depth")


def test_the_three_ply_challenger_places_as_expectimax_where_the_endgame_is_exact():
    expectimax = load_bot(str(bench.EXPECTIMAX)).player
    three_ply = bench.ThreePly()
    game = find_game("seasons")
    checked = 0
    for seed in (0, 1):
        state = game.initial_state({})
        for move in play_game("seasons", [expectimax, expectimax], seed=seed).moves:
            if not state.is_chance_node() and state.to_json()["phase"] == "place":
                mine, theirs = state.fields[state.seat], state.fields[1 - state.seat]
                open_ = tuple((s, mine[s], theirs[s]) for s in range(N_SECTORS)
                              if not (mine[s] and theirs[s]))
                if endgame_size(open_) <= 700 and len(state.legal_actions()) > 1:
                    observation = state.observation(state.seat)
                    assert three_ply.act(observation) == str(expectimax.act(observation))
                    checked += 1
            state.apply(game.parse_action(move.action))
    assert checked >= 5


def test_dice_summing_to_each_total_are_dice():
    for total in range(3, 19):
        dice = bench.dice_summing_to(total)
        assert sum(dice) == total and all(1 <= d <= 6 for d in dice)
