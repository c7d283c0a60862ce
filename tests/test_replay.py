"""Replay JSON (arena.reports.replay, ``arena export`` and ``arena view``): the schema, the
conversion both ways, the files, clear errors for bad ones, and the viewer page.

The games are played for real and quickly (bots in-process): a Seasons pairing of a
greedy bot and a crasher whose name tries to be HTML, a short Sonnentau game of three
bots, and a Seasons tournament with a secret seed that is not complete.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from report_scenarios import CRASHER, EVIL

import arena
from arena.cli import cli
from arena.cli.export import replay_page_html
from arena.games import find_game
from arena.referee.record import replay
from arena.reports.replay import (
    FORMAT,
    ReplayError,
    check_replay,
    from_replay,
    read_replays,
    stored_replays,
    to_replay,
)
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

try:  # the browser test reuses the report's browser fixture and helpers
    from test_report_browser import CHROMEDRIVER, CHROMIUM, browser, js, load  # noqa: F401
except pytest.skip.Exception:  # Selenium is missing: that module skips itself on import
    CHROMIUM = CHROMEDRIVER = None

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs/replay.schema.json").read_text())
GREEDY = "bots/seasons/greedy.py"
SEASONS = {"name": "replay-seasons", "game": "seasons", "seed": 3, "games_per_pairing": 3,
           "bots": [GREEDY, {"spec": CRASHER, "name": EVIL}]}
SONNENTAU = {"name": "replay-sonnentau", "game": "sonnentau", "seed": 9, "seats": 3,
             "options": {"turn_limit": 40},
             "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
                      {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"}]}
SECRET = {"name": "replay-secret", "game": "seasons", "seed": "secret",
          "bots": [GREEDY, "bots/seasons/random_bot.py"]}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """The three tournaments in one database; the secret one is marked running again."""
    path = tmp_path_factory.mktemp("replays") / "arena.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with Store(path) as store:
            for data in (SEASONS, SONNENTAU, SECRET):
                run_tournament(parse_config({**data, "workers": 1, "isolation": "none",
                                             "db": str(path)}), store)
            store.set_status(store.find_tournament(SECRET["name"]).id, "running")
    return path


@pytest.fixture
def store(db) -> Any:
    with Store(db) as opened:
        yield opened


def exported(db: Path, name: str, *extra: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["export", name, "--db", str(db), *extra])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def validator() -> Any:
    return jsonschema.Draft202012Validator(
        SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


# -- the format ------------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", [SEASONS["name"], SONNENTAU["name"], SECRET["name"]])
def test_every_exported_game_matches_the_schema_and_its_stored_game(store, db, name):
    tournament = store.find_tournament(name)
    rows = list(store.games(tournament.id))
    replays = exported(db, name)
    assert len(replays) == len(rows) > 0
    labels = {bot: store.bot(bot) for bot in store.entrants(tournament.id)}
    entrants = store.entrants(tournament.id)
    for number, (data, row) in enumerate(zip(replays, rows, strict=True), 1):
        validator().validate(data)
        check_replay(data)
        record = store.record(tournament.id, row.key)
        assert data["format"] == FORMAT and data["version"] == 1
        assert data["tournament"] == {"name": name, "key": row.key, "number": number,
                                      "round": row.round, "table": row.table, "set": row.set,
                                      "rotation": row.rotation}
        assert [s["label"] for s in data["seats"]] == [
            labels[entrants[p]].label for p in row.seats]
        assert [s["revision"] for s in data["seats"]] == [
            labels[entrants[p]].identity.code_hash for p in row.seats]
        assert data["outcome"] == {"ranks": list(row.ranks), "scores": list(row.scores),
                                   "termination": row.termination}
        assert [m.get("roll") or m["action"] for m in data["moves"]] == [
            m.action for m in record.moves]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["finished"])
        assert data["seed"] == (None if name == SECRET["name"] else row.seed)


def test_a_replay_converts_to_a_record_and_back_unchanged(db):
    for data in exported(db, SONNENTAU["name"]) + exported(db, SEASONS["name"]):
        record = from_replay(data)
        assert to_replay(record) == data
        state = replay(record)
        if record.termination == "normal":
            assert state.is_terminal and state.outcome().ranks == record.ranks


def test_a_record_played_anywhere_converts_with_nulls_for_what_it_does_not_know():
    import arena

    bots = [arena.load_bot(f"bots/seasons/{name}.py").player for name in ("greedy", "random_bot")]
    record = arena.play_game("seasons", bots, seed=7)
    data = to_replay(record)
    validator().validate(data)
    assert data["tournament"] is None and data["finished"] is None
    assert [s["revision"] for s in data["seats"]] == [None, None]
    assert from_replay(data).moves[0] == record.moves[0]


def test_failure_details_are_kept_unless_left_out(db):
    crashed = [d for d in exported(db, SEASONS["name"]) if d["outcome"]["termination"] == "crash"]
    assert crashed, "the crasher should crash in a game of an odd seed"
    seat = next(s for s in crashed[0]["seats"] if s["status"] == "crash")
    assert "Traceback" in seat["detail"] and seat["name"] == EVIL
    quiet = [d for d in exported(db, SEASONS["name"], "--no-details")
             if d["outcome"]["termination"] == "crash"]
    assert all(s["detail"] == "" for d in quiet for s in d["seats"])


def test_the_secret_seed_shows_once_the_tournament_is_complete(db, store):
    tournament = store.find_tournament(SECRET["name"])
    assert {d["seed"] for d in stored_replays(store, tournament)} == {None}
    store.set_status(tournament.id, "complete")
    try:
        complete = store.find_tournament(SECRET["name"])
        seeds = [d["seed"] for d in stored_replays(store, complete)]
        assert seeds == [row.seed for row in store.games(tournament.id)]
    finally:
        store.set_status(tournament.id, "running")


def test_the_export_streams(store):
    replays = stored_replays(store, store.find_tournament(SEASONS["name"]))
    assert next(replays)["tournament"]["number"] == 1
    replays.close()


# -- files ---------------------------------------------------------------------------------


def test_a_jsonl_file_and_a_folder_hold_the_same_games(db, tmp_path):
    runner = CliRunner()
    lines, folder = tmp_path / "games.jsonl", tmp_path / "games"
    for out in (lines, folder):
        result = runner.invoke(cli, ["export", SONNENTAU["name"], "--db", str(db),
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert f"wrote 3 replays of '{SONNENTAU['name']}' to {out}" in result.output
    files = sorted(path.name for path in folder.iterdir())
    assert files == ["0001-r0-t0-s0-o0.json", "0002-r0-t0-s0-o1.json", "0003-r0-t0-s0-o2.json"]
    from_lines = [(where, record) for where, record in read_replays(lines)]
    from_folder = [record for _, record in read_replays(folder)]
    assert [where for where, _ in from_lines] == [f"{lines}, line {n}" for n in (1, 2, 3)]
    assert [r for _, r in from_lines] == from_folder
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([json.loads(p.read_text()) for p in sorted(folder.iterdir())]))
    assert [r for _, r in read_replays(listed)] == from_folder
    again = runner.invoke(cli, ["export", SONNENTAU["name"], "--db", str(db), "--out",
                                str(lines)])  # it was replaced without a word; play refuses
    assert again.exit_code == 1 and "exists already; pass --overwrite" in again.output
    assert runner.invoke(cli, ["export", SONNENTAU["name"], "--db", str(db), "--out",
                               str(lines), "--overwrite"]).exit_code == 0


def test_the_latest_tournament_by_default_and_a_missing_one_is_one_line(db):
    runner = CliRunner()
    latest = runner.invoke(cli, ["export", "--db", str(db)])
    assert latest.exit_code == 0
    assert json.loads(latest.stdout.splitlines()[0])["tournament"]["name"] == SECRET["name"]
    missing = runner.invoke(cli, ["export", "nope", "--db", str(db)])
    assert missing.exit_code == 1
    assert missing.output.strip().splitlines() == [
        f"Error: no tournament 'nope' in {db}; it has, latest first: 'replay-secret', "
        f"'replay-sonnentau', 'replay-seasons' (`arena report --list --db {db}` lists them "
        "all)"]


def good(db: Path) -> dict[str, Any]:
    return exported(db, SEASONS["name"])[0]


BAD: list[tuple[str, Any, str]] = [
    ("format", "chess-replay", "format: 'chess-replay', not 'arena-replay'"),
    ("version", 2, "version: 2 is newer than this arena reads (1); update arena"),
    ("game", "chess", "game: 'chess' is not one of seasons, sonnentau"),
    ("seed", "7", "seed: '7' is neither an integer nor null"),
    ("seats.1.status", "lost", "seats[1].status: 'lost' is not one of ok, crash, timeout, "
                               "illegal-action"),
    ("seats.0.isolation", "docker", "seats[0].isolation: 'docker' is not one of sandbox, "
                                    "process, none or null"),
    ("seats.0.name", "", "seats[0].name: expected a non-empty string"),
    ("moves.1.seat", 5, "moves[1].seat: 5 is not a seat (0 to 1)"),
    ("moves.0.roll", "3,4,5", "moves[0].roll: '3,4,5' is not dice:"),
    ("moves.1.seconds", -1, "moves[1].seconds: -1 is not a number of seconds"),
    ("outcome.ranks", [0], "outcome.ranks: 1 values for 2 seats"),
    ("outcome.scores", [1, "x"], "outcome.scores: [1, 'x'] are not all numbers"),
    ("finished", "yesterday", "finished: 'yesterday' is not an ISO 8601 time"),
    ("tournament.number", "1", "tournament.number: '1' is not an integer"),
    ("tournament.number", 0, "tournament.number: 0 is not an integer from 1"),
    ("tournament.round", -1, "tournament.round: -1 is not an integer from 0"),
    ("finished", "2025-06-01", "finished: '2025-06-01' is not an ISO 8601 time"),
    ("finished", "2025-06-01T12:00:00", "finished: '2025-06-01T12:00:00' is not an ISO 8601"),
    ("arena", 5, "arena: expected a non-empty string"),
    ("moves.1.action", "place:max-99", "moves[1].action: 'place:max-99' is not legal here"),
    ("moves.1.action", "reroll:3", "moves[1].action: 'reroll:3' is not legal here"),
    ("moves.0.roll", "dice:1,2,3,4", "moves[0].roll: 'dice:1,2,3,4' is not legal here"),
]


def changed(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    target: Any = data
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(("path", "value", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_replay_is_refused_by_the_check_and_by_the_schema(db, path, value, message):
    data = changed(good(db), path, value)
    with pytest.raises(ReplayError) as raised:
        check_replay(data)
    assert str(raised.value).startswith(message)
    assert list(validator().iter_errors(data)), f"the schema accepts {path}={value!r}"


def test_what_the_schema_cannot_say_the_check_does(db):
    """Lengths that must match the seats are beyond JSON Schema: arena's check has them."""
    three = changed(good(db), "outcome.ranks", [0, 1, 1])
    validator().validate(three)
    with pytest.raises(ReplayError, match=r"^outcome.ranks: 3 values for 2 seats"):
        check_replay(three)


def test_a_wrong_number_of_seats_is_said_before_any_move():
    record = arena.make("sonnentau", seats=3, turn_limit=10).run(["random"] * 3, seed=1)
    replay = to_replay(record)
    alone = {**copy.deepcopy(replay), "seats": replay["seats"][:1]}
    with pytest.raises(ReplayError, match=r"^seats: 1, but sonnentau is played by 2 to 4 "):
        check_replay(alone)
    unsaid = copy.deepcopy(replay)
    del unsaid["options"]["seats"]
    with pytest.raises(ReplayError, match=r"options.seats is missing: 2 is its default"):
        check_replay(unsaid)


@pytest.mark.parametrize(("path", "value", "message"), [
    ("moves.1.action", "place:max-13", "moves[1].action: 'place:max-13' is not legal here"),
    ("moves.0.roll", "dice:7,7,7", "moves[0].roll: 'dice:7,7,7' is not legal here"),
    ("moves.0.roll", "dice:1,2", "moves[0].roll: 'dice:1,2' is not legal here"),
    ("moves.1.seat", 1, "moves[1].seat: 1, but seat 0 is to act"),
])
def test_a_well_formed_move_the_rules_forbid_is_refused_by_the_check(db, path, value, message):
    """The check replays the moves through the rules, as arena.replay and the viewer do."""
    data = changed(good(db), path, value)
    validator().validate(data)  # the schema cannot know the position
    with pytest.raises(ReplayError) as raised:
        check_replay(data)
    assert str(raised.value).startswith(message)


def _outcome_changed(data: dict[str, Any], **outcome: Any) -> dict[str, Any]:
    return {**copy.deepcopy(data), "outcome": {**data["outcome"], **outcome}}


def test_the_outcome_and_the_dice_are_the_ones_the_moves_and_the_seed_give(db):
    """The check passed replays whose outcome contradicted their moves, whose dice were not
    their seed's, and with as many seats as one liked (``arena view`` drew them)."""
    data = good(db)
    assert data["outcome"]["termination"] == "normal" and data["seed"] is not None
    ranks = data["outcome"]["ranks"]
    bad: list[tuple[dict[str, Any], str]] = [
        (_outcome_changed(data, ranks=ranks[::-1] if len(set(ranks)) > 1 else [0, 1]),
         "outcome.ranks: "),
        (_outcome_changed(data, scores=[s + 1 for s in data["outcome"]["scores"]]),
         "outcome.scores: "),
        (_outcome_changed(data, termination="banana"), "outcome.termination: 'banana'"),
        (_outcome_changed(data, termination="crash"), "outcome.termination: 'crash'"),
        (changed(data, "seats.1.status", "crash"), "seats[1].status: 'crash', but the game"),
        ({**data, "moves": data["moves"][:10]}, "outcome: the moves stop before the end"),
        ({**data, "moves": []}, "outcome: the moves stop before the end"),
        ({**data, "seats": data["seats"] + data["seats"][:1],
          "outcome": {**data["outcome"], "ranks": [*ranks, 1],
                      "scores": [*data["outcome"]["scores"], 0]}},
         "seats: 3, but seasons is played by 2 players, not 3"),
    ]
    first = data["moves"][0]["roll"]
    values = [int(v) for v in first.removeprefix("dice:").split(",")]
    values[0] = values[0] % 6 + 1
    bad.append((changed(data, "moves.0.roll", "dice:" + ",".join(map(str, values))),
                f"moves[0].roll: 'dice:{','.join(map(str, values))}', but the dice of seed "))
    for wrong, message in bad:
        with pytest.raises(ReplayError) as raised:
            check_replay(wrong)
        assert str(raised.value).startswith(message), (message, raised.value)
    moved = changed(data, "tournament.key", "r9-t9-s9-o9")
    with pytest.raises(ReplayError, match=r"^tournament.key: 'r9-t9-s9-o9', but its round"):
        check_replay(moved)
    no_seed = {key: value for key, value in data.items() if key != "seed"}
    with pytest.raises(ReplayError, match=r"^seed: missing"):
        check_replay(no_seed)  # from_replay raised KeyError, arena view a traceback
    secret = {**data, "seed": None, "moves": data["moves"]}
    check_replay(secret)  # no seed to check the dice against: the rules still are


def test_a_failed_seat_ends_the_game_with_its_failure_and_rank(db):
    """A crash mid-game: the failed seat last, the others by their standing; the check
    accepts arena's own such games and refuses the same moves with another outcome."""
    import arena

    class Crash:
        name, version = "crash", "1"

        def act(self, observation: Any) -> Any:
            raise RuntimeError("boom")

    record = arena.make("sonnentau").run([arena.load_bot("bots/sonnentau/random_bot.py")
                                          .player, Crash()], seed=4)
    data = arena.to_replay(record)
    assert data["outcome"]["termination"] == "crash"
    check_replay(data)
    with pytest.raises(ReplayError, match=r"^outcome.termination: 'timeout', but seat 1 ended"):
        check_replay(_outcome_changed(data, termination="timeout"))
    with pytest.raises(ReplayError, match=r"^outcome.ranks: \[1, 0\], but the moves give"):
        check_replay(_outcome_changed(data, ranks=[1, 0]))
    with pytest.raises(ReplayError, match="one seat must have failed"):
        check_replay(changed(data, "seats.0.status", "crash"))
    # the other seat failing where seat 1 is to act, or where the dice are to roll
    from arena.referee.match import forfeit_outcome

    for cut in (len(data["moves"]), len(data["moves"]) - 1):
        game = find_game("sonnentau")
        state = game.initial_state(data["options"])
        for move in data["moves"][:cut]:
            state.apply(game.parse_action(move.get("roll") or move["action"]))
        forged = forfeit_outcome(state, 0, "crash")
        wrong = {**data, "moves": data["moves"][:cut],
                 "seats": [{**data["seats"][0], "status": "crash"},
                           {**data["seats"][1], "status": "ok", "detail": ""}],
                 "outcome": {"ranks": list(forged.ranks), "scores": list(forged.scores),
                             "termination": "crash"}}
        with pytest.raises(ReplayError, match=r"^seats\[0\].status: 'crash', but where"):
            check_replay(wrong)


def test_a_move_after_the_end_or_a_roll_in_place_of_a_decision_is_refused(db):
    import arena

    finished = next(data for data in exported(db, SONNENTAU["name"])
                    if arena.replay(arena.from_replay(data)).is_terminal)
    late = copy.deepcopy(finished)
    late["moves"].append(copy.deepcopy(late["moves"][-1]))
    with pytest.raises(ReplayError, match=r"the game is over after \d+ moves"):
        check_replay(late)
    rolled = changed(good(db), "moves.1", {"roll": "dice:1,2,3"})
    with pytest.raises(ReplayError, match=r"^moves\[1\].roll: 'dice:1,2,3', but seat 0 is"):
        check_replay(rolled)
    for data in exported(db, SONNENTAU["name"]) + exported(db, SEASONS["name"]):
        check_replay(data)  # every game arena played passes


def test_unknown_keys_are_ignored_by_both(db):
    data = {**good(db), "commentary": "a later key"}
    check_replay(data)
    validator().validate(data)


@pytest.mark.parametrize(("text", "message"), [
    ('{"format": "arena-replay"\n', "line 2: not JSON ("),
    ("[1, 2]\n", "line 2: the replay: expected an object, found a list"),
    ('{"format": "arena-replay", "version": 1, "game": "seasons", "options": {}, "seed": 1,'
     ' "seats": "two"}\n', "line 2: seats: expected a list, found a string ('two')"),
    ("[" * 100_000 + "]" * 100_000 + "\n", "line 2: nested too deeply to be a replay"),
    ('{"seed": 1' + "0" * 5000 + "}\n", "line 2: not a replay (Exceeds the limit"),
])
def test_a_malformed_file_is_one_line_naming_the_file_line_and_problem(db, tmp_path, text,
                                                                       message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good(db)) + "\n" + text)
    with pytest.raises(ReplayError) as raised:
        list(read_replays(path))
    assert str(raised.value).startswith(f"{path}, {message}")
    result = CliRunner().invoke(cli, ["view", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [f"Error: {raised.value}"]


def test_the_games_arena_play_wrote_are_viewed_as_they_are(tmp_path, monkeypatch):
    """``arena view`` of what ``arena play --json`` writes said "format: None is not
    'arena-replay'", then pointed at `arena export`, which exports tournaments only: a game
    just played could not be watched. check_replay still tells a record from a replay."""
    monkeypatch.chdir(ROOT)
    record = tmp_path / "played.jsonl"
    played = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--seed", "3",
                                      "--games", "2", "--json", str(record)])
    assert played.exit_code == 0, played.output
    result = CliRunner().invoke(cli, ["view", str(record)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "played.html").exists()
    assert [r.moves for _, r in read_replays(record)] == [r.moves for r in
                                                          arena.read_records(str(record))]
    line = json.loads(record.read_text().splitlines()[0])
    with pytest.raises(ReplayError, match="a game record as `arena play --json` writes it, "
                       "not a replay"):
        check_replay(line)
    for broken_line in ({**line, "moves": line["moves"][:10]},  # cut short
                        {**line, "seats": line["seats"][:1]}):  # a seat missing
        record.write_text(json.dumps(broken_line) + "\n")
        cut = CliRunner().invoke(cli, ["view", str(record)])
        assert cut.exit_code == 1 and "a game record as `arena play --json` writes it, but" \
            in " ".join(cut.output.split()), cut.output
    line["moves"][1][1] = "place:max-99"  # [seat, action, seconds]
    record.write_text(json.dumps(line) + "\n")
    broken = CliRunner().invoke(cli, ["view", str(record)])
    assert broken.exit_code == 1 and "line 1: a game record as `arena play --json` writes " \
        "it, but" in " ".join(broken.output.split())


@pytest.mark.parametrize(("change", "message"), [
    ({"ranks": [1, 0]}, "outcome.ranks: [1, 0], but the moves give [0, 1]"),
    ({"ranks": [0]}, "outcome.ranks: 1 values for 2 seats"),
    ({"scores": [999.0, -3.0]}, "outcome.scores: [999.0, -3.0], but the moves give"),
    ({"termination": "bananas"}, "outcome.termination: 'bananas', but the moves end"),
    ({"seed": 12345}, "but the dice of seed 12345 roll"),
    ({"status": "lost"}, "seats[0].status: 'lost' is not one of"),
    ({"seconds": 10**400}, "int too large to convert to float"),
])
def test_a_played_record_is_checked_as_a_replay_is(tmp_path, monkeypatch, change, message):
    """A record of ``arena play --json`` with another outcome, seed or status than its
    moves was drawn as it claimed ("999-−3, seat 1 wins [bananas]"), one rank short was
    a traceback, and an integer too large for a float one in any replay."""
    monkeypatch.chdir(ROOT)
    record = tmp_path / "played.jsonl"
    played = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--seed", "7",
                                      "--json", str(record), "--isolation", "none"])
    assert played.exit_code == 0, played.output
    line = json.loads(record.read_text())
    assert line["ranks"] == [0, 1]
    if "status" in change:
        line["seats"][0]["status"] = change["status"]
    elif "seconds" in change:
        line["moves"][1][2] = change["seconds"]
    else:
        line.update(change)
    record.write_text(json.dumps(line) + "\n")
    result = CliRunner().invoke(cli, ["view", str(record)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"Error: {record}, line 1: ")
    assert message in " ".join(result.output.split()), result.output


def test_an_integer_too_large_for_a_float_is_no_number_in_a_replay(tmp_path):
    record = arena.play_game("seasons", [arena.load_bot(f"{ROOT}/bots/seasons/greedy.py").player,
                                         arena.load_bot(f"{ROOT}/bots/seasons/random_bot.py").player],
                             seed=7)
    for where in ("moves", "scores", "duration"):
        data = to_replay(record)
        if where == "moves":
            data["moves"][1]["seconds"] = 10**400
        elif where == "scores":
            data["outcome"]["scores"][0] = 10**400
        else:
            data["duration"] = 10**400
        with pytest.raises(ReplayError):
            check_replay(data)
        path = tmp_path / f"{where}.jsonl"
        path.write_text(json.dumps(data) + "\n")
        result = CliRunner().invoke(cli, ["view", str(path)])
        assert result.exit_code == 1 and result.output.startswith(f"Error: {path}, line 1: ")


def test_a_broken_json_file_names_its_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "format": "arena-replay",\n  oops\n}\n')
    with pytest.raises(ReplayError, match=re.escape(f"{path}, line 3: not JSON")):
        list(read_replays(path))


# -- the viewer page --------------------------------------------------------------------------


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      page, re.DOTALL)
    assert found
    return json.loads(found[1])


def write_export(db: Path, name: str, out: Path) -> Path:
    result = CliRunner().invoke(cli, ["export", name, "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("name", [SEASONS["name"], SONNENTAU["name"]])
def test_arena_view_writes_a_page_with_every_game_of_the_file(db, store, tmp_path, name):
    source = write_export(db, name, tmp_path / "games.jsonl")
    result = CliRunner().invoke(cli, ["view", str(source)])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "games.html").read_text()
    assert result.output.strip() == f"wrote {tmp_path / 'games.html'}"
    data = page_data(page)
    tournament = store.find_tournament(name)
    rows = list(store.games(tournament.id))
    assert [g["no"] for g in data["games"]] == list(range(1, len(rows) + 1))
    assert [g["k"] for g in data["games"]] == [row.key for row in rows]
    assert all("e" not in g and len(g["n"]) == len(g["z"]) + 1 for g in data["games"])
    labels = {store.bot(b).label for b in store.entrants(tournament.id)}
    assert {bot["label"] for bot in data["bots"]} == labels
    assert len(re.findall(r"<script\b", page)) == 3
    assert "<script>alert" not in page  # the crasher's name is text, never markup
    assert page.count('<tr data-game="') == len(rows)


def test_a_page_shows_one_game_kind(db, tmp_path):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(d) + "\n" for d in (
        exported(db, SEASONS["name"])[:1] + exported(db, SONNENTAU["name"])[:1])))
    with pytest.raises(ReplayError, match=re.escape(
            f"{mixed}, line 2: a sonnentau game after seasons games")):
        replay_page_html(mixed)


def test_a_page_holds_the_first_games_and_says_how_many_there_are(db, tmp_path):
    source = write_export(db, SEASONS["name"], tmp_path / "games.jsonl")
    page = replay_page_html(source, max_games=2)
    assert len(page_data(page)["games"]) == 2
    assert "this page shows the first 2" in page
    later = replay_page_html(source, max_games=2, start=3)  # arena view --start 3
    assert [game["no"] for game in page_data(later)["games"]] == [3, 4]
    assert "this page shows games 3 to 4" in later
    assert page_data(later)["games"][0] == {**page_data(
        replay_page_html(source, max_games=4))["games"][2], "no": 3}
    with pytest.raises(ReplayError, match="none from game 999 on"):
        replay_page_html(source, start=999)


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                    reason="Chromium, its driver or Selenium is not installed")
@pytest.mark.parametrize("name", [SEASONS["name"], SONNENTAU["name"]])
def test_the_replay_page_steps_through_every_game_in_a_browser(db, browser, tmp_path, name):
    source = write_export(db, name, tmp_path / "games.jsonl")
    path = tmp_path / "page.html"
    assert CliRunner().invoke(cli, ["view", str(source), "--out", str(path)]).exit_code == 0
    replays = [record for _, record in read_replays(source)]
    load(browser, path, "#game=2")
    assert js(browser, "var d = document.documentElement.dataset;"
                       "return [d.reportReady, d.reportError || '', d.alerted || ''];"
              ) == ["ok", "", ""]
    assert js(browser, "return document.getElementById('game-select').options.length"
              ) == len(replays)
    browser.find_element("css selector", "[data-step=last]").click()
    state = js(browser, """
        var v = document.getElementById('game-viewer');
        return {game: v.dataset.game, move: v.dataset.move, moves: v.dataset.moves,
                notation: document.getElementById('notation').textContent};""")
    from arena.referee.record import game_log
    from arena.reports.replay import META_KEY

    labels = replays[1].meta[META_KEY]["labels"]  # the seats named by their labels
    log = game_log(replays[1], labels)
    assert "@" in log[-1] and (state["game"], state["move"]) == ("2", str(len(log) - 1))
    assert state["notation"].endswith(log[-1])
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    later = tmp_path / "later.html"  # from game 2 on: the same game under the same number
    assert CliRunner().invoke(cli, ["view", str(source), "--out", str(later), "--start", "2"]
                              ).exit_code == 0
    load(browser, later, "#game=2")
    assert js(browser, "return document.getElementById('game-select').options.length"
              ) == len(replays) - 1
    browser.find_element("css selector", "[data-step=last]").click()
    assert js(browser, "var v = document.getElementById('game-viewer');"
                       "return [v.dataset.game, v.dataset.move];") == ["2", str(len(log) - 1)]


def test_a_missing_file_is_a_replay_error_whatever_its_name(tmp_path):
    for name in ("missing.jsonl", "missing.json", "missing"):
        with pytest.raises(ReplayError, match="no such file or folder"):
            list(read_replays(tmp_path / name))  # .jsonl raised FileNotFoundError


def test_a_game_that_is_no_name_is_refused_in_one_line():
    data = arena.to_replay(arena.make("seasons").run(["greedy", "random"], seed=7))
    for game in (["seasons"], {"name": "seasons"}, 7):
        with pytest.raises(ReplayError, match=r"game: .* is not one of seasons, sonnentau"):
            check_replay({**data, "game": game})


def test_replay_and_steps_refuse_a_move_by_another_seat_than_the_one_to_act():
    import dataclasses

    from arena.games.base import IllegalActionError
    from arena.referee.record import Move

    record = arena.make("seasons").run(["greedy", "random"], seed=7)
    roll, keep = record.moves[:2]
    for moves, said in [((Move(0, roll.action), *record.moves[1:]), "the dice are to roll"),
                        ((roll, Move(-1, keep.action), *record.moves[2:]),
                         "seat 0 is to act"),
                        ((roll, Move(1, keep.action), *record.moves[2:]), "seat 0 is to act")]:
        wrong = dataclasses.replace(record, moves=moves)
        with pytest.raises(IllegalActionError, match=said):
            replay(wrong)
        with pytest.raises(IllegalActionError, match=said):
            list(arena.steps(wrong))
    extra = dataclasses.replace(record, moves=(*record.moves, Move(0, keep.action)))
    over = rf"moves\[{len(record.moves)}\]: the game is over after {len(record.moves)} moves"
    with pytest.raises(IllegalActionError, match=over):  # not "seat -2 is to act"
        replay(extra)


def test_read_records_of_an_export_file_says_what_reads_it(db, tmp_path):
    exported = tmp_path / "games.jsonl"
    result = CliRunner().invoke(cli, ["export", "--db", str(db), "--out", str(exported)])
    assert result.exit_code == 0, result.output
    with pytest.raises(arena.ArenaError, match=r"line 1: a replay as `arena export` writes it, "
                       r"not a game record: read it with arena\.read_replays"):
        arena.read_records(str(exported))
    assert arena.read_replays(str(exported))


def test_arena_view_never_writes_over_its_input_nor_a_file_it_did_not_make(tmp_path,
                                                                          monkeypatch):
    """``view g.jsonl --out g.jsonl`` replaced the games with the page, and any other file
    named by --out (a tournament's report) was replaced without a word."""
    monkeypatch.chdir(ROOT)
    records = tmp_path / "g.jsonl"
    played = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--games", "2",
                                      "--json", str(records), "--isolation", "none"])
    assert played.exit_code == 0, played.output
    kept = records.read_text()
    link = tmp_path / "link.html"
    link.symlink_to(records)
    for out in (records, link):
        itself = CliRunner().invoke(cli, ["view", str(records), "--out", str(out),
                                          "--overwrite"])
        assert itself.exit_code == 1 and "is the replay file itself" in itself.output
        assert records.read_text() == kept
    report = tmp_path / "report.html"
    report.write_text("<!doctype html><title>a tournament's report</title>\n")
    refused = CliRunner().invoke(cli, ["view", str(records), "--out", str(report)])
    assert refused.exit_code == 1 and "exists already and is no page of arena view" in \
        " ".join(refused.output.split())
    assert "a tournament's report" in report.read_text()
    assert CliRunner().invoke(cli, ["view", str(records), "--out", str(report),
                                    "--overwrite"]).exit_code == 0
    folder = tmp_path / "folder"  # a folder of replays: none of its files is the page
    folder.mkdir()
    (folder / "0001.json").write_text(json.dumps(to_replay(arena.read_records(
        str(records))[0])))
    for out in (folder / "0001.json", folder / "new.json"):
        inside = CliRunner().invoke(cli, ["view", str(folder), "--out", str(out),
                                          "--overwrite"])
        assert inside.exit_code == 1 and "is one of the replay files of" in inside.output
    (folder / "replays.html").mkdir()
    held = CliRunner().invoke(cli, ["view", str(folder), "--overwrite"])
    assert held.exit_code == 1 and "replays.html is a folder; name a page" in held.output
    page = tmp_path / "g.html"
    for _ in range(2):  # its own page is written again without asking
        again = CliRunner().invoke(cli, ["view", str(records)])
        assert again.exit_code == 0 and page.exists(), again.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_played_records_page_labels_its_seats_with_their_revisions(tmp_path, monkeypatch,
                                                                     workers):
    """``arena view`` of ``arena play --json`` said ``random@1.0``: the records carried no
    revision, so the page could not label the seats as ``arena play`` does."""
    monkeypatch.chdir(ROOT)
    record = tmp_path / "played.jsonl"
    played = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--games", "2",
                                      "--json", str(record), "--isolation", "none",
                                      "--workers", workers])
    assert played.exit_code == 0, played.output
    labels = set(re.findall(r"(?:greedy|random)@1\.0\+[0-9a-f]{6}", played.output))
    assert len(labels) == 2, played.output
    viewed = CliRunner().invoke(cli, ["view", str(record)])
    assert viewed.exit_code == 0, viewed.output
    page = (tmp_path / "played.html").read_text()
    assert all(label in page for label in labels)
    for _, game in read_replays(record):  # each seat's revision, by the seat's bot
        revisions = game.meta["replay"]["revisions"]
        assert [revision[:6] for revision in revisions] == [
            next(label for label in labels if label.startswith(seat.name)).split("+")[1]
            for seat in game.seats]
