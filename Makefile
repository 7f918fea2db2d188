# The two commands of the README. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test lint bench

run: $(STAMP)
	$(BIN)/combat-server

demo: $(STAMP)
	$(BIN)/combat-demo

test: $(STAMP) lint
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python -m bench.engine

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

# Line and branch coverage of the cluster package (server/cluster/) by the cluster tests
# (tests/cluster/, on private redis-servers); the data file stays in .venv.
.PHONY: coverage-cluster
coverage-cluster: $(STAMP)
	$(BIN)/coverage run --data-file=$(VENV)/.coverage-cluster --branch --source=server/cluster -m pytest tests/cluster -q -p no:cacheprovider
	$(BIN)/coverage report --data-file=$(VENV)/.coverage-cluster
