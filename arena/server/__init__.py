"""arena serve: the competition on the web."""
