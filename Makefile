# Two commands for a newcomer: `make run` and `make test`.
# Both set up what is missing (Python env, npm packages, the client build,
# the database) and are quick when everything is already in place.

SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
UV := $(or $(shell command -v uv 2>/dev/null),.tools/bin/uv)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
ENGINE_SOURCES := $(shell find games/engine -name '*.py' -o -name '*.bin' 2>/dev/null)
STATIC_SOURCES := $(shell find frontend/src -type f 2>/dev/null)
# daphne with invite tokens redacted from its access log (paigow_site/server.py).
SERVER := $(PY) -m paigow_site.server
# collectstatic only reads files, but production settings refuse to load
# without a secret and host names: these stand in when none are set.
BUILD_ONLY_SECRET := collectstatic-only-not-a-secret-collectstatic-only-not-a-secret
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: setup run serve worker production-env static test test-sqlite test-js lint typecheck audit bench clean

setup: $(VENV)/.synced frontend/node_modules/.installed frontend/build/manifest.json migrate

.tools/bin/uv:
	@echo "==> installing uv $(UV_VERSION) into .tools/ (uv is not on PATH)"
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet "uv==$(UV_VERSION)"

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	@echo "==> installing Python dependencies from uv.lock into $(VENV)/"
	$(UV) sync --frozen --python $(PYTHON)
	@touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	@echo "==> installing npm dependencies from frontend/package-lock.json"
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

frontend/build/manifest.json: frontend/build.py frontend/node_modules/.installed $(ENGINE_SOURCES) \
  frontend/src/js/engine-core.mjs frontend/src/js/engine-worker.mjs \
  frontend/tools/engine-snapshot.mjs frontend/tools/precompress.mjs
	@echo "==> building the browser client (Pyodide runtime + engine archive)"
	$(PY) frontend/build.py

.PHONY: migrate
migrate: $(VENV)/.synced
	@echo "==> applying database migrations"
	@$(PY) manage.py migrate --noinput -v 0

run: setup
	@echo "==> serving Pai Gow Lab on http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(SERVER) -b $(HOST) -p $(PORT) paigow_site.asgi:application

# Production static files: hashed names and compressed copies in staticfiles/
# (whitenoise's manifest storage; with DJANGO_DEBUG=0 every page is a 500
# without them). Redone only when the client or the packages change.
static: staticfiles/staticfiles.json

staticfiles/staticfiles.json: $(VENV)/.synced frontend/build/manifest.json $(STATIC_SOURCES)
	@echo "==> collecting static files for production into staticfiles/"
	DJANGO_DEBUG=0 SECRET_KEY="$${SECRET_KEY:-$(BUILD_ONLY_SECRET)}" \
	  ALLOWED_HOSTS="$${ALLOWED_HOSTS:-build}" $(PY) manage.py collectstatic --noinput -v 0
	@touch $@

# Production on this machine (README, "Production"): DJANGO_DEBUG=0 with the
# SECRET_KEY and ALLOWED_HOSTS you give, migrations, static files, then daphne.
serve: production-env setup static
	@echo "==> serving Pai Gow Lab in production mode on $(HOST):$(PORT) (Ctrl-C stops)"
	DJANGO_DEBUG=0 $(SERVER) -b $(HOST) -p $(PORT) paigow_site.asgi:application

# A Celery worker on QUEUES (all of them when empty), started again whenever
# it exits, however (as compose's restart: and the systemd unit in
# docs/architecture.md do); Ctrl-C during the pause stops it. One a queue in
# production: make worker QUEUES=celery, QUEUES=celery-analysis, QUEUES=celery-costs.
QUEUES ?=
worker: setup
	@while true; do \
	  $(PY) -m celery -A paigow_site worker --loglevel=INFO $(if $(QUEUES),-Q $(QUEUES)); \
	  echo "==> the worker exited ($$?): starting it again in 2 s (Ctrl-C now to stop)"; \
	  sleep 2; \
	done

production-env:
	@test -n "$$SECRET_KEY" || { echo "make serve: set SECRET_KEY (50+ random characters)"; exit 2; }
	@test -n "$$ALLOWED_HOSTS" || { echo "make serve: set ALLOWED_HOSTS (the site's host names)"; exit 2; }

# The whole suite with the environment as given (CI sets DATABASE_URL and
# REDIS_URL); then, when a server database was used, the database tests again
# on the embedded SQLite default so both backends are covered. That second
# pass leaves out what would only repeat the first: the tests that start the
# project in processes of their own with the embedded environment
# (own_environment) and the slow ones (the socket fuzz, live servers).
test: setup lint typecheck test-js
	@echo "==> running the test suite ($${DATABASE_URL:+PostgreSQL}$${DATABASE_URL:-embedded SQLite})"
	$(PY) -m pytest $(PYTEST_ARGS)
	@if [ -n "$$DATABASE_URL" ]; then $(MAKE) --no-print-directory test-sqlite; fi

test-sqlite: setup
	@echo "==> running the database tests again on embedded SQLite, in-memory layer, eager Celery"
	env -u DATABASE_URL -u REDIS_URL $(PY) -m pytest -m "not browser and not services and not own_environment and not slow" $(wildcard tests/foundation tests/accounts tests/models tests/services tests/realtime tests/background tests/history tests/pages tests/api tests/security) $(PYTEST_ARGS)

# The browser client's pure modules (frontend/test/: the table's state and
# its transport against a fake WebSocket) under Node's own test runner.
test-js:
	@echo "==> node --test frontend/test"
	@node --test --test-reporter=spec frontend/test/*.test.mjs

lint: $(VENV)/.synced
	@echo "==> ruff"
	@$(VENV)/bin/ruff check .

# mypy with the django-stubs plugin over games, accounts and paigow_site (the
# files and flags are pyproject.toml's [tool.mypy]; the engine --strict).
typecheck: $(VENV)/.synced
	@echo "==> mypy (django-stubs, DRF stubs; the engine --strict)"
	@$(VENV)/bin/mypy
	@$(VENV)/bin/mypy --strict games/engine

audit:
	@mkdir -p var
	@echo "==> auditing locked Python dependencies for known vulnerabilities"
	$(UV) export --frozen --format requirements-txt --no-hashes > var/requirements-audit.txt
	@# --strict: a package that could not be looked up fails the audit instead
	@# of passing silently ("No known vulnerabilities found" with nothing checked).
	$(VENV)/bin/pip-audit --no-deps --disable-pip --strict -r var/requirements-audit.txt

bench:
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) .tools frontend/node_modules frontend/build staticfiles
