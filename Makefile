# One command each: `make demo` sets up and runs the main job offline; `make test`
# sets up and runs lint, format check and the test suite (what .ci/run calls).
# Set-up installs the CPU build of torch from PyTorch's CPU index (PyPI's Linux
# x86_64 wheel is the CUDA build, GBs of NVIDIA libraries), then the exact versions of
# requirements.lock, then PaperTrail itself. The multi-worker tests start a real
# redis-server and the web page test Debian's chromium + chromium-driver (system
# packages, installed here when missing and running as root on Debian/Ubuntu), and
# `chroma run` (from the chromadb package in the venv).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH := torch==2.13.0
TORCH_INDEX := https://download.pytorch.org/whl/cpu
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements.lock | sha256sum | cut -c1-12)

.PHONY: setup services test demo web lint lock readme clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	# torch alone from the CPU index; its own dependencies are in the lock
	$(BIN)/pip install --quiet --retries 2 --no-deps --index-url $(TORCH_INDEX) $(TORCH)
	$(BIN)/pip install --quiet -r requirements.lock
	# with its dependencies: a no-op when the lock is current, a fallback when it is not
	$(BIN)/pip install --quiet -e .
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

# Refresh requirements.lock from pyproject.toml (newest versions its ranges allow;
# torch stays at $(TORCH), installed apart from its CPU index).
lock: setup
	$(BIN)/pip install --quiet pip-tools
	echo "$(TORCH)" > $(VENV)/torch-pin.txt
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --extra dev \
	  --unsafe-package torch --strip-extras --no-emit-index-url --no-emit-find-links \
	  -c $(VENV)/torch-pin.txt -o requirements.lock pyproject.toml
	$(BIN)/python scripts/runtime_lock.py

# Rewrite the README's configuration tables from Settings and BotConfig.
readme: setup
	$(BIN)/python -m bot.config_table --write README.md

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache demo-out
