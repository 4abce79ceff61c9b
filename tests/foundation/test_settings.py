"""Settings come from the environment, with loud failures in production."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys

import pytest

from tests.conftest import REPO

PRINT_SETTINGS = (
    "import json, django; django.setup(); from django.conf import settings as s;"
    "print(json.dumps({'db': s.DATABASES['default']['ENGINE'],"
    " 'layer': s.CHANNEL_LAYERS['default']['BACKEND'],"
    " 'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL,"
    " 'debug': s.DEBUG, 'secure_cookie': getattr(s, 'SESSION_COOKIE_SECURE', False),"
    " 'hsts': getattr(s, 'SECURE_HSTS_SECONDS', 0)}))"
)


def run_python(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**env, "DJANGO_SETTINGS_MODULE": "paigow_site.settings"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )


def settings_under(env: dict[str, str]) -> dict[str, object]:
    result = run_python(PRINT_SETTINGS, env)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def production_env(clean_env: dict[str, str]) -> dict[str, str]:
    return {
        **clean_env,
        "DJANGO_DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "paigow.example",
        # Production sends the password-reset mail (else accounts.W001 warns).
        "EMAIL_HOST": "smtp.paigow.example",
        "DEFAULT_FROM_EMAIL": "Pai Gow Lab <noreply@paigow.example>",
    }


def test_it_runs_embedded_with_no_environment(clean_env: dict[str, str]) -> None:
    seen = settings_under(clean_env)
    assert seen["db"] == "django.db.backends.sqlite3"
    assert seen["layer"] == "channels.layers.InMemoryChannelLayer"
    assert seen["eager"] is True
    assert seen["debug"] is True


def test_database_url_switches_to_postgresql(clean_env: dict[str, str]) -> None:
    env = {**clean_env, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/paigow"}
    assert settings_under(env)["db"] == "django.db.backends.postgresql"


def test_redis_url_switches_the_layer_and_celery_to_redis(clean_env: dict[str, str]) -> None:
    env = {**clean_env, "REDIS_URL": "redis://127.0.0.1:6379/0"}
    seen = settings_under(env)
    assert seen["layer"] == "paigow_site.pubsub.ConfirmedPubSubChannelLayer"
    assert seen["eager"] is False
    assert seen["broker"] == "redis://127.0.0.1:6379/0"


def test_channel_layer_list_keeps_the_list_based_layer(clean_env: dict[str, str]) -> None:
    env = {**clean_env, "REDIS_URL": "redis://127.0.0.1:6379/0", "CHANNEL_LAYER": "list"}
    assert settings_under(env)["layer"] == "channels_redis.core.RedisChannelLayer"


def test_an_unknown_channel_layer_is_refused_loudly(clean_env: dict[str, str]) -> None:
    env = {**clean_env, "REDIS_URL": "redis://127.0.0.1:6379/0", "CHANNEL_LAYER": "lists"}
    result = run_python(PRINT_SETTINGS, env)
    assert result.returncode != 0
    assert 'CHANNEL_LAYER is "pubsub" or "list".' in result.stderr


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS"])
def test_production_refuses_to_start_without(missing: str, clean_env: dict[str, str]) -> None:
    env = production_env(clean_env)
    del env[missing]
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert missing in result.stderr


def test_production_refuses_the_development_secret(clean_env: dict[str, str]) -> None:
    env = {**production_env(clean_env), "SECRET_KEY": "short"}
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_has_secure_cookies_and_hsts(clean_env: dict[str, str]) -> None:
    seen = settings_under(production_env(clean_env))
    assert seen["debug"] is False
    assert seen["secure_cookie"] is True
    assert int(str(seen["hsts"])) >= 31536000


def test_check_deploy_is_clean_in_production(clean_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=production_env(clean_env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_a_bad_debug_flag_is_an_error_not_a_guess(clean_env: dict[str, str]) -> None:
    result = run_python("import django; django.setup()", {**clean_env, "DJANGO_DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DJANGO_DEBUG" in result.stderr


POOL_SETTINGS = (
    "import json, django; django.setup(); from django.conf import settings as s;"
    "d = s.DATABASES['default'];"
    "print(json.dumps({'max_age': d['CONN_MAX_AGE'], 'checks': d['CONN_HEALTH_CHECKS'],"
    " 'pool': d['OPTIONS']['pool'], 'body': s.REQUEST_BODY_MAX_BYTES}))"
)
POSTGRES = "postgres://postgres@127.0.0.1:5432/paigow"


def test_postgresql_connections_come_from_a_bounded_checked_pool(
    clean_env: dict[str, str],
) -> None:
    result = run_python(POOL_SETTINGS, {**clean_env, "DATABASE_URL": POSTGRES})
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    # Borrowed per request or socket call and given back: nothing kept per thread.
    assert seen["max_age"] == 0
    # Checked as it is lent, so a PostgreSQL restart hands out no dead one.
    assert seen["checks"] is True
    assert seen["pool"] == {"min_size": 2, "max_size": 10, "timeout": 5.0, "max_idle": 60.0}


def test_the_pool_is_sized_from_the_environment(clean_env: dict[str, str]) -> None:
    env = {
        **clean_env,
        "DATABASE_URL": POSTGRES,
        "DB_POOL_MIN_SIZE": "1",
        "DB_POOL_MAX_SIZE": "4",
        "DB_POOL_TIMEOUT_SECONDS": "2.5",
        "DB_POOL_MAX_IDLE_SECONDS": "30",
        "REQUEST_BODY_MAX_BYTES": "5000",
    }
    result = run_python(POOL_SETTINGS, env)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["pool"] == {"min_size": 1, "max_size": 4, "timeout": 2.5, "max_idle": 30.0}
    assert seen["body"] == 5000


@pytest.mark.parametrize("extra", [{"DB_CONN_MAX_AGE": "60"}, {"DB_POOL_MIN_SIZE": "11"}])
def test_a_leaking_or_impossible_pool_setting_is_refused_loudly(
    extra: dict[str, str], clean_env: dict[str, str]
) -> None:
    env = {**production_env(clean_env), "DATABASE_URL": POSTGRES, **extra}
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert next(iter(extra)) in result.stderr


def test_check_deploy_is_clean_with_the_pool(clean_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env={**production_env(clean_env), "DATABASE_URL": POSTGRES},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
