# Quick start: `make demo` shows Cairn working; `make test` runs the test suite.
# Both create .venv on first use and install what they need into it.

PYTHON ?= python3
# Never import the bare source folders from the working directory: `cairn` must
# resolve through the installed link tree, where cairn.store etc. exist.
export PYTHONSAFEPATH := 1
VENV   := .venv
BIN    := $(VENV)/bin
# The strict editable install links files one by one, so the stamp also changes
# when a module is added or removed (the list of files is part of its name).
SOURCES := $(shell find cairn store indexer lsp \( -name '*.py' -o -name '*.scm' -o -name py.typed -o -path '*/site_assets/*' \) -not -path '*/__pycache__/*' 2>/dev/null | LC_ALL=C sort)
STAMP  := $(VENV)/.installed-$(shell { cat pyproject.toml; echo $(SOURCES); } | cksum | cut -d' ' -f1)

.PHONY: venv demo test test-fast test-vscode docs-images lint typecheck bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# strict editable mode builds a link tree that mypy and pyright can follow
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=strict
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: venv
	$(BIN)/cairn demo

test: venv
	$(BIN)/pytest -q -p no:cacheprovider

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	# each mapped folder is named: from the repository root, -p cairn alone walks only cairn/
	$(BIN)/mypy -p cairn -p cairn.store -p cairn.indexer -p cairn.lsp

test-vscode: venv
	$(MAKE) -C editors/vscode test-e2e

# The README's pictures, taken by the end-to-end tests themselves so they stay true:
# the decision site in headless Chromium, then VS Code (code-server) if you pass VSCODE=1.
docs-images: venv
	CAIRN_DOCS_IMAGES=1 CAIRN_REQUIRE_CHROMIUM=1 $(BIN)/pytest -q -p no:cacheprovider tests/decision_site/test_site_in_chromium.py
	if [ -n "$(VSCODE)" ]; then CAIRN_DOCS_IMAGES=1 $(MAKE) -C editors/vscode test-e2e; fi

bench: venv
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) build *.egg-info
