"""Settings fail loudly, naming the variable, and default to a safe laptop set-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from config.celery import app as celery_app
from config.env import database_from_url, env_bool, env_int, env_list
from tests.conftest import BROKER_GROUP

ROOT = Path(__file__).resolve().parents[2]


def test_booleans_accept_the_usual_spellings(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "0")
    assert env_bool("FLAG", True) is False


def test_a_malformed_boolean_names_the_variable(monkeypatch):
    monkeypatch.setenv("DEBUG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="DEBUG must be one of"):
        env_bool("DEBUG", True)


def test_a_malformed_integer_names_the_variable(monkeypatch):
    monkeypatch.setenv("EVIDENCE_MAX_BYTES", "50MB")
    with pytest.raises(ImproperlyConfigured, match="EVIDENCE_MAX_BYTES must be an integer"):
        env_int("EVIDENCE_MAX_BYTES", 1)
    monkeypatch.setenv("EVIDENCE_MAX_BYTES", "10")
    with pytest.raises(ImproperlyConfigured, match="at least 1024"):
        env_int("EVIDENCE_MAX_BYTES", 1, minimum=1024)


def test_lists_split_on_commas(monkeypatch):
    monkeypatch.setenv("ALLOWED_HOSTS", "a.example, b.example,,")
    assert env_list("ALLOWED_HOSTS", []) == ["a.example", "b.example"]


def test_database_url_for_postgres():
    db = database_from_url("DATABASE_URL", "postgres://cb:s%40cret@db.internal:5433/clusterbid")
    assert db["ENGINE"] == "config.postgresql"  # Django's, with time stamps read in C
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "clusterbid",
        "cb",
        "s@cret",
        "db.internal",
        "5433",
    )


def test_database_url_for_sqlite_and_bad_schemes():
    assert database_from_url("DATABASE_URL", "sqlite:////tmp/x.sqlite3")["NAME"] == "/tmp/x.sqlite3"
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must start with"):
        database_from_url("DATABASE_URL", "mysql://x/y")


_PRINTED = "settings.CELERY_TASK_ALWAYS_EAGER, settings.DATABASES['default']['ENGINE']"


def _settings_process(*, printed: str = _PRINTED, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    clean.update(env)
    code = f"import django; django.setup(); from django.conf import settings; print({printed})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_without_configuration_the_demo_runs_on_sqlite_with_in_process_tasks():
    result = _settings_process(DJANGO_SETTINGS_MODULE="config.settings")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "django.db.backends.sqlite3"]


def test_production_without_a_secret_key_refuses_to_start():
    result = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false", SECRET_KEY=""
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_production_without_a_signing_key_refuses_to_start():
    production = {"DEBUG": "false", "SECRET_KEY": "x" * 50, "SITE_URL": "https://cb.example"}
    result = _settings_process(DJANGO_SETTINGS_MODULE="config.settings", **production)
    assert result.returncode != 0
    assert "SIGNING_KEY must be set in production" in result.stderr
    bad = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", SIGNING_KEY="not-a-key", **production
    )
    assert bad.returncode != 0 and "SIGNING_KEY: key 1 is not a Fernet key" in bad.stderr
    # The demo on plain HTTP (make run) starts with the embedded key.
    demo = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false", SECRET_KEY="x" * 50
    )
    assert demo.returncode == 0, demo.stderr


def test_the_previous_signing_keys_decrypt_and_a_bad_one_stops_start_up():
    new, old = (Fernet.generate_key().decode() for _ in range(2))
    production = {"DEBUG": "false", "SECRET_KEY": "x" * 50, "SITE_URL": "https://cb.example",
                  "SIGNING_KEY": new}  # fmt: skip
    both = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", SIGNING_KEY_PREVIOUS=f" {old} ,", **production,
        printed="','.join(settings.SIGNING_KEYS)",
    )  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert both.stdout.strip() == f"{new},{old}"  # the new one first: it encrypts
    bad = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", SIGNING_KEY_PREVIOUS=f"{old},{new[:-2]}",
        **production,
    )  # fmt: skip
    assert bad.returncode != 0
    assert "SIGNING_KEY_PREVIOUS: key 2 is not a Fernet key" in bad.stderr


def test_every_environment_variable_is_documented_in_the_readme():
    import re

    source = (ROOT / "config" / "settings.py").read_text()
    helpers = r"env_(?:str|bool|int|list|choice|header|rate|fernet_keys)"
    names = set(re.findall(helpers + r'\(\s*"([A-Z_]+)"', source))
    names.add("DATABASE_URL")
    readme = (ROOT / "README.md").read_text()
    undocumented = sorted(n for n in names if f"`{n}`" not in readme)
    assert not undocumented, f"Add to the README's environment table: {undocumented}"


@pytest.mark.django_db
def test_healthz_answers_without_signing_in(client):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert body["database"] == "ok" and {"broker", "worker"} <= set(body)


# No worker may run meanwhile, not even another xdist process's: run in the workers' group.
@pytest.mark.xdist_group(BROKER_GROUP)
@pytest.mark.django_db
def test_healthz_says_no_worker_when_none_runs(client, settings):
    from tests.conftest import require_service

    require_service(bool(settings.CELERY_BROKER_URL), "no broker configured")
    celery_app.conf.task_always_eager = False
    try:
        response = client.get("/healthz")
    finally:
        celery_app.conf.task_always_eager = True
    body = response.json()
    assert response.status_code == 503 and body["status"] == "error"
    assert body["database"] == "ok" and body["broker"] == "ok"
    assert body["worker"].startswith("error: no worker answered")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_healthz_is_ok_with_a_worker(client, real_worker):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["worker"].startswith("ok (")


def test_a_shared_cache_is_redis_or_refused():
    ok = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", CACHE_URL="redis://127.0.0.1:6379/1"
    )
    assert ok.returncode == 0, ok.stderr
    bad = _settings_process(DJANGO_SETTINGS_MODULE="config.settings", CACHE_URL="memcached://x")
    assert bad.returncode != 0
    assert "CACHE_URL must start with redis://" in bad.stderr


def test_the_production_settings_pass_the_deploy_check():
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "x9" * 30 + "-not-a-real-key-but-long-and-varied-7Qz",
        "SITE_URL": "https://clusterbid.example",
        "ALLOWED_HOSTS": "clusterbid.example",
        "SIGNING_KEY": "Yq3Jm8sH0c4hR2Tz5wq1Kf9Lb7Nd6Pv3Xe0Ga2Ui4Oo=",
    }
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the browser tests set it for this process
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_site_url_is_an_absolute_address_or_refused():
    # E-mail links start with it: a bare host name would make every link relative and broken.
    bad = _settings_process(DJANGO_SETTINGS_MODULE="config.settings", SITE_URL="bids.example.com")
    assert bad.returncode != 0
    assert "SITE_URL must start with http:// or https://" in bad.stderr
    ok = _settings_process(
        DJANGO_SETTINGS_MODULE="config.settings", SITE_URL="https://bids.example.com/"
    )
    assert ok.returncode == 0, ok.stderr
