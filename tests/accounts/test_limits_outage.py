"""Redis down under the attempt limits: every form that counts attempts answers
503 with a sentence to try again, changes nothing, and lets no password
through uncounted (the limit fails closed).

The cache is a PRIVATE redis-server on a free port (never the shared one),
used first, then stopped under the test client.
"""

from __future__ import annotations

import logging
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from accounts.models import User
from tests.conftest import IN_CI, free_port

pytestmark = pytest.mark.django_db
PASSWORD = "a long pass phrase 1"
SENTENCE = "Please try again in a minute."


class PrivateRedis:
    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            if IN_CI:
                pytest.fail("redis-server is not installed")
            pytest.skip("redis-server is not installed")
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
        )
        client = redis.Redis(port=self.port, socket_timeout=1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def freeze(self) -> None:
        """Keep the port open but never answer (SIGSTOP): a hung Redis."""
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)


@pytest.fixture
def outage(settings: Any) -> Iterator[PrivateRedis]:
    """The cache on a private Redis that the test stops with ``outage.stop()``."""
    server = PrivateRedis()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{server.port}/0",
            # The project's own timeouts, so a hung Redis is tested as it runs.
            "OPTIONS": django_settings.REDIS_CACHE_OPTIONS,
        }
    }
    try:
        yield server
    finally:
        server.thaw()
        server.stop()


def assert_polite_503(response: Any, caplog: pytest.LogCaptureFixture) -> None:
    body = response.content.decode()
    assert response.status_code == 503, body[:500]
    assert SENTENCE in body
    assert "nothing was changed" in body
    assert "Traceback" not in body
    assert "ConnectionError" not in body
    assert response["Retry-After"] == "60"
    assert not [record for record in caplog.records if record.exc_info]


def new_user(**extra: Any) -> User:
    return User.objects.create_user(
        username=f"u{uuid.uuid4().hex[:10]}", password=PASSWORD, **extra
    )


def test_sign_in_during_an_outage_is_a_503_that_says_to_try_again(
    client: Client, outage: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    user = new_user()
    page = client.post("/accounts/sign-in/", {"username": user.username, "password": "wrong"})
    assert "Please enter a correct" in page.content.decode()  # counted in the private Redis
    outage.stop()
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/accounts/sign-in/", {"username": user.username, "password": PASSWORD}
        )
    assert_polite_503(response, caplog)
    assert "_auth_user_id" not in client.session  # not let in uncounted
    user.refresh_from_db()
    assert user.last_login is None


def test_the_admin_sign_in_during_an_outage_is_a_503_too(
    client: Client, outage: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    staff = new_user(is_staff=True)
    outage.stop()
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/admin/login/", {"username": staff.username, "password": PASSWORD, "next": "/admin/"}
        )
    assert_polite_503(response, caplog)
    assert "_auth_user_id" not in client.session


def test_sign_up_during_an_outage_makes_no_account(
    client: Client, outage: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    outage.stop()
    name = f"u{uuid.uuid4().hex[:10]}"
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/accounts/sign-up/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        )
    assert_polite_503(response, caplog)
    assert not User.objects.filter(username=name).exists()
    assert "_auth_user_id" not in client.session


def test_a_password_change_during_an_outage_changes_nothing(
    client: Client, outage: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    user = new_user()
    client.force_login(user)
    outage.stop()
    new = "another long phrase 2"
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/accounts/password/",
            {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
        )
    assert_polite_503(response, caplog)
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    assert client.get("/accounts/password/").status_code == 200  # still signed in


def test_sign_in_against_a_redis_that_hangs_is_a_503_too(
    client: Client, outage: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis that keeps its port open but never answers: the cache's read
    timeout (``REDIS_CACHE_OPTIONS``, set so it does not hang on a client
    default; redis-py before 8 had none) ends the wait."""
    user = new_user()
    assert client.post("/accounts/sign-in/", {"username": user.username, "password": "x"})
    outage.freeze()
    answers: list[Any] = []

    def sign_in() -> None:
        try:
            answers.append(
                client.post("/accounts/sign-in/", {"username": user.username, "password": PASSWORD})
            )
        finally:
            connection.close()  # this thread's own; it would outlive the test database

    thread = threading.Thread(target=sign_in, daemon=True)
    with caplog.at_level(logging.WARNING):
        thread.start()
        thread.join(60)  # a bound on the test, far above the 3 s timeout
    outage.thaw()
    assert answers, "sign-in was still waiting for the hung Redis after 60 s"
    assert_polite_503(answers[0], caplog)
    assert "_auth_user_id" not in client.session
