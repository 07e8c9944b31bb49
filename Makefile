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

.PHONY: venv demo test fuzz test-fast test-vscode docs-images lint typecheck bench clean

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

# Property-based fuzzing of the CLI, the language server and log files
# (tests/hardening/test_fuzz.py), and of what a hostile repository ships besides its
# log: the Claude Code hook's input and migration/ADR files for the importers
# (tests/hardening/test_fuzz_sources.py); 20x the budget `make test` gives them, in
# rounds with fresh seeds until FUZZ_SECONDS have passed; stops at the first finding.
FUZZ_SECONDS ?= 600
fuzz: venv
	@end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); round=0; \
	while [ $$(date +%s) -lt $$end ]; do \
	  round=$$((round + 1)); echo "fuzz round $$round"; \
	  CAIRN_FUZZ_SCALE=20 $(BIN)/pytest -q -p no:cacheprovider -x tests/hardening/test_fuzz.py tests/hardening/test_fuzz_sources.py \
	    --hypothesis-seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') || exit 1; \
	done; echo "fuzz: $$round rounds, no finding"

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	# the layers as contracts ([tool.importlinter] in pyproject.toml; docs/architecture.md),
	# run from .venv: lint-imports puts its working directory first on sys.path, and here
	# the bare cairn/ folder would hide the installed cairn.store, cairn.lsp...
	cd $(VENV) && bin/lint-imports --no-cache $(CURDIR)/pyproject.toml

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
