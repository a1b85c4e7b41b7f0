# The two set-up commands of the README: `make score` and `make test`.
# Both create the virtual environment .venv from a clean checkout.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: score test lint sample bench clean
.PHONY: bundle test-floor

FLOOR := .venv-floor

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

## test: install the test tools and run the whole suite
test: $(BIN)/.dev
	$(BIN)/ruff check program tests tools bench
	$(BIN)/vermin --no-tips --violations -t=3.7- program
	$(BIN)/python -m pytest -q --timeout=600 tests
	$(MAKE) --no-print-directory test-floor

## sample: regenerate the sample phase in input/ from its generators
sample: $(BIN)/.runtime
	$(BIN)/python tools/make_sample.py input

## bench: the benchmarks of bench/, each printing ratios against an in-run baseline
bench: $(BIN)/.dev
	$(BIN)/python bench/run.py

## bundle: the competitions (zips and starting kits) under dist/: COMPETITION=DIR for an
## organizer's folder, else the demo from input/ (competition.yaml regenerated)
bundle: $(BIN)/.runtime
	$(BIN)/python tools/make_bundle.py --out dist $(if $(COMPETITION),--competition "$(COMPETITION)")

$(FLOOR)/.floor: requirements-floor.txt tests/floor/pillow6_bool_refs.pth
	$(PYTHON) -m venv $(FLOOR)
	$(FLOOR)/bin/python -m pip install --quiet --upgrade pip
	$(FLOOR)/bin/python -m pip install --quiet -r requirements-floor.txt
	cp tests/floor/pillow6_bool_refs.pth "$$($(FLOOR)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
	touch $@

## test-floor: the whole suite again with the oldest numpy, scipy, Pillow, PyYAML (requirements-floor.txt)
test-floor: $(FLOOR)/.floor
	$(FLOOR)/bin/python -m pytest -q -p no:cacheprovider --timeout=600 tests

clean:
	rm -rf $(VENV) output/* dist
	rm -rf $(FLOOR)
