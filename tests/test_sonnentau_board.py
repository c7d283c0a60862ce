"""Sonnentau boards: the default board file, the loader's validation, custom boards, SVG."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.sonnentau import board as board_module
from arena.games.sonnentau.board import (
    DEFAULT_BOARD_PATH,
    BoardError,
    board_for_option,
    build_board,
    default_board,
    load_board,
)
from arena.games.sonnentau.rules import RELOCATE, parse_action
from arena.games.sonnentau.svg import draw_board
from arena.referee.match import play_game
from arena.referee.record import replay

GAME = find_game("sonnentau")

# The default layout as the rules page (sonnentau-board.md) lists it, counterclockwise.
REFERENCE_RINGS = {
    "B": "B00 B01 MR B03 B04 B05 ML B07 B08 B09 B10 B11 B12 B13 B14 B15 B16 B17",
    "M": "OR M01 M02 X M04 XL M06 M07 OL M09 M10 ML M12 M13 M14 MR M16 M17",
    "UL": "YLI UL01 UL02 YL UL04 UL05 UL06 UL07 UL08 UL09 UL10 UL11 UL12 UL13 OL UL15 UL16 XL",
    "UR": "UR00 UR01 UR02 UR03 UR04 Y UR06 UR07 YI X UR10 UR11 OR UR13 UR14 UR15 UR16 UR17",
    "F": "F00 F01 F02 F03 Z F05 F06 F07 F08 YL F10 F11 YLI F13 YI F15 F16 Y",
    "G": "Z G1 G2 GOAL",
}
REFERENCE_POINTS = {"OL": (-0.985, 0.174), "X": (0.342, 0.940), "Y": (0.985, 2.053),
                    "Z": (0.000, 3.227), "GOAL": (0.000, 4.269), "B13": (0.000, -2.532),
                    "UR07": (0.461, 1.613), "F13": (0.000, 1.227)}


# -- the default board -------------------------------------------------------------------


def test_the_default_board_is_the_reference_board():
    board = default_board()
    assert board.n_fields == 83
    assert {t.id: " ".join(board.field_ids[f] for f in t.fields) for t in board.tracks} \
        == REFERENCE_RINGS
    assert [t.closed for t in board.tracks] == [True] * 5 + [False]
    assert board.final_circle == "F" and board.goal_straight == "G"
    assert [board.field_ids[e] for e in board.entries] == ["OL", "ML", "MR", "OR"]
    assert board.field_ids[board.z] == "Z" and board.field_ids[board.goal] == "GOAL"
    crossings = {board.field_ids[f] for f in range(board.n_fields) if board.is_intersection(f)}
    assert crossings == {"ML", "MR", "OL", "OR", "X", "XL", "Y", "YI", "YL", "YLI", "Z"}
    for fid, (x, y) in REFERENCE_POINTS.items():
        assert board.coordinates[board.index[fid]] == pytest.approx((x, y), abs=1e-3)
    assert board.start_position == pytest.approx((0.0, -1.532), abs=1e-3)


def test_the_default_board_file_ships_with_the_game():
    repository = Path(__file__).resolve().parents[1]
    assert repository / "arena/games/sonnentau/board.yaml" == DEFAULT_BOARD_PATH
    assert board_for_option("") is default_board()  # cached
    assert board_for_option(str(DEFAULT_BOARD_PATH)).n_fields == 83


def test_precomputed_paths_and_distances():
    board = default_board()
    ids, at = board.field_ids, board.index
    step = board.step(at["OL"], "M", "cw")
    assert [ids[f] for f in step.path[:5]] == ["M07", "M06", "XL", "M04", "X"]
    assert board.step(at["Z"], "G", "out") is None
    assert [ids[f] for f in board.step(at["Z"], "G", "in").path] == ["G1", "G2", "GOAL"]
    assert len(board.step(at["B00"], "B", "ccw").path) == 9
    assert board.goal_distance[at["Z"]] == 3 and board.goal_distance[at["Y"]] == 8
    assert board.goal_distance[at["X"]] == 12 and board.start_distance == 16
    assert sorted(set(board.neighbours[at["X"]])) == sorted(
        at[f] for f in ("M02", "M04", "YI", "UR10"))


def test_relocation_rules_are_precomputed_per_field():
    board = default_board()
    z, y, x, f03 = (board.relocation[board.index[f]] for f in ("Z", "Y", "X", "F03"))
    assert (z.to_start, z.to_goal) == (True, True)
    assert (y.to_start, y.to_goal) == (True, False)
    assert (x.to_start, x.to_goal) == (False, False)
    assert f03.to_start and board.goal not in f03.fields
    assert len(x.fields) == 18 + 18 - 2 - 1  # M and UR share OR and X; X itself is not a target


# -- a small custom board -----------------------------------------------------------------

SMALL: dict = {
    "name": "small",
    "title": "a small test board",
    "circles": [
        {"id": "A", "fields": ["E1", "a1", "X1", "a3", "X2", "a5"]},
        {"id": "F", "fields": ["X1", "f1", "Z", "f3", "X2", "f5"]},
        {"id": "T", "fields": ["E2", "t1", "t2"]},
    ],
    "final_circle": "F",
    "goal_straight": {"id": "G", "fields": ["Z", "G1", "GOAL"]},
    "z": "Z",
    "goal": "GOAL",
    "entries": ["E1", "E2"],
    "start": {"id": "S", "position": [0, -2]},
}
SMALL_IDS = ["E1", "a1", "X1", "a3", "X2", "a5", "f1", "Z", "f3", "f5", "E2", "t1", "t2",
             "G1", "GOAL"]


def small_board_data() -> dict:
    data = copy.deepcopy(SMALL)
    data["coordinates"] = {fid: [float(i % 5), float(i // 5)] for i, fid in enumerate(SMALL_IDS)}
    return data


def write_board(tmp_path: Path, data: dict, name: str = "board.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_a_custom_board_loads_and_plays(tmp_path):
    path = write_board(tmp_path, small_board_data())
    board = load_board(path)
    assert board.n_fields == len(SMALL_IDS) and board.name == "small"
    options = {"board": str(path), "turn_limit": 200}
    state = GAME.initial_state(options)
    assert state.board.path == str(path.resolve())
    players = [load_bot("bots/sonnentau/random_bot.py").player for _ in range(3)]
    record = play_game(GAME, players, 7, options)
    assert record.options["board"] == str(path)
    assert replay(record).outcome().ranks == record.ranks
    assert GAME.state_from_json(replay(record).to_json()) == replay(record)


def test_a_move_may_not_end_where_it_started(tmp_path):
    state = GAME.initial_state({"board": str(write_board(tmp_path, small_board_data()))})
    state.set_place(0, 0, "a1")
    state.apply(parse_action("dice:6,2"))
    assert not any(str(a).startswith("move:d0:p0:A") for a in state.legal_actions())
    assert "move:d1:p0:A:ccw" in {str(a) for a in state.legal_actions()}


def test_with_nothing_but_the_start_left_the_hit_piece_goes_there_by_itself(tmp_path):
    state = GAME.initial_state({"board": str(write_board(tmp_path, small_board_data()))})
    state.set_place(1, 0, "E2")
    state.set_place(1, 1, "t1")
    state.set_place(0, 1, "t2")
    state.apply(parse_action("dice:1,4"))
    state.apply(parse_action("enter:d0:p0:E2"))  # circle T is full: no field to relocate to
    assert state.phase != RELOCATE
    assert state.place_name(state.pieces[1][0]) == "start"
    assert state.place_name(state.pieces[0][0]) == "E2"


# -- validation: every rejected case names the file and the offending id ------------------------


def rejected(tmp_path: Path, data: object, *needles: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(BoardError) as error:
        load_board(path)
    message = str(error.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message, message
    return message


def test_an_id_on_three_tracks_is_rejected(tmp_path):
    data = small_board_data()
    data["circles"].append({"id": "C", "fields": ["X1", "c1", "c2"]})
    data["coordinates"].update({"c1": [0, 0], "c2": [1, 1]})
    rejected(tmp_path, data, "'X1'", "three tracks")


def test_a_goal_straight_not_starting_on_the_final_circle_is_rejected(tmp_path):
    data = small_board_data()
    data["final_circle"] = "A"
    rejected(tmp_path, data, "'Z'", "final circle")
    data = small_board_data()
    data["goal_straight"]["fields"] = ["a1", "G1", "GOAL"]
    data["z"] = "a1"
    rejected(tmp_path, data, "'a1'", "final circle")


def test_a_goal_straight_must_run_from_z_to_the_goal(tmp_path):
    data = small_board_data()
    data["z"] = "G1"
    rejected(tmp_path, data, "'Z'", "not on Z")
    data = small_board_data()
    data["goal"] = "G1"
    rejected(tmp_path, data, "'GOAL'", "not on the goal")


def test_a_goal_straight_crossing_a_circle_is_rejected(tmp_path):
    data = small_board_data()
    data["goal_straight"]["fields"] = ["Z", "a3", "GOAL"]
    rejected(tmp_path, data, "'a3'", "only Z may")


@pytest.mark.parametrize("key", ["entries", "z", "goal", "coordinates", "start", "circles",
                                 "final_circle", "goal_straight"])
def test_missing_parts_are_rejected(tmp_path, key):
    data = small_board_data()
    del data[key]
    rejected(tmp_path, data, f"missing '{key}'")


def test_empty_entries_are_rejected(tmp_path):
    data = small_board_data()
    data["entries"] = []
    rejected(tmp_path, data, "entries")


def test_unknown_entries_are_rejected(tmp_path):
    data = small_board_data()
    data["entries"] = ["E1", "nowhere"]
    rejected(tmp_path, data, "'nowhere'")
    data["entries"] = ["G1"]
    rejected(tmp_path, data, "'G1'", "not on a circle")


def test_a_duplicate_id_inside_a_track_is_rejected(tmp_path):
    data = small_board_data()
    data["circles"][0]["fields"] = ["E1", "a1", "X1", "a1", "X2", "a5"]
    rejected(tmp_path, data, "'a1'", "twice", "'A'")


def test_fields_unreachable_from_the_entries_are_rejected(tmp_path):
    data = small_board_data()
    data["circles"].append({"id": "C", "fields": ["c0", "c1", "c2"]})
    data["coordinates"].update({"c0": [0, 0], "c1": [0, 1], "c2": [1, 1]})
    rejected(tmp_path, data, "'c0'", "cannot be reached")


def test_missing_coordinates_are_rejected(tmp_path):
    data = small_board_data()
    del data["coordinates"]["f3"]
    rejected(tmp_path, data, "'f3'", "no coordinates")
    data = small_board_data()
    data["coordinates"]["ghost"] = [1, 2]
    rejected(tmp_path, data, "'ghost'")
    data = small_board_data()
    data["coordinates"]["a1"] = [1]
    rejected(tmp_path, data, "'a1'")


def test_other_malformed_boards_are_rejected(tmp_path):
    data = small_board_data()
    data["circles"][0]["fields"] = ["E1", "a1"]
    rejected(tmp_path, data, "'A'", "at least")
    data = small_board_data()
    data["circles"][1]["id"] = "A"
    rejected(tmp_path, data, "'A'")
    data = small_board_data()
    data["circles"][0]["fields"][1] = "start"
    rejected(tmp_path, data, "'start'", "reserved")
    data = small_board_data()
    data["final_circle"] = "Q"
    rejected(tmp_path, data, "'Q'")
    rejected(tmp_path, ["not", "a", "mapping"], "mapping")


def test_a_missing_or_unreadable_file_is_a_board_error(tmp_path):
    with pytest.raises(BoardError, match="not found"):
        load_board(tmp_path / "nowhere.yaml")
    bad = tmp_path / "broken.yaml"
    bad.write_text("circles: [unclosed\n", encoding="utf-8")
    with pytest.raises(BoardError, match="not valid YAML"):
        load_board(bad)
    with pytest.raises(BoardError, match=r"nowhere\.yaml"):
        GAME.initial_state({"board": str(tmp_path / "nowhere.yaml")})


def test_a_missing_default_board_says_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setattr(board_module, "DEFAULT_BOARD_PATH", tmp_path / "gone.yaml")
    with pytest.raises(BoardError, match="board=PATH"):
        board_for_option("")


def test_board_errors_are_value_errors():
    with pytest.raises(ValueError, match="<inline>"):
        build_board({}, "<inline>")


# -- drawing -----------------------------------------------------------------------------


def test_draw_board_is_an_svg_with_every_field_labelled():
    board = default_board()
    svg = draw_board(board)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert set(board.field_ids) <= texts
    assert "START" in texts


def test_draw_board_shows_the_pieces_of_a_state():
    state = GAME.initial_state({"seats": 3})
    state.set_place(0, 3, "X")
    state.set_place(1, 0, "home")
    state.set_place(2, 1, "Z")
    state.apply(parse_action("dice:2,6"))
    state.apply(parse_action("enter:d1:p0:OL:M:cw"))  # hits own p3: a pending relocation
    svg = draw_board(state.board, state)
    ET.fromstring(svg)
    assert svg.count('fill="url(#ball0)"') >= 3 and 'fill="url(#ball2)"' in svg
    assert "hit on X" in svg and "seat 1 (red): home 1" in svg


def test_draw_a_custom_board_without_circle_geometry(tmp_path):
    board = load_board(write_board(tmp_path, small_board_data()))
    ET.fromstring(draw_board(board))


def test_a_board_with_coordinates_that_are_not_finite_numbers_is_refused(tmp_path):
    data = yaml.safe_load(DEFAULT_BOARD_PATH.read_text())
    for bad in (float("nan"), float("inf"), 1e300):
        first = next(iter(data["coordinates"]))
        broken = {**data, "coordinates": {**data["coordinates"], first: [bad, 0.0]}}
        path = tmp_path / "broken.yaml"
        path.write_text(yaml.safe_dump(broken))
        with pytest.raises(BoardError, match=f"coordinates of '{first}' must be two numbers"):
            load_board(path)


def test_a_board_file_with_aliases_or_too_many_fields_is_refused(tmp_path):
    path = tmp_path / "alias.yaml"
    path.write_text("circles: &c []\nfinal_circle: *c\n")
    with pytest.raises(BoardError, match="anchors and aliases"):
        load_board(path)
    big = tmp_path / "big.yaml"
    fields = [f"f{i}" for i in range(3000)]
    big.write_text(yaml.safe_dump({
        "circles": [{"id": "A", "fields": fields}], "final_circle": "A",
        "goal_straight": {"id": "S", "fields": ["f0", "Z", "GOAL"]}, "z": "Z", "goal": "GOAL",
        "entries": ["f1"], "start": "f2", "coordinates": {}}))
    with pytest.raises(BoardError, match="the circles list 3000 fields; at most 2000"):
        load_board(big)
