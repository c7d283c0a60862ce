# Quick start: `make demo` plays a seeded match between the shipped bots,
# `make test` runs the whole test suite. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test stress lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
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
