# The README's two commands are `make serve` and `make test`; the other targets are the steps
# they share. A fresh Debian machine needs nothing else: Python packages come from PyPI
# (pinned in requirements.txt), Graphviz, Chromium, Node and npm from Debian's packages, KaTeX from
# npm (pinned in tools/katex/package-lock.json), esbuild and smol-toml from npm (pinned in tools/package-lock.json).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
# npm ci writes this file last, so it stands for a finished install of tools/katex's lockfile.
KATEX := tools/katex/node_modules/.package-lock.json
# The same for tools/package-lock.json: esbuild (the build bundles the calculator's ES modules with it) and
# smol-toml (the Node command line reads workload files with it).
JS_TOOLS := tools/node_modules/.package-lock.json
# Silences Material's end-of-life banner in builds and tests.
export NO_MKDOCS_2_WARNING := 1

.PHONY: setup system-deps browser-deps js-deps js-tools axe-deps serve build offline pdf lint test bench clean cheatsheet calibrate generated check

setup: $(STAMP) system-deps $(KATEX) $(JS_TOOLS)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-* && touch $@

# debian_install "cmd:package ..." ON_FAILURE: installs each package whose command is missing,
# when root on Debian; otherwise prints the exact command and runs ON_FAILURE.
define debian_install
	@missing=""; \
	for pair in $(1); do command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing from Debian's packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$missing >/dev/null) || { $(2); }; \
	  else \
	    echo "Missing system packages:$$missing. Install them with: sudo apt-get install -y$$missing" >&2; \
	    $(2); \
	  fi; \
	fi
endef

# Graphviz draws the architecture diagrams, and Node's KaTeX typesets the math
# (macros/site/build/katex_html.py): the build cannot do without them.
system-deps:
	$(call debian_install,dot:graphviz node:nodejs npm:npm,exit 1)

# KaTeX at the exact version of its lockfile, into tools/katex/node_modules. (npm warns that the
# command-line parser KaTeX's own CLI uses asks for a newer Node; the build does not use that CLI.)
$(KATEX): tools/katex/package.json tools/katex/package-lock.json | system-deps
	npm ci --prefix tools/katex --no-audit --no-fund --loglevel=error
	touch $@

# esbuild and smol-toml at the exact versions of tools/package-lock.json, into tools/node_modules (esbuild's
# binary for this platform comes inside its npm package).
js-tools: $(JS_TOOLS)

$(JS_TOOLS): tools/package.json tools/package-lock.json | system-deps
	npm ci --prefix tools --no-audit --no-fund --loglevel=error
	touch $@

# Chromium prints the cheat sheet and takes screenshots in the browser tests. Without it those
# tests report themselves skipped (and CI, which sets CI=true, counts a skip as a failure).
browser-deps:
	$(call debian_install,chromium:chromium pdftoppm:poppler-utils,echo "browser tests will be skipped" >&2)

# Node runs the calculator's JavaScript twin (tools/gpu_math.mjs) in tests/js. The build needs it
# too (system-deps installs it); without it those tests report themselves skipped (a failure under CI).
js-deps:
	$(call debian_install,node:nodejs,echo "the JavaScript twin's tests will be skipped" >&2)

# axe-core, the accessibility checker the browser walk injects into every page (tests/browser/axe.py):
# pinned by exact version in tests/package.json and tests/package-lock.json, installed from npm into
# tests/node_modules, and again whenever the lock file changes.
AXE := tests/node_modules/axe-core/axe.min.js
axe-deps: $(AXE)

$(AXE): tests/package-lock.json
	$(call debian_install,npm:npm,exit 1)
	npm ci --prefix tests --no-audit --no-fund
	touch $@

serve: setup
	MACROS_FAIL=false $(BIN)/mkdocs serve -a 127.0.0.1:8000

build: setup
	$(BIN)/mkdocs build --strict -d site

# A copy to download and open from disk (file://), with navigation and search: Material's offline
# plugin (OFFLINE=true in mkdocs.yml) links pages as .html files and inlines the search index.
# Zipped by Python's zipfile, so no `zip` package is needed.
offline: setup
	OFFLINE=true $(BIN)/mkdocs build --strict -d site-offline
	rm -f site-offline.zip && $(BIN)/python -m zipfile -c site-offline.zip site-offline/
	@echo "site-offline.zip: unzip it and open site-offline/index.html"

# The whole guide as one PDF, for reading on paper: the print-site plugin (PRINT_SITE=true) puts a
# contents page and every page in nav order on print_page/, which headless Chromium prints as
# tests/browser/test_guide_pdf.py does, with the headings as bookmarks.
pdf: setup browser-deps
	PRINT_SITE=true $(BIN)/mkdocs build --strict -d site-print
	$(BIN)/python tests/browser/headless.py site-print print_page/ field-guide.pdf >/dev/null
	@$(BIN)/python -c "import pypdf; print('field-guide.pdf:', len(pypdf.PdfReader('field-guide.pdf').pages), 'A4 pages')"

# Ruff's rules, line length and target are in pyproject.toml, where an editor or a hook finds them too: `ruff check .`
# at the root is this.
lint: setup
	$(BIN)/ruff check --quiet .

# On every core (pytest-xdist), whole files to a worker (tests/conftest.py), in the order collected:
# the browser files first, as they take longest.
PYTEST_PARALLEL := -n auto --no-loadscope-reorder

# The quick tier, while editing: the engine, the text layer, the JavaScript twin and the command lines, in
# process, with no site build and no browser (tests marked `site` need one: tests/conftest.py marks them). The
# twin's files first: they take longest, and started last they left one worker idle while the other finished them.
CHECK_TESTS := tests/js tests/engine tests/text $(wildcard tests/test_*.py)

check: setup js-deps lint
	$(BIN)/python -m pytest $(CHECK_TESTS) -q -m "not site and not slow" $(PYTEST_PARALLEL)

# Everything, as CI runs it, with the fifteen slowest steps printed.
test: setup browser-deps js-deps axe-deps lint
	$(BIN)/python -m pytest tests -q -rs --durations=15 $(PYTEST_PARALLEL)

# The printable cheat sheet (at most two A4 pages): build the site, serve it on 127.0.0.1 and print
# the page with headless Chromium, as tests/browser/test_print.py does.
cheatsheet: setup browser-deps
	$(BIN)/mkdocs build --strict -d site
	$(BIN)/python tests/browser/headless.py site cheatsheet/ cheatsheet.pdf >/dev/null
	@$(BIN)/python -c "import pypdf; print('cheatsheet.pdf:', len(pypdf.PdfReader('cheatsheet.pdf').pages), 'A4 pages')"

bench: setup browser-deps
	PYTEST_ADDOPTS="$(PYTEST_PARALLEL)" $(BIN)/python tests/bench.py

# Fit the serving model (ARCHITECTURE.md, the serving model) to the measured runs in macros/data/measured/ and write
# macros/data/calibration.toml, cross-validated by leaving each series out: minutes, not part of the build.
calibrate: setup
	$(BIN)/python tools/calibrate.py

# Every generated file the repository keeps beside the code (the list: macros/engine/generated.py): the simulations
# memo, the runs the suite's what-if builds need beyond it (tests/simulated/), the Node catalog, the twins' vectors,
# the bad-input table and the macro index. One command after any change to the engine or the data (about 10 minutes
# when every run is re-keyed, a minute or two when they are cached: it builds the site and the suite's what-ifs);
# tests/test_generated.py fails, naming it, while one is stale. (A
# change to the measured runs also wants `make calibrate`, which takes minutes.)
generated: setup
	$(BIN)/python tools/generated.py

clean:
	rm -rf site site-offline site-print .cache .pytest_cache site-offline.zip field-guide.pdf
