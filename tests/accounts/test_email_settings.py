"""Where mail goes is read from the environment: SMTP with EMAIL_HOST, files
with EMAIL_FILE_PATH, the console in the embedded default; production without
mail says so loudly (a check warning and a log line at start), and production
with SMTP but no sender refuses to start."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys

from tests.conftest import REPO
from tests.foundation.test_settings import run_python

MAIL = (
    "import json, django; django.setup(); from django.conf import settings as s;"
    "print(json.dumps({'backend': s.EMAIL_BACKEND, 'enabled': s.EMAIL_ENABLED,"
    " 'host': s.EMAIL_HOST, 'port': getattr(s, 'EMAIL_PORT', None),"
    " 'tls': s.EMAIL_USE_TLS, 'ssl': s.EMAIL_USE_SSL, 'timeout': s.EMAIL_TIMEOUT,"
    " 'user': s.EMAIL_HOST_USER, 'password': s.EMAIL_HOST_PASSWORD,"
    " 'sender': s.DEFAULT_FROM_EMAIL}))"
)


def production(clean_env: dict[str, str], **extra: str) -> dict[str, str]:
    return {**clean_env, "DJANGO_DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "paigow.example", **extra}


def mail_settings(env: dict[str, str]) -> dict[str, object]:
    result = run_python(MAIL, env)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_embedded_default_prints_mail_on_the_console(clean_env: dict[str, str]) -> None:
    seen = mail_settings(clean_env)
    assert seen["backend"] == "django.core.mail.backends.console.EmailBackend"
    assert seen["enabled"] is True


def test_email_file_path_writes_files(clean_env: dict[str, str], tmp_path: object) -> None:
    seen = mail_settings({**clean_env, "EMAIL_FILE_PATH": str(tmp_path)})
    assert seen["backend"] == "django.core.mail.backends.filebased.EmailBackend"


def test_email_host_is_smtp_from_the_environment(clean_env: dict[str, str]) -> None:
    seen = mail_settings(production(
        clean_env, EMAIL_HOST="smtp.example", EMAIL_HOST_USER="bot", EMAIL_HOST_PASSWORD="pw",
        DEFAULT_FROM_EMAIL="Pai Gow Lab <noreply@example>",
    ))
    assert seen == {
        "backend": "django.core.mail.backends.smtp.EmailBackend", "enabled": True,
        "host": "smtp.example", "port": 587, "tls": True, "ssl": False, "timeout": 10.0,
        "user": "bot", "password": "pw", "sender": "Pai Gow Lab <noreply@example>",
    }
    implicit = mail_settings(production(
        clean_env, EMAIL_HOST="smtp.example", EMAIL_PORT="465", EMAIL_USE_SSL="1",
        DEFAULT_FROM_EMAIL="noreply@example",
    ))
    assert (implicit["port"], implicit["tls"], implicit["ssl"]) == (465, False, True)


def test_production_smtp_without_a_sender_refuses_to_start(clean_env: dict[str, str]) -> None:
    result = run_python("import django; django.setup()",
                        production(clean_env, EMAIL_HOST="smtp.example"))
    assert result.returncode != 0
    assert "DEFAULT_FROM_EMAIL is not set" in result.stderr


def test_tls_and_ssl_together_are_refused(clean_env: dict[str, str]) -> None:
    result = run_python("import django; django.setup()", {
        **clean_env, "EMAIL_HOST": "smtp.example", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1",
    })
    assert result.returncode != 0
    assert "EMAIL_USE_TLS and EMAIL_USE_SSL" in result.stderr


def test_production_without_mail_says_so_at_start_and_in_the_checks(
    clean_env: dict[str, str],
) -> None:
    env = production(clean_env)
    seen = mail_settings(env)
    assert seen["enabled"] is False
    assert seen["backend"] == "django.core.mail.backends.dummy.EmailBackend"
    started = run_python("import django; django.setup()", env)
    assert "No EMAIL_HOST: this site sends no e-mail" in started.stderr
    checked = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )
    assert checked.returncode != 0
    assert "accounts.W001" in checked.stdout + checked.stderr
