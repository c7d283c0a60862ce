"""arena: tournaments, ratings and reports for bots playing Seasons of the Sun and Sonnentau."""

__version__ = "0.1.0"
