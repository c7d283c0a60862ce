"""Results: the store of played games and everything computed from it.

``store`` is the SQLite database; ``standings`` tallies points per bot and
seat; ``ratings`` rates bots (TrueSkill, openskill) in a fixed order;
``stats`` holds score intervals, Elo, LOS, pentanomial counts and the SPRT;
``comparison`` compares two versions; ``versions`` follows ratings across
tournaments. Imports the bots' identities, the referee and the games.
"""
