"""A person at the terminal as a player: the board, numbered choices, re-prompts."""

from __future__ import annotations

from collections.abc import Callable

import click

from arena.games.base import Action, Game, Observation

HUMAN_SPEC = "human"


class HumanPlayer:
    """Shows the position and the numbered legal actions; reads a number or an action."""

    name = "human"
    version = "1"

    def __init__(self, game: Game, *, prompt: Callable[[str], str] | None = None,
                 echo: Callable[[str], None] = click.echo) -> None:
        self.game = game
        self.prompt = prompt or (lambda text: click.prompt(text, prompt_suffix=" "))
        self.echo = echo

    def act(self, observation: Observation) -> Action:
        state = self.game.state_from_json(observation.state)
        actions = observation.legal_actions
        self.echo("")
        self.echo(self.game.render(state))
        for number, action in enumerate(actions, 1):
            self.echo(f"{number:3d}. {self.game.describe_action(state, action)}   [{action}]")
        while True:
            answer = self.prompt(f"seat {observation.seat}, your choice (1-{len(actions)}):")
            chosen = self.choose(answer.strip(), actions)
            if chosen is not None:
                return chosen
            self.echo(f"'{answer}' is not a choice: type a number from 1 to {len(actions)} "
                      "or an action as shown in brackets")

    @staticmethod
    def choose(answer: str, actions: tuple[Action, ...]) -> Action | None:
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        return next((a for a in actions if str(a) == answer), None)
