# The two set-up commands of the README: `make score` and `make test`.
# Both create the virtual environment .venv from a clean checkout.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: score test lint sample bench clean
.PHONY: bundle test-floor test-suite test-suite-plays test-suite-rest test-differential test-replay

$(BIN)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(BIN)/.dev: $(BIN)/.runtime requirements-dev.txt
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

## score: install the runtime and score the sample phase in input/ into output/
score: $(BIN)/.runtime
	$(BIN)/python program/evaluate.py input output

## test: install the test tools, lint, and run the whole suite in .venv, recording every phase
## it scores, and side by side the floors' own tests (test-floor); then replay the record on
## every stack (test-replay)
RECORD := $(CURDIR)/.test-data/record
test: $(BIN)/.dev
	$(BIN)/ruff check program tests tools bench
	$(BIN)/vermin --no-tips --violations -t=3.7- program
	@rm -rf $(RECORD) && mkdir -p $(RECORD)
	@$(MAKE) --no-print-directory -j4 test-suite-plays test-suite-rest test-replay test-floor \
		RECORDING="SCORING_RECORD=$(RECORD)"

## test-suite: the whole suite in .venv (the current stack) but the differential test
test-suite: $(BIN)/.dev
	$(BIN)/python -m pytest -q --timeout=600 --deselect tests/test_differential.py tests

# make test runs test-suite in two halves side by side: the tests that play whole
# competitions and pages in child processes, and the rest; tests/test_evalai.py runs under
# EvalAI's worker stack in test-floor (tests/floor/run)
PLAYS := tests/test_bundle.py tests/test_organizer_bundle.py \
	tests/test_pages_browser.py tests/test_fourth_kind.py tests/test_organizer_identity.py \
	tests/test_contract.py tests/test_concurrent_runs.py
test-suite-plays: $(BIN)/.dev
	$(RECORDING) $(BIN)/python -m pytest -q --timeout=600 $(PLAYS)
test-suite-rest: $(BIN)/.dev
	$(RECORDING) $(BIN)/python -m pytest -q --timeout=600 --deselect tests/test_differential.py \
		$(addprefix --ignore=,$(PLAYS) tests/test_evalai.py) tests

# the differential test on the phases the two halves recorded (make test)
test-replay: test-suite-plays test-suite-rest
	SCORING_RECORDED=$(RECORD) $(BIN)/python -m pytest -q --timeout=1800 tests/test_differential.py

## test-differential: every case of the malformed corpus, the hostile tests and the fuzzers
## recorded and replayed on every stack (tests/test_differential.py)
test-differential: $(BIN)/.dev
	$(BIN)/python -m pytest -q --timeout=1800 tests/test_differential.py

## sample: regenerate the sample phase in input/ from its generators
sample: $(BIN)/.runtime
	$(BIN)/python tools/make_sample.py input

## bench: the benchmarks of bench/, each printing ratios against an in-run baseline
bench: $(BIN)/.dev
	$(BIN)/python bench/run.py

## bundle: the competitions (zips and starting kits) under dist/: COMPETITION=DIR for an
## organizer's folder, else the demo from input/ (its committed yaml regenerated);
## TOGETHER=1 makes all tracks one competition
bundle: $(BIN)/.runtime
	$(BIN)/python tools/make_bundle.py --out dist $(if $(COMPETITION),--competition "$(COMPETITION)") \
		$(if $(TOGETHER),--together)

# The floors: .venv-py37 and .venv-py312, each the pins of one Codalab image, and .venv-py39,
# those of EvalAI's submission worker, each under the Python it has (found by
# tests/floor/find-python on PATH or under pyenv).
.venv-py%/.floor: requirements-py%.txt
	@version=$$(echo $* | sed 's/^3/3./'); python=$$(tests/floor/find-python $$version); \
	test -n "$$python" || { echo "No Python $$version found on PATH or under pyenv." >&2; exit 1; }; \
	rm -rf .venv-py$* && "$$python" -m venv .venv-py$* && \
	.venv-py$*/bin/python -m pip install --quiet -r requirements-py$*.txt
	touch $@

## test-floor: under Python 3.7 with the py37 image's pins, the tests of what the differential
## test does not replay (kernels, readers, pages), EvalAI's tests under Python 3.9 with its
## worker's pins; py312 is in the differential test (tests/floor/run; CI=true requires 3.7)
test-floor:
	@tests/floor/run

clean:
	rm -rf $(VENV) output/* dist .test-data
	rm -rf .venv-py37 .venv-py39 .venv-py312 .venv-py*.lock
