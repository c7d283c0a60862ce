"""The referee: plays one game between seated players and returns its record.

``match`` plays the game, ``dice`` draws every die from the seat-bound dice
streams, ``record`` is the finished game as data, and ``protocol`` is what the
referee asks of a player. Imports only :mod:`arena.games`.
"""
