# mgfarm developer entry points. `make demo` and `make test` are the two commands a new user needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.installed-core
DEV := $(VENV)/.installed-dev
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: install test unit integration docker-test demo lint bench images clean oracles oracle-test

# Bytecode written once here: every simulated device is its own Python process, and without it each
# one compiles ~100 modules at start (0.2-0.3 s of CPU; PYTHONDONTWRITEBYTECODE or a sandboxed worker
# never writes __pycache__ itself). Only changed files are compiled again.
install: $(STAMP)
	$(BIN)/python -m compileall -q mgfarm

# Three layers, so the demo installs only what it runs: mgfarm itself (the demo), the test and lint
# tools (unit tests, lint), then Ray and the rest `make test` exercises. pip prints what it fetches.
$(CORE): pyproject.toml
	@echo "==> $(VENV): mgfarm and its runtime dependencies"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar off -e .
	touch $@

$(DEV): $(CORE)
	@echo "==> $(VENV): test and lint tools"
	$(BIN)/pip install --progress-bar off -e '.[dev]'
	touch $@

$(STAMP): $(DEV)
	@echo "==> $(VENV): everything the whole test suite uses (Ray, android_env and AndroidWorld's imports)"
	$(BIN)/pip install --progress-bar off -e '.[dev,ray,compat]'
	touch $@

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

unit: $(DEV)
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

integration: install
	$(BIN)/python -m pytest tests/integration $(PYTEST_ARGS)

docker-test: install
	$(BIN)/python -m pytest tests/docker $(PYTEST_ARGS)

demo: $(CORE)
	$(BIN)/mgfarm demo

lint: $(DEV)
	$(BIN)/ruff check mgfarm tests benchmarks docker
	$(BIN)/ruff format --check mgfarm tests benchmarks docker
	$(BIN)/mypy
	# the scripts outside the package too (one folder a run: both docker folders hold a healthcheck.py)
	$(BIN)/mypy --explicit-package-bases benchmarks
	$(BIN)/mypy docker/emulator
	$(BIN)/mypy docker/sim

bench: install
	$(BIN)/mgfarm bench --quick

# The sim's shell against the real programs: toybox 0.8.6 (Android 13's config) and mksh R59c, built
# from their public sources (internet, a C compiler, zlib and OpenSSL headers). `make test` skips them.
ORACLES ?= $(HOME)/.cache/mgfarm/oracles
oracles:
	bash tests/oracle/build.sh $(ORACLES)

oracle-test: $(DEV)
	MGFARM_ORACLES=$(ORACLES) $(BIN)/python -m pytest tests/oracle $(PYTEST_ARGS)

images: install
	$(BIN)/mgfarm images build

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache

# The emulator path end to end on one replica (docker/emulator/smoke.py). Without a real SDK build
# (EMULATOR_SMOKE_ARGS="--real --accept-android-sdk-licenses" on a KVM host) it runs the STAND-IN.
EMULATOR_SMOKE_ARGS ?=
.PHONY: emulator-smoke parity
emulator-smoke: install
	$(BIN)/python docker/emulator/smoke.py $(EMULATOR_SMOKE_ARGS)

# The parity checks against any adb-reachable device; records what it prints (tests/parity/).
SERIAL ?=
ADB_PORT ?= 5037
parity: $(CORE)
	@test -n "$(SERIAL)" || { echo "error: name the device: make parity SERIAL=emulator-5554"; exit 2; }
	$(BIN)/python -m mgfarm.parity --serial $(SERIAL) --adb-port $(ADB_PORT)
