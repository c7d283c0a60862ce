"""A person playing at the terminal: the text boards, the announcer, the screens, and the
real ``arena play … human …`` in a pseudo-terminal of 80×24."""

from __future__ import annotations

import fcntl
import os
import random
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from sonnentau_examples import example_position

from arena.bots.announcer import move_log
from arena.bots.human import MORE, MORE_CHOICES, GameAbandoned, HumanPlayer, Terminal, seat_name
from arena.bots.loading import load_bot
from arena.bots.screen import fit, grid, numbered, pages
from arena.cli import cli
from arena.games import find_game
from arena.games.base import CHANCE_SEAT, Outcome, ranks_from_scores
from arena.games.seasons.rules import parse_action as seasons_action
from arena.games.sonnentau.text import board_rows, choice_label
from arena.referee.match import play_game, resolve_game_options
from arena.referee.record import game_log, read_records
from arena.tournaments.matches import play_match

SEASONS = find_game("seasons")
SONNENTAU = find_game("sonnentau")
WIDTH, HEIGHT = 80, 24
ROOT = Path(__file__).resolve().parent.parent
ARENA = ROOT / ".venv" / "bin" / "arena"
LOG_LINE = re.compile(r"^(\d+)\. seat (\d)\b")


def random_bot(game: str):
    return load_bot(f"bots/{game}/random_bot.py").player


# -- the Sonnentau board in text ----------------------------------------------------------


def cell(rows: list[str], track: str, position: int) -> str:
    """What the drawing shows at ``position`` of ``track``: the cell under that ruler number."""
    ruler_ends = [m.end() for m in re.finditer(r"\d\d", rows[0])]
    row = next(r for r in rows[1:] if r.split()[0] == track)
    end = ruler_ends[position]
    return row[end - 3:end].strip()


def track_position(state, track: str, field: str) -> int:
    board = state.board
    return board.track(track).fields.index(board.index[field])


def test_every_piece_stands_in_its_track_rows_under_its_position():
    state = SONNENTAU.initial_state({})
    state.set_place(1, 3, "UR07")
    state.set_place(0, 0, "X")     # the crossing of M and UR
    state.set_place(0, 1, "B13")
    rows = board_rows(state)
    assert cell(rows, "UR", 7) == "r3"
    assert cell(rows, "M", track_position(state, "M", "X")) == "y0"
    assert cell(rows, "B", 13) == "y1"
    assert cell(rows, "M", 0) == "OR"                       # an empty crossing: its name
    assert cell(rows, "F", track_position(state, "F", "Z")) == "Z"
    assert cell(rows, "B", 0) == "."                        # an empty plain field
    assert any(re.search(r"^ G +Z +\. +\. GOAL\b", row) for row in rows)
    assert all(len(row) <= WIDTH for row in rows)


def test_a_piece_on_a_crossing_is_drawn_once_and_its_other_row_shows_it_taken():
    state = SONNENTAU.initial_state({})
    state.set_place(0, 0, "X")     # M03 and UR09
    state.set_place(1, 2, "Z")     # F04 and G00
    rows = board_rows(state)
    text = "\n".join(rows)
    assert text.count("y0") == 1 and text.count("r2") == 1
    assert cell(rows, "M", track_position(state, "M", "X")) == "y0"   # the upper row
    assert cell(rows, "UR", track_position(state, "UR", "X")) == "*y"
    assert cell(rows, "F", track_position(state, "F", "Z")) == "r2"
    assert cell(rows, "G", 0) == "*r"
    state.set_place(0, 0, "M04")
    text = "\n".join(board_rows(state))
    assert "*r in the lower" in text   # the legend names the mark that is on the board


def test_the_board_keeps_its_cell_width_whatever_stands_where():
    empty = SONNENTAU.initial_state({})
    taken = SONNENTAU.initial_state({})
    taken.set_place(0, 0, "YLI")   # the only three-letter name, on UL00 and F12
    taken.set_place(0, 1, "UL02")
    for width in (WIDTH, 40):
        before, after = board_rows(empty, width), board_rows(taken, width)
        assert before[0] == after[0]                            # the same ruler
        assert [len(r) for r in before] == [len(r) for r in after]
    rows = board_rows(taken)
    assert cell(rows, "UL", 0) == "y0" and cell(rows, "UL", 2) == "y1"
    assert cell(rows, "F", 12) == "*y"


def test_the_board_explains_its_names_and_points_to_the_picture(tmp_path):
    def legend(state, fits: bool = True) -> str:
        rows = board_rows(state)
        assert all(len(row) <= WIDTH for row in rows) or not fits
        g_row = rows.index(next(r for r in rows if r.startswith(" G ")))
        return " ".join(row.strip() for row in rows[g_row + 1:])

    text = legend(SONNENTAU.initial_state({}))
    assert text.startswith("OL ML MR OR: entries.")
    assert "A name on two rows is one field (a crossing)" in text
    assert "*y in the lower" in text and "Picture: arena board --svg board.svg" in text
    assert len(board_rows(SONNENTAU.initial_state({}))) == 9   # two rows of legend
    board = tmp_path / "a-folder-name-long-enough-for-the-path-to-fill-a-row" / "mine.yaml"
    board.parent.mkdir()
    board.write_text((ROOT / "arena/games/sonnentau/board.yaml").read_text())
    # a path longer than a row stays whole on its own row, ready to copy
    assert f"arena board --board {board} --svg board.svg" in legend(
        SONNENTAU.initial_state({"board": str(board)}), fits=False)


def test_a_narrow_board_drawing_wraps_its_tracks_and_keeps_every_field():
    state = SONNENTAU.initial_state({})
    rows = board_rows(state, width=40)
    assert all(len(row) <= 40 for row in rows)
    ur = rows.index(next(r for r in rows if r.startswith(" UR ")))
    cells = " ".join(rows[ur:ur + 2])[4:].split()
    assert len(cells) == len(state.board.track("UR").fields)
    assert rows[ur + 2].startswith(" F ")


def random_states(game, options, seed: int, every: int = 5):
    """Positions of a game played at random, at decisions, every ``every``-th."""
    rng = random.Random(seed)
    state = game.initial_state(resolve_game_options(game, options, options.get("seats", 2)))
    step = 0
    while not state.is_terminal:
        if state.current_seat == CHANCE_SEAT:
            state.apply(rng.choice(state.chance_outcomes())[0])
            continue
        step += 1
        if step % every == 0:
            yield state.copy()
        state.apply(rng.choice(list(state.legal_actions())))
    yield state


@pytest.mark.parametrize("options", [{"seats": 2}, {"seats": 4, "dice": "miwin"}])
def test_the_sonnentau_position_fits_80_columns_and_names_every_piece(options):
    options = {**options, "turn_limit": 150}
    seen_hit = False
    for state in random_states(SONNENTAU, options, seed=3):
        text = SONNENTAU.render(state)
        assert all(len(line) <= WIDTH for line in text.splitlines()), text
        for pieces in state.pieces:
            for piece, place in enumerate(pieces):
                if place >= 0:
                    assert re.search(rf"\bp{piece} {state.board.field_ids[place]}\b", text)
        if state.hit is not None:
            seen_hit = True
            assert "waits to be relocated by seat" in text
    assert seen_hit


def cells_by_end(row: str) -> dict[int, str]:
    """The words of a row by the column where each ends (the cells are right-aligned)."""
    return {m.end(): m[0] for m in re.finditer(r"\S+", row)}


def test_the_seasons_position_fits_and_puts_each_total_under_its_sector():
    state = SEASONS.initial_state({})
    for text in ("dice:6,4,3", "keep", "place:max-8", "dice:1,1,2", "keep", "place:min-17"):
        state.apply(seasons_action(text))
    rows = SEASONS.render(state).splitlines()
    assert all(len(row) <= WIDTH for row in rows)
    header, outer, inner = rows[1], rows[2], rows[3]
    assert outer.startswith("seat 0 (outer)") and inner.startswith("seat 1 (inner)")
    sector_end = {value: end for end, value in cells_by_end(header).items()}
    assert cells_by_end(outer)[sector_end["8"]] == "13"
    assert cells_by_end(inner)[sector_end["17"]] == "4"
    assert cells_by_end(inner)[sector_end["8"]] == "."
    assert rows[-1] == "score 0-0   seat 0 to move"


def test_short_choice_labels_read_like_the_log_with_the_pieces_as_drawn():
    state = example_position("standard", "dice:2,6")     # seat 0 on X (p3) and Y (p1)
    label = {str(a): choice_label(state, a) for a in state.legal_actions()}
    assert label["enter:d1:p0:OL:M:cw"] == "6: y0 in at OL, M cw -> X, hits y3"
    assert label["move:d0:p1:UR:ccw"] == "2: y1 Y UR ccw -> UR07"
    state.apply(SONNENTAU.parse_action("enter:d1:p0:OL:M:cw"))
    relocations = {str(a): choice_label(state, a) for a in state.legal_actions()}
    assert relocations["relocate:UR07"] == "y3 -> UR07, 10 to go"  # UR06 Y F00-F03 Z G1 G2 GOAL
    home = SONNENTAU.initial_state({})
    home.set_place(0, 2, "G2")
    home.apply(SONNENTAU.parse_action("dice:1,3"))
    labels = [choice_label(home, a) for a in home.legal_actions()]
    assert "1: y2 G2 G in -> home" in labels and "1: y0 in at OL" in labels


# -- the announcer ---------------------------------------------------------------------------


GAMES = [("seasons", {}), ("sonnentau", {"seats": 2}),
         ("sonnentau", {"seats": 4, "dice": "miwin", "turn_limit": 300})]


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_the_announced_lines_are_the_game_log(name, options):
    game = find_game(name)
    seats = options.get("seats", 2)
    options = resolve_game_options(game, options, seats)
    log = move_log(game, options)
    told: list[str] = []
    record = play_game(game, [random_bot(name) for _ in range(seats)], 11, options,
                       on_move=lambda state, move: told.extend(log.add(state, move)))
    assert len(told) > 10
    assert told == game_log(record)[:-1]


def finished_lines(game, options, actions: list[str], seats: int) -> list[str]:
    """The log lines of the turns (rolls) finished after ``actions``, at a decision."""
    zero = (0.0,) * seats
    lines = game.describe_game(options, actions, Outcome(ranks_from_scores(zero), zero),
                               [""] * seats)
    return lines[:-2]  # the result, and the line of the turn being played


# -- screens at 80×24, through the player itself ---------------------------------------------


class ScriptedPerson:
    """Plays a whole game as a person would answer: mostly a legal number, now and then a
    page turn, a mistake or the full list, Enter for a single choice. Keeps every screen,
    with the position it was about and the moves played before it."""

    def __init__(self, game, options, seat: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.game, self.seat = game, seat
        self.terminal = Terminal(game, echo=self.rows_append, size=lambda: (WIDTH, HEIGHT),
                                 prompt=self.prompt)
        self.human = HumanPlayer(game, terminal=self.terminal)
        self.decide = self.human.act
        self.rows: list[str] = []
        self.moves: list[str] = []
        self.position: list[str] = []
        self.screens: list[dict] = []
        self.last_answer = ""

    def rows_append(self, text: str) -> None:
        assert "\n" not in text
        self.rows.append(text)

    def act(self, observation):
        state = self.game.state_from_json(observation.state)
        self.position = self.game.render(state).splitlines()
        return self.decide(observation)

    def prompt(self, text: str) -> str:
        self.screens.append({"rows": [*self.rows, text], "after": self.last_answer,
                             "position": self.position, "moves": list(self.moves)})
        self.rows = []
        count = int(m[1]) if (m := re.search(r"\(1-(\d+)", text)) else 1
        answer = self.rng.choice(["+", "bogus", "?", *[str(self.rng.randint(1, count))] * 6])
        self.last_answer = "" if "press Enter" in text.lower() else answer
        return self.last_answer

    def on_move(self, state, move) -> None:
        self.moves.append(move.action)
        self.terminal.on_move(state, move)


def play_with_a_person(name: str, options: dict, seat: int, seed: int):
    game = find_game(name)
    seats = options.get("seats", 2)
    options = resolve_game_options(game, options, seats)
    person = ScriptedPerson(game, options, seat, seed)
    players = [random_bot(name) for _ in range(seats)]
    players[seat] = person.human
    person.human.act = person.act  # type: ignore[method-assign]
    record = play_game(game, players, seed, options, on_move=person.on_move)
    return game, options, record, person


def announced(rows: list[str]) -> list[str]:
    """The log lines told in ``rows`` (their first rows, each once, in order)."""
    first: dict[int, str] = {}
    for row in rows:
        if (m := LOG_LINE.match(row)) and int(m[1]) not in first:
            first[int(m[1])] = row
    assert sorted(first) == list(range(1, len(first) + 1))
    return [first[n] for n in sorted(first)]


def contains_block(rows: list[str], block: list[str]) -> bool:
    return any(rows[i:i + len(block)] == block for i in range(len(rows) - len(block) + 1))


@pytest.mark.parametrize(("name", "options", "seat"), [
    ("seasons", {}, 0), ("seasons", {}, 1), ("sonnentau", {"turn_limit": 120}, 1),
    ("sonnentau", {"seats": 4, "dice": "miwin", "turn_limit": 120}, 2)])
def test_every_screen_fits_80x24_and_shows_the_position_and_every_move_so_far(name, options,
                                                                             seat):
    game, options, record, person = play_with_a_person(name, options, seat, 5)
    assert record.seats[seat].status == "ok" and len(person.screens) > 20
    seen: list[str] = []
    for screen in person.screens:
        rows = screen["rows"]
        seen += rows
        assert all(len(row) <= WIDTH for row in rows), rows
        if screen["after"] == "?":         # the full list may be longer than a screen
            continue
        assert len(rows) <= HEIGHT, "\n".join(rows)
        if rows[-1] == MORE:
            continue
        assert rows[-1].startswith(f"You are seat {seat} (")
        assert contains_block(rows, screen["position"]), "\n".join(rows)
        assert "(1-1)" not in rows[-1]
        finished = finished_lines(game, options, screen["moves"], len(record.seats))
        assert announced(seen) == [fit([line], WIDTH)[0] for line in finished]
    others = [line for line in announced(seen) if LOG_LINE.match(line)[2] != str(seat)]
    assert others


@pytest.mark.parametrize(("name", "options"), [("seasons", {}),
                                             ("sonnentau", {"turn_limit": 40})])
def test_each_game_of_a_match_is_told_from_its_first_line_on(name, options):
    game = find_game(name)
    person = ScriptedPerson(game, options, seat=0, seed=2)
    players = [person.human, random_bot(name)]
    records = [record for _order, record in
               play_match(game, players, 4, 2, options, on_move=person.human.on_move)]
    rows = [row for screen in person.screens for row in screen["rows"]] + person.rows
    intros = [f"{game.info.title}: you are seat {seat} ({seat_name(game, seat)}); seat 0 "
              "begins." for seat in (0, 1)]
    starts = [rows.index(intro) for intro in intros]  # a screen shown again repeats them
    for record, first, end in zip(records, starts, [starts[1], len(rows)], strict=True):
        assert announced(rows[first:end]) == [fit([line], WIDTH)[0]
                                              for line in game_log(record)[:-1]]


def test_more_moves_than_fit_above_the_position_wait_for_enter():
    screens: list[list[str]] = []
    rows: list[str] = []

    def prompt(text: str) -> str:
        screens.append([*rows, text])
        rows.clear()
        return ""

    terminal = Terminal(SEASONS, echo=rows.append, size=lambda: (80, 12), prompt=prompt)
    terminal.tell([f"line {n}" for n in range(20)], keep_free=5)
    screens.append(rows)
    assert [len(screen) for screen in screens] == [8, 8, 6]   # 7 leave 5 of 12 free, + pause
    assert all(screen[-1] == MORE for screen in screens[:-1])
    assert [row for screen in screens for row in screen if row != MORE] == [
        f"line {n}" for n in range(20)]


def decision(player: HumanPlayer, state):
    return player.act(state.observation(state.current_seat))


def screens_of(game, state, answers: list[str], size=(WIDTH, HEIGHT)):
    """The screens a person sees at ``state`` answering ``answers`` in turn (each screen
    ends with its prompt), and the action chosen."""
    replies = iter(answers)
    screens: list[str] = []
    rows: list[str] = []

    def prompt(text: str) -> str:
        screens.append("\n".join([*rows, text]))
        rows.clear()
        return next(replies)

    player = HumanPlayer(game, prompt=prompt, echo=rows.append, size=lambda: size)
    return screens, decision(player, state)


def test_many_choices_come_in_pages_and_all_of_them_on_request():
    state = SONNENTAU.initial_state({})
    state.apply(SONNENTAU.parse_action("dice:5,6"))
    actions = state.legal_actions()
    listed = screens_of(SONNENTAU, state, ["?", *[""] * 10, "1"])[0][1:]  # Enter each screen
    last = next(n for n, screen in enumerate(listed) if "board again" in screen)
    screens, chosen = screens_of(SONNENTAU, state, ["+", "?", *[""] * (last + 1), "nonsense",
                                                    str(len(actions))])
    assert chosen == actions[-1]
    first, second, *full, again, mistake = screens
    assert "page 1/2" in first and " 1. 5: y0 in at OL, M cw -> M04" in first
    assert "page 2/2" in second and f"{len(actions)}. 6: " in second
    assert "page 2/2" not in first and " 1. 5:" not in second
    # a page turn moves nothing else: the board stayed, the last page was 6 rows shorter
    assert len(first.splitlines()) == len(second.splitlines())
    assert first.splitlines()[:5] == second.splitlines()[:5]
    # the full list a screen at a time: it scrolled its first choices off 24 rows
    assert len(full) >= 2 and all(s.splitlines()[-1] == MORE_CHOICES for s in full[:-1])
    assert full[-1].splitlines()[-1].startswith("Your choice (1-32, Enter shows the board")
    assert all(f"[{a}]" in "\n".join(full) for a in actions)
    assert all(not s.splitlines()[0].startswith("    [") for s in full)  # no choice cut
    assert "page 2/2" in again and "is not a choice" not in again
    assert "Enter alone" not in again    # the full list's Enter shows the board again
    assert "'nonsense' is not a choice: type 1-32 and Enter (+/- other pages, ? all)" in mistake
    assert all(len(s.splitlines()) <= 24 for s in (first, second, *full, again, mistake))
    _, typed = screens_of(SONNENTAU, state, ["?", "3"])  # a choice typed on the way
    assert typed == actions[2]


def test_the_prompt_offers_the_page_turns_there_are():
    state = SONNENTAU.initial_state({})
    state.apply(SONNENTAU.parse_action("dice:5,6"))
    screens, _chosen = screens_of(SONNENTAU, state, ["+"] * 6 + ["1"], size=(WIDTH, 18))
    prompts = [screen.splitlines()[-1] for screen in screens]
    count = int(re.search(r"page 1/(\d+)", prompts[0])[1])
    assert count >= 3
    assert [re.search(r"page (\d+)/", p)[1] for p in prompts] == [
        str(n % count + 1) for n in range(7)]                 # + after the last: the first
    first, middle, last = prompts[0], prompts[1], prompts[count - 1]
    assert first.endswith(f"Your choice (1-32; page 1/{count}: + more, ? all):")
    assert middle.endswith(f"Your choice (1-32; page 2/{count}: + more, - back, ? all):")
    assert last.endswith(f"Your choice (1-32; page {count}/{count}: - back, ? all):")
    assert all(len(row) <= WIDTH for screen in screens for row in screen.splitlines())
    assert all(len(screen.splitlines()) <= 18 for screen in screens)


def test_enter_alone_at_several_choices_says_what_to_type():
    state = SONNENTAU.initial_state({})
    state.apply(SONNENTAU.parse_action("dice:5,6"))
    screens, chosen = screens_of(SONNENTAU, state, ["", "2"])
    assert chosen == state.legal_actions()[1]
    assert screens[1].splitlines()[-2] == ("Enter alone chooses nothing: type 1-32 and Enter "
                                          "(+/- other pages, ? all)")
    seasons = SEASONS.initial_state({})
    seasons.apply(seasons_action("dice:5,4,6"))
    screens, chosen = screens_of(SEASONS, seasons, ["", "+", "1"])
    assert str(chosen) == "keep"
    assert "Enter alone chooses nothing: type 1-8 and Enter (? lists all)" in screens[1]
    assert "All 8 choices are on this page: type 1-8 and Enter (? lists all)" in screens[2]


def test_seasons_re_roll_choices_name_the_dice_by_value_and_place():
    state = SEASONS.initial_state({})
    state.apply(seasons_action("dice:5,4,6"))
    labels = {str(a): SEASONS.describe_action(state, a) for a in state.legal_actions()}
    assert labels == {
        "keep": "keep 5,4,6 = 15",
        "reroll:0": "re-roll the 5 (die 1), keep 4,6",
        "reroll:1": "re-roll the 4 (die 2), keep 5,6",
        "reroll:2": "re-roll the 6 (die 3), keep 5,4",
        "reroll:0,1": "re-roll the 5 and 4 (dice 1, 2), keep 6",
        "reroll:0,2": "re-roll the 5 and 6 (dice 1, 3), keep 4",
        "reroll:1,2": "re-roll the 4 and 6 (dice 2, 3), keep 5",
        "reroll:0,1,2": "re-roll all three dice"}
    screens, _chosen = screens_of(SEASONS, state, ["1"])
    rows = screens[0].splitlines()
    assert "slot" not in screens[0]
    assert any(row.startswith("1. keep 5,4,6 = 15") and row.endswith(
        "5. re-roll the 5 and 4 (dice 1, 2), keep 6") for row in rows)   # two columns


def test_a_single_choice_is_shown_and_played_on_enter():
    state = SEASONS.initial_state({})
    state.fields[0] = [9] * 10 + [0]   # one open field left: min-17
    state.fields[1] = [5] * 11
    state.apply(seasons_action("dice:1,2,3"))
    state.apply(seasons_action("keep"))
    prompts: list[str] = []
    rows: list[str] = []
    player = HumanPlayer(SEASONS, prompt=lambda text: prompts.append(text) or "",
                         echo=rows.append, size=lambda: (80, 24))
    assert str(decision(player, state)) == "place:min-17"
    assert prompts == ["You are seat 0 (outer circle). Press Enter to play it:"]
    assert "Only one choice: 6 on min-17 against 5" in rows


@pytest.mark.parametrize(("stop", "code"), [(KeyboardInterrupt, 130), (EOFError, 1)])
def test_stopping_at_a_prompt_abandons_the_game_past_the_referee(stop, code):
    def prompt(_text: str) -> str:
        raise stop

    player = HumanPlayer(SEASONS, prompt=prompt, echo=lambda _text: None)
    with pytest.raises(GameAbandoned) as stopped:
        play_game(SEASONS, [player, random_bot("seasons")], 1)
    assert stopped.value.exit_code == code


def test_the_end_of_the_input_abandons_the_game_without_a_record(root, monkeypatch, tmp_path):
    monkeypatch.chdir(root)
    record = tmp_path / "games.jsonl"
    result = CliRunner().invoke(cli, ["play", "seasons", "human", "bots/seasons/random_bot.py",
                                      "--seed", "1", "--json", str(record)], input="1\n1\n")
    assert result.exit_code == 1
    assert "game abandoned: the input ended" in result.output
    assert "Traceback" not in result.output and not record.exists()


def test_grid_fills_columns_top_down_within_the_width_and_pages_cover_every_item():
    items = numbered([f"label {n}" + "x" * (n % 7) for n in range(1, 41)])
    rows = grid(items, 60)
    assert all(len(row) <= 60 for row in rows) and len(rows) < len(items)
    assert rows[0].startswith(" 1. ") and rows[1].startswith(" 2. ")
    cut = pages(items, 60, rows=5)
    assert [i for page in cut for i in page] == list(range(len(items)))
    assert all(len(grid(items[p.start:p.stop], 60)) <= 5 for p in cut) and len(cut) > 1


# -- the real command in a pseudo-terminal -----------------------------------------------------


PROMPT = re.compile(r"You are seat \d \([^)]*\)\. [^\r\n]*: $")


class Pty:
    """``arena`` run in a pseudo-terminal of 80×24 that is its controlling terminal, so that
    Ctrl-C there interrupts it as at a person's terminal."""

    def __init__(self, *args: str, height: int = HEIGHT) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, WIDTH, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env["PYTHONFAULTHANDLER"] = "1"  # a hung run shows its stacks on SIGABRT (see wait)
        self.process = subprocess.Popen(
            [str(ARENA), *args], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env,
            start_new_session=True, preexec_fn=_take_as_controlling_terminal)
        os.close(slave)
        self.master = master
        self.text = ""
        self.mark = 0

    def read_until(self, done: Callable[[str], bool], patience: float = 120) -> str:
        """Output since the last answer, read until ``done`` says so or the program has
        ended; the patience only keeps a broken run from hanging the suite."""
        give_up = time.monotonic() + patience
        while not done(self.text[self.mark:]) and time.monotonic() < give_up:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready and not self._read():
                break
            if not ready and self.process.poll() is not None:
                break
        return self.text[self.mark:]

    def _read(self) -> bool:
        try:
            data = os.read(self.master, 65536)
        except OSError:  # every end of the terminal is closed: the program has ended
            return False
        self.text += data.decode("utf-8", "replace")
        return bool(data)

    def screen(self) -> list[str]:
        """The rows printed since the last answer, up to and with the prompt."""
        out = self.read_until(lambda text: bool(PROMPT.search(text)))
        assert PROMPT.search(out), out[-2000:]
        rows = out.split("\r\n")
        if self.mark:
            return rows[1:]  # the first row is the echoed answer
        # The first screen begins with the game: not with what came before it (a warning,
        # where there is no sandbox for the bot).
        return rows[next(n for n, row in enumerate(rows) if ": you are seat" in row):]

    def answer(self, text: str) -> None:
        self.mark = len(self.text)
        os.write(self.master, text.encode() + b"\r")

    def interrupt(self) -> int:
        """Ctrl-C, as typed; the exit status."""
        self.mark = len(self.text)
        os.write(self.master, b"\x03")
        return self.wait()

    def wait(self) -> int:
        """The exit status, once the program has ended and all it printed is read."""
        self.read_until(lambda _text: False, patience=60)
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running: {self.diagnosis()}") from None

    def diagnosis(self) -> str:
        """What a hung program is doing: its children, then its threads' Python stacks
        (faulthandler's, on SIGABRT) and the end of what it printed."""
        pid = self.process.pid
        children = subprocess.run(["ps", "-o", "pid,stat,wchan:20,args", "--ppid", str(pid)],
                                  capture_output=True, text=True).stdout
        printed = self.text[-2000:]
        self.mark = len(self.text)
        os.kill(pid, signal.SIGABRT)
        stacks = self.read_until(lambda _text: False, patience=10).split("Extension modules")[0]
        return f"children:\n{children}\nlast printed:\n{printed}\nstacks:\n{stacks}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def _take_as_controlling_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.fixture
def pty():
    started: list[Pty] = []

    def start(*args: str) -> Pty:
        started.append(Pty(*args))
        return started[-1]

    yield start
    for term in started:
        term.close()


def check_fits(screen: list[str]) -> None:
    assert len(screen) <= HEIGHT, "\n".join(screen)
    assert all(len(row) <= WIDTH for row in screen), "\n".join(screen)


pytestmark_pty = pytest.mark.skipif(not ARENA.exists(), reason="needs .venv/bin/arena")


@pytestmark_pty
def test_a_whole_seasons_game_at_80x24_announces_every_move(pty, tmp_path):
    record_file = tmp_path / "game.jsonl"
    term = pty("play", "seasons", "human", "bots/seasons/random_bot.py", "--seed", "1",
                    "--json", str(record_file))
    seen: list[str] = []
    while "Result: " not in term.read_until(
            lambda text: "Result: " in text or bool(PROMPT.search(text))):
        screen = term.screen()
        check_fits(screen)
        assert any(row.startswith("seat 0 (outer)") for row in screen)
        assert screen[-1].startswith("You are seat 0 (outer circle).")
        seen += screen
        term.answer("" if "Press Enter" in screen[-1] else "1")
    assert term.wait() == 0
    ending = term.text[term.mark:].split("\r\n")
    (record,) = read_records(record_file)
    log = game_log(record, ["human", "random@1.0+7046ec"])  # the bot by its label
    assert announced(seen + ending) == [fit([line], WIDTH)[0] for line in log[:-1]]
    assert any(LOG_LINE.match(line)[2] == "1" for line in log[:-1])   # the bot's turns
    assert log[-1] in ending and "won by" in term.text[term.mark:]


@pytestmark_pty
@pytest.mark.parametrize("game", ["seasons", "sonnentau"])
def test_ctrl_c_at_80x24_abandons_the_game_cleanly(pty, tmp_path, game):
    record_file = tmp_path / "game.jsonl"
    term = pty("play", game, "human", f"bots/{game}/random_bot.py", "--seed", "1",
                    "--json", str(record_file))
    board = re.compile(r"won by  " if game == "seasons" else r" G +\S+ +\S+ +\S+ GOAL ")
    seen: list[str] = []
    for _ in range(12):
        screen = term.screen()
        check_fits(screen)
        assert any(board.match(row) for row in screen), "\n".join(screen)
        assert screen[-1].startswith("You are seat 0 (")
        seen += screen
        term.answer("" if "Press Enter" in screen[-1] else "1")
    seen += term.screen()
    told = announced(seen)
    assert len(told) >= 6 and any(LOG_LINE.match(line)[2] == "1" for line in told)
    assert term.interrupt() == 130
    after = term.text[term.mark:]
    assert "game abandoned" in after and "Traceback" not in term.text
    assert not record_file.exists()


BOARD_TOKEN = re.compile(r"(?<!\S)[yrbg][0-4](?!\S)")


@pytestmark_pty
def test_sonnentau_at_80x24_holds_its_board_still_and_answers_every_key(pty):
    term = pty("play", "sonnentau", "human", "bots/sonnentau/random_bot.py", "--seed", "3")
    rulers: set[str] = set()
    paged = 0
    for _ in range(40):
        screen = term.screen()
        check_fits(screen)
        ruler = next(n for n, row in enumerate(screen) if re.match(r" +00 +01 ", row))
        g_row = next(n for n, row in enumerate(screen) if row.startswith(" G "))
        rulers.add(screen[ruler])
        board = screen[ruler + 1:g_row + 1]
        tokens = [token for row in board for token in BOARD_TOKEN.findall(row)]
        assert len(tokens) == len(set(tokens)), "\n".join(board)     # each piece once
        assert "arena board --svg board.svg" in " ".join(screen[g_row + 1:g_row + 3])
        prompt = screen[-1]
        if "page 1/" in prompt and paged < 2:
            paged += 1
            term.answer("")
            again = term.screen()
            check_fits(again)
            assert again[-2].startswith("Enter alone chooses nothing: type 1-")
            count = int(re.search(r"page 1/(\d+)", prompt)[1])
            for page in range(2, count + 1):
                term.answer("+")
                turned = term.screen()
                check_fits(turned)
                assert f"page {page}/{count}" in turned[-1]
                assert ("+ more" in turned[-1]) == (page < count) and "- back" in turned[-1]
            term.answer("1")
        else:
            term.answer("" if "Press Enter" in prompt else "1")
        if paged == 2 and len(rulers) == 1:
            break
    assert paged == 2 and len(rulers) == 1
    assert term.interrupt() == 130


BETWEEN = "Press Enter for game 2 of 2: "


def first_of_two_games(pty: Callable[..., Pty]) -> tuple[Pty, str]:
    """``arena play`` of two Seasons games, a person in seat 0 of the first, played to the
    pause after it: the terminal and its output since the last answer."""
    term = pty("play", "seasons", "human", "bots/seasons/random_bot.py", "--seed", "1",
               "--games", "2")
    out = ""
    for _ in range(100):
        out = term.read_until(lambda text: BETWEEN in text or bool(PROMPT.search(text)))
        if BETWEEN in out:
            break
        term.answer("" if "Press Enter" in out.split("\r\n")[-1] else "1")
    return term, out


@pytestmark_pty
def test_between_a_persons_games_the_result_shows_and_waits_for_enter(pty):
    """Game 2's first screen followed game 1's last move at once, with no result between."""
    term, out = first_of_two_games(pty)
    assert out.rstrip().endswith(BETWEEN.rstrip()), out[-2000:]
    assert re.search(r"game 1 of 2: Result: \d+-\d+, seat \d \((human|random@1\.0\+7046ec)\) "
                     r"wins", out), out[-2000:]
    assert ": you are seat" not in out  # game 2 waits for Enter
    term.answer("")
    after = term.read_until(lambda text: bool(PROMPT.search(text)))
    assert ": you are seat 1" in after  # the seats swapped for game 2
    term.interrupt()


@pytestmark_pty
def test_ctrl_c_between_a_persons_games_shows_the_totals_of_those_played(pty):
    """It said "game abandoned" where no game was under way, and showed no totals."""
    term, _ = first_of_two_games(pty)
    assert term.interrupt() == 130
    ending = term.text[term.mark:]
    assert "interrupted after 1 of 2 games" in ending and "abandoned" not in ending
    assert "1 game of Seasons of the Sun" in " ".join(ending.split()), ending


@pytestmark_pty
def test_a_terminal_smaller_than_80x24_is_told_so_before_the_game():
    """At 60×20 every board row wrapped, and nothing said the screens need 80×24."""
    term = Pty("play", "sonnentau", "human", "bots/sonnentau/random_bot.py", "--seed", "1",
               height=20)
    try:
        out = term.read_until(lambda text: bool(PROMPT.search(text)))
        assert "this terminal is 80×20: the game's screens are made for 80×24 or more" in \
            " ".join(out.split()), out[-2000:]
    finally:
        term.close()


def test_between_games_the_result_names_the_bots_by_the_seats_they_sat_in():
    """Game 2 swaps the seats: its result named the first bot for seat 0 ("seat 0 (human)
    wins" where greedy sat there and won)."""
    from arena.cli.play import _pause

    told: list[str] = []

    class Told:
        def tell(self, lines):
            told.extend(lines)

        def ask(self, text):
            return ""

        def answered(self):
            pass

    players = [load_bot(f"bots/seasons/{name}.py").player for name in ("greedy", "random_bot")]
    record = play_game("seasons", players, 1)  # greedy in seat 0
    winner = record.ranks.index(0)
    pause = _pause(Told(), ["human", "greedy@1.0+f00438"], 3)  # the bots: human, greedy
    pause(1, [1, 0], record)  # seat 0: bot 1 (greedy), seat 1: bot 0 (human)
    expected = ["greedy@1.0+f00438", "human"][winner]
    assert f"seat {winner} ({expected}) wins" in told[-1], told
