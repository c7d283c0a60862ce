"""Bots: loading them from specs, who they are, and how they run.

``loading`` imports a bot from its spec; ``identity`` says who an entry is (name,
version, code hash); ``process`` runs a bot in a process of its own behind the
JSON-lines protocol, with limits; ``runner`` is the bot-side end of that
protocol; ``strays`` makes sure nothing a bot starts outlives it; ``isolation``
makes each tournament entry's player at its isolation level; ``human`` is a
person at the terminal; ``template`` and ``validation`` bring a new bot in.
Imports the referee and the games.
"""
