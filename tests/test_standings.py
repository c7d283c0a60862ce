"""Points per game, and tallies per bot and seat."""

from arena.results.standings import game_points, table_lines, tally_games


def test_game_points():
    assert game_points((0, 1)) == (1.0, 0.0)
    assert game_points((0, 0)) == (0.5, 0.5)
    assert game_points((0, 1, 1, 3)) == (1.0, 0.5, 0.5, 0.0)


def test_a_tally_counts_wins_draws_losses_and_failures_per_bot_and_seat():
    games = [((0, 1), (0, 1), (70.0, 50.0), ("ok", "ok")),
             ((1, 0), (0, 0), (60.0, 60.0), ("ok", "ok")),
             ((0, 1), (1, 0), (40.0, 0.0), ("timeout", "ok"))]
    first, second = tally_games(["a@1", "b@1"], 2, games)
    assert (first.overall.wins, first.overall.draws, first.overall.losses) == (1, 1, 1)
    assert first.overall.points == 1.5 and first.total_points == 1.5
    assert first.overall.failures == {"timeout": 1}
    assert first.by_seat[0].games == 2 and first.by_seat[1].games == 1
    assert second.overall.mean_score == 110 / 3
    assert second.overall.mean_rank == 1 + 1 / 3


def test_a_bot_with_only_a_bye_shows_no_score_and_the_legend_says_what_a_bye_counts_in():
    """After a Swiss round a bot whose only result was a bye read ``0.0%  0.00  0.00``: a
    mean rank of 0 (1 is first) and a score for no games."""
    from arena.results.standings import legend_lines, table_lines

    played, bye = tally_games(["a@1", "b@1", "c@1"], 2,
                              [((0, 1), (0, 1), (70.0, 50.0), ("ok", "ok"))])[0::2]
    bye.byes, bye.bye_points = 1, 1.0
    rows = {line.split()[0]: line.split()[1:] for line in table_lines([played, bye],
                                                                      seats=False)[2:]}
    assert rows["c@1"][:5] == ["0", "0", "0", "0", "1.0"]
    assert rows["c@1"][5:8] == ["—", "—", "—"]
    assert rows["a@1"][5:8] == ["100.0%", "70.00", "1.00"]
    legend = " ".join(legend_lines(2, byes=True))
    assert "a bye: a win's points, in points (and the order) only" in legend
    assert "a bye" not in " ".join(legend_lines(2))
    assert all(len(line) <= 80 for line in legend_lines(2, byes=True))


def test_a_bot_with_only_a_bye_has_no_mean_anywhere_and_ratings_list_it_apart(
        tmp_path, monkeypatch):
    """standings.csv gave a bye-only bot empty means but seat means of 0.0, and `arena
    ratings` listed it third by a μ − 3σ above the second's, against its stated order."""
    import csv
    from pathlib import Path

    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    config = tmp_path / "swiss.yaml"
    config.write_text(f"name: one-round\ngame: seasons\nformat: swiss\nrounds: 1\nseed: 5\n"
                      f"games_per_pairing: 2\nisolation: none\nworkers: 1\n"
                      f"db: {tmp_path / 'a.db'}\noutput: {tmp_path / 'out'}\n"
                      "bots: [bots/seasons/greedy.py, bots/seasons/random_bot.py, "
                      "{spec: bots/seasons/random_bot.py, name: idle}]\n")
    ran = CliRunner().invoke(cli, ["run", str(config), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    rows = list(csv.DictReader((tmp_path / "out" / "standings.csv").open()))
    byes = [row for row in rows if row["byes"] == "1"]
    assert len(byes) == 1 and byes[0]["games"] == "0", rows
    assert all(byes[0][f"seat{s}_mean_score"] == "" for s in (0, 1)), byes
    shown = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "a.db")]).output
    lines = shown.splitlines()
    idle = next(line for line in lines if byes[0]["bot"] + "@" in line)
    assert idle.split()[0] == "-" and "no rated game yet" in shown, shown
    assert [line.split()[0] for line in lines[3:5]] == ["1", "2"], shown
    fitted = CliRunner().invoke(cli, ["ratings", "--system", "bt", "--db",
                                      str(tmp_path / "a.db")]).output
    assert "no rated game yet (a bye, say), so no rating: " + byes[0]["bot"] + "@" in \
        " ".join(fitted.split()), fitted  # Bradley-Terry left it out without a word


def test_quarter_points_of_a_larger_table_show_exactly_and_add_up():
    """At three seats a bot's 5.25 points read 5.2 beside its seats' 1.75 read 1.8 each."""
    from arena.results.standings import table_lines

    tie_for_second = (0, 1, 1)  # points 1, 1/4, 1/4: two seats of three share second place
    games = [((0, 1, 2), tie_for_second, (0.0,) * 3, ("ok",) * 3) for _ in range(3)] + \
        [((1, 2, 0), (1, 1, 0), (0.0,) * 3, ("ok",) * 3) for _ in range(2)]
    results = tally_games(["a@1", "b@1", "c@1"], 3, games)
    totals = {r.label: r.total_points for r in results}
    assert any(abs(4 * p - round(4 * p)) < 1e-9 and 2 * p != round(2 * p)
               for p in totals.values())
    shown = table_lines(results)
    for result in results:
        rows = [line.split() for line in shown if line.split()[:1] == [result.label]]
        overall = float(rows[0][5])
        assert overall == result.total_points
        assert sum(float(row[6]) for row in rows[1:]) == overall


def test_the_standings_say_which_games_another_seats_failure_stopped():
    """At three seats a crash stopped every game: the two others shared first place four
    times, read as four draws with nothing to tell them from a decided draw."""
    stopped = [((0, 1, 2), (0, 0, 2), (0.0, 0.0, 0.0), ("ok", "ok", "crash"))] * 4
    played = [((0, 1, 2), (0, 1, 2), (3.0, 2.0, 1.0), ("ok", "ok", "ok"))]
    calm, steady, crasher = tally_games(["calm@1", "steady@1", "crasher@1"], 3,
                                        stopped + played)
    assert (calm.overall.stopped, steady.overall.stopped, crasher.overall.stopped) == (4, 4, 0)
    assert crasher.overall.failures == {"crash": 4}
    two = tally_games(["a@1", "b@1"], 2, [((0, 1), (1, 0), (0.0, 0.0), ("crash", "ok"))])
    assert two[1].overall.stopped == 0  # at two seats the game is decided: a win
    text = " ".join(" ".join(table_lines([calm, steady, crasher])).split())
    assert "stopped by another seat's failure (places there are the standing when it " \
           "stopped; ratings and pairs count only the failed seat's losses): calm@1 4, " \
           "steady@1 4" in text


def test_bots_no_tie_break_tells_apart_share_their_place():
    """Two copies of one bot, each beating the third the same way, were placed 1 and 2 by
    their entry order."""
    from arena.tournaments.runner import places, ranked

    games = [((0, 2), (0, 1), (80.0, 20.0), ("ok", "ok")),
             ((1, 2), (0, 1), (80.0, 20.0), ("ok", "ok")),
             ((0, 1), (0, 0), (50.0, 50.0), ("ok", "ok"))]
    order = ranked(tally_games(["copy-a@1", "copy-b@1", "weak@1"], 2, games))
    assert [result.label for result in order] == ["copy-a@1", "copy-b@1", "weak@1"]
    assert places(order) == [1, 1, 3]
    games[1] = ((1, 2), (0, 1), (81.0, 20.0), ("ok", "ok"))  # a mean score tells them apart
    assert places(ranked(tally_games(["copy-a@1", "copy-b@1", "weak@1"], 2, games))) == [1, 2, 3]
