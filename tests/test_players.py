"""Loading bots from specs, and every way loading can fail."""

import random
import textwrap

import pytest

from arena.bots.loading import (
    BotImportError,
    BotNotFoundError,
    NoPlayerError,
    NotAPlayerError,
    load_bot,
    split_spec,
)

PLAYER = """
class {name}:
    name = "{name}"
    version = "2.1"

    def __init__(self, depth=1):
        self.depth = depth

    def act(self, observation):
        return observation.legal_actions[0]
"""


def write(tmp_path, filename, source):
    path = tmp_path / filename
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_a_file_with_one_player_class_loads_it(tmp_path):
    spec = write(tmp_path, "mybot.py", "import math\n" + PLAYER.format(name="Solo"))
    bot = load_bot(spec)
    assert (bot.name, bot.version, bot.spec) == ("Solo", "2.1", spec)
    assert len(bot.code_hash) == 64


def test_the_shipped_bots_load_by_path(root):
    assert load_bot(str(root / "bots/seasons/greedy.py")).name == "greedy"
    assert load_bot(str(root / "bots/seasons/random_bot.py")).name == "random"


def test_parameters_go_to_the_constructor(tmp_path):
    spec = write(tmp_path, "deep.py", PLAYER.format(name="Deep"))
    assert load_bot(spec, {"depth": 3}).player.depth == 3
    with pytest.raises(BotImportError, match=r"failed to start.*unexpected keyword"):
        load_bot(spec, {"width": 3})


def test_a_factory_named_make_player_is_used(tmp_path):
    source = PLAYER.format(name="_Hidden").replace("class _Hidden", "class _Hidden(object)")
    spec = write(tmp_path, "factory.py", source.replace("def act", "def act") + """
def make_player(depth=2):
    return _Hidden(depth)
""")
    with pytest.raises(NoPlayerError, match="several players"):
        load_bot(spec)
    assert load_bot(spec + ":make_player").player.depth == 2


def test_a_factory_alone_is_found(tmp_path):
    spec = write(tmp_path, "only_factory.py", """
from types import SimpleNamespace

def make_player():
    return SimpleNamespace(name="ns", version="1", act=lambda obs: obs.legal_actions[0])
""")
    assert load_bot(spec).name == "ns"


def test_an_agent_function_is_a_bot_named_by_its_module_or_file(tmp_path):
    from arena.referee.match import play_game

    plain = write(tmp_path, "last_move.py", """
        def agent(observation):
            return observation.legal_actions[-1]
        """)
    bot = load_bot(plain)
    assert (bot.name, bot.version) == ("last-move", "1")
    record = play_game("seasons", [bot.player, load_bot(plain).player], seed=4)
    assert record.termination == "normal" and record.seats[0].status == "ok"
    named = write(tmp_path, "picker.py", """
        name, version, games = "picker", 3, ["seasons"]

        def choose(observation, index=0):
            return observation.legal_actions[index]
        """)
    bot = load_bot(named + ":choose", {"index": -1})
    assert (bot.name, bot.version, bot.player.games) == ("picker", "3", ("seasons",))
    observation = type("Obs", (), {"legal_actions": ("a", "b")})()
    assert bot.player.act(observation) == "b"


def test_an_agent_function_plays_in_its_own_process_too(tmp_path):
    from arena.bots.isolation import PROCESS, bot_process
    from arena.referee.match import play_game

    spec = write(tmp_path, "first.py", "def agent(observation):\n"
                                       "    return observation.legal_actions[0]\n")
    player = bot_process(spec, {}, PROCESS)
    try:
        record = play_game("sonnentau", [player, load_bot(spec).player], seed=2,
                           time_limit=2.0)
    finally:
        player.close()
    assert record.seats[0].status == "ok" and record.seats[0].name == "first"


def test_several_players_are_ambiguous_and_named(tmp_path):
    spec = write(tmp_path, "two.py", PLAYER.format(name="Alpha") + PLAYER.format(name="Beta"))
    with pytest.raises(NoPlayerError) as error:
        load_bot(spec)
    assert "Alpha, Beta" in str(error.value) and f"{spec}:NAME" in str(error.value)
    assert load_bot(spec + ":Beta").name == "Beta"


def test_imported_classes_do_not_count_as_the_files_player(tmp_path):
    spec = write(tmp_path, "reexport.py", "from players_for_tests import FirstLegalPlayer\n"
                 + PLAYER.format(name="Own"))
    assert load_bot(spec).name == "Own"


def test_a_missing_file(tmp_path):
    with pytest.raises(BotNotFoundError, match="no such file"):
        load_bot(str(tmp_path / "nope.py"))


def test_an_import_error_carries_the_bots_own_traceback(tmp_path):
    spec = write(tmp_path, "broken.py", "import json\n\ndef helper():\n    return 1 / 0\n\n"
                 "helper()\n")
    with pytest.raises(BotImportError) as error:
        load_bot(spec)
    assert "ZeroDivisionError" in str(error.value) and "\n" not in str(error.value)
    assert "broken.py" in error.value.details and "line 4" in error.value.details
    assert "importlib" not in error.value.details


def test_a_syntax_error_is_reported(tmp_path):
    spec = write(tmp_path, "syntax.py", "def act(:\n")
    with pytest.raises(BotImportError, match="SyntaxError"):
        load_bot(spec)


def test_a_missing_dependency_is_an_import_error_not_a_missing_bot(tmp_path):
    spec = write(tmp_path, "needs.py", "import surely_not_installed_pkg\n")
    with pytest.raises(BotImportError, match="surely_not_installed_pkg"):
        load_bot(spec)


def test_no_player_in_the_file(tmp_path):
    spec = write(tmp_path, "empty.py", "X = 1\n")
    with pytest.raises(NoPlayerError, match="no player found"):
        load_bot(spec)


def test_a_missing_attribute(tmp_path):
    spec = write(tmp_path, "one.py", PLAYER.format(name="One"))
    with pytest.raises(BotNotFoundError, match="no attribute 'Two'"):
        load_bot(spec + ":Two")


@pytest.mark.parametrize(("body", "complaint"), [
    ("class P:\n    name = 'p'\n    def act(self, o):\n        return 0\n",
     "version must be a string"),
    ("class P:\n    name = 5\n    version = '1'\n    def act(self, o):\n        return 0\n",
     "name must be a string"),
    ("class P:\n    name = '../p'\n    version = '1'\n    def act(self, o):\n        return 0\n",
     "could be read as a file path"),
    ("class P:\n    name = 'p'\n    version = '1'\n    act = 3\n", "no act"),
    ("P = 42\n", "neither a player nor a factory"),
])
def test_wrong_types_are_refused(tmp_path, body, complaint):
    spec = write(tmp_path, "wrong.py", body) + ":P"
    with pytest.raises((NotAPlayerError, NoPlayerError), match=complaint):
        load_bot(spec)


def test_module_and_attribute():
    assert load_bot("players_for_tests:FirstLegalPlayer").name == "first"
    with pytest.raises(BotNotFoundError, match="no module named"):
        load_bot("no_such_module_here:Bot")


def test_an_unknown_plain_name_lists_how_to_name_a_bot():
    with pytest.raises(BotNotFoundError, match=r"entry point in group 'arena\.bots'"):
        load_bot("no-such-bot")


def test_an_installed_entry_point(tmp_path, monkeypatch):
    write(tmp_path, "epbot.py", PLAYER.format(name="Entry"))
    info = tmp_path / "epbot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: epbot\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arena.bots]\nentry = epbot:Entry\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_bot("entry").name == "Entry"


def test_a_bot_file_named_like_a_stdlib_module_does_not_shadow_it(tmp_path):
    spec = write(tmp_path, "random.py", PLAYER.format(name="Shadow"))
    assert load_bot(spec).name == "Shadow"
    assert random.Random(1).random() == pytest.approx(0.134364244112)


def test_the_code_hash_follows_the_code(tmp_path):
    a = load_bot(write(tmp_path, "a.py", PLAYER.format(name="Same"))).code_hash
    b = load_bot(write(tmp_path, "b.py", PLAYER.format(name="Same"))).code_hash
    c = load_bot(write(tmp_path, "c.py", PLAYER.format(name="Same") + "\n# changed\n")).code_hash
    assert a == b != c


@pytest.mark.parametrize(("spec", "parts"), [
    ("bots/x.py", ("bots/x.py", None)),
    ("bots/x.py:Greedy", ("bots/x.py", "Greedy")),
    ("pkg.mod:attr", ("pkg.mod", "attr")),
    ("name", ("name", None)),
])
def test_split_spec(spec, parts):
    assert split_spec(spec) == parts
