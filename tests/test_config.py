"""Tournament configs: valid files, overrides, and a clear message for each mistake."""

import textwrap
from pathlib import Path

import pytest
import yaml

from arena.tournaments.config import ConfigError, load_config, parse_config

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def base(**changes):
    data = {"name": "t", "game": "seasons", "bots": [GREEDY, RANDOM]}
    data.update(changes)
    return data


def write(tmp_path, text):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_minimal_config_gets_defaults():
    config = parse_config(base())
    assert config.format == "round-robin" and config.seats == 2 and config.rounds == 1
    assert config.games_per_pairing == 1 and config.seed == 0
    assert [b.spec for b in config.bots] == [GREEDY, RANDOM]
    assert str(config.output_dir) == "results/t" and config.db == "results/arena.db"
    assert config.worker_count >= 1


def test_bots_with_name_version_and_parameters():
    config = parse_config(base(bots=[GREEDY, {"spec": GREEDY, "name": "keep", "version": 2,
                                               "params": {"rerolls": False}}]))
    assert config.bots[1].name == "keep" and config.bots[1].version == "2"
    assert config.bots[1].params == {"rerolls": False}


def test_a_file_and_overrides(tmp_path):
    path = write(tmp_path, f"""
        name: demo
        game: seasons
        bots: [{GREEDY}, {RANDOM}]
        seed: 5
        workers: 2
        """)
    assert load_config(path).seed == 5
    config = load_config(path, seed=9, workers=None, db="x.db")
    assert (config.seed, config.workers, config.db) == (9, 2, "x.db")
    with pytest.raises(ConfigError) as error:  # the file's workers: 2 is not to blame
        load_config(path, workers=100_000)
    assert str(error.value) == "workers (given on the command line): must be 0 (one per CPU) to 256"


def test_the_fingerprint_ignores_where_and_how_fast():
    a = parse_config(base(workers=1, db="a.db"))
    b = parse_config(base(workers=4, db="b.db", output="elsewhere"))
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint() != parse_config(base(seed=1)).fingerprint()


@pytest.mark.parametrize(("data", "message"), [
    (base(round=3), "unknown key 'round' (did you mean 'rounds'?)"),
    (base(seed="x"), "seed: must be an integer or 'secret', got 'x'"),
    (base(seed=True), "seed: must be an integer"),
    ({"game": "seasons", "bots": [GREEDY, RANDOM]}, "name: missing (required)"),
    (base(bots=[GREEDY, "bots/seasons/nope.py"]), "bots[1].spec: no such bot file"),
    (base(bots=[GREEDY, {"spek": RANDOM}]), "bots[1]: unknown key 'spek' (did you mean 'spec'?)"),
    (base(bots=[GREEDY, 5]), "bots[1]: must be a bot spec"),
    (base(bots=[GREEDY]), "1 bot cannot fill a table of 2 seats"),
    (base(bots=[GREEDY, GREEDY]), "bots[1]: the same bot as bots[0]"),
    (base(seats=3), "seasons tables have 2 seats, not 3"),
    (base(game="chess"), "game: unknown game 'chess'"),
    (base(format="knockout"), "format: must be one of round-robin, swiss"),
    (base(options={"placement_limt": 5}), "did you mean 'placement_limit'"),
    (base(games_per_pairing=0), "games_per_pairing: must be at least 1"),
    (base(time_limit=-1), "time_limit: must be a positive number"),
    ([1, 2], "must be a mapping"),
])
def test_each_mistake_names_the_file_and_key(data, message):
    with pytest.raises(ConfigError) as error:
        parse_config(data, "cfg.yaml")
    assert str(error.value).startswith("cfg.yaml")
    assert message in str(error.value)


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "name: [unclosed\n"))


def test_broken_yaml_is_one_line_naming_the_file_and_the_place(tmp_path):
    """PyYAML's own message took six lines and named the text "<unicode string>"."""
    path = tmp_path / "t.yaml"
    path.write_text("name: x\ngame: seasons\nbots: [a, b\ntime_limit: 3\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}: not valid YAML at line 4, column 11: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence from line 3, column 7)")


@pytest.mark.parametrize(("written", "fixed"), [("1e9", "1.0e+9"), ("2E+3", "2.0e+3"),
                                                ("1.5e2", "1.5e+2")])
def test_a_number_yaml_reads_as_text_says_how_to_write_it(tmp_path, written, fixed):
    text = f"name: x\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\ntime_limit: {written}\n"
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert f"(YAML reads {written} as text: write {fixed})" in str(error.value)
    assert yaml.safe_load(f"x: {fixed}")["x"] == float(written)


def test_options_are_checked_beside_a_seat_count_the_game_does_not_have():
    """seats: 7 hid a misspelt option: fixing one revealed the other."""
    with pytest.raises(ConfigError) as error:
        parse_config(base(seats=7, options={"placement_limt": 3}), "cfg.yaml")
    text = str(error.value)
    assert "seats: seasons tables have 2 seats, not 7" in text
    assert "options: unknown option 'placement_limt'" in text


def test_rating_settings_are_read_and_checked():
    config = parse_config(base(ratings={"system": "openskill", "draw_probability": 0.1}))
    assert config.ratings.system == "openskill" and config.ratings.draw_probability == 0.1
    assert parse_config(base()).ratings.system == "trueskill"
    assert config.fingerprint() == parse_config(base()).fingerprint()
    with pytest.raises(ConfigError, match="ratings: rating system must be one of"):
        parse_config(base(ratings={"system": "elo"}))
    with pytest.raises(ConfigError, match="ratings: draw_probability must be above 0"):
        parse_config(base(ratings={"draw_probability": 0}))
    with pytest.raises(ConfigError, match="unknown rating setting"):
        parse_config(base(ratings={"mu0": 3}))


@pytest.mark.parametrize(("data", "message"), [
    (base(seed=2**70), "seed: must be from -2**63 to 2**63 - 1"),
    (base(name="../../x"), "name: the tournament name '../../x' could be read as a file path"),
    (base(name="x\x1b[2J"), "holds control or other unprintable characters"),
    (base(games_per_pairing=100_000_000), "the schedule has 200,000,000 games, more than"),
    (base(rounds=10**9, format="swiss"), "games, more than the 10,000,000"),
    (base(workers=100_000), "workers: must be 0 (one per CPU) to 256"),
    (base(time_limit=float("nan")), "time_limit: must be a positive number"),
    (base(time_limit=float("inf")), "time_limit: must be a positive number"),
    (base(cpu_limit=float("nan")), "cpu_limit: must be a positive number"),
    (base(time_bank=float("inf")), "time_bank: must be 0 or more"),
    (base(bots=[GREEDY, {"spec": RANDOM, "name": "a/b"}]), "bots[1].name: the name 'a/b'"),
    (base(bots=[GREEDY, {"spec": RANDOM, "version": "1@2"}]), "bots[1].version: the version"),
    (base(bots=[GREEDY, {"spec": RANDOM, "params": {"when": __import__("datetime").date.today()}}]),
     "bots[1].params: only strings, numbers"),
    (base(isolation="jail"), "isolation: must be one of sandbox, process, none"),
], ids=lambda value: str(value)[:40])
def test_hostile_values_are_refused_in_one_line(data, message):
    with pytest.raises(ConfigError) as error:
        parse_config(data, "cfg.yaml")
    assert message in str(error.value) and "\n" not in str(error.value)


def test_yaml_anchors_and_aliases_are_refused_before_they_expand(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8))
    with pytest.raises(ConfigError, match="line 1: YAML anchors and aliases"):
        load_config(write(tmp_path, bomb))
    with pytest.raises(ConfigError, match="anchors and aliases"):
        load_config(write(tmp_path, f"name: t\ngame: seasons\nbots: [{GREEDY}, *x]\n"))


def test_a_key_given_twice_is_refused_not_overwritten(tmp_path):
    """PyYAML keeps the last of two keys: a pasted ``seed:`` changed the tournament."""
    twice = f"name: a\ngame: seasons\nbots: [{GREEDY}, {GREEDY}]\nseed: 1\nseed: 2\n"
    with pytest.raises(ConfigError, match=r"line 5: 'seed' is given twice \(first at line 4\)"):
        load_config(write(tmp_path, twice))
    nested = f"name: a\ngame: seasons\nbots: [{{spec: {GREEDY}, name: x, name: y}}]\n"
    with pytest.raises(ConfigError, match="'name' is given twice"):
        load_config(write(tmp_path, nested))


def test_a_character_yaml_cannot_hold_is_said_in_one_line(tmp_path):
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, "name: a\x00\n"))
    assert "at character 8: special characters are not allowed ('\\x00')" in str(error.value)
    assert "\n" not in str(error.value)


def test_files_that_are_not_plain_utf8_yaml_of_sane_size_are_refused(tmp_path):
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xe9 at offset 9\)"):
        load_config(latin)
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="the YAML is nested too deeply"):
        load_config(deep)
    huge = tmp_path / "huge.yaml"
    huge.write_text("# " + "x" * (2 << 20))
    with pytest.raises(ConfigError, match="larger than 1 MiB"):
        load_config(huge)


def test_the_time_limit_has_a_default_and_null_turns_it_off(tmp_path):
    from arena.tournaments.config import DEFAULT_TIME_LIMIT

    assert parse_config(base()).time_limit == DEFAULT_TIME_LIMIT == 5.0
    off = load_config(write(tmp_path, f"""\
        name: t
        game: seasons
        bots: [{GREEDY}, {RANDOM}]
        time_limit: null
        memory_limit: null
        cpu_limit: null
        """))
    assert off.time_limit is None and off.memory_limit is None and off.cpu_limit is None


def test_a_secret_seed_is_kept_out_of_the_fingerprint_and_the_settings():
    secret = parse_config(base(seed="secret"))
    assert secret.secret_seed and secret.seed == 0
    assert secret.defining()["seed"] == "secret"
    assert secret.fingerprint() == parse_config(base(seed="secret")).fingerprint()
    assert secret.fingerprint() != parse_config(base(seed=0)).fingerprint()


def test_isolation_decides_how_bots_are_held_not_the_results():
    plain = parse_config(base())
    assert plain.isolation is None and all(bot.isolation is None for bot in plain.bots)
    assert parse_config(base(isolation="process")).fingerprint() == plain.fingerprint()


def test_a_board_file_in_the_options_is_checked_before_anything_is_played(tmp_path):
    bots = ["bots/sonnentau/random_bot.py", "bots/sonnentau/heuristic.py"]
    not_a_board = tmp_path / "notes.yaml"
    not_a_board.write_text("just: text\n")
    with pytest.raises(ConfigError, match=r"options: board file .* missing 'circles'"):
        parse_config(base(game="sonnentau", bots=bots, options={"board": str(not_a_board)}))


def test_every_mistake_of_a_file_is_reported_at_once_one_a_line(tmp_path):
    path = write(tmp_path, f"""\
        name: three
        game: seasons
        bots: [{GREEDY}, bots/seasons/nope.py, {{spek: {RANDOM}}}]
        round: 3
        time_limit: fast
        workers: -1
        """)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    lines = str(error.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "bots[1].spec", "bots[2]", "bots[2].spec",
        "unknown key 'round' (did you mean 'rounds'?); known", "time_limit", "workers",
    ]  # in the order of the file
    assert all(line.startswith(f"{path}: ") for line in lines)
    assert error.value.problems == tuple(lines)


def test_problems_of_values_and_of_the_whole_are_found_together():
    with pytest.raises(ConfigError) as error:
        parse_config(base(time_limit=-1, games_per_pairing=0, format="knockout", seed="x",
                          isolation="jail", options={"placement_limt": 5},
                          bots=[GREEDY, GREEDY]), "cfg.yaml")
    text = str(error.value)
    for part in ("time_limit: must be a positive number of seconds",
                 "games_per_pairing: must be at least 1", "format: must be one of",
                 "seed: must be an integer or 'secret', got 'x'", "isolation: must be one of",
                 "options: unknown option 'placement_limt'", "bots[1]: the same bot as bots[0]"):
        assert part in text
    assert len(text.splitlines()) == 7  # a value with a problem is not judged again


def test_every_option_with_a_problem_is_said_at_once():
    with pytest.raises(ConfigError) as error:
        parse_config(base(options={"bogus": 2, "placement_limit": -1}), "cfg.yaml")
    assert str(error.value).splitlines() == [
        "cfg.yaml: options: unknown option 'bogus' for seasons; known: placement_limit",
        "cfg.yaml: options: option 'placement_limit' must be at least 1"]


@pytest.mark.parametrize(("key", "value", "message"), [
    ("time_limit", "fast", "time_limit: must be a number of seconds, or null for no limit, "
                           "got 'fast'"),
    ("cpu_limit", [1], "cpu_limit: must be a number of seconds, or null for no limit, "
                       "got [1]"),
    ("memory_limit", 1.5, "memory_limit: must be a whole number of MB, or null for no limit, "
                          "got 1.5"),
    ("time_bank", None, "time_bank: must be a number of seconds, got None"),
    ("rounds", "3", "rounds: must be an integer, got '3'"),
])
def test_a_value_of_the_wrong_kind_is_named_for_a_person(key, value, message):
    with pytest.raises(ConfigError) as error:
        parse_config(base(**{key: value}), "cfg.yaml")
    assert str(error.value) == f"cfg.yaml: {message}"
    assert "an integer or a number" not in str(error.value)


def test_a_ladder_config_reports_every_mistake_at_once():
    from arena.tournaments.ladder_config import parse_ladder_config

    data = {"name": "l", "game": "seasons", "rounds": 3, "bots": [GREEDY, RANDOM],
            "time_limit": "5", "ladder": {"exploration": 2, "final_game": 3,
                                          "submissions": 3}}
    with pytest.raises(ConfigError) as error:
        parse_ladder_config(data, "l.yaml")
    assert str(error.value).splitlines() == [
        "l.yaml: rounds: a ladder has no rounds (it plays until stopped; see the ladder: "
        "section)",
        "l.yaml: time_limit: must be a number of seconds, or null for no limit, got '5'",
        "l.yaml: ladder: unknown key 'final_game' (did you mean 'final_games'?); known: "
        "active_versions, exploration, final_games, sets_per_meeting, submissions, "
        "tables_per_round, validation_games",
        "l.yaml: ladder.submissions: must be a folder's path, or null for none, got 3",
        "l.yaml: ladder.exploration: must be from 0 to 1, got 2.0"]


@pytest.mark.parametrize("path", sorted(p.name for p in (ROOT / "configs").glob("*.yaml")))
def test_every_shipped_config_loads_and_its_bots_load(path):
    """What the README tells a user to run parses as it is, and every bot in it loads."""
    from arena.server.config import load_serve_config
    from arena.tournaments.ladder_config import load_ladder_config
    from arena.tournaments.runner import load_entrants

    file = ROOT / "configs" / path
    data = yaml.safe_load(file.read_text())
    if "ladders" in data:
        assert load_serve_config(file).ladders
        return
    config = (load_ladder_config(file).play if "ladder" in data else load_config(file))
    entrants = load_entrants(config)
    assert len(entrants.labels) == len(data["bots"]) >= 2


def test_seats_among_the_options_are_refused_unless_they_agree_with_the_tables():
    """`options: {seats: 3}` with two-seat tables played two-player games, saying nothing."""
    bots = ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
            {"spec": "bots/sonnentau/random_bot.py", "name": "r2"}]
    with pytest.raises(ConfigError, match=r"options: seats: 3 here, but the tables seat 2 "
                       r"\(write `seats: 3` beside `game:`, not among the options\)"):
        parse_config({"name": "t", "game": "sonnentau", "bots": bots, "options": {"seats": 3}})
    with pytest.raises(ConfigError, match=r"options: seats: None here, but the tables seat 2 "
                       r"\(the number of players is `seats:` beside `game:`"):
        parse_config({"name": "t", "game": "sonnentau", "bots": bots, "options": {"seats": None}})
    agreed = parse_config({"name": "t", "game": "sonnentau", "bots": bots, "seats": 3,
                           "options": {"seats": 3}})
    assert agreed.seats == 3


def test_play_refuses_a_seat_count_option_that_is_not_its_bots(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    result = CliRunner().invoke(cli, ["play", "sonnentau", "heuristic", "random",
                                      "-o", "seats=3"])
    assert result.exit_code == 1
    assert "option seats 3, but 2 players play" in " ".join(result.output.split())
    empty = CliRunner().invoke(cli, ["play", "sonnentau", "heuristic", "random", "-o", "seats="])
    assert "option seats with no value, but 2 players play" in " ".join(empty.output.split())
