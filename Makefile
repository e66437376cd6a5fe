# One command each: `make demo` sets up and runs the main job offline; `make test`
# sets up and runs lint, format check and the test suite (what .ci/run calls).
# The multi-worker tests start a real redis-server (a system package, installed
# here when missing and running as root on Debian/Ubuntu) and `chroma run`
# (from the chromadb package in the venv).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)

.PHONY: setup services test demo web lint format clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	# torch first, pinned: an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP)

services:
	@command -v redis-server >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; \
	  else \
	    echo "make test needs redis-server (package redis-server): sudo apt-get install -y redis-server, or brew install redis on macOS" >&2; \
	    exit 1; \
	  fi; }
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	  else \
	    echo "make test needs chromium and chromedriver (packages chromium, chromium-driver) for the web page test" >&2; \
	    exit 1; \
	  fi; }

test: setup services
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -q

demo: setup
	$(BIN)/papertrail demo

# the web channel on http://127.0.0.1:8000/ (offline, no tokens)
web: setup
	$(BIN)/python -m bot web

lint: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache demo-out
