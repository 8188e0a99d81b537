# Two commands: `make run` serves the demo, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
# E-mail links point where the server runs: `make run HOST=0.0.0.0:9000 SITE_URL=https://...`.
SITE_URL ?= http://$(HOST)
# `make run` serves the demo as people will meet it: DEBUG off, so errors show the product's own
# pages and never Django's debug page; plain HTTP on this machine, so the cookies go without the
# Secure flag; a secret key made once into a git-ignored file. The environment's values win.
# (tests/config/test_demo_run.py reads these defaults.)
DEMO_KEY := .demo-secret-key
DEMO_ENV = DEBUG=$${DEBUG:-false} SESSION_COOKIE_SECURE=$${SESSION_COOKIE_SECURE:-false} \
	CSRF_COOKIE_SECURE=$${CSRF_COOKIE_SECURE:-false} SECRET_KEY="$${SECRET_KEY:-$$(cat $(DEMO_KEY))}" \
	SITE_URL=$(SITE_URL)

.PHONY: install run test test-s3 lint typecheck pytest worker beat bench clean compose-env

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Clusterbid needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

$(DEMO_KEY):
	@umask 077 && $(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@

# docker-compose's secrets: a .env beside docker-compose.yml (compose reads it), written once with
# random values and readable by its owner only. The compose file holds no secret.
.env:
	@umask 077 && $(PYTHON) -c 'import secrets; t = secrets.token_urlsafe; \
	import base64, os; k = base64.urlsafe_b64encode(os.urandom(32)).decode(); \
	print(f"SECRET_KEY={t(50)}\nPOSTGRES_PASSWORD={t(24)}\nMETRICS_TOKEN={t(24)}\nSIGNING_KEY={k}")' > $@
	@echo "wrote .env (SECRET_KEY, POSTGRES_PASSWORD, METRICS_TOKEN, SIGNING_KEY); keep it out of version control"

compose-env: .env

# With DEBUG off, runserver leaves static files to WhiteNoise, which serves what collectstatic put
# in STATIC_ROOT.
run: install $(DEMO_KEY)
	$(DEMO_ENV) $(PY) manage.py migrate --noinput
	$(DEMO_ENV) $(PY) manage.py collectstatic --noinput -v0
	$(DEMO_ENV) EMAIL_BACKEND=core.mail.MailLogBackend $(PY) manage.py seed_demo
	$(DEMO_ENV) $(PY) manage.py runserver $(HOST)

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/deptry .

typecheck: install
	$(VENV)/bin/mypy . .ci/runtime_smoke.py

# One test process per CPU core (pytest-xdist), each with its own test database, cache key prefix
# and MEDIA_ROOT (tests/conftest.py); loadgroup keeps the tests that run a Celery worker on the
# shared broker together on one process. `make pytest PYTEST_XDIST=` runs one process.
PYTEST_XDIST ?= -n auto --dist loadgroup
pytest: install
	$(VENV)/bin/pytest $(PYTEST_XDIST) $(PYTEST_ARGS)

# The same tests with every stored file in an S3 bucket (moto's server on loopback), as
# FILE_STORAGE=s3 runs the product. Not part of `make test`: it doubles the suite's time.
test-s3: install
	TEST_FILE_STORAGE=s3 $(VENV)/bin/pytest $(PYTEST_XDIST) $(PYTEST_ARGS)

test: lint typecheck pytest

# A Celery worker for the Redis-backed set-up (CELERY_BROKER_URL must be set).
# One worker for both queues (interactive and heavy); docker-compose runs one per queue.
worker: install
	$(VENV)/bin/celery -A config worker --loglevel=INFO

# Celery beat: the periodic notice sweep (incident clocks, sealed bids opened). One per site.
beat: install
	$(VENV)/bin/celery -A config beat --loglevel=INFO --schedule=/tmp/clusterbid-beat-schedule

bench: install
	$(PY) bench/scoring.py
	$(PY) bench/parse.py

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles .pytest_cache .mypy_cache .ruff_cache $(DEMO_KEY)
