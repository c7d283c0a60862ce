# Quick start: `make demo` plays a seeded match between the shipped bots,
# `make test` runs the whole test suite. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.base
STAMP := $(VENV)/.installed

.PHONY: demo test stress lint clean

# The demo needs arena alone; the tests add their tools and the research libraries.
$(BASE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -e .
	touch $(BASE)

$(STAMP): pyproject.toml $(BASE)
	$(BIN)/python -m pip install --progress-bar off -e '.[test]'
	touch $(STAMP)

demo: $(BASE)
	$(BIN)/arena run configs/seasons-round-robin.yaml

lint: $(STAMP)
	$(BIN)/ruff check arena bots tests bench examples tools
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -n 3 -m "not stress"

stress: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m stress

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
