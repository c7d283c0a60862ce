"""Tournament configs: valid files, overrides, and a clear message for each mistake."""

import textwrap

import pytest

from arena.tournaments.config import ConfigError, load_config, parse_config

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"


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


def test_the_fingerprint_ignores_where_and_how_fast():
    a = parse_config(base(workers=1, db="a.db"))
    b = parse_config(base(workers=4, db="b.db", output="elsewhere"))
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint() != parse_config(base(seed=1)).fingerprint()


@pytest.mark.parametrize(("data", "message"), [
    (base(round=3), "unknown key 'round' (did you mean 'rounds'?)"),
    (base(seed="x"), "seed: must be an integer, got 'x'"),
    (base(seed=True), "seed: must be an integer"),
    ({"game": "seasons", "bots": [GREEDY, RANDOM]}, "name: missing (required)"),
    (base(bots=[GREEDY, "bots/seasons/nope.py"]), "bots[1].spec: no such bot file"),
    (base(bots=[GREEDY, {"spek": RANDOM}]), "bots[1].: unknown key 'spek' (did you mean 'spec'?)"),
    (base(bots=[GREEDY, 5]), "bots[1]: must be a bot spec"),
    (base(bots=[GREEDY]), "1 bots cannot fill a table of 2 seats"),
    (base(bots=[GREEDY, GREEDY]), "bots[1]: the same bot as bots[0]"),
    (base(seats=3), "seasons tables have 2 to 2 seats, not 3"),
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
