"""Tournaments: from a config to stored results.

``config`` validates a YAML file; ``schedule`` and ``swiss`` decide who meets
whom with which seed; ``tasks`` plays one game task wherever it is sent;
``executor`` ships tasks to local ``workers`` or a Dask cluster; ``runner``
runs and resumes a tournament; ``matches`` plays a few games, or a comparison
of two versions; ``submissions`` registers a new bot. Imports results, bots,
the referee and the games.
"""
