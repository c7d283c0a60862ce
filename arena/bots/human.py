"""A person at the terminal as a player.

Every decision gets a screen that fits the terminal (80×24 or larger): what
happened since the person last answered (each roll and each other seat's move,
told in the game's log notation as it is played), the position, the numbered
choices packed in columns and cut into pages, and a prompt that says which seat
the person is. Ctrl-C, or the end of the input, abandons the game:
:class:`GameAbandoned` is no :class:`Exception`, so the referee does not record
it as the person's failure, and ``arena play`` writes no record of that game.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from arena.bots.announcer import MoveLog, move_log
from arena.bots.names import shown
from arena.bots.screen import fit, grid, numbered, pages, terminal_size
from arena.games.base import Action, Game, Observation, State
from arena.games.seasons.notation import CIRCLES
from arena.games.sonnentau.text import choice_label as sonnentau_choice_label
from arena.games.sonnentau.text import seat_colour
from arena.referee.protocol import PlayerInfo, printable
from arena.referee.record import Move

HUMAN_SPEC = "human"
MIN_CHOICE_ROWS = 4
"""Rows of choices every screen has room for: more moves than fit above wait for Enter."""
MORE = "More moves follow - press Enter:"
MORE_CHOICES = "More choices follow - press Enter, or type your choice:"
WAKE_UP = 0.2
"""Seconds between checks for a Ctrl-C while waiting for a line at the terminal."""
NOTE_QUOTE = 16
"""A mistyped answer is quoted up to this long."""

Echo = Callable[[str], None]
Size = Callable[[], tuple[int, int]]


class GameAbandoned(KeyboardInterrupt):
    """The person stopped the game: Ctrl-C (exit status 130) or the end of the input (1)."""

    def __init__(self, reason: str = "", exit_code: int = 130) -> None:
        super().__init__(reason)
        self.reason, self.exit_code = reason, exit_code


def seat_name(game: Game, seat: int) -> str:
    """What a seat is called on the board: ``inner circle``, ``red``."""
    if game.info.name == "seasons":
        return f"{CIRCLES[seat]} circle"
    if game.info.name == "sonnentau":
        return seat_colour(seat)
    return f"player {seat + 1}"


def choice_label(game: Game, state: Any, action: Any) -> str:
    """A legal action in a few words, short enough for columns."""
    if game.info.name == "sonnentau":
        return sonnentau_choice_label(state, action)
    return game.describe_action(state, action)


def _echo(text: str) -> None:
    click.echo(printable(text))


def _read_line(text: str) -> str:
    """``input()``, except that on a terminal the wait for the line wakes up now and then:
    a Ctrl-C that comes just as the prompt appears, before the read has begun, would
    otherwise wait for Enter, since Python runs its signal handlers between steps of
    Python code and not inside a blocking read."""
    if not sys.stdin.isatty():
        return input(text + " ")
    sys.stdout.write(text + " ")
    sys.stdout.flush()
    while not select.select([sys.stdin], [], [], WAKE_UP)[0]:
        pass
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


class Terminal:
    """The terminal that the human seats of a game share. It tells every move as it is
    played and keeps what it told since a person last answered, for that person's next
    screen; when more is to be told than fits above the position, it pauses, as a pager
    does, so that nothing scrolls away unread."""

    def __init__(self, game: Game, *, echo: Echo = _echo, size: Size = terminal_size,
                 prompt: Callable[[str], str] = _read_line) -> None:
        self.game, self.echo, self.size, self.prompt = game, echo, size, prompt
        self.log: MoveLog | None = None
        self.recent: list[str] = []
        """The rows shown since a person last answered."""

    def new_game(self, options: Mapping[str, Any], intro: str) -> None:
        """A game begins (each human seat says so; the first one resets the log)."""
        if self.log is None or self.log.moves:
            self.log = move_log(self.game, options)
            self.recent = []
        self.tell([intro])

    def on_move(self, state: State, move: Move) -> None:
        """The referee's hook after every move, the dice included."""
        if self.log is None:
            return
        lines = self.log.add(state, move)
        if not lines and not state.is_terminal:
            return
        position = self.position(state)
        if state.is_terminal:
            self.tell(lines, keep_free=len(position) + 1)  # and the result line
            self.tell(position)
        else:
            # Room for the next decision: its position, a few rows of choices, the prompt
            # (and a pending hit's line, which the position may gain).
            self.tell(lines, keep_free=len(position) + MIN_CHOICE_ROWS + 2)

    def position(self, state: Any) -> list[str]:
        """The position as a screen shows it, after a blank line."""
        return fit(["", *self.game.render(state).splitlines()], self.size()[0])

    def tell(self, lines: Sequence[str], keep_free: int = 0) -> None:
        """Show ``lines``, pausing first whenever the next one would leave fewer than
        ``keep_free`` rows of the screen for what comes after them."""
        width, height = self.size()
        for line in lines:
            rows = fit([line], width)
            if self.recent and len(self.recent) + len(rows) + max(keep_free, 1) > height:
                self.ask(MORE)
                self.answered()
            for row in rows:
                self.echo(row)
                self.recent.append(row)

    def ask(self, text: str) -> str:
        """The person's answer; Ctrl-C or the end of the input abandon the game."""
        try:
            return self.prompt(text)
        except KeyboardInterrupt:
            raise GameAbandoned() from None
        except EOFError:
            raise GameAbandoned("the input ended", exit_code=1) from None

    def answered(self) -> None:
        self.recent = []


class HumanPlayer:
    """Shows each decision's screen and reads a number, an action, or a command."""

    name = "human"
    version = "1"

    def __init__(self, game: Game, *, prompt: Callable[[str], str] = _read_line,
                 echo: Echo = _echo, size: Size = terminal_size,
                 terminal: Terminal | None = None) -> None:
        self.game = game
        self.terminal = terminal or Terminal(game, echo=echo, size=size, prompt=prompt)
        self.seat = 0

    def start(self, info: PlayerInfo) -> None:
        self.seat = info.seat
        self.terminal.new_game(info.options, f"{self.game.info.title}: you are {self.you}; "
                                          "seat 0 begins.")

    def on_move(self, state: State, move: Move) -> None:
        self.terminal.on_move(state, move)

    @property
    def you(self) -> str:
        return f"seat {self.seat} ({seat_name(self.game, self.seat)})"

    def act(self, observation: Observation) -> Action:
        self.seat = observation.seat
        state = self.game.state_from_json(observation.state)
        decision = _Decision(self, state, observation.legal_actions)
        try:
            return decision.run()
        finally:
            self.terminal.answered()

    @staticmethod
    def choose(answer: str, actions: tuple[Action, ...]) -> Action | None:
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        return next((a for a in actions if str(a) == answer), None)


class _Decision:
    """One decision: its screens, the page shown, the answers until one is a choice."""

    def __init__(self, player: HumanPlayer, state: Any, actions: tuple[Action, ...]) -> None:
        self.player, self.state, self.actions = player, state, actions
        self.labels = [choice_label(player.game, state, a) for a in actions]
        self.items = numbered(self.labels)
        self.terminal = player.terminal
        self.width, self.height = self.terminal.size()
        self.position = self.terminal.position(state)
        self.page = 0
        self.pages = pages(self.items, self.width, max(MIN_CHOICE_ROWS, self._free_rows()))

    def run(self) -> Action:
        note, replay = "", False
        while True:
            answer = self.terminal.ask(self._screen(note, replay=replay)).strip()
            chosen = self._answer(answer)
            if chosen is not None:
                return chosen
            if answer == "?":
                answer = self._full_list().strip()
                chosen = self._answer(answer)
                if chosen is not None:
                    return chosen
                if answer == "":  # as its prompt says: Enter shows the board again
                    note, replay = "", True
                    continue
            note, replay = self._note(answer), True

    def _answer(self, answer: str) -> Action | None:
        if answer == "" and len(self.actions) == 1:
            return self.actions[0]
        if answer in ("+", "-") and len(self.pages) > 1:
            self.page = (self.page + (1 if answer == "+" else -1)) % len(self.pages)
        return HumanPlayer.choose(answer, self.actions)

    def _note(self, answer: str) -> str:
        """What the screen shown again says about an answer that chose nothing: nothing
        after the full list or a page turn, else what to type."""
        if answer == "?" or (answer in ("+", "-") and len(self.pages) > 1):
            return ""
        if len(self.actions) == 1:
            return f"{shown(answer[:NOTE_QUOTE])} is not a choice: press Enter to play it"
        if answer in ("+", "-"):
            return f"All {len(self.actions)} choices are on this page: {self._how()}"
        if answer == "":
            return f"Enter alone chooses nothing: {self._how()}"
        return f"{shown(answer[:NOTE_QUOTE])} is not a choice: {self._how()}"

    def _how(self) -> str:
        """``type 1-32 and Enter (+/- other pages, ? all)``: what to type, in one line."""
        if len(self.pages) > 1:
            return f"type 1-{len(self.actions)} and Enter (+/- other pages, ? all)"
        return f"type 1-{len(self.actions)} and Enter (? lists all)"

    def _free_rows(self) -> int:
        """Rows for choices under what was told, the position and the prompt."""
        told = len(self.terminal.recent)
        most = len(self.actions)  # the prompt as long as it can be: a middle page of most
        prompt = self._prompt_rows(page=1, page_count=max(3, most))
        return self.height - told - len(self.position) - len(prompt)

    def _screen(self, note: str, *, replay: bool) -> str:
        """Show a screen and return its prompt. What was told since the person's last
        answer is on the screen already the first time; a screen shown again repeats as
        much of it as fits."""
        told = self.terminal.recent
        notes = fit([note], self.width) if note else []
        choices = self._choice_rows()
        prompt = self._prompt_rows()
        spare = self.height - len(self.position) - len(choices) - len(notes) - len(prompt)
        shown_told = told[max(0, len(told) - spare):] if replay and spare > 0 else []
        above = len(shown_told) if replay else len(told)  # on the screen already, if not
        # No blank line before the position when the rows above would push the prompt off.
        position = self.position if spare - above >= 0 else self.position[1:]
        gap = [""] if spare - len(told) > 0 else []
        for row in [*shown_told, *position, *gap, *choices, *notes, *prompt[:-1]]:
            self.terminal.echo(row)
        return prompt[-1]

    def _choice_rows(self) -> list[str]:
        """The page's choices, as many rows as the fullest page's, so that turning a page
        moves nothing else on the screen."""
        if len(self.actions) == 1:
            return fit([f"Only one choice: {self.labels[0]}"], self.width)
        rows = [grid(self.items[page.start:page.stop], self.width) for page in self.pages]
        shown = rows[self.page]
        return shown + [""] * (max(map(len, rows)) - len(shown))

    def _prompt_rows(self, page: int | None = None, page_count: int | None = None
                     ) -> list[str]:
        """The prompt: which seat the person is, and what to type. On a page of several,
        ``+`` is offered except on the last one, ``-`` except on the first."""
        you = f"You are {self.player.you}."
        page = self.page if page is None else page
        page_count = len(self.pages) if page_count is None else page_count
        if len(self.actions) == 1:
            text = f"{you} Press Enter to play it:"
        elif page_count == 1:
            text = f"{you} Your choice (1-{len(self.actions)}, ? lists all):"
        else:
            turns = [*(["+ more"] if page < page_count - 1 else []),
                     *(["- back"] if page > 0 else [])]
            text = (f"{you} Your choice (1-{len(self.actions)}; page {page + 1}/"
                    f"{page_count}: {', '.join(turns)}, ? all):")
        return fit([text], self.width)

    def _full_list(self) -> str:
        """Every choice with its full description and its action string, a screen at a
        time (Enter shows the next; a choice typed on the way is the answer); the answer."""
        game = self.player.game
        lines = [f"{number}. {game.describe_action(self.state, action)}   [{action}]"
                 for number, action in enumerate(self.actions, 1)]
        entries = [fit([line], self.width) for line in lines]  # a choice is not cut in two
        room = max(MIN_CHOICE_ROWS, self.height - 1)
        while sum(map(len, entries)) > room:
            shown = 0
            while entries and (not shown or shown + len(entries[0]) <= room):
                for row in entries[0]:
                    self.terminal.echo(row)
                shown += len(entries.pop(0))
            answer = self.terminal.ask(fit([MORE_CHOICES], self.width)[0])
            if answer.strip():
                return answer
        for row in (row for entry in entries for row in entry):
            self.terminal.echo(row)
        return self.terminal.ask(f"Your choice (1-{len(self.actions)}, Enter shows the board "
                                 "again):")
