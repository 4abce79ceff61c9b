"""Settings, read from the environment.

With no environment at all the site runs embedded: SQLite under var/, the
in-memory channel layer, Celery tasks run eagerly, a development secret and
DEBUG on. DATABASE_URL switches to PostgreSQL, REDIS_URL to channels-redis and
a Redis broker. DJANGO_DEBUG=0 is production and fails loudly without a real
SECRET_KEY and ALLOWED_HOSTS.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF, WASM_UNSAFE_EVAL
from django.core.exceptions import ImproperlyConfigured
from kombu.entity import Queue

from paigow_site.env import env_bool, env_float, env_int, env_list
from paigow_site.static import immutable_file

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PAIGOW_VAR_DIR", BASE_DIR / "var"))

VERSION = "0.1.0"


DEBUG = env_bool("DJANGO_DEBUG", True)
TESTING = env_bool("PAIGOW_TESTING", False)

DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Production (DJANGO_DEBUG=0) needs a long random secret."
        )
    SECRET_KEY = DEV_SECRET_KEY
elif not DEBUG and (SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured("SECRET_KEY is too weak for production: use 50+ random characters.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or env_list("DJANGO_ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    if not DEBUG:
        raise ImproperlyConfigured(
            "ALLOWED_HOSTS is not set. Production (DJANGO_DEBUG=0) needs the site's host names."
        )
    ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before whitenoise, so static files carry the policy too: a Web Worker
    # runs under the policy of its own script's response, not the page's.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The trusted-device cookie of a right password; a 503 when the limits' cache is down.
    "accounts.middleware.PasswordLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "paigow_site.urls"
ASGI_APPLICATION = "paigow_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "paigow_site" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "paigow_site.context.site",
                "paigow_site.context.review",
            ],
        },
    },
]

# Databases: PostgreSQL from DATABASE_URL, else an embedded SQLite file.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
# PostgreSQL connections come from Django's psycopg pool, one per process
# (paigow_site.dbpool): a request or a socket's database call borrows one and
# gives it back as it ends. Persistent connections (DB_CONN_MAX_AGE) kept one
# per request thread under ASGI, freed only by the garbage collector: a flood
# filled PostgreSQL (issue 43). A process holds at most DB_POOL_MAX_SIZE
# (size it so web processes x max + worker processes x their max stays under
# PostgreSQL's max_connections, docs/architecture.md); DB_POOL_MIN_SIZE stay
# open while idle (more are closed after DB_POOL_MAX_IDLE_SECONDS unused). A
# request that finds every connection lent waits DB_POOL_TIMEOUT_SECONDS at
# most, then gets a 503 with Retry-After (paigow_site.unavailable).
DB_POOL_MIN_SIZE = env_int("DB_POOL_MIN_SIZE", 2)
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 10)
DB_POOL_TIMEOUT_SECONDS = env_float("DB_POOL_TIMEOUT_SECONDS", 5)
DB_POOL_MAX_IDLE_SECONDS = env_float("DB_POOL_MAX_IDLE_SECONDS", 60)
if os.environ.get("DB_CONN_MAX_AGE", "0").strip() not in ("", "0"):
    raise ImproperlyConfigured(
        "DB_CONN_MAX_AGE is no longer read: persistent connections leak one per request "
        "thread under ASGI. Connections come from a pool; unset DB_CONN_MAX_AGE and size "
        "the pool with DB_POOL_MAX_SIZE."
    )
if not 1 <= DB_POOL_MIN_SIZE <= DB_POOL_MAX_SIZE:
    raise ImproperlyConfigured("DB_POOL_MIN_SIZE must be at least 1 and at most DB_POOL_MAX_SIZE.")
if DATABASE_URL:
    import paigow_site.dbpool  # noqa: F401  (a forked worker makes a pool of its own)

    # CONN_HEALTH_CHECKS with a pool: an empty statement before a connection
    # is lent, so one a PostgreSQL restart dropped is replaced, not handed out.
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=0, conn_health_checks=True)
    }
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "pool": {
            "min_size": DB_POOL_MIN_SIZE,
            "max_size": DB_POOL_MAX_SIZE,
            "timeout": DB_POOL_TIMEOUT_SECONDS,
            "max_idle": DB_POOL_MAX_IDLE_SECONDS,
        },
    }
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "db.sqlite3"),
            # Several request threads write one file: wait for the lock instead
            # of failing at once, and take it up front so a read never has to
            # be upgraded mid-transaction.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
            # Tests use a file too, not Django's in-memory default: a shared-cache
            # memory database takes table locks that fail at once instead of
            # waiting for the timeout, so a socket reading a session while a
            # request writes it failed the request ("database table is locked").
            "TEST": {"NAME": str(VAR_DIR / "test.sqlite3")},
        }
    }

# The largest request body the site takes, in bytes (1 MiB: a form or an API
# call is a few kilobytes; nothing is uploaded). A larger one is refused with
# 413 before it is read (paigow_site.server in daphne, paigow_site.bodycap for
# any server); the proxy in front should cap bodies too (README, "Production").
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 1024 * 1024)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:sign_in"
LOGIN_REDIRECT_URL = "games:lobby"
LOGOUT_REDIRECT_URL = "home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Redis carries the channel layer, the Celery broker and the cache when set.
REDIS_URL = os.environ.get("REDIS_URL", "")
# Three times the channel layer's 5 s blocking pop: a healthy Redis always
# answers the pop first, even when this process's event loop runs late.
REDIS_READ_TIMEOUT_SECONDS = env_float("REDIS_READ_TIMEOUT_SECONDS", 15)
# The cache (the password limits' counts) waits this long for Redis at most:
# a Redis that accepts connections but never answers would otherwise hang
# every sign-in; past it the limit fails closed with a polite 503.
REDIS_CACHE_OPTIONS = {
    "socket_connect_timeout": env_float("REDIS_CACHE_TIMEOUT_SECONDS", 3),
    "socket_timeout": env_float("REDIS_CACHE_TIMEOUT_SECONDS", 3),
}
# Which channels-redis layer carries the sockets' messages: "pubsub" (the
# default: Redis PUBLISH/SUBSCRIBE, one subscription per process and group)
# or "list" (the list-based RedisChannelLayer, queues that outlive a process).
# Pub/sub costs each server less CPU a deal (docs/benchmarks.md). It keeps
# no message for a process cut off from Redis: paigow_site.pubsub's layer
# (channels-redis's, with each subscription confirmed before it returns)
# tells every socket when it has subscribed again after losing Redis, and
# the socket reads its view afresh (``table.resync``).
CHANNEL_LAYER = os.environ.get("CHANNEL_LAYER", "pubsub")
if CHANNEL_LAYER not in ("pubsub", "list"):
    raise ImproperlyConfigured('CHANNEL_LAYER is "pubsub" or "list".')
if REDIS_URL and CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "paigow_site.pubsub.ConfirmedPubSubChannelLayer",
            "CONFIG": {
                # A publish that gets no answer for this long fails, rather
                # than hanging its socket (redis-py issue 2807).
                "hosts": [{"address": REDIS_URL, "socket_timeout": REDIS_READ_TIMEOUT_SECONDS}],
                "prefix": os.environ.get("CHANNELS_PREFIX", "paigow"),
                "on_reconnect": "table.resync",
            },
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py fails at once (it does not wait) once a pool has
                # this many connections busy; 100, its default, ran out when
                # 400 sockets connected together (docs/benchmarks.md).
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "max_connections": env_int("REDIS_MAX_CONNECTIONS", 1000),
                        # The layer waits for messages with a blocking pop of
                        # 5 s (channels_redis' brpop_timeout); redis-py 8 gives
                        # every read a 5 s socket timeout by default, which
                        # cut that wait short and closed every idle socket
                        # with 1011 (redis-py issues 4091, 2807). A read
                        # timeout well past the pop's still notices a Redis
                        # that stopped answering.
                        "socket_timeout": REDIS_READ_TIMEOUT_SECONDS,
                    }
                ],
                "prefix": os.environ.get("CHANNELS_PREFIX", "paigow"),
                # All sockets of a server process share one Redis queue, and
                # a message past this many waiting is dropped: a player would
                # miss a refresh. 100, the default, was reached at 50 tables.
                "capacity": env_int("CHANNELS_CAPACITY", 5000),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "paigow"),
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL or env_bool("CELERY_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Keep reconnecting to the broker for as long as it is down, as daphne does;
# Celery's default gives up after 100 tries (about 45 minutes) and exits.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A task running when the broker connection is lost can no longer be
# acknowledged: cancel it (Celery 6's default); its message comes back after
# the visibility timeout, and every task is idempotent.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TIMEZONE = "UTC"
# A worker lowers its own CPU priority by this much as it starts (os.nice):
# on cores it shares with the sockets, the background work waits for what
# they leave idle. The heavy work (decision costs, analyses) belongs on CPUs
# of its own: docker-compose.yml gives its workers theirs (cpuset). 0 keeps
# the inherited priority.
WORKER_NICE = env_int("WORKER_NICE", 10)
# The luck checks and decision costs a web process asks for within this many
# seconds go to the broker as one message a task (games.enqueue._Batches).
TASK_BATCH_SECONDS = env_float("TASK_BATCH_SECONDS", 0.25)
# A queue name of its own lets several stacks share one Redis (the tests do).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
# The decision costs (by far the heaviest background work, more than a worker
# on a shared machine keeps up with at a high deal rate) have a queue of
# their own, so a luck check, which the other player waits to see, is never queued
# behind a backlog of them. A worker started without -Q takes from both in
# turn; production can run one worker a queue (docs/architecture.md).
CELERY_COSTS_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-costs"
# The analyses a player asks for (an exact analysis from the explorer, a
# practice hand's 21 settings) are heavy too, and one account could queue
# thousands: they have a queue of their own, so neither they nor the costs
# ever hold back a luck check (docs/architecture.md, "Queues and workers").
CELERY_ANALYSIS_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-analysis"
# (kombu's Queue has no annotated __init__.)
CELERY_TASK_QUEUES = (
    Queue(CELERY_TASK_DEFAULT_QUEUE),  # type: ignore[no-untyped-call]
    Queue(CELERY_COSTS_QUEUE),  # type: ignore[no-untyped-call]
    Queue(CELERY_ANALYSIS_QUEUE),  # type: ignore[no-untyped-call]
)
CELERY_TASK_ROUTES = {
    **{
        name: {"queue": CELERY_COSTS_QUEUE}
        for name in ("games.decision_cost", "games.decision_cost_hands",
                     "games.decision_costs_sweep", "games.practice_cost_hands",
                     "games.practice_costs_sweep", "games.practice_test_score")
    },
    **{
        name: {"queue": CELERY_ANALYSIS_QUEUE}
        for name in ("games.exact_analyse", "games.practice_analyse")
    },
}
# What one account may ask of the analysis queue (games.services.analysis):
# at most ANALYSIS_AT_ONCE analyses queued or running at once, and at most
# ANALYSIS_PER_MINUTE started a minute; past either, the request is refused
# (429 "analysis_budget", with a sentence). A player at the explorer or the
# practice table uses one or two at a time; raise them for a trusted
# account's scripts only on a worker that can keep up. Each one-at-once slot
# expires by itself after ANALYSIS_SLOT_SECONDS even if its worker was
# killed before it could give it back.
ANALYSIS_AT_ONCE = env_int("ANALYSIS_AT_ONCE", 3)
ANALYSIS_PER_MINUTE = env_int("ANALYSIS_PER_MINUTE", 30)
ANALYSIS_SLOT_SECONDS = env_int("ANALYSIS_SLOT_SECONDS", 300)
# A message a worker took and did not acknowledge (it was killed, or lost
# Redis) goes back to its queue this many seconds after it was delivered
# (kombu's Redis "visibility timeout"; its default is an hour). Every task is
# idempotent, so a message run again has one effect; a task due later than
# this (a countdown, a retry) would be delivered again and again, so the
# system check "paigow.E002" refuses a countdown that does not fit. Lower it
# to recover sooner; raise it only with REPORT_REFRESH_SECONDS.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 90)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # Look for such messages every 10 s (kombu's default looks every 100 s:
    # 10 s x a throttle of 10), so one is back within the timeout + 10 s.
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
# The Redis transport of paigow_site.celery: kombu's, except that a channel
# closing under a lost connection leaves its unacknowledged messages to the
# visibility timeout (kombu's own restore there killed the worker).
CELERY_BROKER_TRANSPORT = "paigow_site.celery:RedisTransport" if REDIS_URL else None
# A task that failed on an unreachable database is retried after at most this
# many seconds (exponential backoff); it must be due within the visibility
# timeout (paigow.E002), as must the report refresh's countdown.
TASK_RETRY_BACKOFF_MAX = env_int("TASK_RETRY_BACKOFF_MAX", 60)
# The beat's luck sweep: every LUCK_SWEEP_SECONDS, check the stored luck
# estimates of hands revealed over LUCK_SWEEP_AFTER_SECONDS ago that have no
# check yet (theirs was lost with a broker or a worker), so the other seat
# never sees "checking" for longer than about a minute and a half.
LUCK_SWEEP_SECONDS = env_float("LUCK_SWEEP_SECONDS", 60)
LUCK_SWEEP_AFTER_SECONDS = env_float("LUCK_SWEEP_AFTER_SECONDS", 30)
# Background upkeep (games.tasks over games.services.upkeep), every
# UPKEEP_SECONDS (default 15 minutes).
UPKEEP_SECONDS = env_float("UPKEEP_SECONDS", 900)
# A player's skill-report aggregates are rebuilt at most once a window of this
# many seconds, that long after the first reveal in it (0: after every
# reveal, the eager default). The report reads the hands meanwhile.
REPORT_REFRESH_SECONDS = env_int("REPORT_REFRESH_SECONDS", 0 if CELERY_TASK_ALWAYS_EAGER else 60)
# A web process queues the windowed refreshes it is asked for within this
# many seconds as one message (games.enqueue._Batches, as the batches above).
REPORT_REFRESH_BATCH_SECONDS = env_float("REPORT_REFRESH_BATCH_SECONDS", 5)
CELERY_BEAT_SCHEDULE = {
    "tables-close-idle": {"task": "games.tables_close_idle", "schedule": UPKEEP_SECONDS},
    "invites-expire": {"task": "games.invites_expire", "schedule": UPKEEP_SECONDS},
    "luck-audit": {"task": "games.luck_audit", "schedule": UPKEEP_SECONDS * 4},
    "luck-sweep": {"task": "games.luck_sweep", "schedule": LUCK_SWEEP_SECONDS},
    "decision-costs-sweep": {"task": "games.decision_costs_sweep", "schedule": UPKEEP_SECONDS},
    "practice-costs-sweep": {"task": "games.practice_costs_sweep", "schedule": UPKEEP_SECONDS},
    "client-messages-forget": {
        "task": "games.client_messages_forget",
        "schedule": UPKEEP_SECONDS * 4,
    },
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Static files: whitenoise in every mode. The browser client loads WebAssembly
# and ES modules, whose types must be exact or Pyodide hangs.
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "frontend" / "src", BASE_DIR / "frontend" / "build"]
for _static_dir in STATICFILES_DIRS:
    _static_dir.mkdir(parents=True, exist_ok=True)
WHITENOISE_MIMETYPES = {".wasm": "application/wasm", ".mjs": "text/javascript"}
WHITENOISE_USE_FINDERS = DEBUG or TESTING
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_IMMUTABLE_FILE_TEST = immutable_file
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Personal API tokens (accounts.tokens): only a SHA-512 digest is stored.
        # First, because DRF asks the first class for the WWW-Authenticate
        # header: a missing or bad token answers 401 with "WWW-Authenticate:
        # Token" (session authentication has no header, so it would be 403).
        "accounts.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "games.api.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "games.api.errors.exception_handler",
}
# A personal token is made on the account page, shown once, revocable there.
REST_KNOX = {"TOKEN_TTL": timedelta(days=90), "TOKEN_PREFIX": "pgl_", "AUTO_REFRESH": False}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pai Gow Lab API",
    "DESCRIPTION": "A player's own hand history, sessions and decision-skill reports.",
    "VERSION": VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page's Swagger UI is served from the site's own static files
    # (drf-spectacular-sidecar), never a CDN, and checks nothing elsewhere.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# Production hardening: secure cookies, HSTS, HTTPS redirect behind a proxy.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp) on every response, pages and static
# files alike. Nothing inline runs: every script and style is a file of the
# site. 'wasm-unsafe-eval' lets the engine worker compile Pyodide's
# WebAssembly; it allows no JavaScript eval (Pyodide needs none). Chromium
# gives a worker the policy of its own script's response, older browsers the
# page's, so the pages carry it too. 'self' covers the table's same-origin
# ws:/wss: socket. The nonce is only for the inline style of DRF's browsable
# API (templates/rest_framework/api.html), and is in the header only on a
# response that used it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, WASM_UNSAFE_EVAL],
        "style-src": [SELF, NONCE],
        "img-src": [SELF],
        "connect-src": [SELF],
        "worker-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Invite tokens are secrets: redacted from every record (paigow_site.logfilters).
    "filters": {"redact_invites": {"()": "paigow_site.logfilters.RedactInviteTokens"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["redact_invites"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "daphne": {"level": "WARNING"},
        # Django's own handlers (its DEBUG console, mail_admins) would write a
        # refused request's path unfiltered: django.* goes to the filtered one.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

# Sign-up forms one address may submit per 15 minutes (made and refused
# alike). Raise it behind a shared address (a school, a carrier's NAT); the
# browser tests raise it because every one of them signs up from 127.0.0.1.
SIGN_UPS_PER_ADDRESS = env_int("SIGN_UPS_PER_ADDRESS", 10)

# E-mail: the address a player verifies on the account page, and the
# password-reset link sent to it (accounts.emails). Where mail goes:
# - EMAIL_HOST set: SMTP there. EMAIL_PORT (587), EMAIL_HOST_USER and
#   EMAIL_HOST_PASSWORD (none), EMAIL_USE_TLS (1: STARTTLS) or EMAIL_USE_SSL
#   (0; 1 for implicit TLS, usually port 465), EMAIL_TIMEOUT seconds (10: an
#   SMTP server that hangs never holds a request longer). DEFAULT_FROM_EMAIL
#   (the sender players see) is then required in production.
# - else EMAIL_FILE_PATH set: each mail is a file in that folder (the browser
#   tests read the link there; a test server without mail).
# - else with DEBUG (the embedded default): each mail is printed on the console.
# - else (production without either): no mail is sent; the account page asks
#   for no address and the reset page says a forgotten password cannot be reset
#   by e-mail here. It is the operator's choice, and said loudly: a warning
#   (accounts.W001) from `manage.py check` and migrate, and in the log at start.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
    if EMAIL_USE_SSL:
        EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
    if EMAIL_USE_TLS and EMAIL_USE_SSL:
        raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both.")
    EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10)
elif EMAIL_FILE_PATH:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
elif DEBUG:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"
# Whether the site sends mail at all (the e-mail on the account page, the reset).
EMAIL_ENABLED = bool(EMAIL_HOST or EMAIL_FILE_PATH or DEBUG)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "")
if not DEFAULT_FROM_EMAIL:
    if EMAIL_HOST and not DEBUG:
        raise ImproperlyConfigured(
            "DEFAULT_FROM_EMAIL is not set. With EMAIL_HOST, production needs the sender "
            'players see, e.g. "Pai Gow Lab <noreply@paigow.example.org>".'
        )
    DEFAULT_FROM_EMAIL = "Pai Gow Lab <noreply@localhost>"
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Friend tables: how long an invite link stays good, and how long a table
# socket counts as connected after its last heartbeat (a process that died
# leaves rows behind; they age out after this).
INVITE_TTL_HOURS = env_int("INVITE_TTL_HOURS", 24)
PRESENCE_HEARTBEAT_SECONDS = env_int("PRESENCE_HEARTBEAT_SECONDS", 20)
PRESENCE_TTL_SECONDS = env_int("PRESENCE_TTL_SECONDS", 60)

# Table sockets: how many threads of a server process run their database
# calls (each thread holds its own connection). PostgreSQL takes them in
# parallel; SQLite has one writer, so one thread there. Two, not more: the
# threads share one GIL, and four gave the same deals/s with 2-3x longer
# tails (docs/benchmarks.md).
SOCKET_DB_THREADS = env_int("SOCKET_DB_THREADS", 2 if DATABASE_URL else 1)
# What one user may cost: open table sockets (the next is closed with 4429),
# and per socket a token bucket of messages (a page sends a few a minute; a
# burst above this gets "too_many_messages", and going on closes it, 4429).
SOCKETS_PER_USER = env_int("SOCKETS_PER_USER", 8)
SOCKET_MESSAGES_PER_SECOND = env_float("SOCKET_MESSAGES_PER_SECOND", 20)
SOCKET_MESSAGES_BURST = env_int("SOCKET_MESSAGES_BURST", 40)

# Background work: a waiting or betting table untouched this long is closed;
# the luck audit re-derives this many stored estimates per run.
TABLE_IDLE_HOURS = env_float("TABLE_IDLE_HOURS", 24)
LUCK_AUDIT_SAMPLE = env_int("LUCK_AUDIT_SAMPLE", 50)
# A revealed hand's decision cost is first estimated over this many opponents
# of the explorer's stream (about 80 ms of CPU a hand, docs/benchmarks.md),
# off the socket's path; the beat's sweep estimates this many missed hands a run.
DECISION_COST_SAMPLES = env_int("DECISION_COST_SAMPLES", 10000)
DECISION_COST_SWEEP = env_int("DECISION_COST_SWEEP", 50)
# The 100-hand test (/practice/test/): how many hands a new attempt deals, the
# first ones of test N's published order. 100 in production; the browser tests
# set a few so that a test plays quickly.
PRACTICE_TEST_HANDS = env_int("PRACTICE_TEST_HANDS", 100)
if not 1 <= PRACTICE_TEST_HANDS <= 100:
    raise ImproperlyConfigured("PRACTICE_TEST_HANDS is a whole number from 1 to 100.")
# How long a socket message id is kept against a resend of it.
CLIENT_MESSAGE_HOURS = env_float("CLIENT_MESSAGE_HOURS", 24)
# ... and how many a seat keeps at most (its newest; docs/protocol.md).
CLIENT_MESSAGES_PER_SEAT = env_int("CLIENT_MESSAGES_PER_SEAT", 100)
