"""``arena serve``: the competition on the web, and its participants."""

from __future__ import annotations

from typing import Any

import click

from arena.cli.common import DB_OPTION, echo, echo_wrapped, reports_errors


class ServeGroup(click.Group):
    """``arena serve CONFIG`` starts the server; ``arena serve users …`` manages people."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["start", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "CONFIG [--host H] [--port P] [-v]")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="   or: ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """``arena serve CONFIG``'s options (those of ``arena serve start``), then the
        group's own and its commands."""
        start = self.commands["start"]
        rows = [record for param in start.params if isinstance(param, click.Option)
                and (record := param.get_help_record(ctx)) is not None]
        with formatter.section("Options of arena serve CONFIG (the same as arena serve "
                               "start CONFIG)"):
            formatter.write_dl(rows)
        super().format_options(ctx, formatter)


@click.group(cls=ServeGroup, short_help="Serve ladders on the web, with uploads and accounts.")
def serve() -> None:
    """Serve ladders on the web: arena serve CONFIG starts the server and the ladders of
    CONFIG (arena serve start CONFIG); arena serve users manages the participants."""


@serve.command("start")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0: every interface).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              help="The port to listen on.")
@click.option("-v", "--verbose", is_flag=True,
              help="A line per finished game (the ladders' notes, rounds and failures "
                   "show anyway).")
@reports_errors
def serve_start(config_path: str, host: str, port: int, verbose: bool) -> None:
    """Start the web server and the ladders of CONFIG; Ctrl-C stops both. A ladder
    process that dies is restarted (after 1 s, 2 s, 4 s … up to 60 s)."""
    from arena.server.config import load_serve_config, public_seed_warnings
    from arena.server.service import serve as run_server

    config = load_serve_config(config_path)
    for warning in public_seed_warnings(config):
        echo(f"warning: {warning}", err=True)
    names = ", ".join(ladder.name for ladder in config.ladders)
    alongside = "; the ladders play alongside" if config.run_ladders else ""
    run_server(config, host, port, lines=ladder_lines, verbose=verbose,
               ready=lambda: echo_wrapped(
                   f"{config.title}: http://{host}:{port}/ serving {names} (database "
                   f"{config.db}){alongside}; Ctrl-C stops it", indent="    "))


def ladder_lines(name: str, verbose: bool) -> Any:
    """What ``arena ladder run`` shows of a ladder (its notes, a line per round, each
    failure; with ``verbose`` each game), as lines on stderr that start ``[name]``."""
    from arena.cli.ladder import LadderView

    class Lines(LadderView):
        def write(self, line: str) -> None:
            echo_wrapped(f"[{name}] {line}", indent="    ", err=True)

        def note(self, text: str) -> None:
            self.write(text)  # wrapped once, after its prefix

        def _round_done(self, index: int, games: int) -> None:
            self.write(f"round {index + 1} done, {games} games in all")

    return Lines(enabled=False, verbose=verbose).progress()


@serve.group("users")
def users() -> None:
    """The competition's participants."""


@users.command("add", short_help="Add a participant and print their token.")
@click.argument("name")
@click.option("--organizer", is_flag=True, help="May freeze ladders and retire bots.")
@DB_OPTION
@reports_errors
def users_add(name: str, organizer: bool, db: str) -> None:
    """Add participant NAME and print their token (shown only this once)."""
    from arena.results.store import Store
    from arena.server.participants import add_participant

    with Store(db) as store:
        who, token = add_participant(store, name, organizer=organizer)
    echo_wrapped(f"{'organizer' if who.organizer else 'participant'} {who.name} added; "
                 "their token (shown only this once, keep it secret):")
    echo(token)


@users.command("sign-out", short_help="End every session of a participant.")
@click.argument("name")
@DB_OPTION
@reports_errors
def users_sign_out(name: str, db: str) -> None:
    """End every session of participant NAME, in every browser (a stolen cookie too)."""
    from arena.cli.common import open_store
    from arena.server.participants import end_sessions

    with open_store(db) as store:
        who = end_sessions(store, name)
    echo_wrapped(f"every session of {who.name} has ended; they sign in again with their "
                 "token")


@users.command("new-token", short_help="Give a participant a new token.")
@click.argument("name")
@DB_OPTION
@reports_errors
def users_new_token(name: str, db: str) -> None:
    """Give participant NAME a new token: the old one stops working at once (a leaked token),
    and every session of theirs ends."""
    from arena.cli.common import open_store
    from arena.server.participants import new_token

    with open_store(db) as store:
        who, token = new_token(store, name)
    echo_wrapped(f"{who.name} has a new token; the old one no longer works and every session "
                 "of theirs has ended. The new token (shown only this once, keep it secret):")
    echo(token)


@users.command("list")
@DB_OPTION
@reports_errors
def users_list(db: str) -> None:
    """The participants (never their tokens)."""
    from arena.cli.common import open_store
    from arena.server.participants import participants

    with open_store(db) as store:
        for who in participants(store):
            echo(f"{who.name}{' (organizer)' if who.organizer else ''}")


def submit_to_server(spec: str, server: str, token: str, ladder: str | None) -> Any:
    """Upload ``spec`` through the server's JSON API; the reply."""
    from pathlib import Path

    import httpx

    from arena.bots.files import read_bot_file  # never through a link, capped

    path = Path(spec)
    try:
        reply = httpx.post(server.rstrip("/") + "/api/submissions",
                           headers={"Authorization": f"Bearer {token}"},
                           data={"ladder": ladder or ""},
                           files={"bot": (path.name, read_bot_file(path)[0])}, timeout=60)
    except httpx.HTTPError as exc:
        raise click.ClickException(f"cannot reach {server}: {exc}") from None
    body = reply.json() if reply.headers.get("content-type", "").startswith(
        "application/json") else {"error": reply.text[:200]}
    if reply.status_code >= 400:
        raise click.ClickException(f"{server}: {body.get('error', reply.status_code)}")
    return body
