"""Clusterbid settings: every value from the environment, with defaults safe for a laptop demo.

See the README's table of environment variables.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import plotly
from django.core.exceptions import ImproperlyConfigured

# Django reads these from this module.
from config.api_settings import REST_FRAMEWORK, SPECTACULAR_SETTINGS  # noqa: F401
from config.env import (
    database_from_url,
    env_bool,
    env_choice,
    env_fernet_keys,
    env_header,
    env_int,
    env_int_list,
    env_list,
    env_rate,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-for-local-demo"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    # Our apps, bottom layer first (import-linter holds them to it: see .importlinter).
    "core",
    "orgs",
    "audit",
    "signing",
    "sso",
    "notices",
    "suppliers",
    "webhooks",
    "bids",
    "questionnaire",
    "contracts",
    "acceptance",
    "incidents",
    "delivery",
    "inference",
    "billing",
    "evaluation",
    "scorecards",
    "observed",
    "annexes",
    "demo",
    "api",
    "ops",
]

MIDDLEWARE = [
    # First, so that its time and query count cover every other layer.
    "core.metrics.MetricsMiddleware",
    "core.logcontext.RequestContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "core.middleware.RequestBodyLimitMiddleware",
    "core.middleware.QueueUnavailableMiddleware",
    "core.middleware.StoredFileMissingMiddleware",
    "core.middleware.SecretKeyErrorMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "orgs.middleware.ActiveOrganizationMiddleware",
    # A page read of a gated request's details goes to the request's gate instead.
    "bids.middleware.DetailsGateMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one account
# from one client address, that pair is paused for AXES_COOLOFF_MINUTES. Locking on the pair
# (never on the account alone or the address alone) means nobody can lock another person out:
# the victim's right password from their own address, and every other account from the
# attacker's address, still sign in. docs/sign-in.md explains the trade-off.
AUTHENTICATION_BACKENDS = [
    # Before axes: a sign-in through an organisation's identity provider carries no password
    # to throttle, and a refused one is told why rather than counted as a wrong password.
    "sso.backends.OrganizationOIDCBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# An invitation to join an organisation can be accepted for this many days after it is sent.
MEMBER_INVITATION_DAYS = env_int("MEMBER_INVITATION_DAYS", 7, minimum=1)
# Days a buyer's e-mailed invitation of a new provider (its sign-up link) stays usable.
SUPPLIER_INVITATION_DAYS = env_int("SUPPLIER_INVITATION_DAYS", 14, minimum=1)
# How often Celery beat marks the supplier invitations whose link has expired.
SUPPLIER_INVITATION_SWEEP_SECONDS = env_int("SUPPLIER_INVITATION_SWEEP_SECONDS", 3600, minimum=60)
# Per client address (core/ratelimit.py): sign-up tries on an invitation's join page, and
# links whose signature does not hold (someone guessing tokens).
SUPPLIER_JOIN_RATE = env_rate("SUPPLIER_JOIN_RATE", "10/hour")
SUPPLIER_JOIN_BAD_LINK_RATE = env_rate("SUPPLIER_JOIN_BAD_LINK_RATE", "20/hour")
# Days before a compliance document expires when its organisation's administrators are reminded.
COMPLIANCE_REMINDER_DAYS = env_int_list("COMPLIANCE_REMINDER_DAYS", [30, 7], minimum=1)
# How often Celery beat sends the reminders that fell due (manage.py send_compliance_reminders).
COMPLIANCE_SWEEP_SECONDS = env_int("COMPLIANCE_SWEEP_SECONDS", 3600, minimum=60)
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_MINUTES = env_int("AXES_COOLOFF_MINUTES", 15, minimum=1)
AXES_COOLOFF_MAX_HOURS = env_int("AXES_COOLOFF_MAX_HOURS", 24, minimum=1)
# Progressive: the pause doubles with each further AXES_FAILURE_LIMIT failures of the pair.
# Each attempt's expiry is stored, so one pair's longer pause is never cut short by another's.
AXES_COOLOFF_TIME = "core.client_address.cool_off"
AXES_USE_ATTEMPT_EXPIRATION = True
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"  # shared by every worker process
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The client address: REMOTE_ADDR unless a trusted reverse proxy's header is named (never
# X-Forwarded-For by default: the client writes it). See core/client_address.py.
AXES_CLIENT_IP_CALLABLE = "core.client_address.client_address"
CLIENT_IP_HEADER = env_header("CLIENT_IP_HEADER")
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 1, minimum=1)
AXES_VERBOSE = False

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "orgs.context_processors.organizations",
                "notices.context_processors.notices",
            ],
        },
    },
]
# Widgets render through Jinja2's copies of Django's widget templates (faster, same markup);
# the admin's own widget templates, which only Django's engine has, still load (core/renderers).
FORM_RENDERER = "core.renderers.WidgetRenderer"

_database_url = env_str("DATABASE_URL")
# Off only behind a pooler that cannot keep a connection's prepared statements (PgBouncer before
# 1.21 in transaction mode).
DATABASE_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", True)
DATABASES = {
    "default": database_from_url(
        "DATABASE_URL", _database_url, prepared=DATABASE_PREPARED_STATEMENTS
    )
    if _database_url
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# plotly.js ships inside the plotly wheel; serve that copy rather than a CDN's.
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("vendor/plotly", Path(plotly.__file__).parent / "package_data"),
]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
# Uploads past FILE_UPLOAD_MAX_MEMORY_SIZE wait here while their request runs. Django deletes
# each when its request ends, even with an error; a worker killed mid-request (a timeout, out
# of memory) leaves its file, so the job reaper deletes what is older than
# UPLOAD_TEMP_MAX_MINUTES (longer than any request may take).
FILE_UPLOAD_TEMP_DIR = env_str(
    "FILE_UPLOAD_TEMP_DIR", str(Path(tempfile.gettempdir()) / "clusterbid-uploads")
)
Path(FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
UPLOAD_TEMP_MAX_MINUTES = env_int("UPLOAD_TEMP_MAX_MINUTES", 60, minimum=5)

# Stored files (uploads, evidence, annexes, statements): the local disk under MEDIA_ROOT, or an
# S3-compatible bucket (FILE_STORAGE=s3) that web and worker hosts share. Downloads always
# stream through the app behind its permission checks; the bucket stays private. Presigned URLs
# (S3_URL_SECONDS) serve only the analysis child, which streams a bundle straight from storage.
FILE_STORAGE = env_choice("FILE_STORAGE", "local", choices=("local", "s3"))
_default_storage: dict[str, object] = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
if FILE_STORAGE == "s3":
    if not env_str("S3_BUCKET"):
        raise ImproperlyConfigured("FILE_STORAGE=s3 needs S3_BUCKET (and credentials)")
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("S3_BUCKET"),
            "endpoint_url": env_str("S3_ENDPOINT_URL") or None,
            "region_name": env_str("S3_REGION") or None,
            "access_key": env_str("S3_ACCESS_KEY_ID") or None,
            "secret_key": env_str("S3_SECRET_ACCESS_KEY") or None,
            "addressing_style": env_choice(
                "S3_ADDRESSING", "auto", choices=("auto", "path", "virtual")
            ),
            "default_acl": None,  # the bucket's own policy: private
            "file_overwrite": False,  # a stored name is never rewritten
            "querystring_auth": True,
            "querystring_expire": env_int("S3_URL_SECONDS", 300, minimum=30),
        },
    }
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Uploads: evidence files are read whole by the parsers, so the limit is a real bound.
EVIDENCE_MAX_BYTES = env_int("EVIDENCE_MAX_BYTES", 50 * 1024 * 1024, minimum=1024)
# A failed run of 16,384 ranks uploads about 1 GB of Flight Recorder dumps; they stream to disk.
FAILED_RUN_MAX_BYTES = env_int("FAILED_RUN_MAX_BYTES", 2 * 1024**3, minimum=1024)
# A year of per-minute usage lines for two nodes is about 70 MB; the reconciliation streams it.
USAGE_MAX_BYTES = env_int("USAGE_MAX_BYTES", 256 * 1024**2, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 10 * 1024 * 1024, minimum=1024)

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
# Where core.mail.MailLogBackend appends messages (`make run` seeds the demo with it).
MAIL_LOG_FILE = env_str("MAIL_LOG_FILE", str(BASE_DIR / "var" / "demo-mail.log"))
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Clusterbid <noreply@clusterbid.local>")
# The public address e-mail links start with: set it to where users reach the server.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL must start with http:// or https://, got {SITE_URL!r}")

# Celery: without a broker, tasks run in-process (eagerly) so the demo needs no Redis.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "clusterbid")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Time limits: a task past its soft limit gets an exception it can record; past the hard limit
# the worker child is killed. The failed-run analysis of 16,384 ranks is the longest task.
JOB_TIME_LIMIT_SECONDS = env_int("JOB_TIME_LIMIT_SECONDS", 300, minimum=60)
ANALYSIS_TIME_LIMIT_SECONDS = env_int("ANALYSIS_TIME_LIMIT_SECONDS", 1800, minimum=60)
CELERY_TASK_TIME_LIMIT = JOB_TIME_LIMIT_SECONDS
CELERY_TASK_SOFT_TIME_LIMIT = JOB_TIME_LIMIT_SECONDS - 30
# Redis re-delivers an unacknowledged task (acks_late: its worker died) after this long. Celery's
# default is one hour; it must exceed the longest task, or a slow task runs twice at once.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int(
        "CELERY_VISIBILITY_TIMEOUT", 2 * ANALYSIS_TIME_LIMIT_SECONDS, minimum=120
    )
}
REAP_STUCK_JOBS_SECONDS = env_int("REAP_STUCK_JOBS_SECONDS", 300, minimum=10)
# Tasks stored while the broker was away are sent again this often once it answers.
WAITING_TASKS_SECONDS = env_int("WAITING_TASKS_SECONDS", 60, minimum=5)
# A failed-run analysis runs in a child process capped at this much memory; its stored result
# is summarised beyond ANALYSIS_MAX_BYTES (long lists cut, with what was cut said).
ANALYSIS_ISOLATED = env_bool("ANALYSIS_ISOLATED", True)
ANALYSIS_MEMORY_BYTES = env_int("ANALYSIS_MEMORY_BYTES", 4 * 1024**3, minimum=256 * 1024**2)
ANALYSIS_MAX_BYTES = env_int("ANALYSIS_MAX_BYTES", 16 * 1024**2, minimum=64 * 1024)
# The heavy queue is fair: each organisation has at most HEAVY_IN_FLIGHT_PER_ORG failed-run
# analyses queued or running; its further uploads are stored as "waiting" and queued one by one
# as its earlier ones end. Past HEAVY_JOBS_PER_ORG stored (waiting, queued or running) the next
# upload is refused with 429.
HEAVY_IN_FLIGHT_PER_ORG = env_int("HEAVY_IN_FLIGHT_PER_ORG", 1, minimum=1)
HEAVY_JOBS_PER_ORG = env_int("HEAVY_JOBS_PER_ORG", 4, minimum=1)
# Webhooks (docs/webhooks.md): a refused delivery is retried after BASE, 2·BASE, 4·BASE, …
# seconds (at most MAX each), WEBHOOK_MAX_ATTEMPTS attempts in all. Targets must be public
# https addresses; WEBHOOK_ALLOW_PRIVATE_TARGETS (tests, a laptop receiver) also allows
# loopback, private networks and plain http, which in production would let an administrator
# probe the internal network (SSRF).
WEBHOOK_ALLOW_PRIVATE_TARGETS = env_bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", False)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10, minimum=1)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6, minimum=1)
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 60, minimum=1)
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 3600, minimum=1)
# After a rotation, deliveries carry a signature with the old secret too for this long.
WEBHOOK_SECRET_GRACE_HOURS = env_int("WEBHOOK_SECRET_GRACE_HOURS", 24, minimum=0)
# Re-sends deliveries whose retry message was lost (a broker restart) and frees lost attempts.
WEBHOOK_SWEEP_SECONDS = env_int("WEBHOOK_SWEEP_SECONDS", 60, minimum=10)
# `celery -A config beat` sends these; `manage.py send_due_notices` does the same from cron.
NOTICE_SWEEP_SECONDS = env_int("NOTICE_SWEEP_SECONDS", 300, minimum=10)
CELERY_BEAT_SCHEDULE = {
    "reap-stuck-jobs": {
        "task": "core.tasks.reap_stuck_jobs",
        "schedule": float(REAP_STUCK_JOBS_SECONDS),
    },
    "send-waiting-tasks": {
        "task": "core.tasks.send_waiting_tasks",
        "schedule": float(WAITING_TASKS_SECONDS),
    },
    "send-compliance-reminders": {
        "task": "suppliers.tasks.send_compliance_reminders",
        "schedule": float(COMPLIANCE_SWEEP_SECONDS),
    },
    "expire-supplier-invitations": {
        "task": "bids.tasks.expire_supplier_invitations",
        "schedule": float(SUPPLIER_INVITATION_SWEEP_SECONDS),
    },
    "send-due-notices": {
        "task": "incidents.tasks.send_due_notices",
        "schedule": float(NOTICE_SWEEP_SECONDS),
    },
    # The outcome of planned changes whose window opened (same cadence as the due notices).
    "open-change-windows": {
        "task": "delivery.tasks.open_change_windows",
        "schedule": float(NOTICE_SWEEP_SECONDS),
    },
    "sweep-webhook-deliveries": {
        "task": "webhooks.tasks.sweep_deliveries",
        "schedule": float(WEBHOOK_SWEEP_SECONDS),
    },
}

# Writes made with an API token (scripts, curl from the cluster) are rate-limited per token.
API_TOKEN_WRITE_RATE = env_rate("API_TOKEN_WRITE_RATE", "60/min")

# Rate-limit counters live in the cache: share one (Redis) between web processes in production.
_cache_url = env_str("CACHE_URL")
if _cache_url and not _cache_url.startswith(("redis://", "rediss://")):
    raise ImproperlyConfigured(
        f"CACHE_URL must start with redis:// or rediss://, got {_cache_url!r}"
    )
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
    if _cache_url
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)

# Served over HTTPS (SITE_URL says so) in production: redirect plain HTTP and send HSTS. The
# health check stays reachable over plain HTTP for load balancers.
_HTTPS = SITE_URL.startswith("https://") and not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", _HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if _HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", _HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", _HTTPS)
# Secrets at rest (core/secrets.py; docs/annexes.md, "Signed contracts"). SIGNING_KEY encrypts
# the signing keys, SSO client secrets, webhook secrets and PagerDuty routing keys; production
# (DEBUG off, served over HTTPS) must set it, while a demo on plain HTTP and the tests use the
# embedded key below, which protects nothing. SIGNING_KEY_PREVIOUS lists the keys it replaced:
# they only decrypt, until `manage.py reencrypt_secrets` has moved everything to the new one.
SIGNING_KEYS = env_fernet_keys(
    "SIGNING_KEY", default="UyZFESjCwf-iyxZBd1gPKCwL6mD0_7gURJbuf7fE4qw=", required=_HTTPS
) + env_fernet_keys("SIGNING_KEY_PREVIOUS", default="", required=False)
# Sign-in through an organisation's identity provider (sso/, docs/sign-in.md). Each
# organisation's provider is configured on its settings page; these hold for all of them.
OIDC_AUTHENTICATION_CALLBACK_URL = "sso:callback"
OIDC_RP_SCOPES = "openid email profile"
OIDC_USE_PKCE = True
SSO_HTTP_TIMEOUT_SECONDS = env_int("SSO_HTTP_TIMEOUT_SECONDS", 10, minimum=1)
OIDC_TIMEOUT = SSO_HTTP_TIMEOUT_SECONDS
# Plain-HTTP issuers only for a provider on this machine (a local Keycloak, the tests).
SSO_ALLOW_HTTP_ISSUERS = env_bool("SSO_ALLOW_HTTP_ISSUERS", False)
# Trust roots besides this instance's trial CA: PEM files of the CAs whose certificates the
# signature validation accepts (an organisation's own CA, a trust service's root).
SIGNING_TRUST_ROOTS = env_list("SIGNING_TRUST_ROOTS", [])
# An RFC 3161 timestamp authority; without one a signing time is the signer's own clock.
SIGNING_TSA_URL = env_str("SIGNING_TSA_URL", "").strip()
SIGNING_TSA_TIMEOUT_SECONDS = env_int("SIGNING_TSA_TIMEOUT_SECONDS", 10, minimum=1)

# Behind a TLS-terminating proxy: the header it sets, e.g. HTTP_X_FORWARDED_PROTO.
if _proxy_header := env_str("SECURE_PROXY_SSL_HEADER", ""):
    SECURE_PROXY_SSL_HEADER = (_proxy_header, "https")

# Logs: JSON lines in production (one event a line, with the request id and the acting
# organisation), plain text under DEBUG. Nothing logs request bodies or file contents.
LOG_FORMAT = env_choice("LOG_FORMAT", "text" if DEBUG else "json", choices=("json", "text"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "core.logcontext.ContextFilter"}},
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s "
            "%(organization_id)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # WeasyPrint and fontTools narrate every layout step at INFO.
    "loggers": {
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
    },
}

# /metrics (Prometheus text): with a token set, scrapers send `Authorization: Bearer <token>`;
# without one, only a scraper on this host is answered.
METRICS_TOKEN = env_str("METRICS_TOKEN")
