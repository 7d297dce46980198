# mgfarm developer entry points. `make demo` and `make test` are the two commands a new user needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: install test unit integration docker-test demo lint bench images clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

unit: install
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

integration: install
	$(BIN)/python -m pytest tests/integration $(PYTEST_ARGS)

docker-test: install
	$(BIN)/python -m pytest tests/docker $(PYTEST_ARGS)

demo: install
	$(BIN)/mgfarm demo

lint: install
	$(BIN)/ruff check mgfarm tests benchmarks docker
	$(BIN)/ruff format --check mgfarm tests benchmarks docker
	$(BIN)/mypy

bench: install
	$(BIN)/mgfarm bench --quick

images: install
	$(BIN)/mgfarm images build

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
